import { describe, it, expect } from 'vitest';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseOpenFiles, openFilesWarning, WANT_OPEN_FILES } from '../../../server/commands/open-files.js';

const LIMITS = `Limit                     Soft Limit           Hard Limit           Units
Max cpu time              unlimited            unlimited            seconds
Max open files            1024                 524288               files
Max locked memory         8388608              8388608              bytes
`;

describe('open-file limit', () => {
  it('reads the soft and hard limits from /proc/<pid>/limits', () => {
    expect(parseOpenFiles(LIMITS)).toEqual({ soft: 1024, hard: 524288 });
    expect(parseOpenFiles(LIMITS.replace('1024                 524288', 'unlimited            unlimited'))).toEqual({
      soft: Infinity,
      hard: Infinity,
    });
    expect(parseOpenFiles('nothing here')).toBeNull();
  });

  it('warns below the limit a performance needs, with the command that raises it', () => {
    expect(openFilesWarning({ soft: 1024, hard: 524288 })).toMatch(
      /only 1024 open files.*about 960 clients.*ulimit -n 65536/,
    );
    expect(openFilesWarning({ soft: 1024, hard: 4096 })).toMatch(/ulimit -n 4096/);
    expect(openFilesWarning({ soft: 1024, hard: 1024 })).toMatch(/hard limit is 1024 too/);
    expect(openFilesWarning({ soft: WANT_OPEN_FILES, hard: WANT_OPEN_FILES })).toBeNull();
    expect(openFilesWarning(null)).toBeNull();
  });

  it('the server started under a low limit says so at start', async () => {
    const start = fileURLToPath(new URL('../../../server/commands/start.js', import.meta.url));
    const score = fileURLToPath(new URL('../../../scores/demo', import.meta.url));
    const dir = mkdtempSync(path.join(os.tmpdir(), 'scorecast-limits-'));
    const stderr = await new Promise((resolve) => {
      const child = execFile(
        'sh',
        [
          '-c',
          `ulimit -n 1024 && exec "${process.execPath}" "${start}" --score "${score}" --port 0 --host 127.0.0.1 --no-resume --state-file "${dir}/performance.json" --log-level warn`,
        ],
        {
          env: { ...process.env, SCORECAST_QR: '0', SCORECAST_TOKEN: 'limits-test-token' },
          timeout: 20_000,
        },
        (_err, _out, err) => resolve(err),
      );
      child.stderr?.on('data', (d) => {
        if (String(d).includes('open files')) child.kill();
      });
    });
    rmSync(dir, { recursive: true, force: true });
    expect(stderr).toMatch(/scorecast: warning: this process may hold only 1024 open files/);
  }, 25_000);
});

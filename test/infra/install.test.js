// The production install as infra/systemd/README.md documents it, run on a copy of what git
// tracks (what a clean clone holds): production dependencies only, the client built with them,
// then the server the systemd unit starts serves the demo. The recipe once needed a
// devDependency to build and failed with `vite: not found`, which no other test noticed.

import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SERVER_NODE_FLAGS } from '../../server/commands/node-flags.js';
import { forkStart } from '../helpers/fork-start.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const RECIPE = 'npm ci --omit=dev && npm run build';

describe('the documented production install', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'sc-install-'));
  /** @type {import('node:child_process').ChildProcess | null} */
  let server = null;
  afterAll(() => {
    server?.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it("is the recipe the systemd README gives, and the unit starts server/commands/start.js with the server's Node flags", () => {
    expect(readFileSync(path.join(ROOT, 'infra/systemd/README.md'), 'utf8')).toContain(`\`${RECIPE}\``);
    expect(readFileSync(path.join(ROOT, 'infra/systemd/scorecast@.service'), 'utf8')).toContain(
      `\nExecStart=/usr/bin/node ${SERVER_NODE_FLAGS.join(' ')} /opt/scorecast/server/commands/start.js\n`,
    );
  });

  it('installs and builds on a clean copy without devDependencies, and serves the demo', async () => {
    const tracked = execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' }).split('\0');
    for (const f of tracked.filter(Boolean)) {
      mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
      try {
        copyFileSync(path.join(ROOT, f), path.join(dir, f));
      } catch {
        // Deleted in the working tree and not yet committed: a clean clone would not have it.
      }
    }
    execFileSync('bash', ['-c', `(${RECIPE}) >install.log 2>&1 || { cat install.log; exit 1; }`], {
      cwd: dir,
      env: { ...process.env, npm_config_audit: 'false', npm_config_fund: 'false', NODE_ENV: 'production' },
      timeout: 240_000,
    });
    expect(() => execFileSync('npm', ['ls', 'vitest'], { cwd: dir, stdio: 'ignore' })).toThrow();

    const started = forkStart(['--port', '0', '--host', '127.0.0.1'], {
      script: path.join(dir, 'server/commands/start.js'),
      cwd: dir,
      env: { SCORECAST_TOKEN: 'install-test-token', LOG_LEVEL: 'warn' },
    });
    server = started.child;
    const { port } = await started.listening;
    const page = await fetch(`http://127.0.0.1:${port}/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toMatch(/<script type="module"[^>]* src="\/assets\/[^"]+\.js"/);
    const score = await (await fetch(`http://127.0.0.1:${port}/api/score`)).json();
    expect(score.title).toBe('First Light');
  }, 300_000);
});

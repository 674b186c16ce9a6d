import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const PROBE = fileURLToPath(new URL('../../bench/work-probe.js', import.meta.url));

/** @type {string[]} */
const dirs = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/**
 * Run a Node program with the probe preloaded and SCORECAST_PROBE_DIR set (or not), until it exits.
 * @param {string} code @param {string | null} dir
 */
function run(code, dir) {
  const child = spawn(process.execPath, ['--import', PROBE, '-e', code], {
    stdio: 'ignore',
    env: { ...process.env, ...(dir ? { SCORECAST_PROBE_DIR: dir } : {}) },
  });
  return new Promise((resolve) => child.once('exit', (status) => resolve({ pid: child.pid, status })));
}

describe('bench/work-probe.js', () => {
  it('writes its runs and their CPU to the directory, one file per process', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'probe-test-'));
    dirs.push(dir);
    const { pid, status } = /** @type {{ pid: number, status: number }} */ (
      await run(
        // Until the probe has written its first totals (after its fourth run), however slow the machine.
        `const file = require('node:path').join(process.env.SCORECAST_PROBE_DIR, process.pid + '.json');
         const t = setInterval(() => { if (require('node:fs').existsSync(file)) { clearInterval(t); } }, 20);`,
        dir,
      )
    );
    expect(status).toBe(0);
    expect(readdirSync(dir)).toEqual([`${pid}.json`]);
    const t = JSON.parse(readFileSync(path.join(dir, `${pid}.json`), 'utf8'));
    expect(t.runs % 4).toBe(0);
    expect(t.runs).toBeGreaterThanOrEqual(4);
    expect(t.computeUs).toBeGreaterThan(0);
    // Each run, with when it ran, for a reader's median over its own window.
    expect(t.recent).toHaveLength(t.runs);
    for (const [at, computeUs, memoryUs] of t.recent) {
      expect(at).toBeGreaterThan(Date.now() - 60_000);
      expect(computeUs).toBeGreaterThanOrEqual(0);
      expect(memoryUs).toBeGreaterThanOrEqual(0);
    }
    expect(t.memoryUs).toBeGreaterThan(0);
  });

  it('does nothing, and keeps no process alive, without SCORECAST_PROBE_DIR', async () => {
    const { status } = /** @type {{ status: number }} */ (await run('', null));
    expect(status).toBe(0);
  });
});

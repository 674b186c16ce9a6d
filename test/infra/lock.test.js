// One run at a time per copy of the lab: a second run waits a bounded time or refuses, saying who
// holds the lab and how to run beside it; a lock whose owner died is taken over.

import { describe, it, expect, afterEach } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { takeLock, lockOwner } from '../../infra/lab/lock.js';

const LOCK = new URL('../../infra/lab/lock.js', import.meta.url).href;
/** @type {string[]} */
const dirs = [];
/** @type {import('node:child_process').ChildProcess[]} */
const children = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function lockPath() {
  const d = mkdtempSync(path.join(os.tmpdir(), 'lab-lock-'));
  dirs.push(d);
  return path.join(d, 'state', 'ab.lock');
}

/**
 * Another process that takes the lock, says so, and lets go after `holdMs`.
 * @param {string} file @param {number} holdMs
 */
async function otherRun(file, holdMs) {
  const code = `const { takeLock } = await import(${JSON.stringify(LOCK)});
const release = await takeLock({ file: ${JSON.stringify(file)}, id: 'ab', what: 'npm run lab (other)' });
console.log('held');
setTimeout(() => { release(); console.log('released'); }, ${holdMs});`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  await new Promise((resolve) => child.stdout?.once('data', resolve));
  return child;
}

describe('lab lock', () => {
  it('a second run refuses at once, naming the holder and the way to run beside it', async () => {
    const file = lockPath();
    const other = await otherRun(file, 60_000);
    const err = await takeLock({ file, id: 'ab', what: 'me' }).catch((e) => e);
    expect(err).toBeInstanceOf(Error);
    expect(err.message).toContain(`lab copy "ab" is in use by pid ${other.pid} (npm run lab (other)`);
    expect(err.message).toContain('--wait SECONDS');
    expect(err.message).toContain('SCORECAST_LAB_ID=');
    expect(lockOwner(file)?.pid).toBe(other.pid);
  });

  it('a second run told to wait gets the lab when the first lets go, and refuses when the wait runs out', async () => {
    const file = lockPath();
    await otherRun(file, 400);
    /** @type {string[]} */
    const said = [];
    const release = await takeLock({ file, id: 'ab', what: 'me', waitMs: 10_000, log: (s) => said.push(s) });
    expect(lockOwner(file)?.pid).toBe(process.pid);
    expect(said[0]).toMatch(/in use by pid \d+ .*waiting up to 10 s/);
    release();
    expect(existsSync(file)).toBe(false);

    await otherRun(file, 60_000);
    const t0 = Date.now();
    await expect(takeLock({ file, id: 'ab', what: 'me', waitMs: 600 })).rejects.toThrow(/not freed within 1 s/);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(550);
  });

  it('takes over a lock whose owner is gone', async () => {
    const file = lockPath();
    const gone = spawnSync(process.execPath, ['-e', 'console.log(process.pid)'], { encoding: 'utf8' });
    const deadPid = Number(gone.stdout.trim());
    await takeLock({ file, id: 'ab', what: 'first' }).then((release) => {
      // Our own lock, rewritten as if a killed run had left it.
      writeFileSync(file, JSON.stringify({ pid: deadPid, what: 'killed run', since: '' }));
      release();
    });
    expect(JSON.parse(readFileSync(file, 'utf8')).pid).toBe(deadPid);
    expect(lockOwner(file)).toBeNull();
    const release = await takeLock({ file, id: 'ab', what: 'me' });
    expect(lockOwner(file)?.pid).toBe(process.pid);
    release();
  });

  it('the same process may take it again (a matrix and its cells); it is freed when the last lets go', async () => {
    const file = lockPath();
    const outer = await takeLock({ file, id: 'ab', what: 'matrix' });
    const inner = await takeLock({ file, id: 'ab', what: 'cell' });
    inner();
    inner();
    expect(lockOwner(file)?.pid).toBe(process.pid);
    outer();
    expect(existsSync(file)).toBe(false);
  });

  it('a run that exits without letting go leaves no lock behind', async () => {
    const file = lockPath();
    const r = spawnSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const { takeLock } = await import(${JSON.stringify(LOCK)}); await takeLock({ file: ${JSON.stringify(file)}, id: 'ab', what: 'x' }); process.exit(0);`,
      ],
      { encoding: 'utf8' },
    );
    expect(r.status, r.stderr).toBe(0);
    expect(existsSync(file)).toBe(false);
  });
});

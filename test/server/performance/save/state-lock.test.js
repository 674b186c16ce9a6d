// One save per running server: the lock beside the state file.

import path from 'node:path';
import os from 'node:os';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { describe, it, expect } from 'vitest';
import { lockStateFile } from '../../../../server/performance/save/state-lock.js';

const tmpDir = () => mkdtempSync(path.join(os.tmpdir(), 'sc-lock-'));

/** A pid that ran and is gone. */
function deadPid() {
  const done = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
  return Number(done.stdout.toString());
}

describe('the state file lock', () => {
  it('is held by one server at a time, also within one process, and let go on release', () => {
    const file = path.join(tmpDir(), 'performance.json');
    const lock = lockStateFile(file);
    expect(readFileSync(`${file}.lock`, 'utf8').split('\n')[0]).toBe(String(process.pid));
    expect(() => lockStateFile(file)).toThrow(
      expect.objectContaining({
        code: 'SC_ERR_STATE_FILE_IN_USE',
        message: expect.stringContaining(`${file} is held by the server running as pid ${process.pid}`),
      }),
    );
    lock.release();
    expect(existsSync(`${file}.lock`)).toBe(false);
    lockStateFile(file).release();
  });

  it('creates the folder of a state file that has none yet (a fresh clone has no .cache)', () => {
    const file = path.join(tmpDir(), 'not', 'yet', 'performance.json');
    lockStateFile(file).release();
  });

  it('refuses a file held by another running process', () => {
    const file = path.join(tmpDir(), 'performance.json');
    // The parent of this test runner runs, and is not us.
    writeFileSync(`${file}.lock`, `${process.ppid}\n-\n`);
    expect(() => lockStateFile(file)).toThrow(/held by the server running as pid/);
  });

  it.each([
    ['a dead pid', () => `${deadPid()}\n-\n`],
    ['an empty file (a holder killed between the create and the write)', () => ''],
    ['a running pid that started at another time (reused after a reboot)', () => `${process.ppid}\n1\n`],
  ])('takes over a stale lock: %s', (_name, text) => {
    const file = path.join(tmpDir(), 'performance.json');
    writeFileSync(`${file}.lock`, text());
    const lock = lockStateFile(file);
    expect(readFileSync(`${file}.lock`, 'utf8').split('\n')[0]).toBe(String(process.pid));
    lock.release();
  });

  it('never removes a lock another server holds now', () => {
    const file = path.join(tmpDir(), 'performance.json');
    const lock = lockStateFile(file);
    // Removed by hand, then taken by another server.
    writeFileSync(`${file}.lock`, `${process.ppid}\n-\n`);
    lock.release();
    expect(readFileSync(`${file}.lock`, 'utf8')).toBe(`${process.ppid}\n-\n`);
  });
});

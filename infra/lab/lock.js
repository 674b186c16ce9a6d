// One run at a time per copy of the venue lab: a lock file beside the copy's state (instance.js),
// created atomically (O_EXCL) and holding the owner's pid and command. A second run waits for it
// for a bounded time, or refuses at once with who holds it and how to run beside it. A lock whose
// owner is gone (a run killed with SIGKILL) is taken over. The same process may take it again
// (a matrix holds it and runs its cells), and releases it when the last taker lets go.

import { mkdirSync, openSync, readFileSync, rmSync, writeSync, closeSync, statSync } from 'node:fs';
import path from 'node:path';
import { LAB_ID_ENV } from './instance.js';
import { isRunning } from '../../server/lib/pid.js';

/** How often a waiting run looks at the lock again (ms). */
export const LOCK_POLL_MS = 250;

/** A lock file without a readable owner (being written) counts as stale after this long (ms). */
const UNREADABLE_STALE_MS = 5000;

/**
 * @typedef {object} LockOwner
 * @property {number} pid
 * @property {string} what   the command that holds it
 * @property {string} since  ISO time
 */

/**
 * The lock's owner, or null when there is no lock or its owner is gone.
 * @param {string} file
 * @returns {LockOwner | null}
 */
export function lockOwner(file) {
  let text;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return null;
  }
  try {
    const o = JSON.parse(text);
    if (Number.isInteger(o.pid) && o.pid > 0 && isRunning(o.pid)) return o;
    return null;
  } catch {
    // Being written right now, or garbage: stale once it is old enough.
    try {
      return Date.now() - statSync(file).mtimeMs < UNREADABLE_STALE_MS
        ? { pid: 0, what: '(starting)', since: '' }
        : null;
    } catch {
      return null;
    }
  }
}

/** Takes held by this process, per lock file. @type {Map<string, number>} */
const held = new Map();

/**
 * Take the lock of a lab copy.
 * @param {object} o
 * @param {string} o.file      the lock file (lab.js: lockFile())
 * @param {string} o.id        the lab copy's id, for the message ('' for the default copy)
 * @param {string} o.what      this run's command, shown to a run that finds the lock taken
 * @param {number} [o.waitMs]  how long to wait for a lock held by another live run (default 0: refuse at once)
 * @param {(s: string) => void} [o.log]
 * @param {(ms: number) => Promise<void>} [o.sleep]
 * @returns {Promise<() => void>} release (idempotent)
 */
export async function takeLock({
  file,
  id,
  what,
  waitMs = 0,
  log = () => {},
  sleep = (ms) => new Promise((r) => setTimeout(r, ms)),
}) {
  const release = () => {
    const n = held.get(file) ?? 0;
    if (n === 0) return;
    if (n > 1) {
      held.set(file, n - 1);
      return;
    }
    held.delete(file);
    process.removeListener('exit', release);
    // Only our own lock file is removed: after a takeover it may be another run's.
    try {
      if (JSON.parse(readFileSync(file, 'utf8')).pid === process.pid) rmSync(file, { force: true });
    } catch {
      // gone already
    }
  };
  const n = held.get(file) ?? 0;
  if (n > 0) {
    held.set(file, n + 1);
    return once(release);
  }
  mkdirSync(path.dirname(file), { recursive: true });
  const t0 = Date.now();
  let told = false;
  for (;;) {
    try {
      const fd = openSync(file, 'wx');
      writeSync(fd, JSON.stringify({ pid: process.pid, what, since: new Date().toISOString() }));
      closeSync(fd);
      held.set(file, 1);
      process.once('exit', release);
      return once(release);
    } catch (err) {
      if (/** @type {NodeJS.ErrnoException} */ (err).code !== 'EEXIST') throw err;
    }
    const owner = lockOwner(file);
    if (owner === null) {
      // Its owner is gone: take it over.
      rmSync(file, { force: true });
      continue;
    }
    const waited = Date.now() - t0;
    if (waited >= waitMs) throw new Error(busyMessage(id, owner, waitMs));
    if (!told) {
      told = true;
      log(
        `lab: ${labName(id)} is in use by pid ${owner.pid} (${owner.what}): waiting up to ${Math.round(waitMs / 1000)} s`,
      );
    }
    await sleep(Math.min(LOCK_POLL_MS, waitMs - waited));
  }
}

/** @param {string} id */
const labName = (id) => (id ? `lab copy "${id}"` : 'the lab');

/**
 * What a run that finds the lab in use is told.
 * @param {string} id @param {LockOwner} owner @param {number} waitMs
 */
export function busyMessage(id, owner, waitMs) {
  return `${labName(id)} is in use by pid ${owner.pid} (${owner.what}${owner.since ? `, since ${owner.since}` : ''})${
    waitMs > 0 ? ` and was not freed within ${Math.round(waitMs / 1000)} s` : ''
  }. Wait for it (--wait SECONDS), or run beside it in a copy of your own: ${LAB_ID_ENV}=<letters and digits> before the command.`;
}

/** @param {() => void} fn */
function once(fn) {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    fn();
  };
}

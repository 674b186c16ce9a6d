// The save file on disk (server/performance/save/persist.js decides when to write and what to resume): atomic
// writes, reading with a size bound, removing the temp files of an interrupted write, and moving a
// refused file aside.

import * as fsp from 'node:fs/promises';
import path from 'node:path';
import { isRunning } from '../../lib/pid.js';
import { decodeSave } from './format.js';

/** A save holds a position and one window's voters: far below this. Larger is not ours. */
const MAX_SAVE_BYTES = 64 * 1024 * 1024;

/** @typedef {import('./format.js').ReadResult} ReadResult */

/**
 * @typedef {Pick<typeof fsp, 'open' | 'rename' | 'unlink' | 'mkdir'>} WriteOps
 */

let tmpCounter = 0;

/**
 * Replace `file` with `text` so that a reader (or a restart after a crash at any moment) sees
 * either the old file or the new one, never a mix: write a temp file beside it, sync it, rename.
 * @param {string} file
 * @param {string} text
 * @param {WriteOps} [ops]  injected by tests to make a step fail
 */
export async function writeFileAtomic(file, text, ops = fsp) {
  await ops.mkdir(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}-${++tmpCounter}.tmp`;
  try {
    const handle = await ops.open(tmp, 'w');
    try {
      await handle.writeFile(text);
      // In the thread pool, not on the event loop: the beat timers do not wait for the disk.
      await handle.datasync();
    } finally {
      await handle.close();
    }
    await ops.rename(tmp, file);
  } catch (err) {
    await ops.unlink(tmp).catch(() => {});
    throw err;
  }
}

/**
 * Remove temp files a writer left beside `file` when it was killed mid-write (SIGKILL, power
 * loss): `performance.json.<pid>-<n>.tmp` of a process no longer running. Those of a running
 * process (a server sharing the file by mistake) are left alone.
 * @param {string} file
 * @returns {Promise<string[]>} the names removed
 */
export async function removeStaleTemps(file) {
  const dir = path.dirname(file);
  const prefix = `${path.basename(file)}.`;
  /** @type {string[]} */
  let names;
  try {
    names = await fsp.readdir(dir);
  } catch {
    return [];
  }
  /** @type {string[]} */
  const removed = [];
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const m = /^(\d{1,10})-\d{1,15}\.tmp$/.exec(name.slice(prefix.length));
    if (!m || Number(m[1]) === process.pid || isRunning(Number(m[1]))) continue;
    try {
      await fsp.unlink(path.join(dir, name));
      removed.push(name);
    } catch {
      // Gone already, or not ours to remove: nothing to do.
    }
  }
  return removed;
}

/**
 * @param {string} file
 * @returns {Promise<ReadResult>}
 */
export async function readSave(file) {
  /** @param {string} problem @returns {ReadResult} */
  const bad = (problem) => ({ ok: false, missing: false, code: 'SC_ERR_SAVE_UNREADABLE', problem });
  try {
    const info = await fsp.stat(file);
    if (!info.isFile()) return bad('it is not a file');
    if (info.size > MAX_SAVE_BYTES) return bad(`it is ${info.size} bytes, more than a save can be (${MAX_SAVE_BYTES})`);
    return decodeSave(await fsp.readFile(file, 'utf8'));
  } catch (err) {
    const e = /** @type {NodeJS.ErrnoException} */ (err);
    if (e.code === 'ENOENT') return { ok: false, missing: true };
    return bad(`it cannot be read: ${e.code ?? e.message}`);
  }
}

/**
 * Move a refused save out of the way, so that the next write does not overwrite it before
 * someone has looked: `performance.json.bad-2025-11-22T10-15-03.123Z`.
 * @param {string} file
 * @param {number} wall  the time to name it by
 * @returns {Promise<string>} the new name
 */
export async function keepAside(file, wall) {
  const base = `${file}.bad-${new Date(wall).toISOString().replace(/:/g, '-')}`;
  for (let n = 0; ; n++) {
    const target = n === 0 ? base : `${base}-${n}`;
    const taken = await fsp.stat(target).then(
      () => true,
      () => false,
    );
    if (taken && n < 100) continue;
    await fsp.rename(file, target);
    return target;
  }
}

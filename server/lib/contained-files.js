// Reading a score package's files, and serving them, without ever leaving the package. A package
// may come from someone else (doc/security.md): a symbolic link in it (`ln -s /etc/passwd notes.txt`),
// a link to a folder outside it, or a hard link to a file elsewhere must not publish that file.
// Every file is opened by its real path, which must lie inside the package's real folder, with
// O_NOFOLLOW (a link swapped in after the check is not followed) and O_NONBLOCK (a FIFO does not
// hang the load); once open, the descriptor's own path is checked again on Linux, and the file
// must be a regular file with one name (a second name may be a hard link from outside).

import { constants } from 'node:fs';
import { open, readlink, realpath } from 'node:fs/promises';
import path from 'node:path';
import { formatBytes } from '../../core/package-limits.js';

const FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

/**
 * An opened file with what its check found: its real path, its size, its modification time and
 * the whole of the one fstat the check makes (a reader need not ask again).
 * @typedef {{ handle: import('node:fs/promises').FileHandle, real: string, size: number, mtimeMs: number,
 *   stats: import('node:fs').Stats }} OpenedFile
 */

/** @typedef {({ ok: true } & OpenedFile) | { ok: false, missing: boolean, reason: string }} Opened */

/**
 * @param {string} root  a real path
 * @param {string} p     a real path
 */
const inside = (root, p) => p === root || p.startsWith(root.endsWith(path.sep) ? root : root + path.sep);

/**
 * Where an open descriptor really is (Linux), or null where the system cannot say.
 * @param {import('node:fs/promises').FileHandle} handle
 */
async function pathOf(handle) {
  try {
    return await readlink(`/proc/self/fd/${handle.fd}`);
  } catch {
    return null;
  }
}

/**
 * Open a file for reading by its real path, checking that it is a regular file with one name
 * inside `root` (a real path). Never throws for what the file system says.
 * @param {string} root
 * @param {string} file  absolute path
 * @param {number} maxBytes
 * @returns {Promise<Opened>}
 */
async function openChecked(root, file, maxBytes) {
  let handle;
  try {
    handle = await open(file, FLAGS);
  } catch (err) {
    const code = /** @type {NodeJS.ErrnoException} */ (err).code;
    if (code === 'ENOENT' || code === 'ENOTDIR')
      return { ok: false, missing: true, reason: 'does not exist in the package' };
    if (code === 'ELOOP')
      return { ok: false, missing: false, reason: 'is a symbolic link; put the file itself in the package' };
    return { ok: false, missing: false, reason: `cannot be read (${code ?? 'error'})` };
  }
  /** @param {string} reason @returns {Promise<Opened>} */
  const refuse = async (reason) => {
    await handle.close();
    return { ok: false, missing: false, reason };
  };
  const where = await pathOf(handle);
  if (where !== null && !inside(root, where))
    return refuse('leads outside the package (a link); put the file itself in the package');
  const info = await handle.stat();
  if (!info.isFile()) return refuse('is not a regular file');
  if (info.nlink > 1)
    return refuse(
      `has ${info.nlink} names (a hard link, which may lead outside the package); put a copy of the file in the package`,
    );
  if (info.size > maxBytes)
    return refuse(
      `is ${formatBytes(info.size)}, more than the ${formatBytes(maxBytes)} a file of its kind may be (doc/score-format.md, "Limits")`,
    );
  return { ok: true, handle, real: where ?? file, size: info.size, mtimeMs: info.mtimeMs, stats: info };
}

/**
 * Open `rel` inside the package folder `root` (its real path, see realRoot).
 * @param {string} root
 * @param {string} rel   relative path from the manifest (already checked to have no "..")
 * @param {number} maxBytes
 * @returns {Promise<Opened>}
 */
export async function openInPackage(root, rel, maxBytes) {
  let real;
  try {
    real = await realpath(path.join(root, rel));
  } catch (err) {
    const code = /** @type {NodeJS.ErrnoException} */ (err).code;
    if (code === 'ENOENT' || code === 'ENOTDIR')
      return { ok: false, missing: true, reason: 'does not exist in the package' };
    return { ok: false, missing: false, reason: `cannot be read (${code ?? 'error'})` };
  }
  if (!inside(root, real))
    return {
      ok: false,
      missing: false,
      reason: 'leads outside the package (a link); put the file itself in the package',
    };
  return openChecked(root, real, maxBytes);
}

/**
 * The real path of a package folder, or null when it does not exist.
 * @param {string} dir
 */
export async function realRoot(dir) {
  return realpath(dir).catch(() => null);
}

/**
 * Read all of an opened file and close it.
 * @param {import('node:fs/promises').FileHandle} handle
 */
export async function readAll(handle) {
  try {
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}

/**
 * Read exactly `size` bytes of an opened file from its start, and close it: null when it has
 * fewer (cut short since it was checked). One read where the file is whole, no second fstat
 * (FileHandle.readFile asks the size again).
 * @param {import('node:fs/promises').FileHandle} handle
 * @param {number} size
 * @returns {Promise<Buffer | null>}
 */
export async function readExactly(handle, size) {
  try {
    const data = Buffer.allocUnsafe(size);
    let at = 0;
    while (at < size) {
      const { bytesRead } = await handle.read(data, at, size - at, at);
      if (bytesRead === 0) return null;
      at += bytesRead;
    }
    return data;
  } finally {
    await handle.close();
  }
}

/**
 * Open a file the loader listed, to serve it: the same checks as at load, so a file replaced by
 * a link after the load is refused, not followed.
 * @param {string} root  real path of the folder the file must be in
 * @param {string} file  its real path, as the loader found it
 * @returns {Promise<OpenedFile | null>}  with its size and time as the check found them
 */
export async function openServed(root, file) {
  const opened = await openChecked(root, file, Infinity);
  if (!opened.ok) return null;
  const { ok, ...checked } = opened;
  return checked;
}

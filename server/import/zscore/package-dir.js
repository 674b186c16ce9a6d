// The folder an importer writes a score package into: new or empty, and no write may land
// outside it, whatever names the source files carry.

import { mkdir, readdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { isSafeRelativePath } from '../../../core/manifest.js';

/**
 * Why `dir` cannot receive a new package, or null when it can (it is missing or empty).
 * @param {string} dir
 * @returns {Promise<string | null>}
 */
export async function outputDirProblem(dir) {
  let info;
  try {
    info = await stat(dir);
  } catch {
    return null;
  }
  if (!info.isDirectory()) return `${dir} exists and is not a folder; choose a new folder for the package`;
  const entries = await readdir(dir);
  return entries.length > 0
    ? `${dir} exists and is not empty; choose a new folder or empty this one (nothing was written)`
    : null;
}

/**
 * Writes package files by package-relative path, refusing any path that would leave the folder.
 * @param {string} dir
 */
export function createPackageWriter(dir) {
  const root = path.resolve(dir);
  /**
   * Absolute path of a package file; throws for names with "..", absolute paths or backslashes.
   * @param {string} rel
   */
  const resolve = (rel) => {
    const abs = path.resolve(root, rel);
    const inside = path.relative(root, abs);
    if (!isSafeRelativePath(rel) || inside === '' || inside.startsWith('..') || path.isAbsolute(inside)) {
      throw new Error(`refusing to write "${rel}": it is not a path inside the package folder ${root}`);
    }
    return abs;
  };
  return {
    root,
    resolve,
    /**
     * Write a new file (never overwrites).
     * @param {string} rel
     * @param {string | Uint8Array} data
     */
    async write(rel, data) {
      const abs = resolve(rel);
      await mkdir(path.dirname(abs), { recursive: true });
      await writeFile(abs, data, { flag: 'wx' });
    },
  };
}

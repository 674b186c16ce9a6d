// The engraving cache: one folder per content hash, holding the pages and engraved.json. A
// folder is written under a temporary name and renamed into place only when complete, so a
// folder with the hash's name is whole; one that is damaged afterwards (a file deleted, a
// truncated engraved.json) is detected on load, removed and engraved again.

import { mkdir, mkdtemp, readdir, readFile, rename, rm, stat, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { FORMAT_VERSION } from './options.js';
import { isRunning } from '../../lib/pid.js';

/** The index of a cache entry: what engraveScore returns, without the SVG text. */
export const INDEX = 'engraved.json';

/**
 * The cache is kept under this many bytes (1 GiB: some twenty concert-length scores with their
 * parts), least recently used entries first out. An entry a running process has loaded is
 * never removed, whatever the size: a server serves its pages from there.
 */
export const CACHE_MAX_BYTES = 1024 ** 3;

/** A marker a process leaves in each entry it uses: `.use-<pid>`. */
const USE_PREFIX = '.use-';

/**
 * @typedef {object} CacheEntry
 * @property {number} format
 * @property {string} hash
 * @property {string} verovio
 * @property {import('../../../core/tempo-map.js').BarSpec[]} bars
 * @property {Record<string, import('./place-beats.js').View>} views
 * @property {string[]} warnings
 * @property {Record<string, number>} files  page files and their sizes in bytes
 * @property {Pending} [pending]  layouts still to engrave; what they need is in the entry's files
 */

/**
 * A part's narrower layouts are engraved after the rest (index.js): until then the entry says
 * which, and keeps each part's MEI (`_pending-<part>.mei`) and the score's timing
 * (`_pending-timing.json`), so that a process started later finishes them instead of starting over.
 * @typedef {object} Pending
 * @property {string[]} layouts  names from PART_LAYOUTS
 * @property {string[]} parts    part ids
 */

/** The file of a part's MEI, or of the timing, kept for the pending layouts. */
export const pendingFile = (/** @type {string} */ part) => `_pending-${part}.mei`;
export const PENDING_TIMING = '_pending-timing.json';

/** Beat fields stored as columns: a 56-page score has 24,000 beats, and JSON of one array per
 * field parses several times faster than one object per beat (the warm load's main cost). */
const COLUMNS = /** @type {const} */ (['page', 'system', 'bar', 'x0', 'x1', 'y0', 'y1']);

/**
 * @param {{ pages: import('./place-beats.js').View['pages'], beats: import('./place-beats.js').Beat[] }} view
 */
const packBeats = (view) => Object.fromEntries(COLUMNS.map((c) => [c, view.beats.map((b) => b[c])]));

/**
 * @param {import('./place-beats.js').View} view
 */
function pack(view) {
  return {
    pages: view.pages,
    staff: view.staff,
    ink: view.ink,
    beats: packBeats(view),
    ...(view.layouts
      ? {
          layouts: view.layouts.map((l) => ({
            name: l.name,
            pages: l.pages,
            staff: l.staff,
            ink: l.ink,
            beats: packBeats(l),
          })),
        }
      : {}),
  };
}

/**
 * @param {Record<string, number[]>} c
 * @param {unknown} pages
 * @returns {import('./place-beats.js').Beat[]}
 */
function unpackBeats(c, pages) {
  const n = c.page.length;
  if (!Array.isArray(pages) || COLUMNS.some((k) => !Array.isArray(c[k]) || c[k].length !== n))
    throw new Error('damaged beat map');
  /** @type {import('./place-beats.js').Beat[]} */
  const beats = new Array(n);
  for (let i = 0; i < n; i++) {
    beats[i] = {
      beat: i,
      page: c.page[i],
      system: c.system[i],
      bar: c.bar[i],
      x0: c.x0[i],
      x1: c.x1[i],
      y0: c.y0[i],
      y1: c.y1[i],
    };
  }
  return beats;
}

/**
 * @param {{ pages: import('./place-beats.js').View['pages'], staff: number, ink: import('./place-beats.js').SystemInk[], beats: Record<string, number[]>, layouts?: { name: string, pages: import('./place-beats.js').View['pages'], staff: number, ink: import('./place-beats.js').SystemInk[], beats: Record<string, number[]> }[] }} packed
 * @returns {import('./place-beats.js').View}
 */
function unpack({ pages, staff, ink, beats, layouts }) {
  if (typeof staff !== 'number' || !Array.isArray(ink)) throw new Error('damaged view');
  return {
    pages,
    staff,
    ink,
    beats: unpackBeats(beats, pages),
    ...(layouts
      ? {
          layouts: layouts.map((l) => ({
            name: l.name,
            pages: l.pages,
            staff: l.staff,
            ink: l.ink,
            beats: unpackBeats(l.beats, l.pages),
          })),
        }
      : {}),
  };
}

/**
 * Read a complete cache entry, or null (a damaged entry is removed). An index replaced while it
 * was being checked (a pending entry completed: its `_pending` files go after the new index is in
 * place) is read again, not taken for damage.
 * @param {string} dir
 * @param {string} hash
 * @returns {Promise<CacheEntry | null>}
 */
export async function readEntry(dir, hash) {
  const index = path.join(dir, INDEX);
  const readIndex = () => readFile(index, 'utf8').catch(() => null);
  let text = await readIndex();
  for (let attempt = 0; text !== null; attempt++) {
    try {
      return await checkEntry(dir, hash, text);
    } catch {
      const now = await readIndex();
      if (now !== null && now !== text && attempt < 3) {
        text = now;
        continue;
      }
      await rm(dir, { recursive: true, force: true });
      return null;
    }
  }
  return null;
}

/**
 * The entry an index describes, if its version, hash and files are right; throws otherwise.
 * @param {string} dir
 * @param {string} hash
 * @param {string} text  the index
 * @returns {Promise<CacheEntry>}
 */
async function checkEntry(dir, hash, text) {
  const entry = JSON.parse(text);
  if (
    entry.format !== FORMAT_VERSION ||
    entry.hash !== hash ||
    typeof entry.views?.score !== 'object' ||
    !Array.isArray(entry.bars)
  ) {
    throw new Error('not an entry of this version');
  }
  const sizes = await Promise.all(Object.keys(entry.files).map(async (f) => (await stat(path.join(dir, f))).size));
  if (Object.values(entry.files).some((size, i) => size !== sizes[i])) throw new Error('a page file changed size');
  return {
    ...entry,
    views: Object.fromEntries(Object.entries(entry.views).map(([k, v]) => [k, unpack(/** @type {any} */ (v))])),
  };
}

/**
 * A fresh temporary folder for an entry, after removing ones left by dead processes.
 * @param {string} cacheDir
 * @param {string} hash
 */
export async function tempDir(cacheDir, hash) {
  await mkdir(cacheDir, { recursive: true });
  const prefix = `.tmp-${hash}-`;
  for (const name of await readdir(cacheDir)) {
    const pid = Number(name.startsWith(prefix) ? name.slice(prefix.length).split('-')[0] : NaN);
    if (Number.isInteger(pid) && pid !== process.pid && !isRunning(pid))
      await rm(path.join(cacheDir, name), { recursive: true, force: true });
  }
  return mkdtemp(path.join(cacheDir, `${prefix}${process.pid}-`));
}

/**
 * Write the index into `tmp` and move it to `dir`. If another process got there first, its
 * entry (of the same content) is kept.
 * @param {string} tmp
 * @param {string} dir
 * @param {Omit<CacheEntry, 'files'>} entry
 * @returns {Promise<CacheEntry>}
 */
export async function commitEntry(tmp, dir, entry) {
  /** @type {Record<string, number>} */
  const files = {};
  for (const name of (await readdir(tmp)).sort()) files[name] = (await stat(path.join(tmp, name))).size;
  const full = { ...entry, files };
  const views = Object.fromEntries(Object.entries(entry.views).map(([k, v]) => [k, pack(v)]));
  await writeFile(path.join(tmp, INDEX), JSON.stringify({ ...full, views }));
  try {
    await rename(tmp, dir);
  } catch (err) {
    const code = /** @type {NodeJS.ErrnoException} */ (err).code;
    if (code !== 'ENOTEMPTY' && code !== 'EEXIST') throw err;
    await rm(tmp, { recursive: true, force: true });
  }
  return full;
}

/**
 * Give a pending entry its layouts: move the layouts' page files from `tmp` into the entry,
 * then replace its index in one rename, so that a reader sees the old entry or the new one,
 * never half of each. The files kept for the pending layouts go last. Files of the same name
 * (another process finished the same layouts) are replaced by the same content.
 * @param {string} tmp
 * @param {string} dir
 * @param {Omit<CacheEntry, 'files' | 'pending'>} entry  without `pending`: the entry is complete
 * @returns {Promise<CacheEntry>}
 */
export async function completeEntry(tmp, dir, entry) {
  for (const name of await readdir(tmp)) await rename(path.join(tmp, name), path.join(dir, name));
  await rm(tmp, { recursive: true, force: true });
  const pendingFiles = (/** @type {string} */ name) => name.startsWith('_pending-');
  /** @type {Record<string, number>} */
  const files = {};
  for (const name of (await readdir(dir)).sort()) {
    if (name === INDEX || name.startsWith('.') || pendingFiles(name)) continue;
    files[name] = (await stat(path.join(dir, name))).size;
  }
  const full = { ...entry, files };
  const views = Object.fromEntries(Object.entries(entry.views).map(([k, v]) => [k, pack(v)]));
  const next = path.join(dir, `.${INDEX}-${process.pid}`);
  await writeFile(next, JSON.stringify({ ...full, views }));
  await rename(next, path.join(dir, INDEX));
  for (const name of await readdir(dir)) if (pendingFiles(name)) await rm(path.join(dir, name), { force: true });
  return full;
}

/**
 * Mark an entry as used by this process now: its index's mtime is the last use (for pruning)
 * and `.use-<pid>` keeps it while this process runs. Best effort: a read-only cache still works.
 * @param {string} dir
 */
export async function markUse(dir) {
  const now = new Date();
  await Promise.all([
    utimes(path.join(dir, INDEX), now, now),
    writeFile(path.join(dir, `${USE_PREFIX}${process.pid}`), ''),
  ]).catch(() => {});
}

/**
 * Remove least recently used entries until the cache holds at most `maxBytes`, sparing every
 * entry in use by a running process (its `.use-<pid>` marker) and the newest one. Temporary
 * folders are left to tempDir.
 * @param {string} cacheDir
 * @param {{ maxBytes?: number }} [options]
 * @returns {Promise<{ removed: string[], keptBytes: number }>}
 */
export async function pruneCache(cacheDir, { maxBytes = CACHE_MAX_BYTES } = {}) {
  /** @type {{ name: string, bytes: number, lastUse: number, inUse: boolean }[]} */
  const entries = [];
  for (const name of await readdir(cacheDir).catch(() => /** @type {string[]} */ ([]))) {
    if (!/^[0-9a-f]{32}$/.test(name)) continue;
    const dir = path.join(cacheDir, name);
    try {
      const files = await readdir(dir);
      let bytes = 0;
      let inUse = false;
      for (const f of files) {
        if (f.startsWith(USE_PREFIX)) {
          const pid = Number(f.slice(USE_PREFIX.length));
          if (Number.isInteger(pid) && (pid === process.pid || isRunning(pid))) inUse = true;
          continue;
        }
        bytes += (await stat(path.join(dir, f))).size;
      }
      const lastUse = (await stat(path.join(dir, INDEX)).catch(() => stat(dir))).mtimeMs;
      entries.push({ name, bytes, lastUse, inUse });
    } catch {
      // Removed meanwhile by another process: nothing to count.
    }
  }
  entries.sort((a, b) => b.lastUse - a.lastUse);
  /** @type {string[]} */
  const removed = [];
  let keptBytes = 0;
  for (const [i, e] of entries.entries()) {
    if (i === 0 || e.inUse || keptBytes + e.bytes <= maxBytes) {
      keptBytes += e.bytes;
      continue;
    }
    await rm(path.join(cacheDir, e.name), { recursive: true, force: true });
    removed.push(e.name);
  }
  return { removed, keptBytes };
}

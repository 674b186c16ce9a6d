// Readies a loaded package's files for serving (send-served.js): each file's size and time, its
// text compressed once here rather than on every request, and the whole of it held in memory
// when the package is small enough (MEMORY_BOUND_BYTES), so a page load costs no file system
// call once a file is held. A package past the bound is served from disk with the same headers.
//
// A load asks the file system as little as it can, on the thread that plays the beats: a file
// whose size and time the loader already has (it opened the file through the package checks, or
// checked its render cache's entry) is not opened again to learn them; a file the loader read
// whole is held as it read it, not read again; and a file marked `lazy` (a PDF's page images,
// tens of them in the render cache) is read into memory at its first request (holdServed), not at
// each load: with the checks' opens before it, reading them all cost the beat's thread about 20 ms
// of CPU a load and the collector a major collection every two or three (bench/RESULTS.md, h35q).

import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { openServed, readExactly } from '../lib/contained-files.js';

/**
 * @typedef {object} ServedFile
 * @property {string} file       real path (no links), as the loader opened it
 * @property {string} root       real path of the folder it must stay in (server/lib/contained-files.js)
 * @property {string} type       content type
 * @property {string} etag
 * @property {string} [br]       precompressed brotli variant
 * @property {string} [gz]       precompressed gzip variant
 * @property {Buffer} [body]     what is served instead of the file: an SVG after cleaning, or the
 *   file itself once read into memory (below)
 * @property {{ br?: Buffer, gzip?: Buffer }} [variants]  compressed copies of `body`
 * @property {number} [size]     bytes of the file (or `body`): set by the loader with `mtimeMs`
 *   when its own check of the file found them, else below
 * @property {number} [mtimeMs]  the file's modification time (Last-Modified)
 * @property {Buffer} [read]     the file's bytes as the loader read them (with `size` and `mtimeMs`
 *   from the same open): its `body` when the package is held in memory; dropped below either way
 * @property {true} [lazy]       not text, with `size` and `mtimeMs` from the loader: when the
 *   package is held in memory, the file is read at its first request (holdServed) rather than here
 * @property {Promise<boolean>} [holding]  a lazy file's read under way (holdServed)
 */

/**
 * A package whose servable files come to at most this many bytes (before compression) is served
 * from memory: the shipped scores are a few MB and ZScore's Union Rose (336 pages of
 * about 150 KB) about 50 MB; 64 MiB, twice during a reload, stays well inside a small machine's
 * memory (doc/score-format.md, "Serving").
 */
export const MEMORY_BOUND_BYTES = 64 * 1024 * 1024;

/** Brotli's best quality costs about 1 s per 2 MB; past this a file gets quality 9. */
const BROTLI_BEST_BYTES = 1024 * 1024;
/** A compressed copy is kept only when it saves at least a tenth. */
const WORTH = 0.9;

const brotli = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);

/** @param {string} type */
const isText = (type) => /^(text\/|image\/svg\+xml|application\/(json|javascript|xml))/.test(type);

/**
 * Brotli and gzip copies of `body`, each kept only when it saves a tenth or more.
 * @param {Buffer} body
 * @returns {Promise<{ br?: Buffer, gzip?: Buffer }>}
 */
export async function compress(body) {
  const quality = body.length <= BROTLI_BEST_BYTES ? zlib.constants.BROTLI_MAX_QUALITY : 9;
  const [b, g] = await Promise.all([
    brotli(body, {
      params: { [zlib.constants.BROTLI_PARAM_QUALITY]: quality, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: body.length },
    }),
    gzip(body, { level: zlib.constants.Z_BEST_COMPRESSION }),
  ]);
  /** @type {{ br?: Buffer, gzip?: Buffer }} */
  const out = {};
  if (b.length < body.length * WORTH) out.br = b;
  if (g.length < body.length * WORTH) out.gzip = g;
  return out;
}

/**
 * Read a listed file through the package checks (server/lib/contained-files.js), or null when it can no
 * longer be (gone, or a link since it was listed: it will answer 404), or is no longer what was
 * listed (`expect`: its size and time at the load).
 * @param {string} root
 * @param {string} file
 * @param {{ size: number, mtimeMs?: number }} [expect]
 */
async function readServed(root, file, expect) {
  const opened = await openServed(root, file);
  if (!opened) return null;
  if (expect && (opened.size !== expect.size || (expect.mtimeMs !== undefined && opened.mtimeMs !== expect.mtimeMs))) {
    await opened.handle.close();
    return null;
  }
  return readExactly(opened.handle, opened.size);
}

/**
 * Hold a lazy file (ServedFile.lazy) in memory for its first request: read through the package
 * checks, once however many requests ask at the same time. False when it cannot be, or is not
 * what the load listed (another size or time: changed since, so not what its content-hashed URL
 * names); the request then answers 404, and a later one tries again.
 * @param {ServedFile} served
 * @returns {Promise<boolean>}
 */
export function holdServed(served) {
  if (served.body) return Promise.resolve(true);
  if (!served.lazy || served.size === undefined) return Promise.resolve(false);
  served.holding ??= readServed(served.root, served.file, { size: served.size, mtimeMs: served.mtimeMs }).then(
    (data) => {
      delete served.holding;
      if (!data) return false;
      served.body = data;
      return true;
    },
    () => {
      delete served.holding;
      return false;
    },
  );
  return served.holding;
}

/**
 * Give every file its size and modification time, and, within `memoryBytes`, its bytes and
 * compressed copies. Files already in memory (cleaned SVG) get their compressed copies whatever
 * the package's size; a file that cannot be read is left as it is (it answers 404).
 * @param {Map<string, ServedFile>} files
 * @param {{ memoryBytes?: number }} [options]
 * @returns {Promise<{ inMemory: boolean, bytes: number }>}
 */
export async function prepareServed(files, { memoryBytes = MEMORY_BOUND_BYTES } = {}) {
  let bytes = 0;
  for (const served of files.values()) {
    if (served.body) {
      served.size = served.body.length;
    } else if (served.size === undefined || served.mtimeMs === undefined) {
      const opened = await openServed(served.root, served.file);
      if (!opened) continue;
      await opened.handle.close();
      served.size = opened.size;
      served.mtimeMs = opened.mtimeMs;
    }
    bytes += served.size;
  }
  const inMemory = bytes <= memoryBytes;
  for (const served of files.values()) {
    const { read } = served;
    delete served.read;
    if (served.size === undefined) continue;
    if (!inMemory) delete served.lazy;
    if (!served.body && inMemory) {
      if (served.lazy && !isText(served.type)) continue;
      delete served.lazy;
      const data = read ?? (await readServed(served.root, served.file, { size: served.size }));
      if (!data || data.length !== served.size) continue;
      served.body = data;
    }
    if (!served.body || !isText(served.type)) continue;
    // The engraver writes compressed copies beside its pages: read them rather than compress.
    /** @type {{ br?: Buffer, gzip?: Buffer }} */
    const variants = {};
    if (served.br) {
      const r = await readServed(served.root, served.br);
      if (r) variants.br = r;
    }
    if (served.gz) {
      const r = await readServed(served.root, served.gz);
      if (r) variants.gzip = r;
    }
    served.variants = variants.br || variants.gzip ? variants : await compress(served.body);
  }
  return { inMemory, bytes };
}

// Reads entries of a zip archive (PKWARE APPNOTE 6.3, sections 4.3.7 and 4.3.12-16): enough for
// compressed MusicXML (.mxl), whose entries are stored or deflated. Returns error values.
// An archive is untrusted: a 260 KB .mxl whose entry inflated to 256 MB took a server to a
// 4.7 GiB peak. An entry is inflated only up to the notation bound (core/package-limits.js) and
// to MAX_RATIO times its compressed size, counted while it inflates: past either, inflating stops
// and the entry is refused, whatever its header says.

import { inflateRawSync } from 'node:zlib';
import { PACKAGE_LIMITS, formatBytes } from '../../../core/package-limits.js';

/**
 * Most an entry may inflate to, as a multiple of its compressed size. MusicXML deflates about
 * 41:1 (the 4.8 MB score of bench/make-large-score.js at level 9); a zip bomb, hundreds to a
 * thousand to one (deflate's limit is about 1032:1).
 */
export const MAX_RATIO = 100;
/** Entries up to this size inflate whatever their ratio (a tiny file may compress very well). */
const RATIO_FLOOR_BYTES = 1024 * 1024;

/**
 * Why an entry cannot be read: a damaged archive, or an entry past its bounds.
 */
export class ZipEntryError extends Error {
  /**
   * @param {string} message
   * @param {boolean} tooLarge  past the notation bound or the ratio (not damage)
   */
  constructor(message, tooLarge) {
    super(message);
    this.name = 'ZipEntryError';
    this.tooLarge = tooLarge;
  }
}

/**
 * @typedef {object} ZipEntry
 * @property {string} name
 * @property {() => Buffer} read  inflate the entry (throws ZipEntryError on corrupt data, or
 *   past the notation bound or MAX_RATIO)
 */

/**
 * List the entries of a zip archive.
 * @param {Buffer} buf
 * @returns {{ ok: true, entries: ZipEntry[] } | { ok: false, message: string }}
 */
export function readZip(buf) {
  // End of central directory: signature 0x06054b50, within the last 22 + 65535 bytes.
  let eocd = -1;
  for (let i = buf.length - 22; i >= Math.max(0, buf.length - 22 - 0xffff); i--) {
    if (buf.readUInt32LE(i) === 0x06054b50) {
      eocd = i;
      break;
    }
  }
  if (eocd === -1) return { ok: false, message: 'it is not a zip archive (no end of central directory)' };
  const count = buf.readUInt16LE(eocd + 10);
  let p = buf.readUInt32LE(eocd + 16);
  /** @type {ZipEntry[]} */
  const entries = [];
  for (let k = 0; k < count; k++) {
    if (p + 46 > buf.length || buf.readUInt32LE(p) !== 0x02014b50)
      return { ok: false, message: 'its central directory is damaged' };
    const method = buf.readUInt16LE(p + 10);
    const compressedSize = buf.readUInt32LE(p + 20);
    const size = buf.readUInt32LE(p + 24);
    const nameLen = buf.readUInt16LE(p + 28);
    const extraLen = buf.readUInt16LE(p + 30);
    const commentLen = buf.readUInt16LE(p + 32);
    const local = buf.readUInt32LE(p + 42);
    const name = buf.toString('utf8', p + 46, p + 46 + nameLen);
    p += 46 + nameLen + extraLen + commentLen;
    entries.push({
      name,
      read() {
        if (local + 30 > buf.length || buf.readUInt32LE(local) !== 0x04034b50)
          throw new ZipEntryError(`entry ${name} is damaged`, false);
        const dataStart = local + 30 + buf.readUInt16LE(local + 26) + buf.readUInt16LE(local + 28);
        const data = buf.subarray(dataStart, dataStart + compressedSize);
        if (method === 0) return Buffer.from(data);
        if (method !== 8)
          throw new ZipEntryError(`entry ${name} uses compression method ${method}, not deflate`, false);
        return inflateBounded(name, data, size);
      },
    });
  }
  return { ok: true, entries };
}

/**
 * Inflate an entry, stopping as soon as its output passes the notation bound or MAX_RATIO times
 * `data` (zlib counts the output chunk by chunk and throws ERR_BUFFER_TOO_LARGE past
 * maxOutputLength, before allocating the rest).
 * @param {string} name
 * @param {Buffer} data  the compressed bytes
 * @param {number} declared  the size the central directory gives (not trusted)
 */
function inflateBounded(name, data, declared) {
  const bound = PACKAGE_LIMITS.notationBytes;
  const byRatio = Math.max(RATIO_FLOOR_BYTES, data.length * MAX_RATIO);
  const limit = Math.min(bound, byRatio);
  const tooLarge = () =>
    new ZipEntryError(
      limit === bound
        ? `entry ${name} inflates to more than ${formatBytes(bound)}, the most a notation file may be`
        : `entry ${name} inflates to more than ${MAX_RATIO} times its compressed size (${formatBytes(data.length)}), which no score does (a zip bomb)`,
      true,
    );
  if (declared > limit) throw tooLarge();
  try {
    return inflateRawSync(data, { maxOutputLength: limit });
  } catch (err) {
    if (/** @type {NodeJS.ErrnoException} */ (err).code === 'ERR_BUFFER_TOO_LARGE') throw tooLarge();
    throw new ZipEntryError(`entry ${name} is damaged (${/** @type {Error} */ (err).message})`, false);
  }
}

// Reads entries of a zip archive (PKWARE APPNOTE 6.3, sections 4.3.7 and 4.3.12-16): enough for
// compressed MusicXML (.mxl), whose entries are stored or deflated. Returns error values.

import { inflateRawSync } from 'node:zlib';

/** Largest entry inflated (bytes): a score is text; more than this is not a score. */
const MAX_ENTRY_BYTES = 256 * 1024 * 1024;

/**
 * @typedef {object} ZipEntry
 * @property {string} name
 * @property {() => Buffer} read  inflate the entry (throws on corrupt data)
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
          throw new Error(`entry ${name} is damaged`);
        const dataStart = local + 30 + buf.readUInt16LE(local + 26) + buf.readUInt16LE(local + 28);
        const data = buf.subarray(dataStart, dataStart + compressedSize);
        if (method === 0) return Buffer.from(data);
        if (method !== 8) throw new Error(`entry ${name} uses compression method ${method}, not deflate`);
        if (size > MAX_ENTRY_BYTES) throw new Error(`entry ${name} is ${size} bytes uncompressed`);
        return inflateRawSync(data, { maxOutputLength: MAX_ENTRY_BYTES });
      },
    });
  }
  return { ok: true, entries };
}

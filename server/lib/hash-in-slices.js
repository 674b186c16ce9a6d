// A content hash of a large buffer that leaves the event loop free between slices: a PDF may be up
// to 128 MiB (core/package-limits.js), which SHA-256 takes about 100 ms to hash at once here (1.2
// GB/s), held on the thread that plays the beats.

import { createHash } from 'node:crypto';

/** Bytes hashed between two turns of the event loop: about half a millisecond. */
export const SLICE_BYTES = 512 * 1024;

/**
 * The SHA-256 (hex) of `head` then `bytes`, `bytes` a slice at a time, each slice in its own turn
 * of the event loop (setImmediate: after timers and I/O that are due).
 * @param {string} head
 * @param {Uint8Array} bytes
 * @param {number} [slice]
 * @returns {Promise<string>}
 */
export async function sha256InSlices(head, bytes, slice = SLICE_BYTES) {
  const hash = createHash('sha256').update(head);
  for (let at = 0; at < bytes.length; at += slice) {
    if (at > 0) await new Promise((resolve) => setImmediate(resolve));
    hash.update(bytes.subarray(at, at + slice));
  }
  return hash.digest('hex');
}

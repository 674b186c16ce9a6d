// Worker entry for encode-png.js: a page pdftoppm drew as a PPM file, written as a PNG file,
// off the event loop that plays the beats. Poppler's own PNG writer lets libpng try every row
// filter at zlib's default level, three quarters of pdftoppm's time on a page of music; here a
// page whose pixels are all grey (most scores) is written with one channel, rows unfiltered
// (mostly white rows deflate well as they are), at zlib level 6: half the bytes for a fifth of
// the time (bench/RESULTS.md). A page with colour keeps it. Messages in:
// { id, kind: 'png', task: { from, to } }; out: { id, type: 'done', data } (the protocol of
// server/lib/worker-pool.js).

import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { parentPort } from 'node:worker_threads';
import { PNG } from 'pngjs';

const port = /** @type {import('node:worker_threads').MessagePort} */ (parentPort);

// At nice 10, as pdftoppm and the engraver (engrave/worker.js): on Linux the nice value is per
// thread, so this thread yields the CPU to the beat's. Encoding at the server's own priority put
// the beat timer's p99 lateness at 217 ms while PDFs loaded (7.5 ms idle) at load 11.
if (port)
  try {
    os.setPriority(10);
  } catch {
    // Not permitted here: the encoder runs at the server's priority.
  }

/** zlib's level for the pages: 6 (its default) is within 10% of 9's size at a tenth of its time. */
const DEFLATE_LEVEL = 6;

/**
 * A binary PPM (P6, maxval 255) as pdftoppm writes it.
 * @param {Buffer} buf
 * @returns {{ width: number, height: number, rgb: Buffer } | null}
 */
export function readPpm(buf) {
  const m = /^P6\s+(\d+)\s+(\d+)\s+255\s/.exec(buf.subarray(0, 64).toString('latin1'));
  if (!m) return null;
  const width = Number(m[1]);
  const height = Number(m[2]);
  const rgb = buf.subarray(m[0].length);
  return rgb.length === width * height * 3 ? { width, height, rgb } : null;
}

/**
 * @param {{ width: number, height: number, rgb: Buffer }} image
 * @returns {Buffer}
 */
export function encodePng({ width, height, rgb }) {
  let grey = true;
  for (let i = 0; i < rgb.length; i += 3) {
    if (rgb[i] !== rgb[i + 1] || rgb[i] !== rgb[i + 2]) {
      grey = false;
      break;
    }
  }
  /** @type {Buffer} */
  let data = rgb;
  if (grey) {
    data = Buffer.allocUnsafe(width * height);
    for (let i = 0, j = 0; j < data.length; i += 3, j++) data[j] = rgb[i];
  }
  const type = /** @type {0 | 2} */ (grey ? 0 : 2);
  /** @type {import('pngjs').PackerOptions} */
  const options = {
    colorType: type,
    inputColorType: type,
    inputHasAlpha: false,
    bitDepth: 8,
    filterType: 0,
    deflateLevel: DEFLATE_LEVEL,
  };
  return PNG.sync.write(/** @type {import('pngjs').PNG} */ (/** @type {unknown} */ ({ width, height, data })), options);
}

port?.on('message', (/** @type {{ id: number, task: { from: string, to: string } }} */ { id, task }) => {
  const image = readPpm(readFileSync(task.from));
  if (!image) {
    port.postMessage({ id, type: 'done', data: { ok: false } });
    return;
  }
  writeFileSync(task.to, encodePng(image));
  rmSync(task.from, { force: true });
  port.postMessage({ id, type: 'done', data: { ok: true, width: image.width, height: image.height } });
});

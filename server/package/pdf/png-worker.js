// The PNG encoder's process (started by png-thread.js, for encode-png.js): a page pdftoppm drew as
// a PPM file, written as a PNG file, in a process of its own so that its CPU time is charged to a
// scheduling group other than the server's (server/lib/spawn-apart.js says why). Poppler's own PNG writer lets libpng try every row
// filter at zlib's default level, three quarters of pdftoppm's time on a page of music; here a
// page whose pixels are all grey (most scores) is written with one channel, rows unfiltered
// (mostly white rows deflate well as they are), at zlib level 6: half the bytes for a fifth of
// the time (bench/RESULTS.md). A page with colour keeps it. Messages in:
// { id, from, to } over its IPC channel; out: { id, ok, width, height }.

import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { PNG } from 'pngjs';

/** Run as the encoder's process, not imported (tests import the functions below). */
const serving = process.argv[1] === fileURLToPath(import.meta.url) && typeof process.send === 'function';

// At nice 10, as pdftoppm and the engraver (engrave/worker.js): where the kernel has no autogroups
// the nice value alone ranks it below the beat's thread. Encoding at the server's own priority put
// the beat timer's p99 lateness at 217 ms while PDFs loaded (7.5 ms idle) at load 11.
if (serving)
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

if (serving) {
  const send = /** @type {NonNullable<typeof process.send>} */ (process.send).bind(process);
  process.on('message', (/** @type {{ id: number, from: string, to: string }} */ { id, from, to }) => {
    const image = readPpm(readFileSync(from));
    if (!image) {
      send({ id, ok: false });
      return;
    }
    writeFileSync(to, encodePng(image));
    rmSync(from, { force: true });
    send({ id, ok: true, width: image.width, height: image.height });
  });
  // The thread that started it has let it go, or has ended.
  process.on('disconnect', () => process.exit(0));
}

// A page pdftoppm drew as a PPM, made into a PNG (the PDF helper process, helper-process.js, runs
// this for encode-png.js). Poppler's own PNG writer lets libpng try every row filter at zlib's
// default level, three quarters of pdftoppm's time on a page of music; here a page whose pixels
// are all grey (most scores) is written with one channel, rows unfiltered (mostly white rows
// deflate well as they are), at zlib level 6: half the bytes for a fifth of the time
// (bench/RESULTS.md). A page with colour keeps it.

import { PNG } from 'pngjs';

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

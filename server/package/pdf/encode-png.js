// The pages pdftoppm draws (PPM files) made into PNG page images by the PDF helper process (helper.js:
// a process with a bounded heap in a scheduling group of its own), while pdftoppm draws the next
// pages: the beat's thread only lists the folder and passes file names.

import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { runInHelper } from './helper.js';

/** How often the folder is looked at for pages pdftoppm has finished, while it runs. */
const POLL_MS = 50;

/**
 * Encode one PPM file into a PNG file (the PPM is removed): the image's size, or null.
 * @param {string} from
 * @param {string} to
 * @returns {Promise<{ width: number, height: number } | null>}
 */
async function encode(from, to) {
  try {
    const r = /** @type {{ ok: boolean, width: number, height: number }} */ (
      await runInHelper({ kind: 'png', from, to }, 60_000)
    );
    return r.ok ? { width: r.width, height: r.height } : null;
  } catch {
    return null;
  }
}

/**
 * Run `draw` (a pdftoppm writing `<prefix>-<n>.ppm` files in `dir`) and encode each page it
 * finishes into `name(n)` as soon as the next one is begun (pdftoppm writes the pages in order),
 * the rest when it ends. Resolves with draw's result, the pages that could not be encoded, and
 * the size of each image made (as the encoder read it: the loading thread reads no image).
 * @template T
 * @param {string} dir
 * @param {string} prefix
 * @param {(n: number) => string} name
 * @param {() => Promise<T>} draw
 * @returns {Promise<{ result: T, failed: number[], sizes: Map<number, { width: number, height: number }> }>}
 */
export async function drawAndEncode(dir, prefix, name, draw) {
  const pattern = new RegExp(`^${prefix}-0*(\\d+)\\.ppm$`);
  /** @type {Set<number>} */
  const taken = new Set();
  /** @type {Promise<void>[]} */
  const encodes = [];
  /** @type {number[]} */
  const failed = [];
  /** @type {Map<number, { width: number, height: number }>} */
  const sizes = new Map();
  /** @param {boolean} all  the drawing has ended: its last page too */
  const take = async (all) => {
    const pages = (await readdir(dir))
      .map((f) => pattern.exec(f))
      .filter((m) => m !== null)
      .map((m) => ({ file: m[0], n: Number(m[1]) }))
      .sort((a, b) => a.n - b.n);
    const ready = all ? pages : pages.slice(0, -1);
    for (const { file, n } of ready) {
      if (taken.has(n)) continue;
      taken.add(n);
      encodes.push(
        encode(path.join(dir, file), path.join(dir, name(n))).then((size) => {
          if (size) sizes.set(n, size);
          else failed.push(n);
        }),
      );
    }
  };
  let done = false;
  const drawing = draw().finally(() => {
    done = true;
  });
  while (!done) {
    await Promise.race([drawing, new Promise((resolve) => setTimeout(resolve, POLL_MS))]);
    if (!done) await take(false);
  }
  const result = await drawing;
  await take(true);
  await Promise.all(encodes);
  return { result, failed, sizes };
}

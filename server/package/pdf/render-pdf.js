// A PDF's pages rendered into PNG page images at the widths the part and score views need, once
// per PDF content: cached like engravings (one folder per content hash in the engraving cache,
// written under a temporary name and renamed into place when whole, pruned with them). Rendering
// runs in Poppler's pdftoppm, a child process with its own time and memory limits (poppler.js),
// one PDF at a time, so a load never takes the beat's thread.

import { readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { INDEX, markUse, pruneCache, tempDir } from '../engrave/cache.js';
import { PACKAGE_LIMITS as LIMITS } from '../../../core/package-limits.js';
import { readPdfInfo } from './pdf-info.js';
import { CPU_SECONDS_PER_PAGE, TOOL_CPU_SECONDS, findTool, popplerTools, runTool } from './poppler.js';
import { drawAndEncode } from './encode-png.js';
import { sha256InSlices } from '../../lib/hash-in-slices.js';

/**
 * Pixel widths of each page's images: a phone in portrait (a 360-430 CSS px view at 2.5-3
 * device pixels per CSS px) and a tablet (768-1024 CSS px at 2, the page a little wider than
 * the pane's system). The view picks the narrowest at least as wide as it draws the page.
 */
export const PDF_WIDTHS = /** @type {const} */ ([1080, 1600]);

/** Bump when the rendering or the entry's shape changes: old entries are then left unused. */
const FORMAT = 2;

/**
 * Pages rendered by one pdftoppm, whose CPU time is bounded by its pages (poppler.js). Few runs:
 * each child started costs a fork of the server's process (a 21-page part in runs of 5 held the
 * beat's timer up to 50 ms late when the forks were made from its thread).
 */
const PAGES_PER_RUN = 50;

/**
 * @typedef {object} RenderedPage
 * @property {number} number  the page's number in the PDF, from 1
 * @property {number} width   points
 * @property {number} height  points
 * @property {{ file: string, width: number, height: number }[]} images  in the entry's folder, narrowest first
 */

/**
 * @typedef {object} RenderedPdf
 * @property {'pdf'} kind
 * @property {number} format
 * @property {string} hash
 * @property {string} poppler
 * @property {RenderedPage[]} pages  the pages rendered, in the order asked for
 * @property {string[]} carries      what the PDF has besides pages (not rendered, never served)
 * @property {Record<string, number>} files  image files and their sizes
 */

/** @type {Promise<unknown>} */
let queue = Promise.resolve();

/**
 * Run `task` after every render before it.
 * @template T
 * @param {() => Promise<T>} task
 * @returns {Promise<T>}
 */
function oneAtATime(task) {
  const run = queue.then(task, task);
  queue = run.catch(() => {});
  return run;
}

/**
 * Content hashes of PDFs hashed before (at most KNOWN_MAX), by the entry's head and the file they
 * were read from as it was then (renderPdf's `identity`): a PDF loaded again unchanged (a reload
 * after its beat map was edited, the same score loaded again) is neither read nor hashed again.
 * @type {Map<string, string>}
 */
const known = new Map();
const KNOWN_MAX = 64;

/**
 * Each image file's modification time as the entry's check found it (not kept in the index): the
 * loader serves the images with it (Last-Modified) without asking the file system again.
 * @typedef {{ mtimes: Record<string, number> }} CheckedTimes
 */

/**
 * Render the pages `wanted` (from 1, in the view's order; null for all) of the PDF `bytes`, or
 * read them from the cache. `bytes` may be a function that reads them, with the `identity` of the
 * file it reads (what changes whenever its content does: server/package/load-pdf.js): a PDF whose
 * hash is known by that identity and whose pages are in the cache is not read.
 * @param {{ bytes: Buffer | (() => Promise<Buffer>), identity?: string | null, wanted: number[] | null,
 *   cacheDir: string }} options
 * @returns {Promise<{ ok: true, value: RenderedPdf & CheckedTimes & { dir: string, cached: boolean } } |
 *   { ok: false, code: 'SC_ERR_SCORE_PDF' | 'SC_ERR_PDF_RENDERER_MISSING' | 'SC_ERR_SCORE_OUT_OF_MEMORY', reason: string }>}
 */
export async function renderPdf({ bytes: given, identity = null, wanted, cacheDir }) {
  const tools = await popplerTools();
  if (!tools)
    return {
      ok: false,
      code: 'SC_ERR_PDF_RENDERER_MISSING',
      reason:
        "cannot be rendered: Poppler's pdfinfo and pdftoppm are not installed on this server; install them (apt-get install poppler-utils) and load the score again",
    };
  const head = JSON.stringify({ kind: 'pdf', FORMAT, poppler: tools.version, widths: PDF_WIDTHS, wanted });
  const memo = identity === null ? null : `${head}\n${identity}`;
  const remembered = memo === null ? undefined : known.get(memo);
  if (remembered) {
    const dir = path.join(cacheDir, remembered);
    const cached = await readRendered(dir, remembered);
    if (cached) {
      await markUse(dir);
      return { ok: true, value: { ...cached, dir, cached: true } };
    }
  }
  // Read and hashed whenever not rendered from a remembered hash: what is rendered is what was hashed.
  const bytes = typeof given === 'function' ? await given() : given;
  const hash = (await sha256InSlices(head, bytes)).slice(0, 32);
  if (memo !== null) {
    known.delete(memo);
    known.set(memo, hash);
    if (known.size > KNOWN_MAX) known.delete(/** @type {string} */ (known.keys().next().value));
  }
  const dir = path.join(cacheDir, hash);
  const cached = await readRendered(dir, hash);
  if (cached) {
    await markUse(dir);
    return { ok: true, value: { ...cached, dir, cached: true } };
  }
  return oneAtATime(async () => {
    const again = await readRendered(dir, hash);
    if (again) return { ok: true, value: { ...again, dir, cached: true } };
    const tmp = await tempDir(cacheDir, hash);
    try {
      const made = await renderInto(tmp, bytes, wanted, tools);
      if (!made.ok) return made;
      /** @type {Record<string, number>} */
      const files = {};
      /** @type {Record<string, number>} */
      const mtimes = {};
      for (const name of (await readdir(tmp)).sort()) {
        const info = await stat(path.join(tmp, name));
        files[name] = info.size;
        mtimes[name] = info.mtimeMs;
      }
      /** @type {RenderedPdf} */
      const entry = { kind: 'pdf', format: FORMAT, hash, poppler: tools.version, ...made.value, files };
      await writeFile(path.join(tmp, INDEX), JSON.stringify(entry));
      try {
        await rename(tmp, dir);
      } catch (err) {
        const code = /** @type {NodeJS.ErrnoException} */ (err).code;
        if (code !== 'ENOTEMPTY' && code !== 'EEXIST') throw err;
      }
      await markUse(dir);
      pruneCache(cacheDir).catch(() => {});
      return { ok: true, value: { ...entry, mtimes, dir, cached: false } };
    } finally {
      await rm(tmp, { recursive: true, force: true });
    }
  });
}

/**
 * A whole cache entry with its images' times, or null (missing, of another format, or damaged: a
 * file gone or of another size).
 * @param {string} dir
 * @param {string} hash
 * @returns {Promise<(RenderedPdf & CheckedTimes) | null>}
 */
async function readRendered(dir, hash) {
  try {
    const entry = /** @type {RenderedPdf} */ (JSON.parse(await readFile(path.join(dir, INDEX), 'utf8')));
    if (entry.kind !== 'pdf' || entry.format !== FORMAT || entry.hash !== hash) return null;
    /** @type {Record<string, number>} */
    const mtimes = {};
    for (const [name, size] of Object.entries(entry.files)) {
      const info = await stat(path.join(dir, name));
      if (info.size !== size) return null;
      mtimes[name] = info.mtimeMs;
    }
    return { ...entry, mtimes };
  } catch {
    return null;
  }
}

/**
 * Check the PDF and render its pages into `tmp`.
 * @param {string} tmp
 * @param {Buffer} bytes
 * @param {number[] | null} wanted
 * @param {{ pdfinfo: string, pdftoppm: string }} tools
 * @returns {Promise<{ ok: true, value: { pages: RenderedPage[], carries: string[] } } |
 *   { ok: false, code: 'SC_ERR_SCORE_PDF' | 'SC_ERR_SCORE_OUT_OF_MEMORY', reason: string }>}
 */
async function renderInto(tmp, bytes, wanted, { pdfinfo, pdftoppm }) {
  // The tools read a copy in the cache's own folder: the package's file may change meanwhile.
  const source = path.join(tmp, 'source.pdf');
  await writeFile(source, bytes);
  const info = await readPdfInfo(pdfinfo, source);
  if (!info.ok) return { ok: false, code: 'SC_ERR_SCORE_PDF', reason: info.reason };
  const { pageCount, pages: sizes } = info.value;
  const list = wanted ?? sizes.map((_, i) => i + 1);
  const missing = list.find((n) => n > pageCount);
  if (missing !== undefined)
    return {
      ok: false,
      code: 'SC_ERR_SCORE_PDF',
      reason: `has ${pageCount} page${pageCount === 1 ? '' : 's'}, but the view asks for page ${missing}; fix pdf.pages`,
    };
  const widest = PDF_WIDTHS[PDF_WIDTHS.length - 1];
  for (const n of list) {
    const { width, height } = sizes[n - 1];
    const pixels = widest * Math.ceil((widest * height) / width);
    if (pixels > LIMITS.pagePixels)
      return {
        ok: false,
        code: 'SC_ERR_SCORE_PDF',
        reason: `page ${n} is ${width} x ${height} points, so tall for its width that its image would be more than ${LIMITS.pagePixels} pixels; export it at a paper size`,
      };
  }
  const carries = [...info.value.carries];
  const pdfdetach = await findTool('pdfdetach');
  if (pdfdetach) {
    const d = await runTool(pdfdetach, ['-list', source]);
    if (/^[1-9]\d* embedded files?/m.test(d.stdout)) carries.push('embedded files');
  }

  const distinct = [...new Set(list)].sort((a, b) => a - b);
  // The widths render side by side, one pdftoppm each (two processes on a 2-core machine, at a
  // lower priority than the server): the wall time of one width, not of both.
  /** @type {Map<string, { width: number, height: number }>} */
  const made = new Map();
  const failures = await Promise.all(
    PDF_WIDTHS.map((width) => renderWidth(tmp, source, pdftoppm, distinct, width, made)),
  );
  const failed = failures.find((f) => f !== null);
  if (failed) return failed;
  await rm(source, { force: true });
  /** @type {RenderedPage[]} */
  const pages = [];
  for (const n of list) {
    const { width, height } = sizes[n - 1];
    /** @type {RenderedPage['images']} */
    const images = [];
    for (const w of PDF_WIDTHS) {
      const file = imageName(n, w);
      const size = made.get(file);
      if (!size)
        return { ok: false, code: 'SC_ERR_SCORE_PDF', reason: `page ${n} could not be rendered; export the PDF again` };
      images.push({ file, ...size });
    }
    pages.push({ number: n, width, height, images });
  }
  return { ok: true, value: { pages, carries } };
}

/**
 * Render the pages `distinct` (sorted) at one width into `tmp`, named by imageName, each image's
 * size into `sizes` by its name; null when done, else why not.
 * @param {string} tmp
 * @param {string} source
 * @param {string} pdftoppm
 * @param {number[]} distinct
 * @param {number} width
 * @param {Map<string, { width: number, height: number }>} sizes
 * @returns {Promise<{ ok: false, code: 'SC_ERR_SCORE_PDF' | 'SC_ERR_SCORE_OUT_OF_MEMORY', reason: string } | null>}
 */
async function renderWidth(tmp, source, pdftoppm, distinct, width, sizes) {
  for (const [first, last] of runsOf(distinct)) {
    const prefix = `r${width}`;
    // PPM out, encoded into PNG by our own encoder as each page is done (encode-png.js): Poppler's
    // PNG writer was three quarters of its time.
    const {
      result: r,
      failed,
      sizes: made,
    } = await drawAndEncode(
      tmp,
      prefix,
      (n) => imageName(n, width),
      () =>
        runTool(
          pdftoppm,
          [
            '-cropbox',
            // Annotations (links, form fields, comments) are not the page's music: they are left out.
            '-hide-annotations',
            '-scale-to-x',
            String(width),
            '-scale-to-y',
            '-1',
            '-f',
            String(first),
            '-l',
            String(last),
            source,
            path.join(tmp, prefix),
          ],
          { cpuSeconds: TOOL_CPU_SECONDS + CPU_SECONDS_PER_PAGE * (last - first + 1) },
        ),
    );
    if (r.code !== 0 || r.timedOut) {
      const memory = r.outOfMemory || r.code === null;
      return {
        ok: false,
        code: memory && !r.timedOut ? 'SC_ERR_SCORE_OUT_OF_MEMORY' : 'SC_ERR_SCORE_PDF',
        reason: r.timedOut
          ? `pages ${first}-${last} took pdftoppm more than its time limit (60 s of CPU and 12 s a page) to render; export the PDF again, or split it`
          : memory
            ? `pages ${first}-${last} took pdftoppm more than its memory limit to render; export the PDF at a lower resolution, or split it`
            : `pages ${first}-${last} could not be rendered (${
                r.stderr
                  .split('\n')
                  .find((l) => l.trim())
                  ?.trim()
                  .slice(0, 200) ?? `pdftoppm exited with ${r.code}`
              }); export it again`,
      };
    }
    if (failed.length > 0)
      return {
        ok: false,
        code: 'SC_ERR_SCORE_PDF',
        reason: `page ${Math.min(...failed)} could not be made into an image; export the PDF again`,
      };
    for (const [n, size] of made) sizes.set(imageName(n, width), size);
  }
  return null;
}

/** @param {number} page @param {number} width */
const imageName = (page, width) => `page-${page}-${width}w.png`;

/**
 * Sorted page numbers as runs of consecutive pages, at most PAGES_PER_RUN each.
 * @param {number[]} sorted
 * @returns {[number, number][]}
 */
export function runsOf(sorted) {
  /** @type {[number, number][]} */
  const runs = [];
  for (const n of sorted) {
    const last = runs[runs.length - 1];
    if (last && n === last[1] + 1 && n - last[0] < PAGES_PER_RUN) last[1] = n;
    else runs.push([n, n]);
  }
  return runs;
}

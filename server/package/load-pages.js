// The load's image-page step (load.js): a score without notation has page images per view and a
// beat map for each; every page is read within its bound, sized, and served at a content-hashed
// URL (SVG pages cleaned; a PDF's pages rendered into images, load-pdf.js), and the beat map is parsed in a worker and checked against the pages.

import { createHash } from 'node:crypto';
import { lstat } from 'node:fs/promises';
import path from 'node:path';
import { describeBeatMapProblem } from '../../core/beatmap.js';
import { PACKAGE_LIMITS as LIMITS } from '../../core/package-limits.js';
import { readAll } from '../lib/contained-files.js';
import { imageSize } from './image-size.js';
import { parseBeatMap } from './parse.js';
import { isSvg, typeOf } from './load-context.js';
import { servePdfPages } from './load-pdf.js';

/** @typedef {import('./load.js').ViewPages} ViewPages */

/**
 * Whether a package file is there at all (a link or a path out of the package counts as there:
 * the beat map's own read refuses it with its reason).
 * @param {string} root
 * @param {string} rel
 */
async function fileExists(root, rel) {
  try {
    await lstat(path.join(root, rel));
    return true;
  } catch (err) {
    return /** @type {NodeJS.ErrnoException} */ (err).code !== 'ENOENT';
  }
}

/**
 * Hash a file's content in slices, giving the event loop a turn between them (hashing 32 MiB in
 * one call holds it for tens of milliseconds).
 * @param {Buffer} data
 */
async function hashInSlices(data) {
  const hash = createHash('sha256');
  const slice = 4 * 1024 * 1024;
  for (let i = 0; i < data.length; i += slice) {
    hash.update(data.subarray(i, i + slice));
    if (i + slice < data.length) await new Promise((resolve) => setImmediate(resolve));
  }
  return hash.digest('hex').slice(0, 16);
}

/**
 * Why a page's size is not one a tablet can show, or null.
 * @param {{ width: number, height: number }} size
 * @param {boolean} raster
 */
function pageSizeProblem({ width, height }, raster) {
  const ok = (/** @type {number} */ n) => Number.isFinite(n) && n >= 1 && n <= LIMITS.pageUnits;
  if (!ok(width) || !ok(height))
    return `is ${width} x ${height}; a page's width and height are from 1 to ${LIMITS.pageUnits} units; export the page again`;
  if (raster && width * height > LIMITS.pagePixels)
    return `is ${width} x ${height} pixels, more than the ${LIMITS.pagePixels} a tablet can be asked to decode; export it at a lower resolution`;
  return null;
}

/**
 * Serve the page images of one view, in order; a page that cannot be is a problem (and is left out).
 * @param {import('./load-context.js').LoadContext} context
 * @param {string} scoreId
 * @param {string} view
 * @param {string[]} list
 * @returns {Promise<ViewPages['pages']>}
 */
async function servePageFiles(context, scoreId, view, list) {
  const { root, files, problems } = context;
  /** @type {ViewPages['pages']} */
  const pages = [];
  /** @type {import('./load-context.js').SvgToClean[]} */
  const svgPages = [];
  for (const [i, rel] of list.entries()) {
    const opened = await context.openPackageFile(rel, `pages.${view}.files[${i}]`, LIMITS.pageBytes);
    if (!opened) continue;
    const data = await readAll(opened.handle);
    const size = imageSize(data, rel);
    if (!size) {
      problems.push(`${rel}: is not a PNG, JPEG or SVG image I can read; export the page as PNG or SVG`);
      continue;
    }
    const bad = pageSizeProblem(size, !rel.toLowerCase().endsWith('.svg'));
    if (bad) {
      problems.push(`${rel}: ${bad}`);
      continue;
    }
    if (isSvg(rel)) {
      const page = { url: '', ...size };
      pages.push(page);
      svgPages.push({
        rel,
        data,
        add: (url, served) => {
          page.url = url;
          files.set(url, served);
        },
      });
      continue;
    }
    const hash = await hashInSlices(data);
    const url = `/scores/${scoreId}/${hash}/${rel}`;
    // Held as read here (its bytes hashed): not opened and read again to be served.
    files.set(url, {
      file: opened.real,
      root,
      type: typeOf(rel),
      etag: hash,
      size: data.length,
      mtimeMs: opened.mtimeMs,
      read: data,
    });
    pages.push({ url, ...size });
  }
  if (svgPages.length > 0) await context.serveCleanSvgs(svgPages, scoreId);
  return pages;
}

/**
 * Serve the page images and beat maps of the score `model` into `views`.
 * @param {import('./load-context.js').LoadContext} context
 * @param {import('../../core/manifest.js').ScoreModel} model
 * @param {Record<string, ViewPages>} views
 * @param {{ cacheDir: string }} options  where PDF pages are rendered to (the engraving cache)
 */
export async function serveImagePages(context, model, views, { cacheDir }) {
  const fromPdf = await servePdfPages(context, model, cacheDir);
  for (const [view, spec] of Object.entries(model.pages ?? {})) {
    /** @type {ViewPages['pages'] | null | undefined} */
    const pages = spec.pdf ? fromPdf.get(view) : await servePageFiles(context, model.id, view, spec.files);
    if (!pages) continue;
    const pageCount = spec.pdf ? pages.length : spec.files.length;
    // A beat map not made yet: the view's pages load without a cursor, for the preview's bar-line
    // mode to place its bars on; `check` refuses the package until they are placed.
    if (!(await fileExists(context.root, spec.beatmap))) {
      views[view] = { pages, beats: [], unplaced: true };
      context.warnings.push(
        `pages.${view}.beatmap: ${spec.beatmap} does not exist yet; no bar of ${view} has a position: place them in the preview's bar-line mode (scorecast preview, Beat map)`,
      );
      continue;
    }
    const opened = await context.openPackageFile(spec.beatmap, `pages.${view}.beatmap`, LIMITS.beatMapBytes);
    if (!opened) continue;
    const bytes = await readAll(opened.handle);
    const parsed = await parseBeatMap(bytes, spec.beatmap.toLowerCase().endsWith('.csv') ? 'csv' : 'json', {
      file: spec.beatmap,
      totalBeats: model.map.totalBeats,
      bars: model.map.bars.map(({ bar, startBeat, beats }) => ({ bar, startBeat, beats })),
      pageCount,
      // Boxes are checked against the pages only when every page could be read.
      ...(pages.length === pageCount ? { pageSizes: pages.map(({ width, height }) => ({ width, height })) } : {}),
    });
    if (!parsed.ok) {
      context.problems.push(...parsed.problems.map(describeBeatMapProblem));
      continue;
    }
    views[view] = { pages, beats: parsed.value.beats };
  }
}

// Loads a whole score package: the manifest, the engraved notation or the image pages with their
// beat maps, and the assets, each given a content-hashed URL. The result lists every file the
// server may serve for the package; nothing else in or outside the folder can be read.

import path from 'node:path';
import { buildScoreModel } from '../../core/manifest.js';
import { readManifest } from './manifest-file.js';
import { unknownKeys } from './manifest-schema.js';
import { isObject } from '../../core/values.js';
import { MEMORY_BOUND_BYTES, prepareServed } from '../http/served-prepare.js';
import { createLoadContext } from './load-context.js';
import { listAssets, serveAssets } from './load-assets.js';
import { engraveNotation, serveEngraved } from './load-notation.js';
import { serveImagePages } from './load-pages.js';
import { serveVideos } from './load-video.js';

/** @typedef {import('../http/served-prepare.js').ServedFile} ServedFile */

/**
 * @typedef {object} BeatPosition
 * @property {number} beat
 * @property {number} page
 * @property {number} system
 * @property {number} bar
 * @property {number} x0
 * @property {number} x1
 * @property {number} y0
 * @property {number} y1
 */

/**
 * @typedef {object} ViewPages
 * @property {{ url: string, width: number, height: number, images?: { url: string, width: number, height: number }[] }[]} pages
 *   `images`: a PDF page's renderings, narrowest first (`url` is the first's): the view draws
 *   the narrowest at least as wide as it shows the page
 * @property {BeatPosition[]} beats
 * @property {number} [staff]  staff height in page units (engraved views)
 * @property {import('./engrave/place-beats.js').SystemInk[]} [ink]  how far each system's drawing
 *   reaches above and below its staves (engraved views)
 * @property {(ViewPages & { name: string, staff: number })[]} [layouts]  an engraved part's
 *   narrower layouts (server/package/engrave/options.js, PART_LAYOUTS)
 * @property {string[]} [pending]  an engraved part's layouts still being engraved
 * @property {true} [unplaced]  an image view whose beat map is not made yet: no beats, no cursor
 */

/**
 * @typedef {object} LoadedAsset
 * @property {string} path
 * @property {string} url
 * @property {number} bytes
 * @property {boolean} preload
 */

/**
 * @typedef {object} ScorePackage
 * @property {string} dir
 * @property {import('../../core/manifest.js').ScoreModel} model
 * @property {LoadedAsset[]} assets
 * @property {Record<string, ViewPages>} views   the score and part views that have pages
 * @property {Record<string, import('./load-video.js').VideoView>} videos  the views shown as a
 *   video (in place of their pages, when they have both)
 * @property {Map<string, ServedFile>} files     URL path -> file
 * @property {string[]} warnings
 * @property {string[]} [pendingLayouts]  the parts' layouts still being engraved: when they are,
 *   this package's part views get them and their files are served (`layoutsReady`)
 * @property {Promise<void>} [layoutsReady]  resolves once no layout is pending (engraved, or
 *   failed: then a warning says so and the parts keep the layouts they have)
 */

/**
 * Load, engrave (or read from the cache) and validate the package in `packageDir`.
 * Throws ScorecastError SC_ERR_SCORE_NOT_FOUND or SC_ERR_SCORE_INVALID listing every problem.
 * Every file is read inside the package only (server/lib/contained-files.js) and within its bound
 * (core/package-limits.js); the untrusted text is parsed in a worker (parse.js).
 * @param {string} packageDir
 * @param {{ cacheDir: string, deferLayouts?: boolean }} options  deferLayouts: resolve before the
 *   parts' narrower layouts are engraved, and serve them when they are (a server); by default
 *   wait for them (check)
 * @returns {Promise<ScorePackage>}
 */
export async function loadPackage(packageDir, { cacheDir, deferLayouts = false }) {
  const dir = path.resolve(packageDir);
  const manifest = await readManifest(dir);
  const { raw } = manifest;
  const id = isObject(raw) && typeof raw.id === 'string' ? raw.id : 'score';
  const context = createLoadContext(dir, manifest);
  context.problems.push(...unknownKeys(raw));

  const hashed = await serveAssets(context, raw, id);
  const { bars, engraved } = await engraveNotation(context, raw, { cacheDir, deferLayouts });
  const built = buildScoreModel(raw, { bars, assetUrl: (p) => hashed.get(p)?.url ?? p });
  if (!built.ok) context.problems.push(...built.problems);
  if (context.problems.length > 0 || !built.ok) throw await context.refuse();
  const model = built.value;
  const assets = listAssets(context, model, hashed);

  /** @type {Record<string, ViewPages>} */
  const views = {};
  const { pendingLayouts, serveLater } = engraved
    ? await serveEngraved(context, model, engraved, views)
    : { pendingLayouts: [], serveLater: null };
  await serveImagePages(context, model, views, { cacheDir });
  const videos = await serveVideos(context, model);
  if (context.problems.length > 0) throw await context.refuse();
  const { files, warnings } = context;
  const memory = await prepareServed(files);
  /** @type {ScorePackage} */
  const pkg = { dir, model, assets, views, videos, files, warnings, pendingLayouts };
  pkg.layoutsReady = serveLater
    ? serveLater(pkg, memory.inMemory ? memory.bytes : MEMORY_BOUND_BYTES)
    : Promise.resolve();
  return pkg;
}

// Loads a whole score package: the manifest, the engraved notation or the image pages with their
// beat maps, and the assets, each given a content-hashed URL. The result lists every file the
// server may serve for the package; nothing else in or outside the folder can be read.

import { createHash } from 'node:crypto';
import path from 'node:path';
import { buildScoreModel, isSafeRelativePath } from '../../core/manifest.js';
import { checkBeatMap, describeBeatMapProblem } from '../../core/beatmap.js';
import { ScorecastError } from '../../core/errors.js';
import { PACKAGE_LIMITS as LIMITS, formatBytes } from '../../core/package-limits.js';
import { readManifest, describeProblems } from './manifest-file.js';
import { engraveScore } from './engrave/index.js';
import { unknownKeys } from './manifest-schema.js';
import { imageSize } from './image-size.js';
import { sanitizeSvgPages } from './svg/sanitize-pages.js';
import { openInPackage, readAll, realRoot } from '../lib/contained-files.js';
import { parseBeatMap } from './parse.js';
import { isObject } from '../../core/values.js';
import { MEMORY_BOUND_BYTES, prepareServed } from '../http/served-prepare.js';

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
 * @property {{ url: string, width: number, height: number }[]} pages
 * @property {BeatPosition[]} beats
 * @property {number} [staff]  staff height in page units (engraved views)
 * @property {import('./engrave/place-beats.js').SystemInk[]} [ink]  how far each system's drawing
 *   reaches above and below its staves (engraved views)
 * @property {(ViewPages & { name: string, staff: number })[]} [layouts]  an engraved part's
 *   narrower layouts (server/package/engrave/options.js, PART_LAYOUTS)
 * @property {string[]} [pending]  an engraved part's layouts still being engraved
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
 * @property {Map<string, ServedFile>} files     URL path -> file
 * @property {string[]} warnings
 * @property {string[]} [pendingLayouts]  the parts' layouts still being engraved: when they are,
 *   this package's part views get them and their files are served (`layoutsReady`)
 * @property {Promise<void>} [layoutsReady]  resolves once no layout is pending (engraved, or
 *   failed: then a warning says so and the parts keep the layouts they have)
 */

const TYPES = /** @type {Record<string, string>} */ ({
  '.wav': 'audio/wav',
  '.mp3': 'audio/mpeg',
  '.ogg': 'audio/ogg',
  '.m4a': 'audio/mp4',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.json': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
  '.css': 'text/css',
  '.woff2': 'font/woff2',
});

/** Problems listed when a load is refused. */
const MAX_PROBLEMS = 200;

/** @param {string} p */
const typeOf = (p) => TYPES[path.extname(p).toLowerCase()] ?? 'application/octet-stream';

/** @param {string} p */
const isSvg = (p) => path.extname(p).toLowerCase() === '.svg';

/**
 * Every package file the manifest names as an asset or audio clip (validated later).
 * @param {unknown} raw
 * @returns {string[]}
 */
function assetPaths(raw) {
  if (!isObject(raw)) return [];
  const out = new Set();
  for (const a of Array.isArray(raw.assets) ? raw.assets : [])
    if (isObject(a) && typeof a.path === 'string') out.add(a.path);
  for (const c of Array.isArray(raw.cues) ? raw.cues : []) {
    if (!isObject(c)) continue;
    if (typeof c.audio === 'string') out.add(c.audio);
    // The granulator's sound (core/manifest.js serves it like an audio cue's clip).
    if (isObject(c.set) && isObject(c.set.granulator) && typeof c.set.granulator.src === 'string')
      out.add(c.set.granulator.src);
  }
  return [...out];
}

/**
 * A problem at a field of the manifest, given its line when the load is refused.
 * @typedef {{ field: string, message: string }} FieldProblem
 */

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
 * Hash an opened file as it streams (an asset may be hundreds of MB: it is never held whole).
 * @param {import('node:fs/promises').FileHandle} handle  closed at the end
 */
async function hashStream(handle) {
  const hash = createHash('sha256');
  for await (const chunk of handle.createReadStream({ highWaterMark: 1024 * 1024 })) hash.update(chunk);
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
// biome-ignore lint/complexity/noExcessiveLinesPerFunction: to be split into a pipeline of steps each returning its problems (manifest, notation, pages, assets, serving)
export async function loadPackage(packageDir, { cacheDir, deferLayouts = false }) {
  const dir = path.resolve(packageDir);
  const manifest = await readManifest(dir);
  const { raw, root } = manifest;
  const id = isObject(raw) && typeof raw.id === 'string' ? raw.id : 'score';
  /** @type {(string | FieldProblem)[]} */
  const problems = unknownKeys(raw);
  /** @type {string[]} */
  const warnings = [];
  /** @type {Map<string, ServedFile>} */
  const files = new Map();
  let totalBytes = manifest.bytes;

  /**
   * Count an opened file toward the package's total; past the bound it is closed unread, and so
   * is every file after it (the problem is reported once).
   * @param {{ handle: import('node:fs/promises').FileHandle, size: number }} opened
   */
  async function withinTotal(opened) {
    totalBytes += opened.size;
    if (totalBytes <= LIMITS.packageBytes) return true;
    await opened.handle.close();
    overTotal();
    return false;
  }
  let toldTotal = false;
  function overTotal() {
    if (!toldTotal)
      problems.push(
        `${path.basename(dir)}: its files come to more than the ${formatBytes(LIMITS.packageBytes)} a package may be (the rest were not read); keep only what the performance needs`,
      );
    toldTotal = true;
  }
  /** Files named in the manifest that were not read, the package being past its total. */
  /** @type {Set<string>} */
  const unread = new Set();

  /**
   * The problems as lines, with the manifest's line for each field problem; the first
   * MAX_PROBLEMS of them (a package wrong everywhere says so in those).
   */
  async function described() {
    const shown = problems.slice(0, MAX_PROBLEMS);
    const fieldProblems = /** @type {FieldProblem[]} */ (shown.filter((p) => typeof p !== 'string'));
    const lines = await describeProblems(fieldProblems, manifest.linesOf);
    let k = 0;
    const out = shown.map((p) => (typeof p === 'string' ? p : /** @type {string} */ (lines[k++])));
    if (problems.length > MAX_PROBLEMS) out.push(`and ${problems.length - MAX_PROBLEMS} more problems`);
    return out;
  }
  /** The code of the refusal: a file that filled its worker's heap says so. */
  /** @type {'SC_ERR_SCORE_INVALID' | 'SC_ERR_SCORE_OUT_OF_MEMORY'} */
  let refusal = 'SC_ERR_SCORE_INVALID';
  const refuse = async () => new ScorecastError(refusal, await described());

  /**
   * Open a package file named in the manifest; record a problem when it cannot be.
   * @param {string} rel
   * @param {string} field
   * @param {number} maxBytes
   */
  async function openPackageFile(rel, field, maxBytes) {
    const opened = await openInPackage(root, rel, maxBytes);
    if (!opened.ok) {
      problems.push({
        field,
        message: opened.missing
          ? `${rel} does not exist in the package; add the file or fix the path`
          : `${rel} ${opened.reason}`,
      });
      return null;
    }
    return (await withinTotal(opened)) ? opened : null;
  }

  /**
   * SVG files are served only as cleaned (svg/sanitize.js), at the URL of what is served; a file
   * that cannot be cleaned is a problem of the package.
   * @param {{ rel: string, data: Buffer, add: (url: string, served: ServedFile, bytes: number) => void }[]} list
   * @param {string} scoreId
   */
  async function serveCleanSvgs(list, scoreId) {
    const results = await sanitizeSvgPages(list.map((s) => s.data));
    for (const [i, { rel, add }] of list.entries()) {
      const r = results[i];
      if (!r.ok) {
        if ('outOfMemory' in r) {
          refusal = 'SC_ERR_SCORE_OUT_OF_MEMORY';
          problems.push(`${rel}: ${r.reason}`);
        } else problems.push(`${rel}: ${r.reason}; export it again as a plain SVG file`);
        continue;
      }
      if (r.removed > 0)
        warnings.push(
          `${rel}: ${r.removed} element(s) or attribute(s) removed (scripts, event handlers, links or references outside the page)`,
        );
      const body = Buffer.from(r.svg);
      const hash = createHash('sha256').update(body).digest('hex').slice(0, 16);
      add(
        `/scores/${scoreId}/${hash}/${rel}`,
        { file: path.join(root, rel), root, type: typeOf(rel), etag: hash, body },
        body.length,
      );
    }
  }

  /** @type {Map<string, { url: string, bytes: number }>} */
  const hashed = new Map();
  /** @type {Parameters<typeof serveCleanSvgs>[0]} */
  const svgAssets = [];
  const named = assetPaths(raw);
  // More than the bound is reported by the manifest check, and unsafe paths: none is read.
  const toRead = named.length <= LIMITS.assets ? named.filter((rel) => isSafeRelativePath(rel)) : [];
  // Sizes first: a package past its total is refused before gigabytes of assets are hashed.
  let assetBytes = 0;
  for (const rel of toRead) {
    const opened = await openInPackage(root, rel, LIMITS.assetBytes);
    if (opened.ok) {
      assetBytes += opened.size;
      await opened.handle.close();
    }
  }
  if (totalBytes + assetBytes > LIMITS.packageBytes) {
    overTotal();
    for (const rel of toRead) unread.add(rel);
  }
  for (const rel of toRead) {
    if (unread.has(rel)) continue;
    const opened = await openInPackage(root, rel, LIMITS.assetBytes);
    if (!opened.ok) {
      // A missing file is reported with its field once the model is built.
      if (!opened.missing) problems.push(`${rel}: ${opened.reason}`);
      continue;
    }
    if (!(await withinTotal(opened))) {
      unread.add(rel);
      continue;
    }
    if (isSvg(rel)) {
      const data = await readAll(opened.handle);
      svgAssets.push({
        rel,
        data,
        add: (url, served, bytes) => {
          hashed.set(rel, { url, bytes });
          files.set(url, served);
        },
      });
      continue;
    }
    const hash = await hashStream(opened.handle);
    const url = `/scores/${id}/${hash}/${rel}`;
    hashed.set(rel, { url, bytes: opened.size });
    files.set(url, { file: opened.real, root, type: typeOf(rel), etag: hash });
  }
  if (svgAssets.length > 0) await serveCleanSvgs(svgAssets, id);

  /** @type {import('../../core/tempo-map.js').BarSpec[] | undefined} */
  let bars;
  /** @type {Awaited<ReturnType<typeof engraveScore>> | null} */
  let engraved = null;
  if (isObject(raw) && isObject(raw.notation) && isSafeRelativePath(raw.notation.file)) {
    const parts = (Array.isArray(raw.parts) ? raw.parts.slice(0, LIMITS.parts) : [])
      .filter(isObject)
      .map((p) => ({ id: String(p.id), ...(typeof p.source === 'string' ? { source: p.source } : {}) }));
    const opened = await openPackageFile(raw.notation.file, 'notation.file', LIMITS.notationBytes);
    if (opened) {
      try {
        const bytes = await readAll(opened.handle);
        engraved = await engraveScore({ file: opened.real, bytes, parts, cacheDir, deferLayouts });
        bars = engraved.bars;
        warnings.push(...engraved.warnings);
      } catch (err) {
        if (!(err instanceof ScorecastError)) throw err;
        if (err.code === 'SC_ERR_SCORE_OUT_OF_MEMORY') refusal = err.code;
        problems.push(...(err.problems.length > 0 ? err.problems : [`${raw.notation.file}: ${err.message}`]));
      }
    }
  }

  const built = buildScoreModel(raw, { bars, assetUrl: (p) => hashed.get(p)?.url ?? p });
  if (!built.ok) problems.push(...built.problems);
  if (problems.length > 0 || !built.ok) throw await refuse();
  const model = built.value;

  /** @type {LoadedAsset[]} */
  const assets = [];
  for (const [i, a] of model.assets.entries()) {
    const h = hashed.get(a.path);
    if (!h && !unread.has(a.path))
      problems.push({
        field: `assets[${i}].path`,
        message: `${a.path} does not exist in the package; add the file or remove the entry`,
      });
    else if (h) assets.push({ path: a.path, url: h.url, bytes: h.bytes, preload: a.preload });
  }

  /** @type {Record<string, ViewPages>} */
  const views = {};
  /** @type {string[]} */
  let pendingLayouts = [];
  /** Serves the pending layouts once they are engraved, into the package loaded. */
  /** @type {((pkg: ScorePackage, memoryBytes: number) => Promise<void>) | null} */
  let serveLater = null;
  if (engraved) {
    const eng = engraved;
    const engRoot = (await realRoot(eng.dir)) ?? eng.dir;
    /**
     * @param {string} view
     * @param {{ pages: { file: string, width: number, height: number }[], beats: BeatPosition[] }} v
     * @param {Map<string, ServedFile>} [into]  where its files go
     * @param {(string | FieldProblem)[]} [sink]  where its problems go
     * @returns {ViewPages | null}
     */
    const serve = (view, v, into = files, sink = problems) => {
      // The engraver's beat maps obey the same rules as a composer's (a bug there must not
      // reach the musicians' screens as a cursor in the wrong place).
      const checked = checkBeatMap(
        { pages: v.pages, beats: v.beats },
        { file: `${model.notation?.file} (${view} view)`, totalBeats: model.map.totalBeats, pageCount: v.pages.length },
      );
      if (!checked.ok) {
        sink.push(...checked.problems.map(describeBeatMapProblem));
        return null;
      }
      return {
        pages: v.pages.map((p) => {
          const url = `/scores/${model.id}/${eng.hash}/${p.file}`;
          const file = path.join(engRoot, p.file);
          into.set(url, {
            file,
            root: engRoot,
            type: typeOf(p.file),
            etag: `${eng.hash}-${p.file}`,
            br: `${file}.br`,
            gz: `${file}.gz`,
          });
          return { url, width: p.width, height: p.height };
        }),
        beats: v.beats,
      };
    };
    for (const [view, v] of Object.entries(eng.views)) {
      const served = serve(view, v);
      if (!served) continue;
      /** @type {NonNullable<ViewPages['layouts']>} */
      const layouts = [];
      for (const l of v.layouts ?? []) {
        const more = serve(`${view}, ${l.name} layout`, l);
        if (more) layouts.push({ name: l.name, staff: l.staff, ink: l.ink, ...more });
      }
      const later = view !== 'score' && eng.pending.length > 0 ? { pending: eng.pending } : {};
      views[view] = { ...served, staff: v.staff, ink: v.ink, ...(layouts.length ? { layouts } : {}), ...later };
    }
    /** A part view's pending layouts are done: it gets those that could be served. */
    const settle = (/** @type {string} */ view, /** @type {NonNullable<ViewPages['layouts']>} */ layouts) => {
      const { pending: _, ...rest } = views[view];
      views[view] = { ...rest, ...(layouts.length > 0 ? { layouts } : {}) };
    };
    if (eng.pending.length > 0) {
      pendingLayouts = eng.pending;
      /**
       * Serve the layouts once engraved: this package's part views get them, and nothing else
       * (a package loaded since is another object, with its own views and files).
       * @param {Awaited<typeof eng.complete>} complete
       */
      const serveLayouts = async (complete, /** @type {number} */ memoryBytes) => {
        /** @type {Map<string, ServedFile>} */
        const more = new Map();
        /** @type {(string | FieldProblem)[]} */
        const wrong = [];
        /** @type {Record<string, NonNullable<ViewPages['layouts']>>} */
        const added = {};
        for (const [view, v] of Object.entries(complete.views)) {
          if (!views[view] || !v.layouts) continue;
          added[view] = [];
          for (const l of v.layouts) {
            const served = serve(`${view}, ${l.name} layout`, l, more, wrong);
            if (served) added[view].push({ name: l.name, staff: l.staff, ink: l.ink, ...served });
          }
        }
        await prepareServed(more, { memoryBytes: Math.max(0, MEMORY_BOUND_BYTES - memoryBytes) });
        for (const [url, f] of more) files.set(url, f);
        for (const [view, layouts] of Object.entries(added)) settle(view, layouts);
        warnings.push(...wrong.map((w) => (typeof w === 'string' ? w : `${w.field}: ${w.message}`)));
      };
      serveLater = (pkg, memoryBytes) =>
        eng.complete
          .then((complete) => serveLayouts(complete, memoryBytes))
          .then(
            () => {
              pkg.pendingLayouts = [];
            },
            (/** @type {Error} */ err) => {
              pkg.pendingLayouts = [];
              for (const [view, v] of Object.entries(views)) if (v.pending) settle(view, []);
              warnings.push(`the parts' narrower layouts could not be engraved: ${err.message.trim()}`);
            },
          );
    }
  }
  for (const [view, spec] of Object.entries(model.pages ?? {})) {
    /** @type {ViewPages['pages']} */
    const pages = [];
    /** @type {Parameters<typeof serveCleanSvgs>[0]} */
    const svgPages = [];
    for (const [i, rel] of spec.files.entries()) {
      const opened = await openPackageFile(rel, `pages.${view}.files[${i}]`, LIMITS.pageBytes);
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
      const url = `/scores/${model.id}/${hash}/${rel}`;
      files.set(url, { file: opened.real, root, type: typeOf(rel), etag: hash });
      pages.push({ url, ...size });
    }
    if (svgPages.length > 0) await serveCleanSvgs(svgPages, model.id);
    const opened = await openPackageFile(spec.beatmap, `pages.${view}.beatmap`, LIMITS.beatMapBytes);
    if (!opened) continue;
    const bytes = await readAll(opened.handle);
    const parsed = await parseBeatMap(bytes, spec.beatmap.toLowerCase().endsWith('.csv') ? 'csv' : 'json', {
      file: spec.beatmap,
      totalBeats: model.map.totalBeats,
      pageCount: spec.files.length,
      // Boxes are checked against the pages only when every page could be read.
      ...(pages.length === spec.files.length
        ? { pageSizes: pages.map(({ width, height }) => ({ width, height })) }
        : {}),
    });
    if (!parsed.ok) {
      problems.push(...parsed.problems.map(describeBeatMapProblem));
      continue;
    }
    views[view] = { pages, beats: parsed.value.beats };
  }
  if (problems.length > 0) throw await refuse();
  const memory = await prepareServed(files);
  /** @type {ScorePackage} */
  const pkg = { dir, model, assets, views, files, warnings, pendingLayouts };
  pkg.layoutsReady = serveLater
    ? serveLater(pkg, memory.inMemory ? memory.bytes : MEMORY_BOUND_BYTES)
    : Promise.resolve();
  return pkg;
}

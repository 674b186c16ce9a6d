// Loads a whole score package: the manifest, the engraved notation or the image pages with their
// beat maps, and the assets, each given a content-hashed URL. The result lists every file the
// server may serve for the package; nothing else in or outside the folder can be read.

import { readFile } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { buildScoreModel } from '../core/manifest.js';
import { checkBeatMap, describeBeatMapProblem, parseBeatMapCsv } from '../core/beatmap.js';
import { ScorecastError } from '../core/errors.js';
import { readManifest, describeProblems } from './manifest-file.js';
import { engraveScore } from './engrave/index.js';
import { unknownKeys } from './manifest-schema.js';
import { imageSize } from './image-size.js';

/**
 * @typedef {object} ServedFile
 * @property {string} file       absolute path
 * @property {string} type       content type
 * @property {string} etag
 * @property {string} [br]       precompressed brotli variant
 * @property {string} [gz]       precompressed gzip variant
 */

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
 * @property {import('../core/manifest.js').ScoreModel} model
 * @property {LoadedAsset[]} assets
 * @property {Record<string, ViewPages>} views   the score and part views that have pages
 * @property {Map<string, ServedFile>} files     URL path -> file
 * @property {string[]} warnings
 */

const TYPES = /** @type {Record<string, string>} */ ({
  '.wav': 'audio/wav', '.mp3': 'audio/mpeg', '.ogg': 'audio/ogg', '.m4a': 'audio/mp4', '.svg': 'image/svg+xml',
  '.png': 'image/png', '.jpg': 'image/jpeg', '.jpeg': 'image/jpeg', '.json': 'application/json',
  '.txt': 'text/plain; charset=utf-8', '.css': 'text/css', '.woff2': 'font/woff2',
});

/** @param {string} p */
const typeOf = (p) => TYPES[path.extname(p).toLowerCase()] ?? 'application/octet-stream';

/** @param {Buffer} data */
const hashOf = (data) => createHash('sha256').update(data).digest('hex').slice(0, 16);

/**
 * @param {unknown} v
 * @returns {v is Record<string, any>}
 */
const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * Every package file the manifest names as an asset or audio clip (validated later).
 * @param {unknown} raw
 * @returns {string[]}
 */
function assetPaths(raw) {
  if (!isObject(raw)) return [];
  const out = new Set();
  for (const a of Array.isArray(raw.assets) ? raw.assets : []) if (isObject(a) && typeof a.path === 'string') out.add(a.path);
  for (const c of Array.isArray(raw.cues) ? raw.cues : []) if (isObject(c) && typeof c.audio === 'string') out.add(c.audio);
  return [...out];
}

/**
 * Load, engrave (or read from the cache) and validate the package in `packageDir`.
 * Throws ScorecastError SC_ERR_SCORE_NOT_FOUND or SC_ERR_SCORE_INVALID listing every problem.
 * @param {string} packageDir
 * @param {{ cacheDir: string }} options
 * @returns {Promise<ScorePackage>}
 */
export async function loadPackage(packageDir, { cacheDir }) {
  const dir = path.resolve(packageDir);
  const { raw, lineOf } = await readManifest(dir);
  const id = isObject(raw) && typeof raw.id === 'string' ? raw.id : 'score';
  /** @type {string[]} */
  const problems = unknownKeys(raw, lineOf);
  /** @type {string[]} */
  const warnings = [];
  /** @type {Map<string, ServedFile>} */
  const files = new Map();

  /**
   * Read a package file named in the manifest; record a problem when it is missing.
   * @param {string} rel
   * @param {string} field
   */
  async function readPackageFile(rel, field) {
    try {
      return await readFile(path.join(dir, rel));
    } catch {
      problems.push(`score.yaml${lineOf(field)}: ${field}: ${rel} does not exist in the package; add the file or fix the path`);
      return null;
    }
  }

  /** @type {Map<string, { url: string, bytes: number }>} */
  const hashed = new Map();
  for (const rel of assetPaths(raw)) {
    // Unsafe paths are reported by the manifest check; they are never read.
    if (rel.split('/').includes('..') || path.isAbsolute(rel) || rel.includes('\\')) continue;
    const data = await readFile(path.join(dir, rel)).catch(() => null);
    if (!data) continue;
    const hash = hashOf(data);
    const url = `/scores/${id}/${hash}/${rel}`;
    hashed.set(rel, { url, bytes: data.length });
    files.set(url, { file: path.join(dir, rel), type: typeOf(rel), etag: hash });
  }

  /** @type {import('../core/tempo-map.js').BarSpec[] | undefined} */
  let bars;
  /** @type {Awaited<ReturnType<typeof engraveScore>> | null} */
  let engraved = null;
  if (isObject(raw) && isObject(raw.notation) && typeof raw.notation.file === 'string' && !raw.notation.file.split('/').includes('..')) {
    const parts = (Array.isArray(raw.parts) ? raw.parts : []).filter(isObject)
      .map((p) => ({ id: String(p.id), ...(typeof p.source === 'string' ? { source: p.source } : {}) }));
    try {
      engraved = await engraveScore({ file: path.join(dir, raw.notation.file), parts, cacheDir });
      bars = engraved.bars;
      warnings.push(...engraved.warnings);
    } catch (err) {
      if (!(err instanceof ScorecastError)) throw err;
      problems.push(...err.message.split('\n').slice(1).filter(Boolean));
      if (problems.length === 0) problems.push(`${raw.notation.file}: ${err.message}`);
    }
  }

  const built = buildScoreModel(raw, { bars, assetUrl: (p) => hashed.get(p)?.url ?? p });
  if (!built.ok) problems.push(...describeProblems(built.problems, lineOf));
  if (problems.length > 0 || !built.ok) throw new ScorecastError('SC_ERR_SCORE_INVALID', `\n${problems.join('\n')}`);
  const model = built.value;

  /** @type {LoadedAsset[]} */
  const assets = [];
  for (const [i, a] of model.assets.entries()) {
    const h = hashed.get(a.path);
    if (!h) problems.push(`score.yaml${lineOf(`assets[${i}].path`)}: assets[${i}].path: ${a.path} does not exist in the package; add the file or remove the entry`);
    else assets.push({ path: a.path, url: h.url, bytes: h.bytes, preload: a.preload });
  }

  /** @type {Record<string, ViewPages>} */
  const views = {};
  if (engraved) {
    const eng = engraved;
    for (const [view, v] of Object.entries(eng.views)) {
      // The engraver's beat maps obey the same rules as a composer's (a bug there must not
      // reach the musicians' screens as a cursor in the wrong place).
      const checked = checkBeatMap({ pages: v.pages, beats: v.beats }, { file: `${model.notation?.file} (${view} view)`, totalBeats: model.map.totalBeats, pageCount: v.pages.length });
      if (!checked.ok) { problems.push(...checked.problems.map(describeBeatMapProblem)); continue; }
      views[view] = {
        pages: v.pages.map((p) => {
          const url = `/scores/${model.id}/${eng.hash}/${p.file}`;
          const file = path.join(eng.dir, p.file);
          files.set(url, { file, type: typeOf(p.file), etag: `${eng.hash}-${p.file}`, br: `${file}.br`, gz: `${file}.gz` });
          return { url, width: p.width, height: p.height };
        }),
        beats: v.beats,
      };
    }
  }
  for (const [view, spec] of Object.entries(model.pages ?? {})) {
    /** @type {ViewPages['pages']} */
    const pages = [];
    for (const [i, rel] of spec.files.entries()) {
      const data = await readPackageFile(rel, `pages.${view}.files[${i}]`);
      if (!data) continue;
      const size = imageSize(data, rel);
      if (!size) { problems.push(`${rel}: is not a PNG, JPEG or SVG image I can read; export the page as PNG or SVG`); continue; }
      const hash = hashOf(data);
      const url = `/scores/${model.id}/${hash}/${rel}`;
      files.set(url, { file: path.join(dir, rel), type: typeOf(rel), etag: hash });
      pages.push({ url, ...size });
    }
    const text = await readPackageFile(spec.beatmap, `pages.${view}.beatmap`);
    if (!text) continue;
    const parsed = spec.beatmap.toLowerCase().endsWith('.csv')
      ? parseBeatMapCsv(text.toString('utf8'), { file: spec.beatmap, totalBeats: model.map.totalBeats, pageCount: spec.files.length })
      : parseJsonBeatMap(text.toString('utf8'), spec.beatmap);
    if (!parsed.ok) { problems.push(...parsed.problems.map(describeBeatMapProblem)); continue; }
    const checked = checkBeatMap(parsed.value, { file: spec.beatmap, totalBeats: model.map.totalBeats, pageCount: spec.files.length });
    if (!checked.ok) { problems.push(...checked.problems.map(describeBeatMapProblem)); continue; }
    views[view] = { pages, beats: checked.value.beats };
  }
  if (problems.length > 0) throw new ScorecastError('SC_ERR_SCORE_INVALID', `\n${problems.join('\n')}`);
  return { dir, model, assets, views, files, warnings };
}

/**
 * @param {string} text
 * @param {string} file
 * @returns {{ ok: true, value: unknown } | { ok: false, problems: { file: string, message: string }[] }}
 */
function parseJsonBeatMap(text, file) {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (err) {
    return { ok: false, problems: [{ file, message: `is not valid JSON (${/** @type {Error} */ (err).message}); export the beat map again` }] };
  }
}

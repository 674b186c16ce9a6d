// Reads a score package from disk: parses score.yaml, validates it (core/manifest.js) and finds
// its assets. Problems name the file and line, what is wrong and what to do.

import { readFile, stat } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { LineCounter, parseDocument } from 'yaml';
import { buildScoreModel } from '../core/manifest.js';
import { ScorecastError } from '../core/errors.js';

/** Largest manifest read (bytes): a manifest is text, not a place for data. */
const MAX_MANIFEST_BYTES = 4 * 1024 * 1024;

/**
 * @typedef {object} LoadedAsset
 * @property {string} path     relative to the package
 * @property {string} file     absolute path on disk
 * @property {string} url      what clients fetch (content-hashed query)
 * @property {string} hash
 * @property {number} bytes
 * @property {boolean} preload
 */

/**
 * @typedef {object} LoadedScore
 * @property {string} dir
 * @property {import('../core/manifest.js').ScoreModel} model
 * @property {LoadedAsset[]} assets
 */

/**
 * A problem found in a package, as text: "score.yaml line 12: cues[3]: ...".
 * @param {string} file
 * @param {number | null} line
 * @param {string} field
 * @param {string} message
 */
const describe = (file, line, field, message) => `${file}${line ? ` line ${line}` : ''}: ${field}: ${message}`;

/**
 * Path of a problem's field as YAML keys: "cues[3].bar" -> ["cues", 3, "bar"].
 * @param {string} field
 */
function fieldPath(field) {
  return [...field.matchAll(/([^.[\]]+)|\[(\d+)\]/g)].map((m) => (m[2] !== undefined ? Number(m[2]) : m[1]));
}

/**
 * Load and validate the package in `dir`. Throws ScorecastError SC_ERR_SCORE_NOT_FOUND or
 * SC_ERR_SCORE_INVALID with every problem listed, one per line.
 * @param {string} packageDir
 * @returns {Promise<LoadedScore>}
 */
export async function loadScore(packageDir) {
  const dir = path.resolve(packageDir);
  const manifestFile = path.join(dir, 'score.yaml');
  let text;
  try {
    const info = await stat(manifestFile);
    if (info.size > MAX_MANIFEST_BYTES) {
      throw new ScorecastError('SC_ERR_SCORE_INVALID', `score.yaml is ${info.size} bytes, more than ${MAX_MANIFEST_BYTES}; keep data in asset files`);
    }
    text = await readFile(manifestFile, 'utf8');
  } catch (err) {
    if (err instanceof ScorecastError) throw err;
    throw new ScorecastError('SC_ERR_SCORE_NOT_FOUND', `${manifestFile}: ${/** @type {Error} */ (err).message}`);
  }

  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: true, uniqueKeys: true });
  if (doc.errors.length > 0) {
    const lines = doc.errors.map((e) => describe('score.yaml', e.linePos?.[0]?.line ?? null, 'syntax', e.message.split('\n')[0]));
    throw new ScorecastError('SC_ERR_SCORE_INVALID', `\n${lines.join('\n')}`);
  }
  const built = buildScoreModel(doc.toJS({ maxAliasCount: 100 }));
  if (!built.ok) {
    const lines = built.problems.map((p) => {
      const node = /** @type {any} */ (doc.getIn(fieldPath(p.field), true));
      const offset = node?.range?.[0];
      return describe('score.yaml', typeof offset === 'number' ? lineCounter.linePos(offset).line : null, p.field, p.message);
    });
    throw new ScorecastError('SC_ERR_SCORE_INVALID', `\n${lines.join('\n')}`);
  }
  const model = built.value;

  /** @type {LoadedAsset[]} */
  const assets = [];
  /** @type {string[]} */
  const missing = [];
  for (const [i, a] of model.assets.entries()) {
    const file = path.join(dir, a.path);
    try {
      const data = await readFile(file);
      const hash = createHash('sha256').update(data).digest('hex').slice(0, 16);
      assets.push({ path: a.path, file, hash, bytes: data.length, preload: a.preload, url: `/scores/${model.id}/${a.path}?v=${hash}` });
    } catch {
      missing.push(describe('score.yaml', null, `assets[${i}].path`, `${a.path} does not exist in the package; add the file or remove the entry`));
    }
  }
  if (missing.length > 0) throw new ScorecastError('SC_ERR_SCORE_INVALID', `\n${missing.join('\n')}`);
  return { dir, model, assets };
}

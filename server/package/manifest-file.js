// Reads a package's score.yaml: parses the YAML (in the parse worker) and maps manifest fields
// back to their lines, so every problem can name the file and line, what is wrong and what to do.

import path from 'node:path';
import { ScorecastError } from '../../core/errors.js';
import { PACKAGE_LIMITS } from '../../core/package-limits.js';
import { openInPackage, readAll, realRoot } from '../lib/contained-files.js';
import { manifestLines, parseManifest } from './parse.js';

/**
 * @typedef {object} Manifest
 * @property {unknown} raw   the parsed YAML
 * @property {string} root   the package folder's real path
 * @property {number} bytes  size of score.yaml
 * @property {(fields: string[]) => Promise<string[]>} linesOf  " line N" (or "") for each field
 *   path like "cues[3].bar"
 */

/**
 * Read and parse `score.yaml` in `dir`. Throws SC_ERR_SCORE_NOT_FOUND when there is none, or
 * SC_ERR_SCORE_INVALID for a manifest that is too big, a link, or not YAML we accept (syntax
 * errors, alias bombs), each problem with its line.
 * @param {string} dir
 * @returns {Promise<Manifest>}
 */
export async function readManifest(dir) {
  const manifestFile = path.join(dir, 'score.yaml');
  const root = await realRoot(dir);
  if (!root) throw new ScorecastError('SC_ERR_SCORE_NOT_FOUND', `${dir}: no such folder`);
  const opened = await openInPackage(root, 'score.yaml', PACKAGE_LIMITS.manifestBytes);
  if (!opened.ok && opened.missing)
    throw new ScorecastError('SC_ERR_SCORE_NOT_FOUND', `${manifestFile}: ${opened.reason}`);
  if (!opened.ok) throw new ScorecastError('SC_ERR_SCORE_INVALID', [`score.yaml: ${opened.reason}`]);
  const text = (await readAll(opened.handle)).toString('utf8');
  const parsed = await parseManifest(text);
  if (!parsed.ok) throw new ScorecastError('SC_ERR_SCORE_INVALID', parsed.problems);
  return { raw: parsed.raw, root, bytes: opened.size, linesOf: (fields) => manifestLines(text, fields) };
}

/**
 * Manifest problems as lines: "score.yaml line 12: cues[3]: ...".
 * @param {import('../../core/manifest.js').Problem[]} problems
 * @param {Manifest['linesOf']} linesOf
 */
export async function describeProblems(problems, linesOf) {
  const lines = await linesOf(problems.map((p) => p.field));
  return problems.map((p, i) => `score.yaml${lines[i]}: ${p.field}: ${p.message}`);
}

// Reads a package's score.yaml: parses the YAML and maps manifest fields back to their lines,
// so every problem can name the file and line, what is wrong and what to do.

import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { LineCounter, parseDocument } from 'yaml';
import { ScorecastError } from '../core/errors.js';

/** Largest manifest read (bytes): a manifest is text, not a place for data. */
const MAX_MANIFEST_BYTES = 4 * 1024 * 1024;

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
 * Read and parse `score.yaml` in `dir`. Throws SC_ERR_SCORE_NOT_FOUND or, for YAML syntax
 * errors, SC_ERR_SCORE_INVALID.
 * @param {string} dir
 * @returns {Promise<{ raw: unknown, lineOf: (field: string) => string }>} lineOf gives " line N"
 *   for a field path like "cues[3].bar", or "" when it is not in the file
 */
export async function readManifest(dir) {
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
  /** @param {string} field */
  const lineOf = (field) => {
    const node = /** @type {any} */ (doc.getIn(fieldPath(field), true));
    const offset = node?.range?.[0];
    return typeof offset === 'number' ? ` line ${lineCounter.linePos(offset).line}` : '';
  };
  return { raw: doc.toJS({ maxAliasCount: 100 }), lineOf };
}

/**
 * Manifest problems as lines: "score.yaml line 12: cues[3]: ...".
 * @param {import('../core/manifest.js').Problem[]} problems
 * @param {(field: string) => string} lineOf
 */
export function describeProblems(problems, lineOf) {
  return problems.map((p) => `score.yaml${lineOf(p.field)}: ${p.field}: ${p.message}`);
}

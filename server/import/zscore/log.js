// What an import says as it goes: problems (which refuse the export), what was converted, what was
// not and why, and notes. Each step of importZScore adds to one log; problems are thrown together.

import { ScorecastError } from '../../../core/errors.js';

/** Problems listed in one error; a broken export can have thousands of rows. */
const MAX_PROBLEMS = 40;

/**
 * @typedef {object} ImportLog
 * @property {string[]} problems
 * @property {import('./cues.js').ReportItem[]} converted
 * @property {import('./cues.js').ReportItem[]} notConverted
 * @property {string[]} notes
 */

/** @returns {ImportLog} */
export function newImportLog() {
  return { problems: [], converted: [], notConverted: [], notes: [] };
}

/**
 * @param {string[]} lines
 */
export function invalid(lines) {
  const shown = lines.slice(0, MAX_PROBLEMS);
  if (lines.length > MAX_PROBLEMS) shown.push(`... and ${lines.length - MAX_PROBLEMS} more problems`);
  return new ScorecastError('SC_ERR_SCORE_INVALID', shown);
}

/**
 * @param {import('./csv.js').SourceProblem} p
 */
export function describe(p) {
  return `${p.file}${p.line ? ` line ${p.line}` : ''}: ${p.message}`;
}

/**
 * Order report items by file, then line.
 * @param {{ source: string }} a
 * @param {{ source: string }} b
 */
export function bySource(a, b) {
  const [fa, la] = splitSource(a.source);
  const [fb, lb] = splitSource(b.source);
  return fa < fb ? -1 : fa > fb ? 1 : la - lb;
}

/**
 * @param {string} source "file line N" or "file"
 * @returns {[string, number]}
 */
function splitSource(source) {
  const m = /^(.*) line (\d+)$/.exec(source);
  return m ? [m[1], Number(m[2])] : [source, 0];
}

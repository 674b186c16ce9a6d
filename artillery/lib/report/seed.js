// The seed report (ZScore, 2019: seed/zscore-2019-results.csv): its rows, and those to show
// beside one of ours.

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { QA_DIR } from '../env.js';

/** The seed report's results (artillery/seed/, a copy of ../shared/seed/). */
export const SEED_CSV = path.join(QA_DIR, 'seed', 'zscore-2019-results.csv');

/**
 * One row of the seed report's tables (zscore-2019-results.csv).
 * @typedef {object} SeedRow
 * @property {number} case
 * @property {string} client      jmeter or custom
 * @property {string} request     page, poll or ws_push
 * @property {string} connection  wired or wireless
 * @property {string} firewall    yes or no
 * @property {string} note
 * @property {number | null} clients
 * @property {number | null} samples
 * @property {number | null} errors_pct
 * @property {number | null} avg_ms
 * @property {number | null} min_ms
 * @property {number | null} max_ms
 * @property {number | null} median_ms
 * @property {number | null} p90_ms
 * @property {number | null} p95_ms
 * @property {number | null} p99_ms
 */

const NUMERIC = [
  'case',
  'clients',
  'samples',
  'errors_pct',
  'avg_ms',
  'min_ms',
  'max_ms',
  'median_ms',
  'p90_ms',
  'p95_ms',
  'p99_ms',
];

/**
 * Parse the seed CSV (quoted cells may hold commas); the QA report and the venue lab read it so.
 * @param {string} text
 * @returns {SeedRow[]}
 */
export function parseSeed(text) {
  const lines = text.trim().split('\n');
  const head = lines[0].split(',');
  return lines.slice(1).map((line) => {
    /** @type {string[]} */
    const cells = [];
    let cur = '';
    let quoted = false;
    for (const ch of line) {
      if (ch === '"') quoted = !quoted;
      else if (ch === ',' && !quoted) {
        cells.push(cur);
        cur = '';
      } else cur += ch;
    }
    cells.push(cur);
    /** @type {Record<string, string | number | null>} */
    const o = {};
    head.forEach((h, i) => {
      const v = cells[i] ?? '';
      o[h] = NUMERIC.includes(h) ? (v === '' ? null : Number(v)) : v;
    });
    return /** @type {SeedRow} */ (/** @type {unknown} */ (o));
  });
}

/** @returns {SeedRow[]} */
export function loadSeed(file = SEED_CSV) {
  return parseSeed(readFileSync(file, 'utf8'));
}

/**
 * Seed rows for one of our rows: same kind of request, same number of clients.
 * @param {SeedRow[]} seed
 * @param {string} scenario
 * @param {string} kind  page, poll or push
 * @param {number} clients
 */
export function seedFor(seed, scenario, kind, clients) {
  /** @type {Record<string, [string, string]>} */
  const wants = {
    'poll:page': ['jmeter', 'page'],
    'poll:poll': ['jmeter', 'poll'],
    'page:page': ['custom', 'page'],
    'ws:push': ['custom', 'ws_push'],
    'sse:push': ['custom', 'ws_push'],
  };
  const want = wants[`${scenario}:${kind}`];
  if (!want) return [];
  return seed
    .filter((r) => r.client === want[0] && r.request === want[1] && r.clients === clients)
    .sort(
      (a, b) =>
        (a.connection === 'wired' ? 0 : 1) - (b.connection === 'wired' ? 0 : 1) ||
        (a.firewall === 'no' ? 0 : 1) - (b.firewall === 'no' ? 0 : 1),
    );
}

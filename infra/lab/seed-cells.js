// The seed report's matrix as lab cells: each of its test cases 1-22 becomes a profile, a suite
// and a client count, and each of our cells finds the seed rows it is compared with. Pure.

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The seed's results, kept beside the Artillery suites (artillery/seed/, a copy of ../shared/seed/). */
export const SEED_CSV = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '..',
  '..',
  'artillery',
  'seed',
  'zscore-2019-results.csv',
);

/**
 * @typedef {object} SeedRow one row of zscore-2019-results.csv
 * @property {number} case
 * @property {string} client custom | jmeter
 * @property {string} request ws_push | page | poll
 * @property {string} connection wired | wireless
 * @property {string} firewall yes | no
 * @property {number} clients
 * @property {number | null} samples
 * @property {number | null} errors_pct
 * @property {number | null} avg_ms
 * @property {number | null} min_ms
 * @property {number | null} max_ms
 * @property {number | null} median_ms
 * @property {number | null} p90_ms
 * @property {number | null} p95_ms
 * @property {number | null} p99_ms
 * @property {string} note
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
 * Parse the seed CSV (quoted cells may hold commas).
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
export function loadSeedRows(file = SEED_CSV) {
  return parseSeed(readFileSync(file, 'utf8'));
}

/**
 * The lab profile for a seed row's connection and firewall columns.
 * @param {{ connection: string, firewall: string }} row
 */
export function profileOf(row) {
  return `${row.connection === 'wired' ? 'wired' : 'wifi'}${row.firewall === 'yes' ? '+firewall' : ''}`;
}

/**
 * Our suite for a seed row: the custom client's WebSocket push and page cases, JMeter's
 * page-then-poll cases (both of their rows come from one poll cell).
 * @param {{ client: string, request: string }} row
 * @returns {'ws' | 'page' | 'poll'}
 */
export function suiteOf(row) {
  if (row.request === 'ws_push') return 'ws';
  if (row.client === 'jmeter') return 'poll';
  return 'page';
}

/**
 * @typedef {{ case: number, profile: string, suite: 'ws' | 'page' | 'poll', clients: number }} Cell
 */

/**
 * One cell per seed case, in case order.
 * @param {SeedRow[]} rows
 * @returns {Cell[]}
 */
export function seedCells(rows) {
  /** @type {Map<number, Cell>} */
  const cells = new Map();
  for (const r of rows) {
    if (!cells.has(r.case))
      cells.set(r.case, { case: r.case, profile: profileOf(r), suite: suiteOf(r), clients: r.clients });
  }
  return [...cells.values()].sort((a, b) => a.case - b.case);
}

/**
 * The seed rows to lay beside one of our cells: same suite, profile and number of clients.
 * @param {SeedRow[]} rows
 * @param {{ profile: string, suite: string, clients: number }} cell
 */
export function seedRowsFor(rows, cell) {
  return rows.filter((r) => suiteOf(r) === cell.suite && profileOf(r) === cell.profile && r.clients === cell.clients);
}

// The seed report's matrix as lab cells: each of its test cases 1-22 becomes a profile, a suite
// and a client count, and each of our cells finds the seed rows it is compared with. Pure.

/** @typedef {import('../../artillery/lib/report/seed.js').SeedRow} SeedRow */

export { parseSeed, SEED_CSV } from '../../artillery/lib/report/seed.js';
export { loadSeed as loadSeedRows } from '../../artillery/lib/report/seed.js';

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
      cells.set(r.case, { case: r.case, profile: profileOf(r), suite: suiteOf(r), clients: r.clients ?? 0 });
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

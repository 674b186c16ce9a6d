#!/usr/bin/env node
// The seed report's matrix in the venue lab: each of its test cases 1-22 as a lab cell (its
// profile, suite and client count), then one table with our rows beside the seed's.
//
//   npm run lab:matrix [-- --cases 1,2,9] [--out DIR] [--no-warmup] [--wait S]
//
// Every case starts a fresh server. The whole matrix takes about 25 minutes on 2 cores (cases
// 17-18 hold 1,000-1,500 clients). Exit 0 when every cell ran (a broken budget is a result), 1
// when a cell could not run (the others still run; matrix.md says which and why), 2 when the lab
// cannot run here.

import { parseArgs } from 'node:util';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { runCell, cellRows, mdTable, LAB_OUT } from './cell.js';
import { loadSeedRows, seedCells } from './seed-cells.js';
import { isUp, down, holdLab } from './lab.js';
import { usageOf } from '../../artillery/lib/usage.js';

const stamp = () => new Date().toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);

async function main() {
  const { values: o } = parseArgs({
    options: {
      cases: { type: 'string' },
      out: { type: 'string' },
      'no-warmup': { type: 'boolean' },
      wait: { type: 'string', default: '0' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (o.help) {
    process.stdout.write(`${usageOf(import.meta.url, 10)}\n`);
    return 0;
  }
  const all = seedCells(loadSeedRows());
  const want = o.cases ? o.cases.split(',').map((s) => Number(s.trim())) : all.map((c) => c.case);
  const cells = all.filter((c) => want.includes(c.case));
  if (cells.length !== want.length) throw new Error(`--cases: the seed has cases ${all[0].case}-${all.at(-1)?.case}`);
  const dir = path.resolve(o.out ?? path.join(LAB_OUT, `matrix-${stamp()}`));
  mkdirSync(dir, { recursive: true });
  // The whole matrix holds this copy of the lab: no other run slips in between two cells.
  const release = await holdLab({ what: 'lab matrix', waitMs: Number(o.wait) * 1000, log: console.log });
  const wasUp = isUp();
  /** @type {{ cell: typeof cells[number], dir: string, rec: any, error?: string }[]} */
  const done = [];
  try {
    for (const cell of cells) {
      console.log(`lab matrix: case ${cell.case}: ${cell.profile}, ${cell.suite}, ${cell.clients} clients`);
      const cdir = path.join(
        dir,
        `case-${String(cell.case).padStart(2, '0')}-${cell.profile}-${cell.suite}-${cell.clients}`,
      );
      // A cell that could not run (its load generator found no network, say) is reported as such,
      // and the matrix goes on with the next.
      try {
        const rec = await runCell({ ...cell, out: cdir, warmup: !o['no-warmup'], keepUp: true, seedCase: cell.case });
        done.push({ cell, dir: cdir, rec });
      } catch (err) {
        const error = /** @type {Error} */ (err).message;
        console.log(`lab matrix: case ${cell.case} did not run: ${error}`);
        done.push({ cell, dir: cdir, rec: null, error });
      }
      writeFileSync(path.join(dir, 'matrix.md'), matrixReport(done));
    }
  } finally {
    if (!wasUp) down();
    release();
  }
  console.log(`lab matrix: ${path.join(dir, 'matrix.md')}`);
  return done.some((d) => !d.rec) ? 1 : 0;
}

/** @param {{ cell: any, dir: string, rec: any, error?: string }[]} done */
function matrixReport(done) {
  const out = [
    "# The seed report's matrix in the venue lab",
    '',
    'Each case of ZScore\'s 2019 report (rows "ZScore 2019") beside the same case in the lab (rows "scorecast lab"): same connection, firewall, kind of request and number of clients. Latencies in ms. Lab: one 2-core machine, the server and the load generator in network namespaces joined by veth links, the router\'s nftables and htb queues, WiFi from toxiproxy and a tbf radio (infra/lab/README.md).',
    '',
  ];
  for (const d of done) {
    if (!d.rec) {
      out.push(
        `## Case ${d.cell.case}: ${d.cell.profile}, ${d.cell.suite}, ${d.cell.clients} clients: DID NOT RUN (${d.error})`,
        '',
      );
      continue;
    }
    out.push(
      `## Case ${d.cell.case}: ${d.cell.profile}, ${d.cell.suite}, ${d.cell.clients} clients: ${d.rec.passed ? 'budgets ok' : `BROKEN (${d.rec.broken.join('; ')})`}`,
      '',
      mdTable(cellRows(d.dir, d.rec)),
      '',
    );
  }
  return `${out.join('\n')}\n`;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    process.stderr.write(`lab matrix: ${err.message}\n`);
    process.exitCode = 2;
  },
);

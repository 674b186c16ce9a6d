#!/usr/bin/env node
// The roaming cell: 10 audience pages in Chromium in the WiFi client namespace, the radio cut
// silently (nftables drops, no reset) for 2 to 8 s at a time, and how long after the link's
// return each page shows its first on-time beat. Goal: p99 within 1 s, nothing missed
// or repeated.
//
//   node infra/lab/roam.js [--profile wifi+firewall] [--pages 10] [--cuts 2000,3000,...] [--out DIR]
//     [--wait S]   wait up to S seconds for another run on this copy of the lab (SCORECAST_LAB_ID)
//     [--console]  print each page's connection log with its time
//     [--netlog F] Chromium's net log (socket pools, connect jobs) to file F
// Exit 0 when the goal is met, 1 when not, 2 when the cell could not run.

import { parseArgs } from 'node:util';
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { labSupport, up, down, isUp, holdLab } from './lab.js';
import { NS, PROFILES } from './topology.js';
import { startLabServer, LAB_OUT } from './cell.js';
import { REPO_ROOT, gitDescribe } from '../../artillery/lib/env.js';
import { quantile } from '../../core/stats.js';

export const GOAL_P99_MS = 1000;
const DEFAULT_CUTS = '2000,3000,4000,5000,6000,7000,8000,2500,4500,6500';

/** Nearest-rank percentile. @param {number[]} xs @param {number} q */
export const pctl = (xs, q) => quantile(xs, q / 100);

async function main() {
  const { values: o } = parseArgs({
    options: {
      profile: { type: 'string', default: 'wifi+firewall' },
      pages: { type: 'string', default: '10' },
      cuts: { type: 'string', default: DEFAULT_CUTS },
      out: { type: 'string' },
      'keep-up': { type: 'boolean' },
      console: { type: 'boolean' },
      wait: { type: 'string', default: '0' },
      netlog: { type: 'string' },
    },
  });
  const support = labSupport();
  if (!support.ok) {
    process.stderr.write(`lab roam: cannot run here: ${support.reasons.join('; ')}\n`);
    return 2;
  }
  const p = PROFILES[/** @type {string} */ (o.profile)];
  if (p?.ns !== NS.wifi) throw new Error('--profile must be a WiFi profile (wifi, wifi+firewall, congested-wifi)');
  const dir = path.resolve(
    o.out ?? path.join(LAB_OUT, `roam-${new Date().toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15)}`),
  );
  mkdirSync(dir, { recursive: true });
  const log = (/** @type {string} */ s) => process.stdout.write(`${s}\n`);
  const release = await holdLab({ what: 'lab roaming cell', waitMs: Number(o.wait) * 1000, log });
  try {
    return await roam(o, p, dir, log);
  } finally {
    release();
  }
}

/**
 * @param {{ pages?: string, cuts?: string, console?: boolean, netlog?: string, 'keep-up'?: boolean }} o
 * @param {import('./topology.js').Profile} p @param {string} dir @param {(s: string) => void} log
 */
async function roam(o, p, dir, log) {
  const wasUp = isUp();
  await up({ profile: p.name, log });
  const server = await startLabServer({ dir, log, clientNs: p.ns, target: p.target });
  let result;
  try {
    const driver = path.join(path.dirname(fileURLToPath(import.meta.url)), 'roam-pages.js');
    const child = spawn(
      'ip',
      [
        'netns',
        'exec',
        p.ns,
        process.execPath,
        driver,
        '--target',
        p.target,
        '--pages',
        String(o.pages),
        '--cuts',
        String(o.cuts),
        ...(o.console ? ['--console'] : []),
        ...(o.netlog ? ['--netlog', path.resolve(o.netlog)] : []),
      ],
      { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let text = '';
    child.stdout.on('data', (d) => {
      text += d;
    });
    const code = await new Promise((r) => child.on('close', r));
    if (code !== 0) throw new Error(`the page driver exited ${code}`);
    result = JSON.parse(text.trim().split('\n').at(-1) ?? '{}');
  } finally {
    await server.stop();
    if (!wasUp && !o['keep-up']) down({ log });
  }
  const backs = result.cuts.flatMap((/** @type {any} */ c) => c.perPage.map((/** @type {any} */ x) => x.backMs));
  const never = backs.filter((/** @type {number | null} */ b) => b === null).length;
  const xs = backs.filter((/** @type {number | null} */ b) => b !== null);
  const summary = {
    samples: backs.length,
    neverBack: never,
    p50: pctl(xs, 50),
    p90: pctl(xs, 90),
    p99: pctl(xs, 99),
    max: Math.max(...xs),
    min: Math.min(...xs),
  };
  // The pages of one cut share one radio: a cut whose retransmissions fell badly (or that the
  // machine starved) is late for most of its pages together, so the 100 page-cuts are 10 draws, not
  // 100. `steady` leaves out the one worst cut: what a regression guard can hold on a loaded
  // machine, where the worst cut alone decides the p99. The worst cut is the one with the slowest
  // page (a page never back counts as infinitely slow): the p99 of the other 90 page-cuts is their
  // slowest (nearest rank), so leaving out the cut with the worst p90 instead kept a lone slow page
  // of another cut as the figure (CI, 2026-11-27: one page of a 4.5 s cut at 1,877 ms, the rest of
  // the run within 1,391 ms, while the cut left out was a 6 s cut whose p90 was 1,390 ms).
  const worstCut = result.cuts
    .map((/** @type {any} */ c, /** @type {number} */ i) => {
      const backs = c.perPage.map((/** @type {any} */ x) => x.backMs ?? Number.POSITIVE_INFINITY);
      return { i, slowest: Math.max(...backs), p90: pctl(backs, 90) };
    })
    .sort((/** @type {any} */ a, /** @type {any} */ b) => b.slowest - a.slowest || b.p90 - a.p90)[0];
  const rest = result.cuts
    .filter((/** @type {any} */ _c, /** @type {number} */ i) => i !== worstCut?.i)
    .flatMap((/** @type {any} */ c) => c.perPage.map((/** @type {any} */ x) => x.backMs))
    .filter((/** @type {number | null} */ b) => b !== null);
  const steady = {
    worstCutMs: worstCut === undefined ? null : result.cuts[worstCut.i].cutMs,
    worstCutP90: worstCut?.p90 ?? null,
    p99WithoutWorstCut: rest.length ? pctl(rest, 99) : null,
  };
  // How much of "back" is the link coming back, and how much the wait for an on-time beat.
  const lives = result.cuts
    .flatMap((/** @type {any} */ c) => c.perPage.map((/** @type {any} */ x) => x.liveMs))
    .filter((/** @type {number | null | undefined} */ v) => typeof v === 'number');
  const live = { samples: lives.length, p50: pctl(lives, 50), p90: pctl(lives, 90), p99: pctl(lives, 99) };
  const integrity = result.integrity.reduce(
    (/** @type {any} */ a, /** @type {any} */ x) => ({
      gaps: a.gaps + x.gaps,
      repeats: a.repeats + x.repeats,
      snapshots: a.snapshots + x.snapshots,
    }),
    { gaps: 0, repeats: 0, snapshots: 0 },
  );
  const passed = never === 0 && summary.p99 <= GOAL_P99_MS && integrity.gaps === 0 && integrity.repeats === 0;
  const rec = {
    kind: 'roam',
    profile: p.name,
    source: gitDescribe(REPO_ROOT),
    command: `node infra/lab/roam.js ${process.argv.slice(2).join(' ')}`.trim(),
    summary,
    steady,
    live,
    integrity,
    passed,
    ...result,
  };
  writeFileSync(path.join(dir, 'roam.json'), `${JSON.stringify(rec, null, 2)}\n`);
  const perCut = result.cuts.map(
    (/** @type {any} */ c) =>
      `| ${c.cutMs} | ${c.perPage.map((/** @type {any} */ x) => x.backMs ?? 'never').join(', ')} |`,
  );
  writeFileSync(
    path.join(dir, 'report.md'),
    [
      `# Roaming cell: ${p.name}, ${result.pages} pages, silent cuts`,
      '',
      `scorecast ${rec.source}. Command: \`${rec.command}\`. A cut drops every packet on the radio link both ways (nftables in the access point namespace, no reset); "back" is the time from the link's return to the first beat a page shows at most ${result.onTimeMs} ms after it was due (server time).`,
      '',
      `Back on time: p50 ${summary.p50} ms, p90 ${summary.p90} ms, p99 ${summary.p99} ms, max ${summary.max} ms over ${summary.samples} page-cuts (${never} never back within the settle time). Goal p99 ≤ ${GOAL_P99_MS} ms: ${passed ? 'met' : 'NOT met'}.`,
      `Without the worst cut (${steady.worstCutMs} ms, its pages' p90 ${steady.worstCutP90} ms): p99 ${steady.p99WithoutWorstCut} ms.`,
      `Link live again: p50 ${live.p50} ms, p90 ${live.p90} ms, p99 ${live.p99} ms after the link's return (${live.samples} page-cuts; the rest of "back" is the wait for a beat shown on time).`,
      `Integrity over the whole run: ${integrity.gaps} gaps, ${integrity.repeats} repeats, ${integrity.snapshots} snapshots after the first.`,
      '',
      '| cut (ms) | back on time per page (ms) |',
      '| --- | --- |',
      ...perCut,
      '',
    ].join('\n'),
  );
  log(
    `lab roam: back on time p50 ${summary.p50} p90 ${summary.p90} p99 ${summary.p99} max ${summary.max} ms (${summary.samples} page-cuts, ${never} never); without the worst cut p99 ${steady.p99WithoutWorstCut} ms; link live p50 ${live.p50} p90 ${live.p90} p99 ${live.p99} ms; gaps ${integrity.gaps}, repeats ${integrity.repeats}; goal ${passed ? 'met' : 'NOT met'} -> ${dir}`,
  );
  return passed ? 0 : 1;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    process.stderr.write(`lab roam: ${err.message}\n`);
    process.exitCode = 2;
  },
);

#!/usr/bin/env node
// Score package load benchmark (`npm run bench:package`): how long the event loop that plays
// the beats stalls while a package loads, for the largest packages the bounds allow
// (doc/score-format.md, "Limits"), against a small package in the same run. Also the same parse
// work done on the main thread (as before the parse worker), to show what the worker saves.
//
//   node bench/package-load.js [--repeat 3]
//
// Cases:
//   small        a 2-bar manifest with one cue (the baseline)
//   manifest     score.yaml just under 2 MiB: 10,000 bars and 15,000 cues
//   beatmaps     10 views x 50,000 beats = 500,000 CSV beat-map rows (the rows bound), one
//                SVG page per view
//   main-yaml    the `manifest` case's YAML parsed on the main thread (yaml's parseDocument)
//   main-csv     one 50,000-row beat map parsed and checked on the main thread
//   main-model   what stays on the main thread of the `manifest` case: JSON.parse of the
//                worker's answer and buildScoreModel
// Reports, per case, the median of --repeat runs: wall time, the longest event-loop stall
// (monitorEventLoopDelay, 1 ms resolution) and the stall as a ratio to the small package's.

import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { LineCounter, parseDocument } from 'yaml';
import { parseBeatMapCsv } from '../core/beatmap.js';
import { PACKAGE_LIMITS } from '../core/package-limits.js';
import { buildScoreModel } from '../core/manifest.js';
import { loadPackage } from '../server/package/load.js';
import { closeParser } from '../server/package/parse.js';
import { median } from '../core/stats.js';
import { benchArgs } from './cli-args.js';

const { values: args } = benchArgs(import.meta.url, { options: { repeat: { type: 'string', default: '3' } } });
const REPEAT = Math.max(1, Number(args.repeat) || 3);
const root = mkdtempSync(path.join(os.tmpdir(), 'sc-bench-pkg-'));
const cacheDir = path.join(root, 'cache');

/**
 * @param {string} name
 * @param {Record<string, string>} files
 */
function writePackage(name, files) {
  const dir = path.join(root, name);
  for (const [rel, body] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    writeFileSync(path.join(dir, rel), body);
  }
  return dir;
}

const small = writePackage('small', {
  'score.yaml':
    'id: small\ntitle: Small\nbars: 2\nmeter: [{ bar: 1, time: 4/4, tempo: 60 }]\ncues:\n  - { at: 0, set: { text: hi } }\n',
});

let cues = '';
for (let i = 0; ; i++) {
  const line = `  - { bar: ${1 + (i % 10_000)}, set: { text: "cue ${i}: light rises", color: "#f5f1e6", tiles: [{ id: t1, state: lit }] } }\n`;
  if (cues.length + line.length > PACKAGE_LIMITS.manifestBytes - 200) break;
  cues += line;
}
const manifestText = `id: big\ntitle: Big\nbars: 10000\nmeter: [{ bar: 1, time: 4/4, tempo: 96 }]\ncues:\n${cues}`;
const manifest = writePackage('manifest', { 'score.yaml': manifestText });
const manifestJson = JSON.stringify(parseDocument(manifestText).toJS());

const VIEWS = ['score', ...Array.from({ length: 9 }, (_, i) => `p${i}`)];
const BEATS = PACKAGE_LIMITS.beats;
const rows = ['beat,page,system,bar,x0,x1,y0,y1'];
for (let b = 0; b < BEATS; b++) {
  const system = Math.floor(b / 10);
  rows.push(
    `${b},0,${system},${Math.floor(b / 5) + 1},${(b % 10) * 90 + 10.5},${(b % 10) * 90 + 99.25},${(system % 100) * 900 + 20.5},${(system % 100) * 900 + 880.75}`,
  );
}
const csv = rows.join('\n');
const beatmaps = writePackage('beatmaps', {
  'score.yaml':
    `id: maps\ntitle: Maps\nbars: 10000\nmeter: [{ bar: 1, time: 5/4, tempo: 96 }]\nparts:\n${VIEWS.slice(1)
      .map((v) => `  - { id: ${v} }\n`)
      .join('')}` + `pages:\n${VIEWS.map((v) => `  ${v}: { files: [page.svg], beatmap: ${v}.csv }\n`).join('')}`,
  'page.svg': '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1000 90000"/>',
  ...Object.fromEntries(VIEWS.map((v) => [`${v}.csv`, csv])),
});

/**
 * Run `work` and measure its wall time and the longest event-loop stall meanwhile.
 * @param {() => Promise<unknown> | unknown} work
 */
async function measure(work) {
  const h = monitorEventLoopDelay({ resolution: 1 });
  // A timer keeps the loop turning, so a stall shows as one late turn.
  const tick = setInterval(() => {}, 1);
  h.enable();
  // Let the monitor's own timer start before the work (a synchronous block would otherwise run
  // before its first sample and go unseen).
  await new Promise((r) => setTimeout(r, 20));
  const t0 = performance.now();
  await work();
  const ms = performance.now() - t0;
  await new Promise((r) => setTimeout(r, 20));
  h.disable();
  clearInterval(tick);
  return { ms, stallMs: h.max / 1e6 };
}

/** @type {Record<string, () => Promise<unknown> | unknown>} */
const CASES = {
  small: () => loadPackage(small, { cacheDir }),
  manifest: () => loadPackage(manifest, { cacheDir }),
  beatmaps: () => loadPackage(beatmaps, { cacheDir }),
  'main-yaml': () =>
    parseDocument(readFileSync(path.join(manifest, 'score.yaml'), 'utf8'), { lineCounter: new LineCounter() }).toJS({
      maxAliasCount: 100,
    }),
  'main-model': () => buildScoreModel(JSON.parse(manifestJson)),
  'main-csv': () => parseBeatMapCsv(csv, { file: 'score.csv', totalBeats: BEATS, pageCount: 1 }),
};

// Warm up: the parse worker starts and the code is compiled before anything is measured.
await loadPackage(small, { cacheDir });
/** @type {Record<string, { ms: number, stallMs: number }>} */
const results = {};
for (const [name, work] of Object.entries(CASES)) {
  const runs = [];
  for (let i = 0; i < REPEAT; i++) runs.push(await measure(work));
  results[name] = { ms: median(runs.map((r) => r.ms)), stallMs: median(runs.map((r) => r.stallMs)) };
}
await closeParser();

const base = results.small.stallMs;
const lines = [
  `package load, median of ${REPEAT} (Node ${process.version}, ${os.cpus().length} cores; manifest ${(manifestText.length / 1048576).toFixed(2)} MiB, ${VIEWS.length} x ${BEATS} beat-map rows)`,
  'case        wall ms   stall ms   stall / small',
  ...Object.entries(results).map(
    ([name, r]) =>
      `${name.padEnd(10)} ${r.ms.toFixed(0).padStart(8)} ${r.stallMs.toFixed(1).padStart(10)} ${(r.stallMs / base).toFixed(1).padStart(14)}`,
  ),
  `peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`,
];
process.stdout.write(`${lines.join('\n')}\n`);

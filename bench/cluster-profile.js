#!/usr/bin/env node
// Where an edge's CPU per client goes, against the one process's: reads the V8 CPU profiles of a
// `node bench/cluster.js --profile DIR` run, keeps the samples inside each one's measured window
// (the run saves the windows on the monotonic clock V8's profiles use), and prints self time per
// client-second by function and by file, the one process beside each edge, for the same clients
// in the same run. A profile's samples are wall-clock ticks while the process ran JavaScript or
// native code, not its CPU time: read the ratios between the columns.
//
//   node bench/cluster-profile.js DIR [--top 25]

import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { forEachSample } from './cpu-summary.js';
import { benchArgs } from './cli-args.js';

const { values, positionals } = benchArgs(import.meta.url, {
  allowPositionals: true,
  options: { top: { type: 'string', default: '25' } },
});
const DIR = positionals[0];
if (!DIR) {
  process.stdout.write(
    'usage: node bench/cluster-profile.js DIR [--top 25]  (DIR: a bench/cluster.js --profile DIR)\n',
  );
  process.exit(2);
}
const TOP = Number(values.top);
const run = JSON.parse(readFileSync(path.join(DIR, 'run.json'), 'utf8'));

/**
 * The profile a process wrote (CPU.<date>.<pid>.<thread>.<n>.cpuprofile: its main thread's).
 * @param {string} sub @param {number} pid
 */
function profileOf(sub, pid) {
  const dir = path.join(DIR, sub);
  const name = readdirSync(dir).find(
    (f) => f.split('.')[3] === String(pid) && f.split('.')[4] === '0' && f.endsWith('.cpuprofile'),
  );
  return name ? JSON.parse(readFileSync(path.join(dir, name), 'utf8')) : null;
}

/**
 * Self time (µs) per function and per file within [from, to) (µs, monotonic).
 * @param {any} prof @param {[number, number]} window
 */
function selfTimes(prof, window) {
  /** @type {Map<string, number>} */
  const byFn = new Map();
  /** @type {Map<string, number>} */
  const byFile = new Map();
  let total = 0;
  forEachSample(prof, window, (f, dt) => {
    const file = f.url ? f.url.replace(/^file:\/\//, '').replace(/^.*?\/(node_modules|server|core)\//, '$1/') : '';
    const fn = `${f.functionName || '(anonymous)'} ${file ? `${file}:${f.lineNumber + 1}` : ''}`.trim();
    byFn.set(fn, (byFn.get(fn) ?? 0) + dt);
    const group = file ? file.replace(/^(node_modules\/(@[^/]+\/)?[^/]+).*/, '$1') : f.functionName;
    byFile.set(group, (byFile.get(group) ?? 0) + dt);
    total += dt;
  });
  return { byFn, byFile, total };
}

/**
 * A process's profile cut to its idle and its loaded window, each scaled to the CPU the run
 * measured for it (/proc): a sample's length is wall-clock time, longer when the process waited
 * for a core, so the profile gives the shares and /proc the total.
 * @param {string} name @param {string} sub @param {number} pid @param {any} part  run.single or run.cluster
 * @param {number} clients
 */
function column(name, sub, pid, part, clients) {
  const prof = profileOf(sub, pid);
  if (!prof) return null;
  const key = sub.startsWith('single') ? 'server' : name;
  const busy = selfTimes(prof, part.monotonicUs);
  const idle = selfTimes(prof, part.idleMonotonicUs);
  const busyS = part.windowMs / 1000;
  const idleS = (part.idleMonotonicUs[1] - part.idleMonotonicUs[0]) / 1e6;
  // µs of CPU per s for each µs of profile in the window
  const busyScale = (part.cpuMs[key] * 1000) / busyS / Math.max(1, busy.total / busyS);
  const idleScale = (part.idleCpuPerS[key] * 1000) / Math.max(1, idle.total / idleS);
  /** @param {'byFn' | 'byFile'} k @param {string} row  µs per client-second, all and above idle */
  const at = (k, row) => {
    const b = ((busy[k].get(row) ?? 0) / busyS) * busyScale;
    const i = ((idle[k].get(row) ?? 0) / idleS) * idleScale;
    const n = Math.max(1, clients);
    return { all: b / n, above: (b - i) / n };
  };
  return {
    name,
    clients,
    busy,
    idle,
    at,
    cpuPerS: (part.cpuMs[key] * 1000) / busyS,
    idlePerS: part.idleCpuPerS[key] * 1000,
  };
}

const columns = [
  column('one process', 'single', run.single.pids.server, run.single, run.clients),
  ...(run.singleViaNginx
    ? [column('one via nginx', 'single-nginx', run.singleViaNginx.pids.server, run.singleViaNginx, run.clients)]
    : []),
  ...Object.entries(run.cluster.pids)
    .filter(([name]) => name.startsWith('edge-'))
    .map(([name, pid]) =>
      column(name, 'cluster', /** @type {number} */ (pid), run.cluster, run.cluster.clientsOn[name] ?? 0),
    ),
].filter((c) => c !== null);

/**
 * Rows ranked by how much more an edge spends on them per client than the one process.
 * @param {'byFn' | 'byFile'} key @param {'all' | 'above'} which @param {number} top
 */
function table(key, which, top) {
  const rows = new Set(columns.flatMap((c) => [...c.busy[key].keys()]));
  const [one, ...edges] = columns;
  const gap = (/** @type {string} */ r) =>
    edges.reduce((a, e) => a + e.at(key, r)[which], 0) / Math.max(1, edges.length) - one.at(key, r)[which];
  const ranked = [...rows].sort((a, b) => Math.abs(gap(b)) - Math.abs(gap(a))).slice(0, top);
  const total = (/** @type {(typeof columns)[number]} */ c) =>
    (which === 'all' ? c.cpuPerS : c.cpuPerS - c.idlePerS) / Math.max(1, c.clients);
  return [
    `| ${key === 'byFn' ? 'function' : 'file'} | ${columns.map((c) => `${c.name} (${c.clients})`).join(' | ')} | edges - one |`,
    `| --- |${columns.map(() => ' ---: |').join('')} ---: |`,
    ...ranked.map(
      (r) => `| ${r} | ${columns.map((c) => c.at(key, r)[which].toFixed(2)).join(' | ')} | ${gap(r).toFixed(2)} |`,
    ),
    `| all (CPU from /proc) | ${columns.map((c) => total(c).toFixed(2)).join(' | ')} | |`,
  ].join('\n');
}

process.stdout.write(
  [
    `profiles of ${DIR} (${run.clients} clients, load average at the start ${run.load}): self time in µs of CPU per client-second`,
    "(each process's profile cut to its measured windows and scaled to the CPU /proc gave it there); rows ranked by the",
    'edges\' mean minus the one process. The profiler itself costs each process a fixed 25-40 ms/s: read "above idle".',
    '',
    'above idle, by file:',
    table('byFile', 'above', 20),
    '',
    'above idle, by function:',
    table('byFn', 'above', TOP),
    '',
    'all, by file:',
    table('byFile', 'all', 15),
    '',
  ].join('\n'),
);

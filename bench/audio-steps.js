// The device's moves in an audio lab run, set against what its PulseAudio did: each page's output
// steps (its output timestamp, context ms minus page ms, moving more than STEP_MS between two
// readings beyond its drift; and its onsets moving more than STEP_MS between two beats) and the
// daemon's underruns, rewinds and latency changes from `--pulse-watch` (infra/audio-lab/pulse-watch.js).
//
//   node bench/audio-steps.js RUN.json WATCH-PREFIX [--profile loopback] [--step-ms 4] [--near-ms 100]
//
// For each kind of step: how many came with a daemon event within NEAR_MS of the interval the step
// fell in, against the same count for the intervals without a step (the base rate).

import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { readPulseLog } from '../infra/audio-lab/pulse-watch.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    profile: { type: 'string', default: 'loopback' },
    'step-ms': { type: 'string', default: '4' },
    'near-ms': { type: 'string', default: '100' },
    list: { type: 'boolean', default: false },
  },
});
const [runFile, prefix] = positionals;
if (!runFile || !prefix) {
  console.error('usage: node bench/audio-steps.js RUN.json WATCH-PREFIX [--profile P] [--step-ms 4] [--near-ms 100]');
  process.exit(2);
}
const STEP_MS = Number(values['step-ms']);
const NEAR_MS = Number(values['near-ms']);
const run = JSON.parse(readFileSync(runFile, 'utf8')).results[values.profile];
const w = `${prefix}-${values.profile}`;
const { startedAt } = JSON.parse(readFileSync(`${w}-started.json`, 'utf8'));
const log = readPulseLog(`${w}-pulse.log`, `${w}-latency.jsonl`, startedAt);

/** @param {number[]} xs */
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.floor(s.length / 2)] : Number.NaN;
};

// The daemon's events, by kind.
/** @type {Record<string, number[]>} */
const events = { underrunEnd: [], rewindRequested: [], sinkRewound: [], latencyRequest: [], streamNew: [] };
for (const e of log.entries) {
  if (/end of underrun/.test(e.text)) events.underrunEnd.push(e.at);
  else if (/Requested to rewind/.test(e.text)) events.rewindRequested.push(e.at);
  else if (/Rewound \d+ bytes/.test(e.text)) events.sinkRewound.push(e.at);
  else if (/Requested latency=/.test(e.text)) events.latencyRequest.push(e.at);
  else if (/playback_stream_new/.test(e.text)) events.streamNew.push(e.at);
}
// Latency changes sampled: the null sink's configured latency, and each browser stream's
// (sink != the null sink) buffer at zero (an underrun caught by the sampler).
const labIndex = log.latencies[0]?.sinks.find((/** @type {any} */ s) => s.name === 'lab')?.index ?? 0;
/** @type {number[]} */
const configuredChanges = [];
/** @type {number[]} */
const emptyBuffer = [];
let lastConfigured = null;
for (const s of log.latencies) {
  const lab = s.sinks.find((/** @type {any} */ k) => k.index === labIndex);
  if (lab && lastConfigured !== null && lab.configuredUs !== lastConfigured) configuredChanges.push(s.from);
  if (lab) lastConfigured = lab.configuredUs;
  for (const i of s.inputs) if (i.sink !== labIndex && i.bufferUs < 1000) emptyBuffer.push(s.from);
}
events.sinkConfiguredChange = configuredChanges;
events.steal = log.steal.map((/** @type {any} */ s) => s.at);

const from = run.series.length ? Math.min(...run.series.map((/** @type {any} */ r) => r.t)) : 0;
const to = run.series.length ? Math.max(...run.series.map((/** @type {any} */ r) => r.t)) : 0;
const inRun = (/** @type {number} */ t) => t >= from - 1000 && t <= to + 1000;

/**
 * Intervals [a, b] of each page's readings, with whether its output timestamp stepped in it.
 * @returns {Array<{ page: number, a: number, b: number, step: number, latencyMove: number }>}
 */
function readingIntervals() {
  /** @type {Array<{ page: number, a: number, b: number, step: number, latencyMove: number }>} */
  const out = [];
  run.pagesRaw.forEach((/** @type {any} */ p, /** @type {number} */ page) => {
    const rs = p.readings.filter((/** @type {any} */ r) => r[2] > 0 && r[3] > 0);
    /** @type {Array<[number, number, number]>} */
    const pts = [];
    for (const r of rs) {
      const t = p.origin + r[3];
      if (pts.length && t - pts[pts.length - 1][0] < 1) continue; // the same reading twice
      pts.push([t, r[2] * 1000 - r[3], r[4] * 1000]);
    }
    const slopes = [];
    for (let i = 1; i < pts.length; i++) slopes.push((pts[i][1] - pts[i - 1][1]) / (pts[i][0] - pts[i - 1][0]));
    const drift = median(slopes);
    for (let i = 1; i < pts.length; i++) {
      const [a, da, la] = pts[i - 1];
      const [b, db, lb] = pts[i];
      if (!inRun(b)) continue;
      out.push({ page, a, b, step: db - da - drift * (b - a), latencyMove: lb - la });
    }
  });
  return out;
}

/** Intervals between a page's consecutive heard beats, with the onset's move. */
function onsetIntervals() {
  /** @type {Map<number, Array<{ t: number, offset: number }>>} */
  const byPage = new Map();
  for (const r of run.series) {
    if (!byPage.has(r.page)) byPage.set(r.page, []);
    byPage.get(r.page)?.push(r);
  }
  /** @type {Array<{ page: number, a: number, b: number, step: number, latencyMove: number }>} */
  const out = [];
  for (const [page, rows] of byPage) {
    rows.sort((x, y) => x.t - y.t);
    for (let i = 1; i < rows.length; i++)
      out.push({ page, a: rows[i - 1].t, b: rows[i].t, step: rows[i].offset - rows[i - 1].offset, latencyMove: 0 });
  }
  return out;
}

/** Whether sorted `ts` has a time in [a, b]. @param {number[]} ts @param {number} a @param {number} b */
const anyWithin = (ts, a, b) => {
  let lo = 0;
  let hi = ts.length;
  while (lo < hi) {
    const m = (lo + hi) >> 1;
    if (ts[m] < a) lo = m + 1;
    else hi = m;
  }
  return lo < ts.length && ts[lo] <= b;
};
for (const k of Object.keys(events)) events[k].sort((x, y) => x - y);
emptyBuffer.sort((x, y) => x - y);

/**
 * @param {string} name
 * @param {Array<{ page: number, a: number, b: number, step: number, latencyMove: number }>} intervals
 */
function table(name, intervals) {
  const steps = intervals.filter((i) => Math.abs(i.step) > STEP_MS);
  const calm = intervals.filter((i) => Math.abs(i.step) <= STEP_MS / 4);
  /** @type {Record<string, any>} */
  const row = { intervals: intervals.length, steps: steps.length, calm: calm.length };
  for (const [k, ts] of Object.entries({ ...events, emptyBuffer })) {
    const hit = (/** @type {any} */ i) => anyWithin(ts, i.a - NEAR_MS, i.b + NEAR_MS);
    const s = steps.filter(hit).length;
    const c = calm.filter(hit).length;
    row[k] = `${s}/${steps.length} (${pct(s, steps.length)}) vs calm ${c}/${calm.length} (${pct(c, calm.length)})`;
  }
  console.log(JSON.stringify({ kind: name, ...row }, null, 1));
  if (values.list)
    for (const s of steps)
      console.log(
        `${name} page ${s.page} ${((s.a - from) / 1000).toFixed(2)}-${((s.b - from) / 1000).toFixed(2)} s step ${s.step.toFixed(1)} ms` +
          ` latency ${s.latencyMove.toFixed(1)} underrun ${anyWithin(events.underrunEnd, s.a - NEAR_MS, s.b + NEAR_MS) ? 'yes' : 'no'}`,
      );
}
const pct = (/** @type {number} */ a, /** @type {number} */ b) => (b ? `${Math.round((100 * a) / b)}%` : '-');

console.log(
  JSON.stringify({
    tie: { offset: log.offset, boundMs: log.boundMs, agreeing: log.agreeing, samples: log.samples },
    measuredS: (to - from) / 1000,
    eventsInRun: Object.fromEntries(
      Object.entries({ ...events, emptyBuffer }).map(([k, ts]) => [k, ts.filter(inRun).length]),
    ),
  }),
);
table('timestamp', readingIntervals());
table('onset', onsetIntervals());

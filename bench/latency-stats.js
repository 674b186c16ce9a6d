// Summary statistics of the benchmarks: latency samples, medians, and durations from the command line.

import { median as coreMedian, medianSorted, quantileSorted } from '../core/stats.js';

/**
 * @typedef {object} LatencySummary
 * @property {number} count
 * @property {number} avg
 * @property {number} p50
 * @property {number} p90
 * @property {number} p95
 * @property {number} p99
 * @property {number} max
 */

/**
 * Summarize samples (ms). Percentiles are nearest-rank: the smallest sample with at least p of
 * the samples at or below it. All fields are NaN when there are no samples.
 * @param {Float64Array[]} parts samples from each client process; not modified
 * @returns {LatencySummary}
 */
export function summarize(parts) {
  const count = parts.reduce((n, p) => n + p.length, 0);
  const all = new Float64Array(count);
  let at = 0;
  for (const p of parts) {
    all.set(p, at);
    at += p.length;
  }
  all.sort();
  if (count === 0) return { count, avg: NaN, p50: NaN, p90: NaN, p95: NaN, p99: NaN, max: NaN };
  let sum = 0;
  for (let i = 0; i < count; i++) sum += all[i];
  const rank = (/** @type {number} */ p) => quantileSorted(all, p);
  return {
    count,
    avg: sum / count,
    p50: rank(0.5),
    p90: rank(0.9),
    p95: rank(0.95),
    p99: rank(0.99),
    max: all[count - 1],
  };
}

/**
 * Fan-out completion: for each broadcast (one seq), the latency of its last client. Returns the
 * median over the broadcasts of the largest deltas (at least half the size of the largest), so
 * one broadcast hit by another job on the machine moves it little, unlike p99 and max.
 * @param {{ samples: Float64Array, seqs: Float64Array, sizes: Uint32Array }[]} parts
 * @returns {{ broadcasts: number, median: number }}
 */
export function completion(parts) {
  /** @type {Map<number, { last: number, bytes: number }>} */
  const bySeq = new Map();
  let biggest = 0;
  for (const { samples, seqs, sizes } of parts) {
    for (let i = 0; i < samples.length; i++) {
      const b = bySeq.get(seqs[i]);
      if (b) b.last = Math.max(b.last, samples[i]);
      else bySeq.set(seqs[i], { last: samples[i], bytes: sizes[i] });
      biggest = Math.max(biggest, sizes[i]);
    }
  }
  const lasts = [...bySeq.values()]
    .filter((b) => b.bytes * 2 >= biggest)
    .map((b) => b.last)
    .sort((a, b) => a - b);
  if (lasts.length === 0) return { broadcasts: 0, median: NaN };
  return { broadcasts: lasts.length, median: medianSorted(lasts) };
}

/**
 * The median of some numbers (NaN when there are none).
 * @param {number[]} values
 */
export function median(values) {
  return coreMedian(values);
}

/**
 * A duration given on a benchmark's command line.
 * @param {string} text "15s", "1500ms", "2m" or a number of seconds
 * @returns {number} milliseconds
 */
export function parseDuration(text) {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m)?$/.exec(text.trim());
  if (!m) throw new Error(`expected a duration such as 15s or 1500ms, got "${text}"`);
  const n = Number(m[1]);
  return m[2] === 'ms' ? n : m[2] === 'm' ? n * 60_000 : n * 1000;
}

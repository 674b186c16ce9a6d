// Summary statistics of latency samples for the fan-out benchmark.

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
  for (const p of parts) { all.set(p, at); at += p.length; }
  all.sort();
  if (count === 0) return { count, avg: NaN, p50: NaN, p90: NaN, p95: NaN, p99: NaN, max: NaN };
  let sum = 0;
  for (let i = 0; i < count; i++) sum += all[i];
  const rank = (/** @type {number} */ p) => all[Math.min(count - 1, Math.max(0, Math.ceil(p * count) - 1))];
  return {
    count, avg: sum / count, p50: rank(0.5), p90: rank(0.9), p95: rank(0.95), p99: rank(0.99), max: all[count - 1],
  };
}

// The one definition of quantiles and medians in the project: the console's figures, the QA
// reports, the benchmarks and the browser tests all read percentiles the same way.
//
// A quantile is the nearest rank: the smallest value with at least a fraction p of the values at
// or below it (p95 of 20 values is the 19th smallest). A median is the middle value, or the mean
// of the two middle values of an even count.

/**
 * Ascending copy of the finite values.
 * @param {readonly number[]} values
 */
export const sortedFinite = (values) => values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);

/**
 * The nearest-rank quantile of values already sorted ascending (NaN when there are none).
 * @param {ArrayLike<number>} sorted
 * @param {number} p  0..1
 */
export function quantileSorted(sorted, p) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))];
}

/**
 * The nearest-rank quantile of some numbers, in any order; values that are not finite are left
 * out (NaN when none is left).
 * @param {readonly number[]} values
 * @param {number} p  0..1
 */
export const quantile = (values, p) => quantileSorted(sortedFinite(values), p);

/**
 * The median of values already sorted ascending (NaN when there are none).
 * @param {ArrayLike<number>} sorted
 */
export function medianSorted(sorted) {
  if (sorted.length === 0) return NaN;
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/**
 * The median of some numbers, in any order; values that are not finite are left out.
 * @param {readonly number[]} values
 */
export const median = (values) => medianSorted(sortedFinite(values));

import { describe, expect, it } from 'vitest';
import { median, medianSorted, quantile, quantileSorted, sortedFinite } from '../../core/stats.js';

describe('quantiles and medians', () => {
  it('a quantile is the nearest rank: the smallest value with at least p of them at or below it', () => {
    const twenty = Array.from({ length: 20 }, (_, i) => 20 - i); // 20..1, out of order
    expect(quantile(twenty, 0.95)).toBe(19);
    expect(quantile(twenty, 0.5)).toBe(10);
    expect(quantile(twenty, 1)).toBe(20);
    expect(quantile(twenty, 0)).toBe(1);
    expect(quantileSorted([1, 2, 3, 4], 0.5)).toBe(2);
    expect(quantileSorted([1, 2, 3, 4], 0.99)).toBe(4);
  });

  it('a median is the middle value, or the mean of the two middle ones', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(medianSorted([1, 2])).toBe(1.5);
  });

  it('leaves out what is not a number, and gives NaN for nothing', () => {
    expect(quantile([NaN, 5, Infinity, 1], 0.5)).toBe(1);
    expect(median([NaN, 7])).toBe(7);
    expect(quantile([], 0.5)).toBeNaN();
    expect(median([])).toBeNaN();
    expect(sortedFinite([2, NaN, 1])).toEqual([1, 2]);
  });

  it('does not change what it is given', () => {
    const xs = [3, 1, 2];
    quantile(xs, 0.5);
    median(xs);
    expect(xs).toEqual([3, 1, 2]);
  });
});

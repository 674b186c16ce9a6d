import { describe, it, expect } from 'vitest';
import { BACKOFF, backoffDelay } from '../../../client/src/live/backoff.js';

describe('backoffDelay', () => {
  it('stays within [0, min(cap, base * 2^attempt)] for any random value', () => {
    const samples = [0, 0.1, 0.5, 0.9, 0.999999];
    for (let attempt = 0; attempt < 40; attempt++) {
      const ceiling = Math.min(BACKOFF.capMs, BACKOFF.baseMs * 2 ** attempt);
      for (const r of samples) {
        const delay = backoffDelay(attempt, () => r);
        expect(delay).toBeGreaterThanOrEqual(0);
        expect(delay).toBeLessThanOrEqual(ceiling);
        expect(delay).toBeCloseTo(r * ceiling, 9);
      }
    }
  });

  it('doubles the window from 500 ms and caps it at 10 s', () => {
    const windows = [0, 1, 2, 3, 4, 5, 6, 1000].map((n) => backoffDelay(n, () => 1));
    expect(windows).toEqual([500, 1000, 2000, 4000, 8000, 10000, 10000, 10000]);
  });

  it('takes custom limits', () => {
    expect(backoffDelay(3, () => 1, { baseMs: 100, capMs: 650 })).toBe(650);
    expect(backoffDelay(2, () => 0.5, { baseMs: 100, capMs: 650 })).toBe(200);
  });

  it('treats a negative or non-finite attempt as the first, and clamps a bad random()', () => {
    expect(backoffDelay(-3, () => 1)).toBe(500);
    expect(backoffDelay(Number.NaN, () => 1)).toBe(500);
    expect(backoffDelay(0, () => 7)).toBe(500);
    expect(backoffDelay(0, () => -1)).toBe(0);
    expect(backoffDelay(0, () => Number.NaN)).toBe(0);
  });
});

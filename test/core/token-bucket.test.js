import { describe, it, expect } from 'vitest';
import { createTokenBucket, TokenBucket } from '../../core/token-bucket.js';

const RATE = Object.freeze({ perSecond: 20, burst: 40 });
/** What the hub's clock reads: performance.timeOrigin + performance.now(). */
const T0 = 1_795_000_000_123.456;

/** @param {TokenBucket} b @param {number} t */
function drain(b, t) {
  let n = 0;
  while (b.take(t)) n++;
  return n;
}

describe('token bucket', () => {
  it('gives a burst at once, then one token a 1000 / perSecond ms', () => {
    const b = createTokenBucket(RATE, T0);
    expect(drain(b, T0)).toBe(40);
    expect(b.available(T0 + 49)).toBe(false);
    expect(b.take(T0 + 50)).toBe(true);
    expect(b.take(T0 + 50)).toBe(false);
    expect(drain(b, T0 + 550)).toBe(10);
  });

  it('fills up to its burst and no further, however long it waits', () => {
    const b = createTokenBucket(RATE, T0);
    drain(b, T0);
    expect(drain(b, T0 + 60_000)).toBe(40);
    expect(drain(b, T0 + 60_000 + 1000)).toBe(20);
  });

  it('answers available() without taking', () => {
    const b = createTokenBucket({ perSecond: 1, burst: 1 }, 0);
    expect(b.available(0)).toBe(true);
    expect(b.available(0)).toBe(true);
    expect(b.take(0)).toBe(true);
    expect(b.available(999)).toBe(false);
    expect(b.available(1000)).toBe(true);
  });

  it('keeps fractional rates (a token every 12 s, every 31.25 ms)', () => {
    const slow = createTokenBucket({ perSecond: 1 / 12, burst: 5 }, 1000);
    expect(drain(slow, 1000)).toBe(5);
    expect(slow.take(12_999)).toBe(false);
    expect(slow.take(13_000)).toBe(true);
    const odd = createTokenBucket({ perSecond: 32, burst: 2 }, T0);
    drain(odd, T0);
    expect(drain(odd, T0 + 1000)).toBe(2);
    expect(drain(odd, T0 + 1000 + 62.5)).toBe(1);
    expect(drain(odd, T0 + 1000 + 125)).toBe(2);
  });

  it('holds its time as a small whole number on the hub clock, so V8 keeps it unboxed', () => {
    const b = createTokenBucket(RATE, T0);
    for (let i = 0; i < 100; i++) b.take(T0 + i * 7.3);
    expect(Number.isInteger(b.full)).toBe(true);
    expect(b.full).toBeGreaterThanOrEqual(0);
    expect(b.full).toBeLessThan(2 ** 30);
    expect(Object.keys(b)).toEqual(['rate', 'full']);
  });

  it('reads across the 2^30 ms wrap of its clock', () => {
    const edge = 2 ** 30 * 1700 - 20;
    const b = createTokenBucket(RATE, edge);
    expect(drain(b, edge)).toBe(40);
    expect(b.take(edge + 30)).toBe(false);
    expect(b.take(edge + 50)).toBe(true);
    expect(drain(b, edge + 2050)).toBe(40);
    // idle for days: full again
    expect(drain(b, edge + 2050 + 3 * 86_400_000)).toBe(40);
    expect(drain(b, edge + 2050 + 9 * 86_400_000)).toBe(40);
  });
});

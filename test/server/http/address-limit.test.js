// Per-address rate limiting for the open HTTP routes (taps, reports): each address its own
// bucket, and memory bounded however many addresses call.

import { describe, it, expect } from 'vitest';
import { createAddressLimiter, MAX_ADDRESSES } from '../../../server/http/address-limit.js';

const RATE = { perSecond: 2, burst: 3 };

/** @param {ReturnType<typeof createAddressLimiter>} limiter @param {string} ip @param {number} n */
const takes = (limiter, ip, n) => Array.from({ length: n }, () => limiter.take(ip));

describe('createAddressLimiter', () => {
  it('lets a burst through at once, then the rate', () => {
    let t = 0;
    const limiter = createAddressLimiter(RATE, () => t);
    expect(takes(limiter, '10.0.0.1', 4)).toEqual([true, true, true, false]);
    t += 500; // one token back at 2 per second
    expect(takes(limiter, '10.0.0.1', 2)).toEqual([true, false]);
    t += 10_000; // never more than the burst
    expect(takes(limiter, '10.0.0.1', 4)).toEqual([true, true, true, false]);
  });

  it('keeps one bucket per address', () => {
    const limiter = createAddressLimiter(RATE, () => 0);
    expect(takes(limiter, '10.0.0.1', 4)).toEqual([true, true, true, false]);
    expect(takes(limiter, '10.0.0.2', 1)).toEqual([true]);
    expect(limiter.take('10.0.0.1')).toBe(false);
  });

  it(`remembers at most ${MAX_ADDRESSES} addresses, forgetting the one seen first`, () => {
    const limiter = createAddressLimiter(RATE, () => 0);
    takes(limiter, 'first', 3);
    takes(limiter, 'second', 3);
    for (let i = 0; limiter.size < MAX_ADDRESSES; i++) limiter.take(`10.${i >> 16}.${(i >> 8) & 255}.${i & 255}`);
    expect(limiter.take('first')).toBe(false);
    limiter.take('newcomer');
    expect(limiter.size).toBe(MAX_ADDRESSES);
    // `first` was forgotten, so it starts again with a full bucket; `second` is still limited.
    expect(limiter.take('second')).toBe(false);
    expect(limiter.take('first')).toBe(true);
    expect(limiter.size).toBe(MAX_ADDRESSES);
  });
});

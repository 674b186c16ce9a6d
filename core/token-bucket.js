// A token bucket: at most `perSecond` on average, `burst` at once. Time is passed in (core has
// no clock), so the hub and the HTTP tap route share one rule and tests drive it by hand.

import { WRAP_MS, wrapMs } from './wrapped-ms.js';

/**
 * The bucket keeps one number: the time at which it will be full again (a token comes back every
 * 1000 / perSecond ms; it holds `burst - (full - now) / interval` tokens), and a reference to its
 * shared rate. One lives as long as each WebSocket connection (the hub's message rate limit) and
 * each remembered address, so it is kept small: two fields, and the time a small integer. A time
 * such as `performance.timeOrigin + performance.now()` (1.8e12, fractional) would be a boxed
 * double, 16 bytes more per bucket; so times are whole ms, taken modulo 2^30 (a Smi, stored
 * in the object): differences are read back modulo 2^30 too. A bucket that has been idle for a
 * multiple of 2^30 ms (12.4 days) within `burst` tokens' time may look up to that much less full
 * than it is; every other reading is exact.
 */
const WRAP = WRAP_MS;
const HALF = WRAP_MS / 2;
const clock = wrapMs;

/**
 * How far `full` is ahead of `now` (ms), both read modulo 2^30.
 * @param {number} full @param {number} now
 */
function ahead(full, now) {
  const d = full - now;
  return d >= HALF ? d - WRAP : d < -HALF ? d + WRAP : d;
}

export class TokenBucket {
  /**
   * @param {{ perSecond: number, burst: number }} rate  kept, not copied
   * @param {number} now ms
   */
  constructor(rate, now) {
    this.rate = rate;
    /** When the bucket is full again: ms modulo 2^30. */
    this.full = clock(now);
  }

  /**
   * How far the bucket is from full at `now` (ms): 0 (full) to burst × interval.
   * @param {number} now ms modulo 2^30
   * @param {number} interval ms a token takes to come back
   */
  debt(now, interval) {
    const d = ahead(this.full, now);
    // Never more than burst × interval ahead, except by rounding: more is a reading of a bucket
    // idle for about 2^30 ms, which is full.
    return d > 0 && d <= this.rate.burst * interval + 1 ? d : 0;
  }

  /**
   * Take a token if there is one.
   * @param {number} t ms, not before the previous call
   */
  take(t) {
    const now = clock(t);
    const interval = 1000 / this.rate.perSecond;
    const debt = this.debt(now, interval);
    if (!(debt <= (this.rate.burst - 1) * interval)) return false;
    const full = now + debt + interval;
    this.full = full >= WRAP ? full - WRAP : full;
    return true;
  }

  /**
   * Whether a token could be taken now, without taking it.
   * @param {number} t ms, not before the previous call
   */
  available(t) {
    const interval = 1000 / this.rate.perSecond;
    return this.debt(clock(t), interval) <= (this.rate.burst - 1) * interval;
  }
}

/**
 * A bucket whose tokens come back every whole number of ms (20 a second: every 50 ms), so its
 * `full` stays a small integer. A class of its own: V8 tracks a field's representation per class,
 * and one bucket of a fractional interval (`full` a double) would make every bucket of its class
 * box the field.
 */
class WholeMsBucket extends TokenBucket {}

/**
 * @param {{ perSecond: number, burst: number }} rate  kept by the bucket, not copied
 * @param {number} now ms
 * @returns {TokenBucket}
 */
export function createTokenBucket(rate, now) {
  return Number.isInteger(1000 / rate.perSecond) ? new WholeMsBucket(rate, now) : new TokenBucket(rate, now);
}

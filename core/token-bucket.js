// A token bucket: at most `perSecond` on average, `burst` at once. Time is passed in (core has
// no clock), so the hub and the HTTP tap route share one rule and tests drive it by hand.

/**
 * A bucket is a class with four fields, not two closures over a context: one lives as long as each
 * WebSocket connection (the hub's message rate limit) and each remembered address, and the
 * closures cost about 190 bytes of heap where the fields cost 48 (heap snapshot at 1,500 clients).
 */
export class TokenBucket {
  /**
   * @param {{ perSecond: number, burst: number }} rate
   * @param {number} now ms
   */
  constructor({ perSecond, burst }, now) {
    this.perSecond = perSecond;
    this.burst = burst;
    this.tokens = burst;
    this.refilled = now;
  }

  /**
   * Take a token if there is one.
   * @param {number} t ms, not before the previous call
   */
  take(t) {
    if (!this.available(t)) return false;
    this.tokens -= 1;
    return true;
  }

  /**
   * Whether a token could be taken now, without taking it.
   * @param {number} t ms, not before the previous call
   */
  available(t) {
    this.tokens = Math.min(this.burst, this.tokens + ((t - this.refilled) / 1000) * this.perSecond);
    this.refilled = t;
    return this.tokens >= 1;
  }
}

/**
 * @param {{ perSecond: number, burst: number }} rate
 * @param {number} now ms
 */
export function createTokenBucket(rate, now) {
  return new TokenBucket(rate, now);
}

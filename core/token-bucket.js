// A token bucket: at most `perSecond` on average, `burst` at once. Time is passed in (core has
// no clock), so the hub and the HTTP tap route share one rule and tests drive it by hand.

/**
 * @param {{ perSecond: number, burst: number }} rate
 * @param {number} now ms
 */
export function createTokenBucket({ perSecond, burst }, now) {
  let tokens = burst;
  let refilled = now;
  return {
    /**
     * Take a token if there is one.
     * @param {number} t ms, not before the previous call
     */
    take(t) {
      tokens = Math.min(burst, tokens + ((t - refilled) / 1000) * perSecond);
      refilled = t;
      if (tokens >= 1) {
        tokens -= 1;
        return true;
      }
      return false;
    },
    /**
     * Whether a token could be taken now, without taking it.
     * @param {number} t ms, not before the previous call
     */
    available(t) {
      tokens = Math.min(burst, tokens + ((t - refilled) / 1000) * perSecond);
      refilled = t;
      return tokens >= 1;
    },
  };
}

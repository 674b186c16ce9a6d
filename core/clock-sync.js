// Clock sync: the client's estimate of its offset to server time from ping/pong round trips.
// A round trip (client sends at t0, server stamps t, client receives at t1) bounds the offset to
// t - t1 .. t - t0; its midpoint is off by at most half the round trip, and by exactly half the
// difference of the two one-way delays. So the sample with the smallest round trip is the most
// trustworthy (NTP's clock filter, RFC 5905 section 10). Pure: times are passed in.

/**
 * @typedef {object} SyncSample
 * @property {number} t0  client time the ping was sent (ms)
 * @property {number} t   server time in the pong (ms)
 * @property {number} t1  client time the pong arrived (ms)
 */

/**
 * @typedef {object} SyncEstimate
 * @property {number} offset  server time = client time + offset (ms)
 * @property {number} error   the true offset is within offset ± error (ms): half the best round trip
 * @property {number} samples samples the estimate rests on
 */

/**
 * @param {{ size?: number, maxAgeMs?: number, outliersToReset?: number }} [options]
 *   size: samples kept; maxAgeMs: older samples are dropped (a route that got slower or a clock
 *   that drifted is noticed); outliersToReset: consecutive samples inconsistent with the estimate
 *   after which the window restarts (the phone roamed to another access point).
 */
export function createClockSync({ size = 16, maxAgeMs = 60_000, outliersToReset = 3 } = {}) {
  /** @type {{ offset: number, rtt: number, at: number }[]} */
  let samples = [];
  let outliers = 0;

  /** @returns {SyncEstimate | null} */
  function estimate() {
    if (samples.length === 0) return null;
    let best = samples[0];
    for (const s of samples) if (s.rtt < best.rtt) best = s;
    return { offset: best.offset, error: best.rtt / 2, samples: samples.length };
  }

  return {
    /**
     * Add a round trip. Returns false for a sample that cannot be right (negative round trip).
     * @param {SyncSample} sample
     */
    add({ t0, t, t1 }) {
      const rtt = t1 - t0;
      if (!(Number.isFinite(rtt) && rtt >= 0 && Number.isFinite(t))) return false;
      const s = { offset: t - (t0 + t1) / 2, rtt, at: t1 };
      samples = samples.filter((x) => t1 - x.at <= maxAgeMs);
      const current = estimate();
      // Two intervals [offset ± rtt/2] that do not overlap cannot both hold the true offset.
      if (current && Math.abs(s.offset - current.offset) > s.rtt / 2 + current.error) {
        outliers += 1;
        if (outliers >= outliersToReset) {
          samples = [];
          outliers = 0;
        }
      } else {
        outliers = 0;
      }
      samples.push(s);
      if (samples.length > size) samples.shift();
      return true;
    },

    estimate,

    /**
     * Server time now, from client time now; null before the first sample.
     * @param {number} clientNow
     */
    serverTime(clientNow) {
      const e = estimate();
      return e ? clientNow + e.offset : null;
    },

    /** Forget everything (for example after a reconnect to another server). */
    reset() { samples = []; outliers = 0; },
  };
}

// Clock sync: the client's estimate of its offset to server time from ping/pong round trips.
// A round trip (client sends at t0, server stamps t, client receives at t1) bounds the offset to
// t - t1 .. t - t0; its midpoint is off by at most half the round trip, and by exactly half the
// difference of the two one-way delays. So the sample with the smallest round trip is the most
// trustworthy (NTP's clock filter, RFC 5905 section 10). Pure: times are passed in.
//
// Clocks drift: a phone's monotonic clock and the server's clock may run apart by tens of ppm
// (more while the server's NTP slews it), so a sample's interval widens with its age, by the
// assumed drift rate (NTP's dispersion, RFC 5905 section 10: PHI). The best sample is the one
// with the narrowest interval now, and the error bound stays honest between refreshes.

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
 * Drift assumed at most (parts per million) between the page's clock and the server's: phones'
 * crystals are within about ±50 ppm, doubled for the server's own clock being slewed.
 */
export const DRIFT_PPM = 100;

/**
 * @param {{ size?: number, maxAgeMs?: number, outliersToReset?: number, driftPpm?: number }} [options]
 *   size: samples kept; maxAgeMs: older samples are dropped (a route that got slower or a clock
 *   that drifted is noticed); outliersToReset: consecutive samples inconsistent with the estimate
 *   after which the window restarts (the phone roamed to another access point); driftPpm: how
 *   fast a sample's error bound widens with its age.
 */
export function createClockSync({ size = 16, maxAgeMs = 60_000, outliersToReset = 3, driftPpm = DRIFT_PPM } = {}) {
  /** @type {{ offset: number, rtt: number, at: number }[]} */
  let samples = [];
  let outliers = 0;
  let resets = 0;
  const phi = driftPpm / 1e6;

  /**
   * @param {number} [clientNow] client time the estimate is for; default the newest sample's
   * @returns {SyncEstimate | null}
   */
  function estimate(clientNow) {
    if (samples.length === 0) return null;
    const at = clientNow ?? samples[samples.length - 1].at;
    /** @param {{ rtt: number, at: number }} s */
    const bound = (s) => s.rtt / 2 + phi * Math.max(0, at - s.at);
    let best = samples[0];
    for (const s of samples) if (bound(s) < bound(best)) best = s;
    return { offset: best.offset, error: bound(best), samples: samples.length };
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
      const current = estimate(t1);
      // Two intervals [offset ± rtt/2] that do not overlap cannot both hold the true offset.
      if (current && Math.abs(s.offset - current.offset) > s.rtt / 2 + current.error) {
        outliers += 1;
        if (outliers >= outliersToReset) {
          samples = [];
          outliers = 0;
          resets += 1;
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
      const e = estimate(clientNow);
      return e ? clientNow + e.offset : null;
    },

    /** Forget everything (for example after a reconnect to another server). */
    reset() { samples = []; outliers = 0; resets += 1; },

    /** How many times the window restarted (a roam, or reset()): samples before it no longer count. */
    get resets() { return resets; },
  };
}

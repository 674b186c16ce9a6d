// Clock sync: the client's estimate of its offset to server time from ping/pong round trips.
// A round trip (client sends at t0, server stamps t, client receives at t1) bounds the offset to
// t - t1 .. t - t0; its midpoint is off by at most half the round trip, and by exactly half the
// difference of the two one-way delays. So the sample with the smallest round trip is the most
// trustworthy (NTP's clock filter, RFC 5905 section 10). Pure: times are passed in.
//
// Every round trip's interval holds the true offset, so their intersection does too, and it is
// often far narrower than the best single interval: on a jittery link (WiFi), the sample whose
// way out was quick bounds the offset from above and another whose way back was quick bounds it
// from below (the intersection of NTP's and Marzullo's algorithms). The estimate is the middle
// of the intersection; when the intervals do not all meet (a route or a clock changed), it falls
// back to the narrowest single interval until the window restarts.
//
// Clocks drift: a phone's monotonic clock and the server's clock may run apart by tens of ppm
// (more while the server's NTP slews it), so a sample's interval widens with its age, by the
// assumed drift rate (NTP's dispersion, RFC 5905 section 10: PHI), and the error bound stays
// honest between refreshes.

/**
 * @typedef {object} SyncSample
 * @property {number} t0  client time the ping was sent (ms)
 * @property {number} t   server time in the pong (ms)
 * @property {number} t1  client time the pong arrived (ms)
 */

/**
 * @typedef {object} SyncEstimate
 * @property {number} offset  server time = client time + offset (ms)
 * @property {number} error   the true offset is within offset ± error (ms): half the width of the
 *   intersection of the samples' intervals (at most half the best round trip)
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
    let lo = -Infinity;
    let hi = Infinity;
    for (const s of samples) {
      const b = bound(s);
      if (b < bound(best)) best = s;
      lo = Math.max(lo, s.offset - b);
      hi = Math.min(hi, s.offset + b);
    }
    if (lo <= hi) return { offset: (lo + hi) / 2, error: (hi - lo) / 2, samples: samples.length };
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
    reset() {
      samples = [];
      outliers = 0;
      resets += 1;
    },

    /** How many times the window restarted (a roam, or reset()): samples before it no longer count. */
    get resets() {
      return resets;
    },
  };
}

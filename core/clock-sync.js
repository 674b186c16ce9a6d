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
//
// A phone's clock may run further off than that (a cheap crystal, a monotonic clock that no NTP
// disciplines: ±200 ppm and more), and then the old samples' intervals, widened too little, pull
// the intersection towards the offset of a minute ago: on busy WiFi at 500 ppm the estimate lags by
// 20 ms (p95, 30 simulated minutes). So the drift rate is measured too, as NTP's frequency
// discipline does (RFC 5905 section 11.3) and IRCAM's sync does with a regression over a long
// window: the slope of the samples' offsets against time over the last minutes, the middle of the
// slopes of the lines that pass through every sample's interval (lineSlopes; least squares weighted
// by each sample's precision when no line does), within each run of samples between two restarts
// of the window (a roam changes a path's asymmetry: a step, not a slope). Every sample's offset is
// carried forward at that rate to the time the estimate is for; what remains of the drift (the rate's own
// error) is what the widening above allows for.

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
 * @property {number} rate    measured drift: server time gains this much on client time per ms
 *   of client time (0 until RATE_MIN_SPAN_MS of samples); 1e-4 is 100 ppm
 */

/**
 * Drift assumed at most (parts per million) between the page's clock and the server's: phones'
 * crystals are within about ±50 ppm, doubled for the server's own clock being slewed.
 */
export const DRIFT_PPM = 100;
/** How long a history of samples the drift rate is measured over (ms), and at most how many. */
export const RATE_HISTORY_MS = 600_000;
export const RATE_SIZE = 160;
/** The rate is used once the samples it rests on span this long (ms): over less, 20 ms of WiFi
 * jitter would say more about the link than about the clocks. */
export const RATE_MIN_SPAN_MS = 60_000;
/** A rate beyond this (0.2 %) is no clock's drift: it is not used. */
export const RATE_MAX = 2000e-6;
/**
 * The rate's history keeps one entry per this many ms (the intersection of the slot's round trips),
 * so that a page that samples more often (client/src/time/clock.js, on a jittery link) still
 * measures its drift over the same minutes, in RATE_SIZE entries.
 */
export const HISTORY_SLOT_MS = 3500;
/** Samples kept for the estimate: a minute of one round trip a second. */
export const WINDOW_SIZE = 64;
const NO_RATE = Object.freeze({ rate: 0, error: 0 });

/**
 * The slopes of the lines that pass through every sample's interval (offset ± rtt / 2): for two
 * samples a, b (a first), a line through both rises at most (b's top - a's bottom) / (b.at - a.at)
 * and at least (b's bottom - a's top) / (b.at - a.at); a line through all of them exists when the
 * least of the first is at least the most of the second. `perRun`: each run of samples between two
 * restarts may have a line of its own, the slope shared.
 * @param {{ offset: number, rtt: number, at: number, run: number }[]} list  oldest first
 * @param {boolean} perRun
 * @returns {{ lo: number, hi: number } | null} null when no such line passes through them all
 */
function lineSlopes(list, perRun) {
  let lo = -Infinity;
  let hi = Infinity;
  for (let j = 1; j < list.length; j++) {
    const b = list[j];
    for (let i = 0; i < j; i++) {
      const a = list[i];
      const dt = b.at - a.at;
      if (dt <= 0 || (perRun && a.run !== b.run)) continue;
      const reach = (a.rtt + b.rtt) / 2;
      hi = Math.min(hi, (b.offset - a.offset + reach) / dt);
      lo = Math.max(lo, (b.offset - a.offset - reach) / dt);
    }
  }
  return lo <= hi && Number.isFinite(lo) && Number.isFinite(hi) ? { lo, hi } : null;
}

/**
 * @param {{ size?: number, maxAgeMs?: number, outliersToReset?: number, driftPpm?: number }} [options]
 *   size: samples kept; maxAgeMs: older samples are dropped (a route that got slower or a clock
 *   that drifted is noticed); outliersToReset: consecutive samples inconsistent with the estimate
 *   after which the window restarts (the phone roamed to another access point); driftPpm: how
 *   fast a sample's error bound widens with its age.
 */
export function createClockSync({
  size = WINDOW_SIZE,
  maxAgeMs = 60_000,
  outliersToReset = 3,
  driftPpm = DRIFT_PPM,
} = {}) {
  /** @type {{ offset: number, rtt: number, at: number }[]} */
  let samples = [];
  /** The longer history the rate is measured over; `run` counts the window's restarts. */
  /** `slot`: when its slot of HISTORY_SLOT_MS began; `ok`: the sample agreed with the window. */
  /** @type {{ offset: number, rtt: number, at: number, run: number, slot: number, ok: boolean }[]} */
  let history = [];
  let rate = 0;
  /** The rate's standard error: the carried offsets' intervals widen by it too. */
  let rateError = 0;
  let outliers = 0;
  let resets = 0;
  const phi = driftPpm / 1e6;

  /**
   * @param {number} [clientNow] client time the estimate is for; default the newest sample's
   * @returns {SyncEstimate | null}
   */
  function estimate(clientNow) {
    return estimateOf(samples, clientNow);
  }

  /**
   * @param {{ offset: number, rtt: number, at: number }[]} list
   * @param {number} [clientNow]
   * @returns {SyncEstimate | null}
   */
  function estimateOf(list, clientNow) {
    if (list.length === 0) return null;
    const at = clientNow ?? list[list.length - 1].at;
    /** @param {{ offset: number, at: number }} s */
    const carried = (s) => s.offset + rate * (at - s.at);
    /** @param {{ rtt: number, at: number }} s */
    const bound = (s) => s.rtt / 2 + (phi + rateError) * Math.max(0, at - s.at);
    let best = list[0];
    let lo = -Infinity;
    let hi = Infinity;
    for (const s of list) {
      const b = bound(s);
      if (b < bound(best)) best = s;
      lo = Math.max(lo, carried(s) - b);
      hi = Math.min(hi, carried(s) + b);
    }
    const n = list.length;
    if (lo <= hi) return { offset: (lo + hi) / 2, error: (hi - lo) / 2, samples: n, rate };
    return { offset: carried(best), error: bound(best), samples: n, rate };
  }

  /**
   * The slope of offset against time: least squares weighted by each sample's precision
   * (1 / half its round trip, squared), pooled over the runs between restarts so that the step a
   * roam makes between two runs is no slope.
   */
  function fitRate() {
    /** @type {Map<number, { w: number, x: number, y: number, first: number, last: number }>} */
    const runs = new Map();
    const weight = (/** @type {number} */ rtt) => 1 / (rtt / 2 + 1) ** 2;
    for (const s of history) {
      const r = runs.get(s.run) ?? { w: 0, x: 0, y: 0, first: s.at, last: s.at };
      const w = weight(s.rtt);
      r.w += w;
      r.x += w * s.at;
      r.y += w * s.offset;
      r.last = s.at;
      runs.set(s.run, r);
    }
    let span = 0;
    for (const r of runs.values()) span += r.last - r.first;
    if (span < RATE_MIN_SPAN_MS) return NO_RATE;
    let sxy = 0;
    let sxx = 0;
    for (const s of history) {
      const r = /** @type {{ w: number, x: number, y: number }} */ (runs.get(s.run));
      const dx = s.at - r.x / r.w;
      const w = weight(s.rtt);
      sxy += w * dx * (s.offset - r.y / r.w);
      sxx += w * dx * dx;
    }
    const free = history.length - runs.size - 1;
    if (!(sxx > 0) || free < 1) return NO_RATE;
    const slope = sxy / sxx;
    if (Math.abs(slope) > RATE_MAX) return NO_RATE;
    // Over a short span of jittery round trips the slope is mostly noise (60 s of 10-60 ms legs:
    // ± 200 ppm): it is used once it stands out of its own noise (three standard errors).
    let ss = 0;
    for (const s of history) {
      const r = /** @type {{ w: number, x: number, y: number }} */ (runs.get(s.run));
      const res = s.offset - r.y / r.w - slope * (s.at - r.x / r.w);
      ss += weight(s.rtt) * res * res;
    }
    const variance = ss / free / sxx;
    // The slope of the least squares leans on the midpoints, and a midpoint is off by half the
    // difference of its two legs: over two minutes of 10-60 ms legs, 1 % in 100 runs off by more
    // than 160 ppm (and more after a restart the drift itself caused split the runs). Every
    // interval holds the true offset, so the slopes of the lines that pass through all of them
    // bound the drift (the linear programme of Moon, Skelly and Towsley, "Estimation and removal
    // of clock skew from network delay measurements", 1999), from the quickest legs alone: its
    // middle is used (p99 off by 110-125 ppm in the same runs). As one line when one passes through
    // the whole history (a restart that was the drift's own doing), else a line per run.
    const range = lineSlopes(history, false) ?? lineSlopes(history, true);
    if (range && (range.lo > 0 || range.hi < 0 || slope * slope > 9 * variance)) {
      const middle = (range.lo + range.hi) / 2;
      return Math.abs(middle) > RATE_MAX ? NO_RATE : { rate: middle, error: Math.sqrt(variance) };
    }
    return slope * slope > 9 * variance ? { rate: slope, error: Math.sqrt(variance) } : NO_RATE;
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
      // Judged against the window as it was before a streak of outliers began: once the newest
      // outlier is the best single sample, the next would agree with it, and a roam's step would
      // never restart the window.
      const current = estimateOf(samples.slice(0, samples.length - outliers), t1);
      // Two intervals [offset ± rtt/2] that do not overlap cannot both hold the true offset.
      if (current && Math.abs(s.offset - current.offset) > s.rtt / 2 + current.error) {
        outliers += 1;
        if (outliers >= outliersToReset) {
          // The window restarts with the streak: the outliers before this one are its first samples.
          samples = samples.slice(samples.length - (outliers - 1));
          resets += 1;
          for (const x of outliers > 1 ? history.slice(1 - outliers) : []) x.run = resets;
          outliers = 0;
        }
      } else {
        outliers = 0;
      }
      samples.push(s);
      if (samples.length > size) samples.shift();
      history = history.filter((x) => t1 - x.at <= RATE_HISTORY_MS);
      const entry = { ...s, run: resets, slot: t1, ok: outliers === 0 };
      const last = history[history.length - 1];
      // Within the last entry's slot, the two stand as one: the intersection of their intervals
      // (the older widened by the drift assumed since it was taken), or the quicker round trip.
      // Outliers are kept apart: a restart relabels the streak's own entries.
      if (last?.ok && entry.ok && last.run === entry.run && t1 - last.slot < HISTORY_SLOT_MS) {
        const reach = last.rtt / 2 + phi * (t1 - last.at);
        const lo = Math.max(last.offset - reach, s.offset - s.rtt / 2);
        const hi = Math.min(last.offset + reach, s.offset + s.rtt / 2);
        if (lo <= hi) history[history.length - 1] = { ...entry, offset: (lo + hi) / 2, rtt: hi - lo, slot: last.slot };
        else if (s.rtt < last.rtt) history[history.length - 1] = { ...entry, slot: last.slot };
      } else history.push(entry);
      if (history.length > RATE_SIZE) history.shift();
      ({ rate, error: rateError } = fitRate());
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
      history = [];
      rate = 0;
      rateError = 0;
      outliers = 0;
      resets += 1;
    },

    /**
     * How much the last 8 round trips vary: their median minus the quickest (ms); 0 with fewer
     * than 3 samples. On a link where it is large, more samples narrow the estimate; a path that
     * got slower or quicker (a roam) is not jitter once 8 round trips have come over it.
     */
    get jitter() {
      if (samples.length < 3) return 0;
      const rtts = samples
        .slice(-8)
        .map((x) => x.rtt)
        .sort((a, b) => a - b);
      return rtts[Math.floor((rtts.length - 1) / 2)] - rtts[0];
    },

    /** How many times the window restarted (a roam, or reset()): samples before it no longer count. */
    get resets() {
      return resets;
    },
  };
}

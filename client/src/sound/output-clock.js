// Where the speaker is on the page's clock, held steady: the line through recent output
// timestamps, not the newest one alone.
//
// Each getOutputTimestamp() says which context time the speaker plays at which page time; their
// difference (the mapping's offset, ms) moves only as the audio device's clock drifts from the
// page's (tens to hundreds of ppm: a straight line over seconds). Chromium's timestamp is the
// frames rendered minus the output delay the audio server reports at that callback, and under load
// that report swells for seconds at a time while the sound itself does not move: in the audio lab
// (10 pages, load 30) one page's outputLatency went from 32-40 ms to 48-64 ms for 5-10 s and its
// clicks, each mapped afresh through the newest timestamp, came 8-26 ms early, the error matching
// the timestamp's departure from the line through the others to about a millisecond. So the offset
// used is a robust line through the last HOLD_WINDOW_MS of readings (Siegel's repeated median: it
// holds while fewer than half the readings depart from it), evaluated at the sound's own page time,
// which carries the device's drift forward. A departure that persists (a real change of route)
// wins the median within half the window; a step larger than REMAP_STEP_MS (a context suspended and
// resumed, a headset connected) restarts the window at once. Pure: no clock, no context.

import { medianSorted } from '../../../core/stats.js';

/** Readings kept this long (ms of page time). */
export const HOLD_WINDOW_MS = 30_000;
/** At most one reading kept per this many ms (the granulator maps a grain at a time): at most 60
 * in the window, so a fit (60 x 60 slopes) costs little on a phone. */
export const READING_EVERY_MS = 500;
/** The line is used once this many readings span this long; before, the newest reading is. */
export const HOLD_MIN_READINGS = 5;
export const HOLD_MIN_SPAN_MS = 3000;
/** A reading this far (ms) from the line is a new mapping, not a wobble: the window restarts. */
export const REMAP_STEP_MS = 80;

/**
 * Siegel's repeated median line through (t, y): for each point the median of its slopes to the
 * others, the line's slope the median of those; its level the median of the points' levels.
 * @param {ReadonlyArray<{ t: number, y: number }>} pts  at least two, distinct t
 * @returns {{ t0: number, y0: number, slope: number }}  y = y0 + slope * (t - t0)
 */
export function repeatedMedianLine(pts) {
  const n = pts.length;
  const t0 = pts[n - 1].t;
  // Typed arrays sort numerically, without a comparator: a fit of 60 readings took 0.3 ms here
  // (1.7 ms with arrays and a comparator), at load 20.
  const own = new Float64Array(n);
  const slopes = new Float64Array(n);
  let ns = 0;
  for (let i = 0; i < n; i++) {
    const a = pts[i];
    let k = 0;
    for (let j = 0; j < n; j++) {
      const b = pts[j];
      if (j !== i && b.t !== a.t) own[k++] = (b.y - a.y) / (b.t - a.t);
    }
    if (k) slopes[ns++] = medianSorted(own.subarray(0, k).sort());
  }
  const slope = ns ? medianSorted(slopes.subarray(0, ns).sort()) : 0;
  const levels = new Float64Array(n);
  for (let i = 0; i < n; i++) levels[i] = pts[i].y - slope * (pts[i].t - t0);
  return { t0, y0: medianSorted(levels.sort()), slope };
}

/**
 * The held mapping of one AudioContext: feed it each output timestamp read, ask it the offset.
 * @param {{ aheadMs?: number, behindMs?: number }} [o]  a reading this far above the line (context
 *   time ahead of it) or below it restarts the window (both REMAP_STEP_MS by default)
 */
export function createHeldMapping({ aheadMs = REMAP_STEP_MS, behindMs = REMAP_STEP_MS } = {}) {
  /** @type {Array<{ t: number, y: number }>} */
  let readings = [];
  /** @type {{ t0: number, y0: number, slope: number } | null} */
  let line = null;
  let restarts = 0;

  /** @param {number} t */
  const onLine = (t) => (line ? line.y0 + line.slope * (t - line.t0) : Number.NaN);

  return {
    /**
     * One output timestamp: the speaker plays `contextTime` (s) at page time `performanceTime` (ms).
     * @param {number} contextTime
     * @param {number} performanceTime
     */
    add(contextTime, performanceTime) {
      const y = contextTime * 1000 - performanceTime;
      const last = readings[readings.length - 1];
      if (last && performanceTime < last.t) {
        // Time ran backwards: not the same output any more.
        readings = [];
        line = null;
        restarts += 1;
      } else if (line && (y - onLine(performanceTime) > aheadMs || onLine(performanceTime) - y > behindMs)) {
        readings = [];
        line = null;
        restarts += 1;
      } else if (last && performanceTime - last.t < READING_EVERY_MS) {
        return;
      }
      readings.push({ t: performanceTime, y });
      while (readings.length > 1 && readings[0].t < performanceTime - HOLD_WINDOW_MS) readings.shift();
      const span = readings[readings.length - 1].t - readings[0].t;
      line = readings.length >= HOLD_MIN_READINGS && span >= HOLD_MIN_SPAN_MS ? repeatedMedianLine(readings) : null;
    },
    /**
     * The held offset (context ms minus page ms) at page time `t`, or null while too few readings
     * span too short a time (then the newest timestamp alone is the mapping).
     * @param {number} t
     * @returns {number | null}
     */
    offsetAt(t) {
      return line ? onLine(t) : null;
    },
    /** Readings the line rests on. */
    get readings() {
      return readings.length;
    },
    /** Times the window restarted on a step. */
    get restarts() {
      return restarts;
    },
  };
}

/** @typedef {ReturnType<typeof createHeldMapping>} HeldMapping */

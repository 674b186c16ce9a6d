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
// resumed, a headset connected) restarts the window at once.
//
// The sound can also really step by a few ms (the audio lab, 10 pages at load 4-13: a page's
// onsets 5-12 ms late for 10-15 s, in three episodes, while the line held the old level). A swell
// and a step read differently once the reported delay is set beside the timestamp. Chromium's
// timestamp is the frames rendered minus the reported delay: in a swell the delay reported rises
// and the timestamp falls by as much, so the timestamp plus the delay (the rendering's own clock
// against the page's) stays on its line; in a real step that sum moves with the timestamp and
// stays moved (the device took or dropped frames). And the delay reported alone can move (8 ms up,
// the timestamp unmoved, the sound too). So a step is followed only when both the timestamp and
// the timestamp plus the delay leave their lines the same way by more than STEP_MS, STEP_READINGS
// readings in a row: the readings held from before it move by the step (the median departure), and
// the line keeps its slope (within MAX_SLOPE) and its support. Replayed on that run's readings:
// offset p99 11.3 -> 4.2 ms. Pure: no clock, no context.

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
 * The line's slope is held within this (ms of offset per ms: 2000 ppm). An audio device's clock
 * drifts from the page's by tens to hundreds of ppm (the audio lab: about 550); a steeper line is
 * a join's wild first readings, not drift. In a 10-page lab run one page's first readings sat 65 ms
 * above the later ones, its line formed at -25 ms/s and, with each step moving the readings held
 * (keeping the slope), stayed at -6 ms/s all run: its clicks 20-45 ms early for 150 s.
 */
export const MAX_SLOPE = 0.002;
/** The sound stepped when the timestamp and the timestamp plus the reported delay both leave their
 * lines the same way by more than this (ms), STEP_READINGS readings in a row (one counted per
 * READING_EVERY_MS). Replayed on two 10-page runs, 2 readings in a row rather than 3 left fewer
 * beats off at a step's edge (spread p99 7.3 against 12.1 ms on one; offset p99 29 against 64 on
 * the other, whose output jumped 72 ms); neither followed a swell. */
export const STEP_MS = 3;
export const STEP_READINGS = 2;
/**
 * A step is the smaller of the two departures (the timestamp's, and the timestamp plus the delay
 * reported), as the reported delay moves in 8 ms quanta and can swell at a step's edge; but when
 * the timestamp plus the delay itself moved this far (ms), the rendering jumped (the device took
 * or dropped frames) and the timestamp's departure is the step. In a 10-page lab run the output
 * jumped 62 ms with outputLatency 32 -> 40: the smaller departure (54 ms) left six pages' clicks
 * 3-8 ms late for 15 s; replayed with this: offset p99 7.7 -> 1.4 ms, and no other run worse.
 */
export const JUMP_MS = 20;
/**
 * A mapping is trusted once the line stands and its newest TRUST_READINGS readings lie within
 * TRUST_MS of it; readings further off then are dropped (a join's first ones). A context's first
 * timestamps here were 20-70 ms off its later ones for up to a second, and a mapping formed with
 * them put a joining page's clicks 40-97 ms early, then 5-13 ms late for 20 s. After
 * TRUST_WITHIN_MS of readings the mapping is used as it is, trusted or not.
 */
export const TRUST_READINGS = 3;
export const TRUST_MS = 2;
export const TRUST_WITHIN_MS = 8000;

/**
 * Siegel's repeated median line through (t, y): for each point the median of its slopes to the
 * others, the line's slope the median of those (within ±`maxSlope`); its level the median of the
 * points' levels.
 * @param {ReadonlyArray<{ t: number, y: number }>} pts  at least two, distinct t
 * @param {number} [maxSlope]
 * @returns {{ t0: number, y0: number, slope: number }}  y = y0 + slope * (t - t0)
 */
export function repeatedMedianLine(pts, maxSlope = Infinity) {
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
  const slope = Math.max(-maxSlope, Math.min(maxSlope, ns ? medianSorted(slopes.subarray(0, ns).sort()) : 0));
  const levels = new Float64Array(n);
  for (let i = 0; i < n; i++) levels[i] = pts[i].y - slope * (pts[i].t - t0);
  return { t0, y0: medianSorted(levels.sort()), slope };
}

/**
 * The held mapping of one AudioContext: feed it each output timestamp read, ask it the offset.
 * @param {{ aheadMs?: number, behindMs?: number, trustMs?: number }} [o]  a reading this far above
 *   the line (context time ahead of it) or below it restarts the window (both REMAP_STEP_MS by
 *   default); the newest readings within `trustMs` of the line make it trusted (TRUST_MS)
 */
export function createHeldMapping({ aheadMs = REMAP_STEP_MS, behindMs = REMAP_STEP_MS, trustMs = TRUST_MS } = {}) {
  /** Each reading's offset `y`, and `z`: the offset plus the delay reported with it (NaN: none). */
  /** @type {Array<{ t: number, y: number, z: number }>} */
  let readings = [];
  /** @type {{ t0: number, y0: number, slope: number } | null} */
  let line = null;
  /** The line through the readings' `z`, while every reading has one. */
  /** @type {{ t0: number, y0: number, slope: number } | null} */
  let zLine = null;
  let restarts = 0;
  let steps = 0;
  let trusted = false;
  /** Page time of the first reading since the mapping was last trusted (or made). */
  let since = Number.NaN;
  /** The window restarted since the mapping was last trusted (or made): the output moved. */
  let moved = false;
  /** The readings in a row that left both lines the same way: their departures (ms) and page time. */
  /** @type {Array<{ t: number, d: number }>} */
  let departed = [];

  /** @param {{ t0: number, y0: number, slope: number } | null} l @param {number} t */
  const at = (l, t) => (l ? l.y0 + l.slope * (t - l.t0) : Number.NaN);
  /** @param {number} t */
  const onLine = (t) => at(line, t);
  const restart = () => {
    readings = [];
    line = null;
    zLine = null;
    departed = [];
    restarts += 1;
    // The silence a page keeps while its mapping is not trusted is bounded from when it began, not
    // from the last restart: on a loaded page whose readings kept restarting the mapping (a clip
    // asked for after "Tap to resume sound" under load) the page stayed silent past 13 s.
    if (trusted) since = Number.NaN;
    trusted = false;
    moved = true;
  };
  const refit = () => {
    const span = readings[readings.length - 1].t - readings[0].t;
    const enough = readings.length >= HOLD_MIN_READINGS && span >= HOLD_MIN_SPAN_MS;
    line = enough ? repeatedMedianLine(readings, MAX_SLOPE) : null;
    zLine =
      enough && readings.every((r) => !Number.isNaN(r.z)) ? repeatedMedianLine(readings.map(zOf), MAX_SLOPE) : null;
  };
  /** Whether the newest readings agree with the line; then those far from it are dropped. */
  const trust = () => {
    if (trusted || !line || readings.length < TRUST_READINGS) return;
    const off = (/** @type {{ t: number, y: number }} */ r) => Math.abs(r.y - onLine(r.t));
    if (!readings.slice(-TRUST_READINGS).every((r) => off(r) <= trustMs)) return;
    trusted = true;
    moved = false;
    const kept = readings.filter((r) => off(r) <= trustMs);
    if (kept.length < readings.length) {
      readings = kept;
      refit();
    }
  };

  /** @param {number} t @returns {MappingTrust} */
  const standing = (t) => {
    if (trusted) return { trusted: true, why: 'trusted' };
    if (!Number.isNaN(since) && t - since >= TRUST_WITHIN_MS) return { trusted: true, why: 'waited' };
    return { trusted: false, why: moved ? 'stepped' : 'settling' };
  };

  /**
   * Whether this reading makes a step of the sound (see above); when it does, the readings held
   * move by it.
   * @param {number} t @param {number} y @param {number} z
   */
  function stepped(t, y, z) {
    if (!line || !zLine || Number.isNaN(z)) return false;
    const dy = y - onLine(t);
    const dz = z - at(zLine, t);
    const same = Math.sign(dy) === Math.sign(dz) && Math.abs(dy) > STEP_MS && Math.abs(dz) > STEP_MS;
    const d = Math.abs(dz) >= JUMP_MS ? dy : Math.sign(dy) * Math.min(Math.abs(dy), Math.abs(dz));
    if (!same || (departed.length && Math.sign(departed[0].d) !== Math.sign(dy))) {
      departed = same ? [{ t, d }] : [];
      return false;
    }
    // One departure counted per READING_EVERY_MS: readings moments apart repeat one timestamp.
    if (departed.length && t - departed[departed.length - 1].t < READING_EVERY_MS) return false;
    departed.push({ t, d });
    if (departed.length < STEP_READINGS) return false;
    const step = medianSorted(Float64Array.from(departed, (x) => x.d).sort());
    // The readings from before the step move to its new level; those that departed are there
    // already. Moving them too put each step's first reading twice as far off: over a page's join
    // (its timestamps wandering in 5-7 ms steps) those outliers bent the line's slope until it ran
    // 2 ms/s off its readings, and the step rule kept catching up, every 1.5-2.5 s for the whole
    // run: 65 steps in 150 s, clicks 1-5 ms early in a sawtooth (10-page lab run, page 3).
    for (const r of readings) {
      if (r.t >= departed[0].t) continue;
      r.y += step;
      r.z += step;
    }
    departed = [];
    steps += 1;
    return true;
  }

  return {
    /**
     * One output timestamp: the speaker plays `contextTime` (s) at page time `performanceTime` (ms),
     * with the output delay reported beside it (ms; Chromium's timestamp has it taken off).
     * @param {number} contextTime
     * @param {number} performanceTime
     * @param {number} [delayMs]  none: steps are followed only as a change that stays
     */
    add(contextTime, performanceTime, delayMs) {
      const y = contextTime * 1000 - performanceTime;
      const z = typeof delayMs === 'number' && Number.isFinite(delayMs) ? y + delayMs : Number.NaN;
      const last = readings[readings.length - 1];
      if (last && performanceTime < last.t) {
        // Time ran backwards: not the same output any more.
        restart();
      } else if (line && (y - onLine(performanceTime) > aheadMs || onLine(performanceTime) - y > behindMs)) {
        restart();
      } else if (!stepped(performanceTime, y, z) && last && performanceTime - last.t < READING_EVERY_MS) {
        return;
      }
      if (Number.isNaN(since)) since = performanceTime;
      readings.push({ t: performanceTime, y, z });
      while (readings.length > 1 && readings[0].t < performanceTime - HOLD_WINDOW_MS) readings.shift();
      refit();
      trust();
    },
    /**
     * Whether sounds may be placed by this mapping at page time `t`: it is trusted (see
     * TRUST_READINGS), or it has had TRUST_WITHIN_MS of readings to become so.
     * @param {number} t
     */
    trustedAt(t) {
      return standing(t).trusted;
    },
    /**
     * trustedAt with its reason, read from the readings held and nothing else (no reading taken,
     * nothing changed): a page can ask it as often as it likes.
     * @param {number} t  page time
     * @returns {MappingTrust}
     */
    trust(t) {
      return standing(t);
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
    /** Times a step of the sound was followed (the readings held moved by it). */
    get steps() {
      return steps;
    },
  };
}

/** @param {{ t: number, z: number }} r */
const zOf = (r) => ({ t: r.t, y: r.z });

/**
 * @typedef {object} MappingTrust whether sounds may be placed by a mapping now, and why
 * @property {boolean} trusted
 * @property {'trusted' | 'waited' | 'settling' | 'stepped'} why  `trusted`: the line stands and its
 *   newest readings agree with it; `waited`: they have not agreed for TRUST_WITHIN_MS, and the
 *   mapping is used as it is; `settling`: too few readings yet, or they do not agree yet; `stepped`:
 *   as settling, after a reading far off the line restarted it (a context resumed, a headset
 *   connected, or readings that jump about)
 */

/** @typedef {ReturnType<typeof createHeldMapping>} HeldMapping */

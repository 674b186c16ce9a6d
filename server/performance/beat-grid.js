// The beat grid of a performance that plays: where it was anchored (a position, at a monotonic
// time and the wall time sampled with it) and when each beat is due from there. Beat N is due at
// anchor + (timeAt(N) - timeAt(anchorPos)) / rate, computed from the anchor each time, so timer
// lateness never accumulates (setInterval would drift). Pure given a clock: tests drive it by hand.

/**
 * Time and timers, injected so tests drive them by hand.
 * @typedef {object} Clock
 * @property {() => number} now   monotonic milliseconds
 * @property {() => number} wall  milliseconds since the Unix epoch
 * @property {(fn: () => void, ms: number) => unknown} setTimer
 * @property {(handle: unknown) => void} clearTimer
 */

/** @type {Clock} */
export const systemClock = {
  now: () => performance.now(),
  wall: () => performance.timeOrigin + performance.now(),
  setTimer: (fn, ms) => setTimeout(fn, ms),
  clearTimer: (h) => clearTimeout(/** @type {NodeJS.Timeout} */ (h)),
};

/** Timers may fire up to this early (ms); earlier than that, the grid waits again. */
const EARLY_TOLERANCE_MS = 1;
/** The tempo factors a performance may play at (1 = as written). */
export const MIN_RATE = 0.25;
export const MAX_RATE = 4;

/** @typedef {Pick<import('../../core/tempo-map.js').TempoMap, 'timeAt' | 'beatAt'>} GridMap */

/**
 * @param {Clock} clock
 */
export function createBeatGrid(clock) {
  /** The monotonic time at which the piece was at `anchorPos`. */
  let anchorMono = 0;
  let anchorPos = 0;
  /** Wall time corresponding to anchorMono (sampled together). */
  let anchorWall = 0;
  /** @type {unknown} */
  let timer = null;

  /** @param {number} mono */
  const wallOf = (mono) => anchorWall + (mono - anchorMono);

  return {
    /** The monotonic time of the anchor. */
    get mono() {
      return anchorMono;
    },
    /** The wall time of the anchor. */
    get wall() {
      return anchorWall;
    },

    /**
     * Anchor at position `at` now (or `delayMs` from now).
     * @param {number} at
     * @param {number} [delayMs]
     */
    anchor(at, delayMs = 0) {
      anchorMono = clock.now() + delayMs;
      anchorWall = clock.wall() + delayMs;
      anchorPos = at;
    },

    /**
     * Anchor at position `at`, which is (or was) reached at monotonic time `mono` and wall time
     * `wall`: a due time of the grid, so that the beats go on on the same grid.
     * @param {number} at
     * @param {number} mono
     * @param {number} [wall] default: the wall time of `mono` on the grid as it is
     */
    anchorAt(at, mono, wall = wallOf(mono)) {
      anchorWall = wall;
      anchorMono = mono;
      anchorPos = at;
    },

    /**
     * When position `beat` is due, in monotonic time.
     * @param {GridMap} map
     * @param {number} beat a beat index, or totalBeats for the end of the piece
     * @param {number} rate
     */
    dueMono(map, beat, rate) {
      return anchorMono + (map.timeAt(beat) - map.timeAt(anchorPos)) / rate;
    },

    wallOf,

    /**
     * The (fractional) position reached now, within beat `beat` (the beat sounding: the next one
     * has not sounded yet, whatever the time says).
     * @param {GridMap} map
     * @param {number} rate
     * @param {number} beat
     */
    positionWithin(map, rate, beat) {
      const p = map.beatAt(map.timeAt(anchorPos) + (clock.now() - anchorMono) * rate);
      return Math.min(Math.max(p, beat), beat + 0.999999);
    },

    /**
     * Call `onDue` once the monotonic time `due()` has come (asked again at each wake-up).
     * @param {() => number} due
     * @param {() => void} onDue
     */
    arm(due, onDue) {
      const wait = () => {
        const remaining = due() - clock.now();
        if (remaining > EARLY_TOLERANCE_MS) {
          timer = clock.setTimer(wait, remaining);
          return;
        }
        timer = null;
        onDue();
      };
      timer = clock.setTimer(wait, Math.max(0, due() - clock.now()));
    },

    /** Forget the timer armed, if any. */
    cancel() {
      if (timer !== null) clock.clearTimer(timer);
      timer = null;
    },
  };
}

/** @typedef {ReturnType<typeof createBeatGrid>} BeatGrid */

// Display changes on an animation frame chosen from the clock, not from when a timer happened to
// fire. A timer wakes the page a little before a change is due; from then on each animation
// frame asks whether it is the frame nearest the due time (its start time plus half a frame has
// reached it). Pages whose clocks agree pick the same display frame wherever the display's
// frames line up (one browser, one screen, or phones whose vsyncs happen to agree), and at worst
// the neighbouring one; a timer's lateness (a busy main thread, a throttled phone) no longer adds
// to the spread, up to WAKE_AHEAD_MS of it. A page that gets no frames (a hidden tab) is not left
// behind: a fallback timer runs the change without a frame.

/** A display frame (ms) until the page has measured its own. */
export const DEFAULT_FRAME_MS = 1000 / 60;
/** How long before a change the timer wakes the page to wait for the right frame (ms). */
export const WAKE_AHEAD_MS = 100;
/** A change is run from a timer if no frame came this long after it was due (ms). */
export const FALLBACK_MS = 100;
/** Frame intervals kept to estimate the display's frame length. */
const INTERVALS = 15;

/**
 * @typedef {object} FrameScheduler
 * @property {(local: number, fn: (frameTime: number) => void) => () => void} at run `fn` on the
 *   frame nearest page time `local` (or from a timer if no frame comes); returns cancel
 * @property {(fn: (frameTime: number) => void) => () => void} next run `fn` on the next frame
 * @property {number} frameMs  the display's frame length as measured (ms)
 * @property {(frameTime: number) => number} shownAt  the page time a frame stands for: its
 *   start plus half a frame, so that a change due at t is shown on the frame nearest t
 */

/**
 * @param {object} o
 * @param {(fn: (frameTime: number) => void) => any} o.requestFrame  requestAnimationFrame
 * @param {() => number} o.now   page time, the clock of the frames' timestamps (performance.now)
 * @param {{ setTimeout: (fn: () => void, ms: number) => any, clearTimeout: (h: any) => void }} o.timers
 * @returns {FrameScheduler}
 */
export function createFrameScheduler({ requestFrame, now, timers }) {
  /** @type {number[]} */
  const intervals = [];
  let lastFrame = NaN;
  let frameMs = DEFAULT_FRAME_MS;

  /** @param {number} ts */
  function measure(ts) {
    if (ts === lastFrame) return;
    const d = ts - lastFrame;
    lastFrame = ts;
    // Only neighbouring frames say how long a frame is (a skipped frame or a pause is longer).
    if (!(d > 4 && d < 50)) return;
    intervals.push(d);
    if (intervals.length > INTERVALS) intervals.shift();
    const sorted = intervals.slice().sort((a, b) => a - b);
    frameMs = sorted[Math.floor(sorted.length / 2)];
  }

  /** @param {number} ts */
  const shownAt = (ts) => ts + frameMs / 2;

  /**
   * @param {number} local  run on the first frame with shownAt(ts) >= local
   * @param {(frameTime: number) => void} fn
   */
  function at(local, fn) {
    let done = false;
    /** @type {any} */
    let wake = null;
    /** @type {any} */
    let fallback = null;
    const finish = (/** @type {number} */ ts) => {
      if (done) return;
      done = true;
      if (wake !== null) timers.clearTimeout(wake);
      if (fallback !== null) timers.clearTimeout(fallback);
      fn(ts);
    };
    const frame = (/** @type {number} */ ts) => {
      if (done) return;
      measure(ts);
      if (shownAt(ts) >= local) finish(ts);
      else requestFrame(frame);
    };
    const t = now();
    if (local - WAKE_AHEAD_MS <= t) requestFrame(frame);
    else wake = timers.setTimeout(() => { wake = null; if (!done) requestFrame(frame); }, local - WAKE_AHEAD_MS - t);
    fallback = timers.setTimeout(() => { fallback = null; finish(now()); }, Math.max(local, t) + FALLBACK_MS - t);
    return () => {
      done = true;
      if (wake !== null) timers.clearTimeout(wake);
      if (fallback !== null) timers.clearTimeout(fallback);
    };
  }

  return {
    at,
    next: (fn) => at(-Infinity, fn),
    get frameMs() { return frameMs; },
    shownAt,
  };
}

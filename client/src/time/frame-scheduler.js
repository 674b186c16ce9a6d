// Display changes on an animation frame chosen from the clock, not from when a timer happened to
// fire. A timer wakes the page a little before a change is due; from then on each animation
// frame asks whether it is the frame nearest the due time (its start time plus half a frame has
// reached it). Pages whose clocks agree pick the same display frame wherever the display's
// frames line up (one browser, one screen, or phones whose vsyncs happen to agree), and at worst
// the neighbouring one; a timer's lateness (a busy main thread, a throttled phone) no longer adds
// to the spread, up to WAKE_AHEAD_MS of it. A page that gets no frames (a hidden tab) is not left
// behind: a fallback timer runs the change without a frame. And a page whose frames come rarely
// (Chromium gives a tab that is not the window's front one about one frame a second, though it
// says it is visible) would be late on every beat: each wake checks whether its first frame came
// promptly, and while frames do not, changes run from their timer at the due time, as without
// frames.

import { quantile } from '../../../core/stats.js';

/** A display frame (ms) until the page has measured its own. */
export const DEFAULT_FRAME_MS = 1000 / 60;
/** How long before a change the timer wakes the page to wait for the right frame (ms). */
export const WAKE_AHEAD_MS = 100;
/** A change is run from a timer if no frame came this long after it was due (ms). */
export const FALLBACK_MS = 25;
/**
 * Wakes in a row whose frames all came promptly before frames are trusted again (after a stall or
 * a slow frame); with `trustByFrame`, frames in a row that came promptly.
 */
export const PROMPT_STREAK = 4;
/** Frames are prompt when each runs within this many frames of its request. */
const PROMPT_FRAMES = 1.5;
/** Frame intervals kept to estimate the display's frame length. */
const INTERVALS = 15;
/** The quantile of those intervals taken as the display's frame (skipped frames make longer ones). */
const FRAME_QUANTILE = 0.25;

/**
 * Run on a frame with its timestamp (the frame's start, page time), or from a timer when no frame
 * came, with the timer's time and `fromTimer` true: that change is drawn at the next frame, which
 * begins after it.
 * @typedef {(frameTime: number, fromTimer?: boolean) => void} FrameCallback
 */

/**
 * @typedef {object} FrameScheduler
 * @property {(local: number, fn: FrameCallback) => () => void} at run `fn` on the
 *   frame nearest page time `local` (or from a timer if no frame comes); returns cancel
 * @property {(fn: FrameCallback) => () => void} next run `fn` on the next frame
 *   (at once from a timer where frames are not prompt)
 * @property {(fn: FrameCallback) => () => void} [everyFrame] the next frame of a
 *   frame loop: waits FALLBACK_MS for it even where frames are not prompt
 * @property {number} frameMs  the display's frame length as measured (ms)
 * @property {boolean} [prompt] whether frames came promptly at the last wake (else timers run changes)
 * @property {(frameTime: number) => number} shownAt  the page time a frame stands for: its
 *   start plus half a frame, so that a change due at t is shown on the frame nearest t
 */

/**
 * @param {object} o
 * @param {(fn: (frameTime: number) => void) => any} o.requestFrame  requestAnimationFrame
 * @param {() => number} o.now   page time, the clock of the frames' timestamps (performance.now)
 * @param {{ setTimeout: (fn: () => void, ms: number) => any, clearTimeout: (h: any) => void }} o.timers
 * @param {boolean} [o.trustByFrame=false]  count trust in prompt frames rather than wakes, and let
 *   a change whose timer was set while frames were not trusted wait for its frame when they are
 *   trusted again by its time. For a page whose frame loop stops between changes (a part view,
 *   whose cursor the browser glides): it wakes 2-4 times a beat, and counted by wake one slow
 *   frame left it on timers for its next four changes, each drawn a frame after the nearest where
 *   the nearest frame began before the change's time (its frame loop, which it no longer runs
 *   while the cursor glides, had counted each frame as a wake). Not for audience pages, which
 *   never had a loop: where frames come irregularly (nine background tabs of one window) four
 *   prompt frames in a row come often, and such pages then took a third of their beats on the
 *   late frame they got instead of writing them from the timer at their time.
 * @returns {FrameScheduler}
 */
export function createFrameScheduler({ requestFrame, now, timers, trustByFrame = false }) {
  /** @type {number[]} */
  const intervals = [];
  let lastFrame = NaN;
  let frameMs = DEFAULT_FRAME_MS;
  /** Wakes (or frames) in a row that came promptly: until PROMPT_STREAK, timers run the changes. */
  let streak = 0;
  const isPrompt = () => streak >= PROMPT_STREAK;

  /** @param {number} ts */
  function measure(ts) {
    if (ts === lastFrame) return;
    const d = ts - lastFrame;
    lastFrame = ts;
    // Only neighbouring frames say how long a frame is (a skipped frame or a pause is longer).
    if (!(d > 4 && d < 50)) return;
    intervals.push(d);
    if (intervals.length > INTERVALS) intervals.shift();
    // A busy page misses frames, and an interval over a missed one is two frames long: where more
    // than half were missed (a part view drawing its cursor every frame on a loaded machine) the
    // median said 33 ms and the page took the frame before the nearest. The display's frame is
    // the shortest that come often; a low quantile rather than the least, so that one odd short
    // interval does not set it.
    frameMs = quantile(intervals, FRAME_QUANTILE);
  }

  /** @param {number} ts */
  const shownAt = (ts) => ts + frameMs / 2;

  /**
   * @param {number} local  run on the first frame with shownAt(ts) >= local
   * @param {FrameCallback} fn
   * @param {number} [atLeast] wait at least this long (ms) for a frame before the timer runs it
   */
  function at(local, fn, atLeast = 0) {
    let done = false;
    /** @type {any} */
    let wake = null;
    /** @type {any} */
    let fallback = null;
    const finish = (/** @type {number} */ ts, fromTimer = false) => {
      if (done) return;
      done = true;
      if (wake !== null) timers.clearTimeout(wake);
      if (fallback !== null) timers.clearTimeout(fallback);
      fn(ts, fromTimer);
    };
    let requestedAt = NaN;
    /** Every frame of this wake came within PROMPT_FRAMES of its request (so far). */
    let quick = true;
    let cancelled = false;
    let stalled = false;
    // The frames go on after a timer ran the change, to learn whether they come promptly.
    const frame = (/** @type {number} */ ts) => {
      if (cancelled) return;
      const slow = now() - requestedAt > PROMPT_FRAMES * frameMs;
      if (slow) quick = false;
      if (trustByFrame && (!done || !stalled)) streak = slow ? 0 : streak + 1;
      measure(ts);
      if (shownAt(ts) >= local) {
        if (!trustByFrame && (!done || !stalled)) streak = quick ? streak + 1 : 0;
        finish(ts);
      } else request();
    };
    const request = () => {
      requestedAt = now();
      requestFrame(frame);
    };
    const t = now();
    if (local - WAKE_AHEAD_MS <= t) request();
    else
      wake = timers.setTimeout(
        () => {
          wake = null;
          if (!done) request();
        },
        local - WAKE_AHEAD_MS - t,
      );
    /** Frames were trusted when the timer was set: it waits FALLBACK_MS for the frame. */
    let trusted = isPrompt();
    const fallbackAt = () => Math.max(local, t) + Math.max(atLeast, trusted ? FALLBACK_MS : 0);
    const onFallback = () => {
      fallback = null;
      if (done) return;
      // This wake's frames came promptly: the change waits for its frame, as on a page trusted all along.
      if (trustByFrame && !trusted && isPrompt()) {
        trusted = true;
        fallback = timers.setTimeout(onFallback, Math.max(0, fallbackAt() - now()));
        return;
      }
      // No frame in time: frames are not to be waited for, until a wake shows they come again.
      if (isPrompt()) {
        streak = 0;
        stalled = true;
      }
      finish(now(), true);
    };
    fallback = timers.setTimeout(onFallback, fallbackAt() - t);
    return () => {
      done = true;
      cancelled = true;
      if (wake !== null) timers.clearTimeout(wake);
      if (fallback !== null) timers.clearTimeout(fallback);
    };
  }

  return {
    at,
    next: (fn) => at(-Infinity, fn),
    // A frame loop (a moving cursor) never spins on timers where frames are rare.
    everyFrame: (fn) => at(-Infinity, fn, FALLBACK_MS),
    get frameMs() {
      return frameMs;
    },
    get prompt() {
      return isPrompt();
    },
    shownAt,
  };
}

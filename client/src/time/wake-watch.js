// Notices that the page was suspended without being told. A phone's browser may stop a page's
// tasks with no freeze or visibilitychange event: headless Chromium 156 froze a page through CDP
// (Page.setWebLifecycleState) and fired neither `freeze` nor `resume`; iOS fires no Page Lifecycle
// events at all. A short timer that fires far later than asked for is the one sign every engine
// gives, so the page treats such a gap as a return: it checks its link, measures its clock again
// and asks for its wake lock and its sound (client/src/page/main.js).

/** The watch's period (ms). */
export const WATCH_EVERY_MS = 500;

/**
 * A tick this much later than its period (ms) means the page was suspended. Well above what a busy
 * phone delays a timer (a long task, a slow frame: tens to hundreds of ms) and below the shortest
 * suspension worth acting on (a link silent for 2.5 s is already suspect, link-probe.js).
 */
export const GAP_MS = 2000;

/**
 * @param {object} o
 * @param {() => number} o.now  monotonic page time (ms)
 * @param {{ setTimeout: (fn: () => void, ms: number) => any, clearTimeout: (h: any) => void }} o.timers
 * @param {(awayMs: number) => void} o.onWake  called after a gap, with its length beyond the period
 * @param {number} [o.everyMs]
 * @param {number} [o.gapMs]
 */
export function createWakeWatch({ now, timers, onWake, everyMs = WATCH_EVERY_MS, gapMs = GAP_MS }) {
  /** @type {any} */
  let timer = null;
  let last = 0;

  function tick() {
    const t = now();
    const late = t - last - everyMs;
    last = t;
    timer = timers.setTimeout(tick, everyMs);
    if (late >= gapMs) onWake(late);
  }

  return {
    start() {
      if (timer !== null) return;
      last = now();
      timer = timers.setTimeout(tick, everyMs);
    },
    /** A return the page was told of (visibilitychange, resume): the gap is not news. */
    reset() {
      if (timer === null) return;
      timers.clearTimeout(timer);
      last = now();
      timer = timers.setTimeout(tick, everyMs);
    },
    stop() {
      if (timer !== null) timers.clearTimeout(timer);
      timer = null;
    },
  };
}

// What the page shows as "now" in the score, on the server's clock: the held state says which
// beat sounds and when (`beatT`), and which follows and when (`next.t`). The beat that follows is
// shown at its time even before its own message arrives (a network latency later), so pages on
// different links change beat together; when the message comes, it agrees. A count-in shows its
// clicks the same way.

/**
 * @typedef {object} Position
 * @property {number | null} beat       global beat index, null before the first state
 * @property {number | null} bar
 * @property {number | null} beatInBar
 * @property {number} fraction          how far into the beat, 0..1 (0 unless playing)
 * @property {number} beatMs            length of this beat (0 unless playing)
 * @property {number} count             count-in click now sounding (1..beats), 0 when none
 * @property {number} countOf           clicks in the count-in, 0 when none
 * @property {boolean} predicted        shown from `next`, before its own message came
 * @property {number | null} changeAt   server time at which the shown beat (or click) began
 * @property {boolean} [joining]        the page is still measuring its clock: no beat shown
 */

/** @type {Position} */
const NOTHING = {
  beat: null,
  bar: null,
  beatInBar: null,
  fraction: 0,
  beatMs: 0,
  count: 0,
  countOf: 0,
  predicted: false,
  changeAt: null,
};

/**
 * The position to show at server time `now`.
 * @param {any} state the held performance state (core/performance.js), or null
 * @param {number} now server time (ms)
 * @returns {Position}
 */
export function positionAt(state, now) {
  if (!state || typeof state !== 'object' || typeof state.beat !== 'number') return NOTHING;
  const held = { beat: state.beat, bar: num(state.bar), beatInBar: num(state.beatInBar) };
  const next = validNext(state.next);
  if (state.playback !== 'playing') return { ...NOTHING, ...held };

  const c = state.countIn;
  // A count-in announced with the beat sounding before it (a loop's next time round): that beat
  // shows until the clicks start.
  const sounding = typeof state.beatT === 'number';
  const counting = c && typeof c.t === 'number' && c.beatMs > 0 && c.beats > 0 && next && now < next.t;
  if (counting && !(sounding && now < c.t)) {
    const k = Math.floor((now - c.t) / c.beatMs);
    if (k < 0) return { ...NOTHING, ...held };
    // The clicks count in to the beat they announce.
    const to = sounding ? { beat: next.beat, bar: next.bar, beatInBar: next.beatInBar } : held;
    return { ...NOTHING, ...to, count: k + 1, countOf: c.beats, changeAt: c.t + k * c.beatMs };
  }
  if (next && now >= next.t) {
    // Shown ahead of its message. Its length is not known yet: assume the one before it (after
    // a count-in, a click's).
    const clicked = c && sounding && typeof c.beatMs === 'number' ? c.beatMs : null;
    const beatMs = clicked ?? (sounding ? next.t - state.beatT : 0);
    return {
      ...NOTHING,
      beat: next.beat,
      bar: next.bar,
      beatInBar: next.beatInBar,
      predicted: true,
      changeAt: next.t,
      beatMs,
      fraction: beatMs > 0 ? clamp01((now - next.t) / beatMs) : 0,
    };
  }
  if (typeof state.beatT !== 'number') return { ...NOTHING, ...held };
  const beatMs = next
    ? (counting ? c.t : next.t) - state.beatT
    : typeof state.tempo === 'number' && state.tempo > 0
      ? 60000 / state.tempo
      : 0;
  return {
    ...NOTHING,
    ...held,
    changeAt: state.beatT,
    beatMs,
    fraction: beatMs > 0 ? clamp01((now - state.beatT) / beatMs) : 0,
  };
}

/**
 * Server time of the next change of what positionAt shows (a beat or a click), or null when
 * nothing will change without a message.
 * @param {any} state
 * @param {number} now
 * @returns {number | null}
 */
export function nextChangeAt(state, now) {
  if (state?.playback !== 'playing') return null;
  const next = validNext(state.next);
  if (!next) return null;
  const c = state.countIn;
  if (c && typeof c.t === 'number' && c.beatMs > 0 && now < next.t) {
    if (now < c.t) return c.t;
    const k = Math.floor((now - c.t) / c.beatMs) + 1;
    return Math.min(c.t + k * c.beatMs, next.t);
  }
  return now < next.t ? next.t : null;
}

/**
 * Server time until which the held state says what to show without another message: through a
 * count-in's clicks and the beat announced next, to that beat's end (its length assumed as
 * positionAt does: a click's after a count-in, else the beat before it's, else the tempo's).
 * -Infinity when nothing is announced (paused, stopped, the last beat). What a page that lost
 * its link may go on showing (client/src/time/join-gate.js, hold).
 * @param {any} state
 * @returns {number}
 */
export function announcedUntil(state) {
  if (state?.playback !== 'playing') return -Infinity;
  const next = validNext(state.next);
  if (!next) return -Infinity;
  const c = state.countIn;
  const beatMs =
    c && typeof c.beatMs === 'number' && c.beatMs > 0
      ? c.beatMs
      : typeof state.beatT === 'number' && next.t > state.beatT
        ? next.t - state.beatT
        : typeof state.tempo === 'number' && state.tempo > 0
          ? 60000 / state.tempo
          : 0;
  return next.t + beatMs;
}

/**
 * @param {unknown} n
 * @returns {n is { beat: number, bar: number, beatInBar: number, t: number, audio?: string[] }}
 */
function isNext(n) {
  if (!n || typeof n !== 'object') return false;
  const o = /** @type {Record<string, unknown>} */ (n);
  return typeof o.beat === 'number' && typeof o.t === 'number' && Number.isFinite(o.t);
}

/** @param {unknown} n */
function validNext(n) {
  if (!isNext(n)) return null;
  return { beat: n.beat, bar: num(n.bar), beatInBar: num(n.beatInBar), t: n.t };
}

/** @param {unknown} n */
const num = (n) => (typeof n === 'number' && Number.isFinite(n) ? n : null);
/** @param {number} x */
const clamp01 = (x) => Math.min(Math.max(x, 0), 0.999);

/**
 * The display's time never runs backwards by less than this (ms): a server time to show that is
 * earlier than one already shown, by less, is shown as that one. Two things make it run back by a
 * little: a round trip that moves the clock estimate back (a few ms, 20 on a jittery link), and a
 * frame whose callbacks run after a change's timer on a busy page (the frame's timestamp is its
 * start, so it stands for a time before the timer's). Either, just after an announced beat was
 * shown ahead of its message, showed the beat before it again for a frame: after a jump, a beat
 * from before the jump (the full score went back to the jump's first system, once, in a browser
 * run on a loaded machine). A larger step back is no jitter: the estimate was wrong by that much,
 * and the page shows where the server is.
 */
export const HOLD_BACK_MS = 1000;

/** What a page shows while its clock is not yet good enough (client/src/time/join-gate.js). */
export const JOINING = Object.freeze({ ...NOTHING, joining: true });

/**
 * What makes a shown position a change: its beat, bar, click, the playback and whether beats are shown.
 * @param {Position} pos
 * @param {any} state
 * @param {boolean} on
 */
const keyOf = (pos, state, on) => `${pos.beat}|${pos.bar}|${pos.beatInBar}|${pos.count}|${state?.playback}|${on}`;

/**
 * Without a frame scheduler: each change at its timer, drawn at the browser's next frame.
 * @param {{ setTimeout: (fn: () => void, ms: number) => any, clearTimeout: (h: any) => void }} timers
 * @param {() => number} now
 * @returns {import('./frame-scheduler.js').FrameScheduler}
 */
function timerScheduler(timers, now) {
  return {
    at(local, fn) {
      const h = timers.setTimeout(() => fn(now()), Math.max(0, local - now()));
      return () => timers.clearTimeout(h);
    },
    next(fn) {
      fn(now());
      return () => {};
    },
    frameMs: 0,
    shownAt: (ts) => ts,
  };
}

/**
 * Drives the display: each change (the next beat, the next click) at its server time, on the
 * animation frame nearest it when a frame scheduler is given (client/src/time/frame-scheduler.js),
 * else from a timer; plus, when asked, a callback every animation frame while playing (a moving
 * cursor). While `ready()` is false (the join gate: the clock is still being measured) it shows
 * JOINING, never a beat that may be off.
 * @param {object} o
 * @param {() => any} o.getState
 * @param {import('./clock.js').ServerClock} o.clock
 * @param {{ setTimeout: (fn: () => void, ms: number) => any, clearTimeout: (h: any) => void }} o.timers
 * @param {() => number} o.now                        page time, same clock as o.clock's
 * @param {(pos: Position, frameTime: number) => void} o.onChange  the beat, bar or click shown
 *   changed; `frameTime` (page time) is the start of the display frame it is drawn in, or the
 *   time it was written when no frame is used (a timer)
 * @param {((pos: Position) => unknown) | null} [o.onFrame] every frame while playing, as
 *   long as it does not return false: then until the next change (a beat, a click, update()).
 *   A cursor the browser glides by itself needs no frame of the page's: the page's main thread
 *   is then idle between changes (a part view spent 140-190 ms a second on frames that changed
 *   nothing, and a busy one drew landings late).
 * @param {(fn: () => void) => any} [o.requestFrame]  for onFrame without a frame scheduler
 * @param {import('./frame-scheduler.js').FrameScheduler} [o.frames]
 * @param {() => boolean} [o.ready]                   false: show JOINING
 */
export function createBeatClock({
  getState,
  clock,
  timers,
  now,
  onChange,
  onFrame = null,
  requestFrame,
  frames,
  ready = () => true,
}) {
  const scheduler = frames ?? timerScheduler(timers, now);
  /** The pending change, and the pending render asked for by update(). @type {(() => void) | null} */
  let cancel = null;
  /** @type {(() => void) | null} */
  let pendingUpdate = null;
  let framePending = false;
  let lastKey = '';
  let stopped = false;
  /** The latest server time beats were shown for (HOLD_BACK_MS); forgotten while joining. */
  let shownT = -Infinity;

  /**
   * The server time a frame stands for: while beats are shown, never before one already shown
   * (unless by more than HOLD_BACK_MS). While joining, the estimate is still moving and nothing
   * is shown: the first beat after it is shown on the estimate as it is then, not held back.
   * @param {number} frameTime
   * @param {boolean} on  beats are shown (the join gate is open)
   * @param {boolean} [fromTimer]  run from a timer, not a frame
   */
  function timeOf(frameTime, on, fromTimer = false) {
    // A frame stands for its middle (the frame nearest a change shows it). A change written from a
    // timer, outside any frame, is drawn at the next frame, which begins after it: the timer's own
    // time, so that it never shows a change before its time.
    const t = clock.serverNow() + ((fromTimer ? frameTime : scheduler.shownAt(frameTime)) - now());
    if (on && t < shownT && shownT - t <= HOLD_BACK_MS) return shownT;
    shownT = on ? t : -Infinity;
    return t;
  }

  /**
   * Show what is due at the page time a frame stands for.
   * @param {number} frameTime
   * @param {boolean} [fromTimer]  run from a timer, not a frame
   */
  function render(frameTime, fromTimer = false) {
    if (stopped) return;
    const state = getState();
    const on = ready();
    const serverT = timeOf(frameTime, on, fromTimer);
    const pos = on ? positionAt(state, serverT) : JOINING;
    const key = keyOf(pos, state, on);
    if (key !== lastKey) {
      lastKey = key;
      onChange(pos, frameTime);
    }
    if (on) arm(state, serverT);
    if (on && onFrame && !framePending && state?.playback === 'playing') {
      framePending = true;
      if (frames?.everyFrame) frames.everyFrame(frame);
      else if (requestFrame) requestFrame(() => frame(now()));
      else framePending = false;
    }
  }

  /** @param {number} frameTime @param {boolean} [fromTimer] */
  function frame(frameTime, fromTimer = false) {
    framePending = false;
    if (!onFrame || stopped) return;
    const state = getState();
    if (ready()) {
      const pos = positionAt(state, timeOf(frameTime, true, fromTimer));
      // A change due by this frame's time is shown by this frame, whichever callback reaches it
      // first: the page's text and what the frame callback draws (a part view's pane turn and
      // cursor) then change in one frame, never the drawing a frame ahead of the text or after it.
      if (keyOf(pos, state, true) !== lastKey) {
        render(frameTime, fromTimer);
        return;
      }
      if (onFrame(pos) === false) return;
    }
    if (state?.playback === 'playing' && ready()) {
      framePending = true;
      if (frames?.everyFrame) frames.everyFrame(frame);
      else if (requestFrame) requestFrame(() => frame(now()));
    }
  }

  /** @param {any} state @param {number} serverT */
  function arm(state, serverT) {
    cancel?.();
    cancel = null;
    const at = nextChangeAt(state, serverT);
    if (at === null) return;
    // A timer may fire a little early; render() then simply arms again for what is left.
    cancel = scheduler.at(clock.toLocal(at), render);
  }

  return {
    /** Call when the held state changed, the clock estimate moved or the join gate turned. */
    update() {
      pendingUpdate?.();
      pendingUpdate = scheduler.next(render);
    },
    stop() {
      stopped = true;
      cancel?.();
      pendingUpdate?.();
      cancel = null;
      onFrame = null;
    },
  };
}

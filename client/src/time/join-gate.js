// The join gate: a page shows no beat until its estimate of the server's clock is good enough to
// show it on time. Until then it says it is joining. It closes again whenever the estimate may
// have gone stale: the link was lost (perhaps a roam to another access point), or the tab was
// hidden (timers throttled or frozen, the phone perhaps asleep), and reopens after a fresh burst
// of round trips. The estimate is good enough when JOIN_MIN_SAMPLES round trips came back since
// the burst and the error bound (half the best round trip, core/clock-sync.js) is at most
// JOIN_ERROR_MS: two pages that both pass differ by at most twice that, and on loopback or a quiet
// WiFi by far less. A link that never offers a round trip that quick (a congested access point)
// still shows beats after JOIN_MAX_WAIT_MS, with the best estimate it has ('approximate').
//
// A page that was showing beats and lost them (a roam, a hidden tab) has an audience member
// looking at it: it shows them again as soon as its estimate is as good as it was then (at most
// REJOIN_ERROR_MS: two pages each within 15 ms of the server are within WiFi's 30 ms of each
// other), and after REJOIN_MAX_WAIT_MS at the latest. On busy WiFi (10-60 ms each way) no round
// trip is quick enough for JOIN_ERROR_MS, and a page that roamed stayed blank for the whole 3 s.
//
// A link lost while the tab stayed visible (a phone changing access point) does not make the
// estimate stale: the page's monotonic clock kept running, the offset to the server's clock does
// not depend on the path, and the error bound already widens with the samples' age (drift,
// core/clock-sync.js). So a gate held for the link only (`hold({ keepClock: true })`) reopens on
// time as soon as the link is back if that bound still holds, and the fresh burst refines it
// meanwhile. Measured in the venue lab (infra/lab/roam.js): the burst cost a returning page
// 250-400 ms, often enough to miss the next beat's window and wait a whole beat more.
//
// Nor does a link lost make the held state wrong until it runs out: a count-in was announced with
// its clicks' server times and the beat they count in to. A musician whose tablet loses the server
// during the clicks expects them to go on and the downbeat to land with everyone else's, so a page
// on time that loses its link with its tab visible keeps showing beats until what the held state
// announced has been shown (hold's `until`), and only then says it is joining.

/** Round trips since the burst before the gate opens. */
export const JOIN_MIN_SAMPLES = 3;
/** Error bound of the clock estimate (ms) at which the gate opens: a round trip of at most 20 ms. */
export const JOIN_ERROR_MS = 10;
/** After this long (ms) without meeting the bound, the gate opens with the best estimate so far. */
export const JOIN_MAX_WAIT_MS = 3000;
/** A page that was showing beats rejoins once its error bound is as good as it was, up to this (ms). */
export const REJOIN_ERROR_MS = 15;
/** ... and after this long (ms) at the latest: a roam is ridden out within 2 s of the link's return. */
export const REJOIN_MAX_WAIT_MS = 1200;
/**
 * A gate that opened approximate (the bound not met in time) goes on taking round trips as a burst
 * does, not one every 4 s, for this long (ms) or until the bound is met: the estimate it opened on
 * rests on the few round trips of one burst (after a doze moved the offset, the window restarted on
 * them alone), and on busy WiFi its middle was more than 15 ms off until the next 4 s round trip
 * (CI: 6 s to recover from a roam, against 1.2-1.6 s when the burst's middle happened to be close).
 */
export const REFINE_MS = 2500;

/**
 * A page on time that loses its link with its tab visible goes on showing what the held state
 * announced (a count-in's clicks and the beat they count in to, with their server times) for at
 * most this long (ms): over a minute the error bound widens by 6 ms at the assumed drift.
 */
export const COAST_MAX_MS = 60_000;

/** @typedef {'joining' | 'on-time' | 'approximate'} JoinState */

/**
 * @typedef {object} GateClock what the gate reads of the server clock (client/src/time/clock.js)
 * @property {number} fresh    round trips back since the last burst()
 * @property {number} error    error bound of the estimate now (ms)
 * @property {boolean} bursting
 * @property {() => void} burst   forget what is fresh, measure again now
 * @property {() => void} more    measure again now, keeping what is fresh
 * @property {(fn: () => void) => () => void} onSample
 */

/**
 * @param {object} o
 * @param {GateClock} o.clock
 * @param {() => number} o.now   page time (ms)
 * @param {{ setTimeout: (fn: () => void, ms: number) => any, clearTimeout: (h: any) => void }} o.timers
 * @param {(state: JoinState) => void} [o.onChange]
 */
export function createJoinGate({ clock, now, timers, onChange = () => {} }) {
  /** @type {JoinState} */
  let state = 'joining';
  /** Waiting for round trips (false while held: link down, tab hidden). */
  let waiting = false;
  let since = 0;
  /** @type {any} */
  let deadline = null;
  /** The error bound when beats were last shown (ms), until they are shown again; null: never shown. */
  /** @type {number | null} */
  let shownError = null;
  /** What this join asks for: the error bound and the longest wait. */
  let bar = JOIN_ERROR_MS;
  let wait = JOIN_MAX_WAIT_MS;
  /** Held for the link only, after being on time: the estimate may serve again at once. */
  let kept = false;
  /** Page time until which an approximate gate keeps asking for round trips (REFINE_MS). */
  let refineUntil = -Infinity;
  /** While the link is lost, beats go on until this timer closes the gate (hold's `until`). */
  /** @type {any} */
  let coast = null;

  function clearCoast() {
    if (coast !== null) timers.clearTimeout(coast);
    coast = null;
  }

  /** @param {JoinState} next */
  function set(next) {
    if (state === next) return;
    state = next;
    onChange(state);
  }

  function clearDeadline() {
    if (deadline !== null) timers.clearTimeout(deadline);
    deadline = null;
  }

  /** Open approximate: more round trips, quickly, until the bound is met or REFINE_MS has passed. */
  function refine() {
    if (state !== 'approximate' || now() >= refineUntil) return;
    if (clock.error <= bar) refineUntil = -Infinity;
    else if (!clock.bursting) clock.more();
  }

  function check() {
    if (!waiting) {
      refine();
      return;
    }
    if (clock.fresh >= JOIN_MIN_SAMPLES && clock.error <= bar) {
      open(clock.error <= JOIN_ERROR_MS ? 'on-time' : 'approximate');
    } else if (now() - since >= wait && clock.fresh > 0 && Number.isFinite(clock.error)) {
      open('approximate');
    } else if (!clock.bursting && clock.fresh > 0) {
      // The burst is spent and the bound not met: round trips come quickly until the deadline.
      clock.more();
    }
  }

  /** @param {JoinState} how */
  function open(how) {
    waiting = false;
    shownError = null;
    clearDeadline();
    set(how);
    refineUntil = how === 'approximate' ? now() + REFINE_MS : -Infinity;
    refine();
  }

  /** Beats are about to be hidden: remember how good the estimate was. */
  function leaving() {
    if (state !== 'joining') shownError = Number.isFinite(clock.error) ? clock.error : REJOIN_ERROR_MS;
  }

  const unsubscribe = clock.onSample(check);

  return {
    /** @returns {JoinState} */
    get state() {
      return state;
    },
    /** Whether beats may be shown. */
    get open() {
      return state !== 'joining';
    },

    /**
     * Measure the clock afresh and open when it is good enough (start, link back, tab shown). After
     * a hold that kept the clock, opens at once when the held estimate still meets the bound.
     */
    rejoin() {
      clearCoast();
      leaving();
      clearDeadline();
      const again = shownError !== null;
      bar = again
        ? Math.min(Math.max(JOIN_ERROR_MS, /** @type {number} */ (shownError)), REJOIN_ERROR_MS)
        : JOIN_ERROR_MS;
      wait = again ? REJOIN_MAX_WAIT_MS : JOIN_MAX_WAIT_MS;
      // Held for the link only and the estimate still as good as asked: beats at once, and the
      // burst refines the estimate meanwhile.
      if (kept && clock.error <= bar) {
        kept = false;
        open(clock.error <= JOIN_ERROR_MS ? 'on-time' : 'approximate');
        clock.burst();
        return;
      }
      kept = false;
      waiting = true;
      since = now();
      set('joining');
      deadline = timers.setTimeout(() => {
        deadline = null;
        check();
      }, wait);
      clock.burst();
    },

    /**
     * Close and wait for rejoin(). `keepClock`: only the link was lost, the page kept running (its
     * tab visible), so an estimate that was on time may serve again when the link is back; without
     * it (tab hidden, perhaps frozen or asleep) the estimate is measured afresh first. `until` (page
     * time), with `keepClock` on time: the held state announces what to show until then (a
     * count-in under way, with its clicks' server times), so the gate stays open that long (at
     * most COAST_MAX_MS) on the clock the page has; a rejoin() meanwhile keeps it open.
     * @param {{ keepClock?: boolean, until?: number }} [o]
     */
    hold({ keepClock = false, until = -Infinity } = {}) {
      kept = keepClock && (state === 'on-time' || kept);
      waiting = false;
      clearDeadline();
      const left = Math.min(until - now(), COAST_MAX_MS);
      if (kept && state !== 'joining' && left > 0) {
        if (coast === null)
          coast = timers.setTimeout(() => {
            coast = null;
            leaving();
            set('joining');
          }, left);
        return;
      }
      clearCoast();
      leaving();
      set('joining');
    },

    /** Whether the link is lost and beats go on from what the held state announced. */
    get coasting() {
      return coast !== null;
    },

    stop() {
      waiting = false;
      clearCoast();
      clearDeadline();
      unsubscribe();
    },
  };
}

/** @typedef {ReturnType<typeof createJoinGate>} JoinGate */

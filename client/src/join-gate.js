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
// A link lost while the tab stayed visible (a phone changing access point) does not make the
// estimate stale: the page's monotonic clock kept running, the offset to the server's clock does
// not depend on the path, and the error bound already widens with the samples' age (drift,
// core/clock-sync.js). So a gate held for the link only (`hold({ keepClock: true })`) reopens on
// time as soon as the link is back if that bound still holds, and the fresh burst refines it
// meanwhile. Measured in the venue lab (infra/lab/roam.mjs): the burst cost a returning page
// 250-400 ms, often enough to miss the next beat's window and wait a whole beat more.

/** Round trips since the burst before the gate opens. */
export const JOIN_MIN_SAMPLES = 3;
/** Error bound of the clock estimate (ms) at which the gate opens: a round trip of at most 20 ms. */
export const JOIN_ERROR_MS = 10;
/** After this long (ms) without meeting the bound, the gate opens with the best estimate so far. */
export const JOIN_MAX_WAIT_MS = 3000;

/** @typedef {'joining' | 'on-time' | 'approximate'} JoinState */

/**
 * @typedef {object} GateClock what the gate reads of the server clock (client/src/clock.js)
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
  /** Held for the link only, after being on time: the estimate may serve again at once. */
  let kept = false;

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

  function check() {
    if (!waiting) return;
    if (clock.fresh >= JOIN_MIN_SAMPLES && clock.error <= JOIN_ERROR_MS) {
      open('on-time');
    } else if (now() - since >= JOIN_MAX_WAIT_MS && clock.fresh > 0 && Number.isFinite(clock.error)) {
      open('approximate');
    } else if (!clock.bursting && clock.fresh > 0) {
      // The burst is spent and the bound not met: round trips come quickly until the deadline.
      clock.more();
    }
  }

  /** @param {JoinState} how */
  function open(how) {
    waiting = false;
    clearDeadline();
    set(how);
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
      clearDeadline();
      if (kept && clock.error <= JOIN_ERROR_MS) {
        kept = false;
        waiting = false;
        set('on-time');
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
      }, JOIN_MAX_WAIT_MS);
      clock.burst();
    },

    /**
     * Close and wait for rejoin(). `keepClock`: only the link was lost, the page kept running (its
     * tab visible), so an estimate that was on time may serve again when the link is back; without
     * it (tab hidden, perhaps frozen or asleep) the estimate is measured afresh first.
     * @param {{ keepClock?: boolean }} [o]
     */
    hold({ keepClock = false } = {}) {
      kept = keepClock && (state === 'on-time' || kept);
      waiting = false;
      clearDeadline();
      set('joining');
    },

    stop() {
      waiting = false;
      clearDeadline();
      unsubscribe();
    },
  };
}

/** @typedef {ReturnType<typeof createJoinGate>} JoinGate */

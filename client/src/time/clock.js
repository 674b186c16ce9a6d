// The page's estimate of the server's clock (doc/protocol.md, "Clock sync"): round trips taken in
// a quick burst when the page starts or its link comes back, then one every few seconds, fed to
// core/clock-sync.js (the intersection of the round trips, carried forward at the measured drift
// rate). How a round trip is made (WebSocket ping or GET /api/time) is the caller's: `probe`
// answers one sample or null.

import { createClockSync } from '../../../core/clock-sync.js';

/** Round trips in a burst, and the gap between them. */
export const BURST = 6;
export const BURST_GAP_MS = 120;
/** Between bursts: one round trip every this many ms keeps the estimate fresh. */
export const PROBE_EVERY_MS = 4000;
/**
 * On a jittery link (the last 8 round trips' median more than JITTERY_MS above their quickest),
 * one every PROBE_JITTERY_MS instead. The estimate is as good as the quickest way out and the
 * quickest way back among the last minute's round trips (core/clock-sync.js), and four times the
 * round trips make those quicker: on busy WiFi (10-60 ms each way, each drawn on its own) the
 * offset's error p99 over a page's first minutes falls from 6.4-6.9 ms to 2.8 in simulation
 * (test/client/time/clock.test.js; bench/RESULTS.md, helper h34w). About 110 bytes a second more
 * per page (a ping of about 60 bytes, a pong of about 92), only while its link is jittery.
 */
export const PROBE_JITTERY_MS = 1000;
export const JITTERY_MS = 4;

/**
 * @typedef {object} ClockDriverOptions
 * @property {() => Promise<import('../../../core/clock-sync.js').SyncSample | null>} probe one round trip
 * @property {() => number} now          the page's monotonic clock (performance.now)
 * @property {{ setTimeout: (fn: () => void, ms: number) => any, clearTimeout: (h: any) => void }} timers
 * @property {() => number} [wall]       the page's wall clock (performance.timeOrigin + now), for a
 *   first guess before any round trip has come back
 */

/**
 * A round trip over HTTP (GET /api/time), for pages that have no ping on their own stream.
 * @param {(url: string, init?: RequestInit) => Promise<Response>} fetch
 * @param {() => number} now  the page's monotonic clock, as given to createServerClock
 * @returns {ClockDriverOptions['probe']}
 */
export function httpTimeProbe(fetch, now) {
  return async () => {
    const t0 = now();
    const res = await fetch('/api/time', { cache: 'no-store' });
    // The answer is a few bytes: it has arrived with its headers. Reading it may wait on the page.
    const t1 = now();
    const body = res.ok ? await res.json() : null;
    return typeof body?.t === 'number' && Number.isFinite(body.t) ? { t0, t: body.t, t1 } : null;
  };
}

/**
 * @param {ClockDriverOptions} options
 */
export function createServerClock({ probe, now, timers, wall = () => Date.now() }) {
  const sync = createClockSync();
  /** @type {any} */
  let timer = null;
  let left = 0;
  let running = false;
  /**
   * Round trips out, by the burst they were begun in. One of an earlier burst (a ping lost with the
   * link, waiting out its timeout) does not hold up the burst asked for when the link came back:
   * it did, and the whole burst passed with no round trip (6 steps in 720 ms, the lost ping's
   * timeout 2 s), so a page back from a roam stayed joining until the next round trip, 4 s later
   * (venue lab, infra/lab/roam.js).
   * @type {Map<number, number>}
   */
  const out = new Map();
  /** Round trips that came back since the last burst began (and since the window last restarted). */
  let fresh = 0;
  let resets = sync.resets;
  /** Bumped by burst(): a round trip begun before it is not fresh. */
  let generation = 0;
  /** @type {Set<() => void>} */
  const listeners = new Set();
  /** Offset guessed from a message's `t` before the first round trip: latency ignored. */
  let guess = 0;
  let guessed = false;

  async function step() {
    timer = null;
    if (!running) return;
    left = Math.max(0, left - 1);
    const gen = generation;
    if (!out.has(gen)) {
      out.set(gen, 1);
      try {
        const sample = await probe();
        if (sample && sync.add(sample)) {
          // A restarted window (a roam) keeps only the samples after it.
          if (sync.resets !== resets) {
            resets = sync.resets;
            fresh = 1;
          } else if (gen === generation) fresh += 1;
          for (const fn of listeners) fn();
        }
      } catch {
        // A failed round trip is no sample; the next one will do.
      } finally {
        out.delete(gen);
      }
    }
    // A burst() while this round trip was out has armed its own timer: one chain of steps only.
    if (!running || timer !== null) return;
    timer = timers.setTimeout(
      step,
      left > 0 ? BURST_GAP_MS : sync.jitter > JITTERY_MS ? PROBE_JITTERY_MS : PROBE_EVERY_MS,
    );
  }

  return {
    /** Begin with a burst. */
    start() {
      if (running) return;
      running = true;
      left = BURST;
      step();
    },
    stop() {
      running = false;
      if (timer !== null) timers.clearTimeout(timer);
      timer = null;
    },
    /** A burst now, e.g. when the link comes back (perhaps through another access point). */
    burst() {
      fresh = 0;
      generation += 1;
      this.more();
    },
    /** Another burst, keeping the round trips counted since the last burst() (a join still waiting). */
    more() {
      if (!running) return;
      left = BURST;
      if (timer !== null) timers.clearTimeout(timer);
      step();
    },
    /** Whether a burst is under way. */
    get bursting() {
      return running && left > 0;
    },
    /**
     * Call `fn` after each round trip that came back.
     * @param {() => void} fn
     * @returns {() => void} unsubscribe
     */
    onSample(fn) {
      listeners.add(fn);
      return () => {
        listeners.delete(fn);
      };
    },
    /**
     * Until a round trip is back, guess from a server message's `t` (an upper bound on the
     * offset: it ignores the message's latency).
     * @param {number} serverT
     */
    hint(serverT) {
      if (guessed || !Number.isFinite(serverT)) return;
      guessed = true;
      guess = serverT - now();
    },
    /** server time = page time + offset (ms) */
    get offset() {
      return sync.estimate(now())?.offset ?? (guessed ? guess : wall() - now());
    },
    /**
     * The true offset is within ± this (ms): half the best round trip, widened by the drift
     * possible since it was taken. Infinity before a sample.
     */
    get error() {
      return sync.estimate(now())?.error ?? Infinity;
    },
    get samples() {
      return sync.estimate()?.samples ?? 0;
    },
    /** Measured drift: server time gains this much per ms of page time (0 until measured). */
    get rate() {
      return sync.estimate()?.rate ?? 0;
    },
    /** Round trips back since the last burst() (or start()): what a join gate waits for. */
    get fresh() {
      return fresh;
    },
    /** Server time now. */
    serverNow() {
      return now() + this.offset;
    },
    /**
     * The page time (same clock as `now`) at which the server's clock reads `serverT`.
     * @param {number} serverT
     */
    toLocal(serverT) {
      return serverT - this.offset;
    },
  };
}

/** @typedef {ReturnType<typeof createServerClock>} ServerClock */

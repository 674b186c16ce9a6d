// The page's time: the monotonic and wall clocks and the timers every part of the page is given
// (the browser's, or a test's hand-turned ones), and the probe that measures the server's clock:
// WebSocket ping/pong when that is the link, GET /api/time otherwise.

import { httpTimeProbe } from '../time/clock.js';

/**
 * @typedef {object} PageClock
 * @property {() => number} now   monotonic milliseconds (performance.now())
 * @property {() => number} wall  the page's wall clock: on the server's machine (browser tests),
 *   the server's clock itself
 * @property {(fn: () => void, ms: number) => any} setTimeout
 * @property {(handle: any) => void} clearTimeout
 * @property {typeof setInterval} setInterval
 * @property {typeof clearInterval} clearInterval
 * @property {(fn: (t: number) => void) => unknown} requestFrame  the next animation frame
 */

/**
 * The browser's clock and timers, bound to `window`.
 * @param {Window & typeof globalThis} window
 * @returns {PageClock}
 */
export function browserClock(window) {
  const perf = window.performance;
  return {
    now: () => perf.now(),
    wall: () => perf.timeOrigin + perf.now(),
    // Wrapped: called as methods of another object, the window's timers throw "Illegal invocation".
    setTimeout: (fn, ms) => window.setTimeout(fn, ms),
    clearTimeout: (h) => window.clearTimeout(h),
    setInterval: /** @type {typeof setInterval} */ (
      /** @type {unknown} */ ((/** @type {() => void} */ fn, /** @type {number} */ ms) => window.setInterval(fn, ms))
    ),
    clearInterval: /** @type {typeof clearInterval} */ ((h) => window.clearInterval(h)),
    requestFrame: (fn) => window.requestAnimationFrame(fn),
  };
}

/** How long a ping waits for its pong (ms). */
const PONG_WAIT_MS = 2000;

/**
 * @param {object} o
 * @param {import('../live/connection.js').Connection} o.connection
 * @param {(url: string, init?: RequestInit) => Promise<Response>} o.fetch
 * @param {PageClock} o.clock
 * @param {(ms: number) => void} [o.onRoundTrip]  each measured round trip (ms), for the roster
 * @returns {() => Promise<import('../../../core/clock-sync.js').SyncSample | null>}
 */
export function createClockProbe({ connection, fetch, clock, onRoundTrip }) {
  const { now } = clock;
  let pingId = 0;
  /** @type {Map<number, (pong: any) => void>} */
  const waiting = new Map();
  /**
   * The last pong's proof token, echoed once in the next ping: it tells the server this page
   * reads what it is sent, so the server need not ping it for that (doc/protocol.md, "Heartbeats
   * and dead links").
   * @type {number | null}
   */
  let proof = null;
  connection.on('pong', (pong) => {
    const { id, proof: token } = /** @type {any} */ (pong);
    if (Number.isSafeInteger(token)) proof = token;
    waiting.get(id)?.(pong);
    waiting.delete(id);
  });
  const timeOverHttp = httpTimeProbe((url, init) => fetch(url, init), now);
  /** @param {import('../../../core/clock-sync.js').SyncSample | null} sample */
  const measured = (sample) => {
    if (sample) onRoundTrip?.(sample.t1 - sample.t0);
    return sample;
  };
  return async function probe() {
    if (connection.transport === 'ws' && connection.linkState === 'live') {
      const id = ++pingId;
      const t0 = now();
      const pong = new Promise((resolve) => {
        waiting.set(id, resolve);
        clock.setTimeout(() => {
          waiting.delete(id);
          resolve(null);
        }, PONG_WAIT_MS);
      });
      const echo = proof;
      proof = null;
      if (connection.send(echo === null ? { type: 'ping', id, t0 } : { type: 'ping', id, t0, proof: echo })) {
        const answer = /** @type {any} */ (await pong);
        return measured(answer && typeof answer.t === 'number' ? { t0, t: answer.t, t1: now() } : null);
      }
      waiting.delete(id);
    }
    return measured(await timeOverHttp());
  };
}

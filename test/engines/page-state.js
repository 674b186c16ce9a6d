// What an engine test reads from the audience page (window.scorecast, client/src/page/main.js),
// and how on time its beats were: shared by the cells on loopback and at the venue address
// (engines.test.js).

import { quantile } from '../../core/stats.js';

/** @typedef {import('./engine.js').EnginePage} EnginePage */

/**
 * How late (negative: early) the beats after the join are shown against their server time, in
 * ms. Measured in 19 runs of WebKit and 20 of Firefox (32 to 48 beats each) on this 2-core machine
 * while other suites loaded it (load average 11 to 26): the median -4.3 to +1.3 ms; |p95| 8.4 to
 * 70.1 ms in WebKit (20 ms met in 14 of 19), 2.4 to 32.7 ms in Firefox (17 of 20); the worst beat
 * 268 ms (a stalled frame). In ~40 runs a WebKit p95 reached 191.8 ms once, during a stall of the
 * whole machine. 20 ms at p95 does not hold on a loaded machine: the median catches a page late
 * by design (a frame behind: +17 ms), the p95 a clock or scheduler gone wrong (a page on arrival
 * time instead of server time is late by the link's delay on every beat), the worst a beat left
 * for seconds.
 */
export const ON_TIME_MEDIAN_MS = 5;
export const ON_TIME_P95_MS = 250;
export const ON_TIME_MAX_MS = 1000;
/** Polls give up after this: every wait below is bounded. */
export const POLL = { timeout: 10_000, interval: 100 };

export const sleep = (/** @type {number} */ ms) => new Promise((r) => setTimeout(r, ms));

/**
 * What the page holds (window.scorecast, client/src/page/main.js).
 * @param {EnginePage} page
 * @returns {Promise<{ epoch: string, seq: number, link: string, join: string, now: number,
 *   shown: Array<{ beat: number | null, at: number, due: number | null }>,
 *   events: Array<{ epoch: string, seq: number, type: string }>, audioState: string | null,
 *   audio: Array<{ url: string, serverT: number, when: number }> }>}
 */
export const held = (page) =>
  page.evaluate(() => {
    const s = /** @type {any} */ (window).scorecast;
    return {
      epoch: s.epoch,
      seq: s.seq,
      link: s.linkState,
      join: s.join,
      // The page's wall clock, the one `shown[].at` is on.
      now: performance.timeOrigin + performance.now(),
      shown: s.shown,
      events: s.events,
      audioState: s.sound.state,
      audio: s.audio,
    };
  });

/**
 * How late each beat reached by playing on since `from` (page wall clock) was shown, in ms: on
 * one machine the page's wall clock is the server's, so `at - due` is the truth, whatever the page
 * estimated. Not the first beat after a load, a seek or a rejoin, shown at once however long ago
 * it began (as the page's own display-lag report counts, client/src/page/main.js).
 * @param {Awaited<ReturnType<typeof held>>} h
 * @param {number} from
 */
export const lateness = (h, from) =>
  h.shown.flatMap((s, i) =>
    s.at >= from && s.due !== null && i > 0 && s.beat !== null && s.beat === (h.shown[i - 1].beat ?? -2) + 1
      ? [s.at - s.due]
      : [],
  );

/**
 * @param {EnginePage} page
 * @param {string} css
 */
export const exists = (page, css) => page.evaluate((sel) => document.querySelector(sel) !== null, css);

/**
 * How the page keeps the screen on (client/src/page/awake.js).
 * @param {EnginePage} page
 * @returns {Promise<{ method: 'wake-lock' | 'video' | 'none', held: boolean }>}
 */
export const awake = (page) => page.evaluate(() => /** @type {any} */ (window).scorecast.awake);

/**
 * The beats the page shows over the next `ms` of play: how late each was against its server
 * time, and the median, |p95| and worst of that (ms).
 * @param {EnginePage} page
 * @param {number} ms
 */
export async function beatsOver(page, ms) {
  const from = (await held(page)).now;
  await sleep(ms);
  const late = lateness(await held(page), from);
  return {
    late,
    median: quantile(late, 0.5),
    p95: quantile(late.map(Math.abs), 0.95),
    worst: Math.max(...late.map(Math.abs)),
  };
}

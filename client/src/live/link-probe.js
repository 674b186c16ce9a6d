// Asks, while an open link is silent, whether the network is back, so a phone that changes
// access point reconnects within a fraction of a second of the new one carrying packets.
//
// Measured in the venue lab (infra/lab/roam.js, silent nftables drops of 2-8 s): the old socket
// only resumes when the server's TCP retransmission timer fires (backed off to seconds), and a
// reconnection attempted during the cut loses its SYN and waits for TCP's SYN retransmission.
// Fresh WebSocket attempts do not help in Chromium: it lets one WebSocket per host be connecting
// at a time and delays new ones by up to 5 s once attempts that never opened outnumber those that
// did (its per-page WebSocket throttle), so attempts made every 250 ms during a cut left pages
// without a link for good. So the probe asks over plain HTTP (`/api/time`), and the first answer
// says the network is back: the connection then reconnects at once, its epoch:seq resume losing
// and repeating nothing.
//
// What an HTTP probe can get on the wire is set by the browser, not by how often it is called.
// Chromium's net log and the SYNs on the radio in the lab (2026-11-24) showed two queues:
// - The HTTP cache: a request for /api/time waits for the cache entry of an earlier request for
//   the same URL still under way (the entry's lock), and so never reaches the network.
// - The connection pool: at most 6 connections or connection attempts per pool group (scheme,
//   host, port, and whether credentials are sent), and an aborted request leaves its connection
//   attempt running for a later request to take over. A probe aborted and replaced every ~150 ms
//   used up the page's idle keep-alive connections (a request sent on one is lost, and aborting it
//   closes that connection), then opened 6 attempts and none after: later probes stalled on the
//   group's limit and were answered by one of those 6 once its SYN retransmission (1, 2, 3, 4,
//   then 6 and 10 s after it began on Linux 6.18; 1, 3, 7 s on older kernels) crossed the returned
//   link, up to 2 s after the return of an 8 s cut. Firefox and Safari also keep 6 per host.
//
// So every probe skips the HTTP cache (`cache: 'no-store'`), and the probe asks in two rounds of
// PROBE_ROUND_REQUESTS requests, each aborted and replaced after ~PROBE_EVERY_MS (so that each
// idle connection carries one fresh request, and the group's 6 attempts begin a fraction of a
// second apart, their retransmissions at every phase of the period), the round's last request
// kept waiting for any of them. The rounds go to two pool groups: the first without credentials
// (`credentials: 'omit'`; /api/time reads no cookie), where no page load left idle connections,
// the second PROBE_SECOND_ROUND_MS later with the page's credentials. Browsers pool requests
// without credentials apart from those with (Chromium's privacy mode, Firefox's anonymous
// connections), so the second round opens fresh attempts when the first round's have backed off,
// instead of queueing behind them; a browser that pools both together only loses that freshness.
// A phone makes 2 * PROBE_ROUND_REQUESTS requests in the first ~5 s of a silence and none after
// (but one every PROBE_RETRY_MS while a waiting request fails at once, as with no network at all),
// where it made one every ~150 ms for up to PROBE_FOR_MS (200) before.

import { HEARTBEAT_MS } from '../../../core/constants.js';

/**
 * Silence on a live link after which probing starts (ms): one heartbeat period and a margin for
 * a late heartbeat on a busy radio.
 */
export const PROBE_AFTER_MS = HEARTBEAT_MS + 500;

/**
 * While a performance plays, every beat is a message, so a link silent for a beat's length and
 * this margin (ms) is silent for a reason: probing starts then if that is sooner than
 * PROBE_AFTER_MS (1.25 s at 80 bpm). Measured in the venue lab: a 2 s cut was often over before
 * probing began, and the page waited for the server's TCP retransmission (0.5-1.3 s after the
 * link's return) instead of reconnecting within the next probe's round trip.
 */
export const PROBE_BEAT_MARGIN_MS = 500;

/**
 * Requests per round: enough to use up a pool group's 6 idle connections and then open its 6
 * connection attempts.
 */
export const PROBE_ROUND_REQUESTS = 12;

/** Mean time between two requests of a round (ms); each waits uniformly 0.5-1.5 times this. */
export const PROBE_EVERY_MS = 150;

/**
 * When the second round (with credentials) starts, after the first (ms): by then the first round's
 * attempts retransmit their SYNs 3 s and more apart (1, 3, 7 s backoff), or soon will (1 s linear,
 * then 2 s and 4 s), and the second round's requests and retransmissions fill those gaps through
 * an 8 s silence.
 */
export const PROBE_SECOND_ROUND_MS = 3000;

/** The last request of a round that fails at once (no network at all) is made again after about this long (ms). */
export const PROBE_RETRY_MS = 2000;

/** Probing gives up after this long (ms), and the connection's own reconnects go on. */
export const PROBE_FOR_MS = 30_000;

/**
 * @typedef {object} LinkProbeOptions
 * @property {import('./transports/index.js').FetchFn} fetch
 * @property {string} url a cheap, uncached URL of the server (`/api/time`)
 * @property {import('./transports/index.js').Timers} timers
 * @property {() => number} now
 * @property {() => number} random uniform in [0, 1): spreads the probes of phones that lost the
 *   same access point at the same moment
 * @property {() => void} onBack an answer came: the network reaches the server again
 * @property {() => void} onGiveUp PROBE_FOR_MS passed with no answer
 */

/** @typedef {'same-origin' | 'omit'} ProbeCredentials */

export class LinkProbe {
  #o;
  /** @type {Set<AbortController>} requests waiting for an answer */
  #pending = new Set();
  /** @type {Set<any>} timers of the rounds' next requests, and the give-up timer */
  #timers = new Set();
  #active = false;

  /** @param {LinkProbeOptions} options */
  constructor(options) {
    this.#o = options;
  }

  /** Whether probes are being sent. */
  get active() {
    return this.#active;
  }

  /** Start probing (no-op while already probing). */
  start() {
    if (this.#active) return;
    this.#active = true;
    this.#round('omit', PROBE_ROUND_REQUESTS);
    this.#after(PROBE_SECOND_ROUND_MS, () => this.#round('same-origin', PROBE_ROUND_REQUESTS));
    this.#after(PROBE_FOR_MS, () => {
      this.stop();
      this.#o.onGiveUp();
    });
  }

  /** Stop probing and abort the requests under way. */
  stop() {
    this.#active = false;
    for (const t of this.#timers) this.#o.timers.clearTimeout(t);
    this.#timers.clear();
    const pending = [...this.#pending];
    this.#pending.clear();
    for (const a of pending) a.abort();
  }

  /** @param {number} ms @param {() => void} fn */
  #after(ms, fn) {
    const t = this.#o.timers.setTimeout(() => {
      this.#timers.delete(t);
      fn();
    }, ms);
    this.#timers.add(t);
  }

  /**
   * One request of a round, then `left - 1` more: each replaces the one before (aborted), and the
   * last one waits for an answer.
   * @param {ProbeCredentials} credentials @param {number} left
   * @param {AbortController | null} [before]
   */
  #round(credentials, left, before = null) {
    if (before && this.#pending.delete(before)) before.abort();
    const abort = new AbortController();
    this.#pending.add(abort);
    const last = left <= 1;
    this.#o.fetch(this.#o.url, { signal: abort.signal, headers: {}, credentials, cache: 'no-store' }).then(
      () => {
        if (!this.#pending.delete(abort)) return;
        this.stop();
        this.#o.onBack();
      },
      () => {
        if (!this.#pending.delete(abort) || !last) return;
        // The waiting request failed at once (no network at all): asked again later, not in a loop.
        this.#after(PROBE_RETRY_MS * (0.5 + this.#o.random()), () => this.#round(credentials, 1));
      },
    );
    if (!last) this.#after(PROBE_EVERY_MS * (0.5 + this.#o.random()), () => this.#round(credentials, left - 1, abort));
  }
}

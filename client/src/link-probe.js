// Asks, while an open link is silent, whether the network is back, so a phone that changes
// access point reconnects within a fraction of a second of the new one carrying packets.
//
// Measured in the venue lab (infra/lab/roam.mjs, silent nftables drops of 2-8 s): the old socket
// only resumes when the server's TCP retransmission timer fires (backed off to seconds), and a
// reconnection attempted during the cut loses its SYN and waits for TCP's SYN retransmission (1 s,
// then 3 s). Fresh WebSocket attempts do not help in Chromium: it lets one WebSocket per host be
// connecting at a time (RFC 6455 4.1) and delays new ones after attempts that failed, so attempts
// made every 250 ms during a cut left pages without a link for good (lab, `roam.mjs --console`).
// A small HTTP request every PROBE_EVERY_MS, each aborting the one before, sends a fresh SYN that
// often instead: the first answer after the link's return says the network is back, and the
// connection then reconnects at once, its epoch:seq resume losing and repeating nothing.

import { HEARTBEAT_MS } from '../../core/constants.js';

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

/** Mean time between two probes (ms); each waits uniformly 0.5-1.5 times this. */
export const PROBE_EVERY_MS = 150;

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

export class LinkProbe {
  #o;
  /** @type {AbortController | null} */
  #pending = null;
  /** @type {any} */
  #timer = null;
  #until = 0;

  /** @param {LinkProbeOptions} options */
  constructor(options) {
    this.#o = options;
  }

  /** Whether probes are being sent. */
  get active() {
    return this.#timer !== null || this.#pending !== null;
  }

  /** Start probing (no-op while already probing). */
  start() {
    if (this.active) return;
    this.#until = this.#o.now() + PROBE_FOR_MS;
    this.#next();
  }

  /** Stop probing and abort the probe under way. */
  stop() {
    if (this.#timer !== null) this.#o.timers.clearTimeout(this.#timer);
    this.#timer = null;
    this.#abort();
  }

  #next() {
    this.#timer = null;
    // The unanswered probe is aborted, so that the browser gives up its connection attempt and
    // the next probe sends a fresh SYN instead of queueing behind it.
    this.#abort();
    if (this.#o.now() >= this.#until) {
      this.#o.onGiveUp();
      return;
    }
    const abort = new AbortController();
    this.#pending = abort;
    this.#o.fetch(this.#o.url, { signal: abort.signal, headers: {} }).then(
      () => {
        if (this.#pending !== abort) return;
        this.#pending = null;
        this.stop();
        this.#o.onBack();
      },
      () => {
        if (this.#pending === abort) this.#pending = null;
      },
    );
    this.#timer = this.#o.timers.setTimeout(() => this.#next(), PROBE_EVERY_MS * (0.5 + this.#o.random()));
  }

  #abort() {
    const a = this.#pending;
    this.#pending = null;
    a?.abort();
  }
}

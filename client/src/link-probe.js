// Fresh connection attempts while an open link is silent, so a phone that changes access point
// is back within a fraction of a second of the new one carrying packets.
//
// Measured in the venue lab (infra/lab/roam.mjs, silent nftables drops of 2-8 s): the old
// socket only resumes when the server's TCP retransmission timer fires (backed off to seconds),
// and a reconnection attempted during the cut loses its SYN and waits for TCP's SYN
// retransmission (1 s, then 3 s). A new attempt every PROBE_EVERY_MS, each abandoning the one
// before, sends a fresh SYN that often: the first after the link's return gets through at once.
// The old link is kept meanwhile: whichever delivers first wins, and the stream's epoch:seq
// resume (doc/protocol.md) makes the switch lose and repeat nothing.

import { HEARTBEAT_MS } from '../../core/constants.js';

/**
 * Silence on a live link after which probing starts (ms): one heartbeat period and a margin for
 * a late heartbeat on a busy radio.
 */
export const PROBE_AFTER_MS = HEARTBEAT_MS + 500;

/** Mean time between two attempts (ms); each waits uniformly 0.5-1.5 times this. */
export const PROBE_EVERY_MS = 250;

/** Probing gives up after this long (ms); the connection's own dead-link and backoff go on. */
export const PROBE_FOR_MS = 30_000;

/**
 * @typedef {object} LinkProbeOptions
 * @property {import('./transports/index.js').Timers} timers
 * @property {() => number} now
 * @property {() => number} random uniform in [0, 1): spreads the attempts of phones that lost
 *   the same access point at the same moment
 * @property {() => import('./transports/index.js').Transport} open a new transport, opened from
 *   the held position, callbacks not yet used by anyone
 * @property {(t: import('./transports/index.js').Transport, first: import('../../core/protocol.js').Envelope) => void} onWin
 *   an attempt delivered its first message: the caller adopts the transport from now on
 * @property {() => void} onGiveUp PROBE_FOR_MS passed with no answer
 */

export class LinkProbe {
  #o;
  /** @type {import('./transports/index.js').Transport | null} */
  #attempt = null;
  /** @type {any} */
  #timer = null;
  #until = 0;

  /** @param {LinkProbeOptions} options */
  constructor(options) {
    this.#o = options;
  }

  /** Whether attempts are being made. */
  get active() { return this.#timer !== null || this.#attempt !== null; }

  /** Start probing (no-op while already probing). */
  start() {
    if (this.active) return;
    this.#until = this.#o.now() + PROBE_FOR_MS;
    this.#next();
  }

  /** Stop probing and close the attempt under way. */
  stop() {
    if (this.#timer !== null) this.#o.timers.clearTimeout(this.#timer);
    this.#timer = null;
    this.#dropAttempt();
  }

  #next() {
    this.#timer = null;
    this.#dropAttempt();
    if (this.#o.now() >= this.#until) { this.#o.onGiveUp(); return; }
    const t = this.#o.open();
    this.#attempt = t;
    t.onmessage = (envelope) => {
      if (this.#attempt !== t) return;
      this.#attempt = null;
      this.stop();
      this.#o.onWin(t, envelope);
    };
    // A refused or failed attempt is simply replaced by the next one on schedule.
    t.onclose = () => { if (this.#attempt === t) this.#attempt = null; };
    this.#timer = this.#o.timers.setTimeout(() => this.#next(), PROBE_EVERY_MS * (0.5 + this.#o.random()));
  }

  #dropAttempt() {
    const t = this.#attempt;
    this.#attempt = null;
    if (t) t.close();
  }
}

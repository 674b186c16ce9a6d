// The state stream as the client holds it: (epoch, seq, state), changed only in order.
// doc/protocol.md, "Resync": a delta applies only when its seq is exactly one more than the held
// seq in the held epoch; anything else is either old news or a sign that something was missed.

import { applyPatch } from '../../../core/merge-patch.js';

/**
 * What receiving one envelope meant:
 * - `applied`: the state changed (a snapshot replaced it or a delta was merged);
 * - `stale`: a duplicate or older change, ignored so that no change is applied twice;
 * - `resync`: something was missed (gap, other epoch, heartbeat ahead): ask the server;
 * - `none`: nothing to do for the state (welcome, heartbeat in step, pong, error).
 * @typedef {'applied' | 'stale' | 'resync' | 'none'} Verdict
 */

/** Holds the newest state the client has, and decides what each envelope does to it. */
export class StreamState {
  /** @type {string | null} */
  #epoch = null;
  #seq = 0;
  /** @type {any} */
  #state = null;

  /** Epoch of the held state; null until the first snapshot. */
  get epoch() {
    return this.#epoch;
  }

  /** Seq of the held state (0 until the first snapshot). */
  get seq() {
    return this.#seq;
  }

  /** The held state (a plain JSON object shared with the caller: do not mutate), or null. */
  get state() {
    return this.#state;
  }

  /** Hold no position (the state is kept until a snapshot replaces it): the next snapshot applies. */
  forget() {
    this.#epoch = null;
    this.#seq = 0;
  }

  /**
   * Take one decoded envelope (checked by core checkEnvelope) into account.
   * @param {import('../../../core/protocol.js').Envelope} message
   * @returns {Verdict}
   */
  receive(message) {
    const epoch = message.epoch ?? null;
    const seq = message.seq ?? 0;
    switch (message.type) {
      case 'snapshot':
        // The protocol says snapshots replace; one that is not newer than what we hold in the
        // same epoch can only be a late copy, and taking it would move the state backwards.
        if (epoch === this.#epoch && seq <= this.#seq) return 'stale';
        this.#epoch = epoch;
        this.#seq = seq;
        this.#state = message.state;
        return 'applied';
      case 'delta':
        if (epoch !== this.#epoch) return 'resync';
        if (seq <= this.#seq) return 'stale';
        if (seq !== this.#seq + 1) return 'resync';
        this.#seq = seq;
        this.#state = applyPatch(this.#state, message.patch);
        return 'applied';
      case 'heartbeat':
        // A heartbeat carries the server's current seq: ahead of ours means a change was lost.
        return epoch !== this.#epoch || seq > this.#seq ? 'resync' : 'none';
      default:
        return 'none';
    }
  }
}

// Polling clients: stateless on the wire, counted in the audience by the id they send, for
// POLLER_TTL_MS after their last poll, in bounded memory whatever the ids sent.

import { addressKey } from '../http/address-key.js';

/** A polling client counts as connected this long after its last poll. */
export const POLLER_TTL_MS = 30_000;
/** Polling clients remembered at most (bounded memory whatever the ids sent). */
const MAX_POLLERS = 100_000;

/**
 * @param {{ now: () => number, perAddress: number }} options  perAddress: ids counted per address
 *   (0: no limit)
 */
export function createPollers({ now, perAddress }) {
  /** Polling clients (stateless on the wire) by their id: view and last poll time. */
  /** @type {Map<string, { view: string, at: number, address: string }>} */
  const pollers = new Map();
  /** Polling client ids per address, for perAddress. */
  /** @type {Map<string, number>} */
  const pollersAt = new Map();
  /** @param {string} id */
  function forgetPoller(id) {
    const p = pollers.get(id);
    if (!p) return;
    pollers.delete(id);
    const n = (pollersAt.get(p.address) ?? 1) - 1;
    if (n > 0) pollersAt.set(p.address, n);
    else pollersAt.delete(p.address);
  }

  /** Forget the ids that have not polled within POLLER_TTL_MS: the map is in order of last poll. */
  function forgetStale() {
    const since = now() - POLLER_TTL_MS;
    for (const [other, p] of pollers) {
      if (p.at >= since) break;
      forgetPoller(other);
    }
  }

  return {
    /** How many polling clients polled within POLLER_TTL_MS (one step per id forgotten). */
    count() {
      forgetStale();
      return pollers.size;
    },

    /**
     * The view of every polling client that polled within POLLER_TTL_MS (forgetting the others).
     * @param {(view: string) => void} add
     */
    each(add) {
      const since = now() - POLLER_TTL_MS;
      for (const [id, p] of pollers) {
        if (p.at < since) forgetPoller(id);
        else add(p.view);
      }
    },

    /**
     * A poll from client `id` showing `view`, from `address` (bounded: the oldest are forgotten
     * first). An address counts at most perAddress ids at once; an id that comes from another
     * address (a phone that roamed) counts there.
     * @param {string} id @param {string} view @param {string} [from]  the peer's address
     * @returns {boolean} false when the id was not counted (the address is over its cap)
     */
    note(id, view, from = '') {
      // A phone's IPv6 privacy addresses are all in its /64: it counts there, and does not move.
      const address = addressKey(from);
      // The map is in order of last poll (a poll moves its id to the end): ids that stopped
      // polling are at the front, and go first, at a cost of one step per id forgotten.
      forgetStale();
      const moved = pollers.get(id)?.address !== address;
      if (moved && perAddress > 0 && (pollersAt.get(address) ?? 0) >= perAddress) return false;
      forgetPoller(id);
      if (pollers.size >= MAX_POLLERS) forgetPoller(/** @type {string} */ (pollers.keys().next().value));
      pollers.set(id, { view, at: now(), address });
      pollersAt.set(address, (pollersAt.get(address) ?? 0) + 1);
      return true;
    },
  };
}

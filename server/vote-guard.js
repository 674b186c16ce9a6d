// What stands between a tap and the ballot (issue 16, finding 3): the tap's device must be a
// credential this server issued (an id cannot be invented), a connection votes at most once per
// window whatever credentials it brings, and an address casts at most `votesPerAddress` votes
// per window (a venue whose phones share one address raises it: doc/security.md). The ballot
// (core/votes.js) then counts one vote per device.

import { errorValue } from '../core/errors.js';

/** Addresses counted per window at most (bounded memory; past it, the first seen are forgotten). */
const MAX_ADDRESSES = 100_000;

/**
 * @typedef {object} TapSource  where a tap came from
 * @property {string} address   the peer's network address
 * @property {object} connection  the connection it came on (a WebSocket session, an HTTP socket)
 */

/**
 * @typedef {{ ok: true, id: string } | { ok: false, error: import('../core/errors.js').ErrorValue }} TapResult
 */

/**
 * @param {{
 *   conductor: Pick<import('./conductor.js').Conductor, 'vote' | 'votes'>,
 *   credentials: import('./device-credential.js').DeviceCredentials,
 *   votesPerAddress: number,
 * }} options  votesPerAddress: 0 for no limit
 */
export function createVoteGuard({ conductor, credentials, votesPerAddress }) {
  /** The window each connection voted in last. */
  /** @type {WeakMap<object, string>} */
  const votedOn = new WeakMap();
  let countedWindow = '';
  /** Votes counted per address in `countedWindow`. */
  /** @type {Map<string, number>} */
  let perAddress = new Map();

  return {
    /**
     * Count a tap as a vote, or say why not.
     * @param {{ tile: string | number, window?: string, device?: string }} tap
     * @param {TapSource} from
     * @returns {TapResult}
     */
    cast(tap, from) {
      const device = credentials.verify(tap.device);
      if (device === null) return { ok: false, error: errorValue('SC_ERR_BAD_DEVICE') };
      // A window the conductor opens again is a new round: its key counts the windows closed before.
      const votes = conductor.votes();
      const open = votes.open ? `${votes.open.id}#${votes.closed.length}` : null;
      if (open !== null) {
        if (open !== countedWindow) { countedWindow = open; perAddress = new Map(); }
        if (votedOn.get(from.connection) === open) {
          return { ok: false, error: errorValue('SC_ERR_ALREADY_VOTED', 'one vote per connection per window') };
        }
        if (votesPerAddress > 0 && (perAddress.get(from.address) ?? 0) >= votesPerAddress) {
          return { ok: false, error: errorValue('SC_ERR_ADDRESS_LIMIT', `${votesPerAddress} votes from this address in this window`) };
        }
      }
      const result = conductor.vote({ tile: tap.tile, ...(tap.window !== undefined ? { window: tap.window } : {}), device });
      if (!result.ok) return result;
      const round = `${result.id}#${votes.closed.length}`;
      votedOn.set(from.connection, round);
      if (round !== countedWindow) { countedWindow = round; perAddress = new Map(); }
      if (perAddress.size >= MAX_ADDRESSES && !perAddress.has(from.address)) {
        perAddress.delete(/** @type {string} */ (perAddress.keys().next().value));
      }
      perAddress.set(from.address, (perAddress.get(from.address) ?? 0) + 1);
      return { ok: true, id: result.id };
    },
  };
}

/** @typedef {ReturnType<typeof createVoteGuard>} VoteGuard */

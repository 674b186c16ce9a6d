// What stands between a tap and the ballot: the tap's device must be a
// credential this server issued (an id cannot be invented), a connection votes at most once per
// window whatever credentials it brings, and an address casts at most `votesPerAddress` votes
// per window (a venue whose phones share one address raises it: doc/security.md). The ballot
// (core/votes.js) then counts one vote per device. A device whose vote this guard passed in the
// window may tap again to change or take back that vote: it is the same vote, so neither its
// connection nor its address counts it again. An HTTP tap through a trusted proxy names its
// connection by its client and device (taps.js): the proxy's pooled socket is no phone's.

import { addressKey } from '../http/address-key.js';
import { errorValue } from '../../core/errors.js';

/** Addresses counted per window at most (bounded memory; past it, the first seen are forgotten). */
const MAX_ADDRESSES = 100_000;
/** Devices remembered per window, to tell a changed vote from a new one (bounded likewise). */
const MAX_DEVICES = 200_000;

/** @typedef {import('../live/hub.js').TapSource} TapSource */

/**
 * @typedef {{ ok: true, id: string, tile?: string | null } | { ok: false, error: import('../../core/errors.js').ErrorValue }} TapResult
 *   tile: the device's vote after the tap (null: taken back), when the ballot says
 */

/**
 * The round a single process's conductor has open: a window the conductor opens again is a new
 * round, so its key counts the windows closed before.
 * @param {Pick<import('./conductor.js').Conductor, 'votes'>} conductor
 * @returns {() => string | null}
 */
export const conductorRound = (conductor) => () => {
  const votes = conductor.votes();
  return votes.open ? `${votes.open.id}#${votes.closed.length}` : null;
};

/**
 * @param {{
 *   vote: (tap: { tile: string | number, window?: string, device: string, credential: string }) => TapResult | Promise<TapResult>,
 *   round: () => string | null,
 *   credentials: import('./device-credential.js').DeviceCredentials,
 *   votesPerAddress: number,
 * }} options  vote: the conductor's, or a cluster node's (which asks the active conductor, and
 *   sends the credential along for it to check again);
 *   round: the open window's round as this node knows it (null: none); votesPerAddress: 0 for no
 *   limit
 */
export function createVoteGuard({ vote, round, credentials, votesPerAddress }) {
  /** The window each connection voted in last. */
  /** @type {WeakMap<object, string>} */
  const votedOnSocket = new WeakMap();
  /** The same for connections named by a string (HTTP taps through a proxy; bounded likewise). */
  /** @type {Map<string, string>} */
  const votedOnKey = new Map();
  const votedOn = {
    /** @param {object | string} c */
    get: (c) => (typeof c === 'string' ? votedOnKey.get(c) : votedOnSocket.get(c)),
    /** @param {object | string} c @param {string} round */
    set(c, round) {
      if (typeof c !== 'string') return void votedOnSocket.set(c, round);
      votedOnKey.delete(c);
      votedOnKey.set(c, round);
      if (votedOnKey.size > MAX_DEVICES) votedOnKey.delete(/** @type {string} */ (votedOnKey.keys().next().value));
    },
    /** @param {object | string} c */
    delete: (c) => (typeof c === 'string' ? votedOnKey.delete(c) : votedOnSocket.delete(c)),
  };
  let countedWindow = '';
  /** Votes counted per address in `countedWindow`. */
  /** @type {Map<string, number>} */
  let perAddress = new Map();
  /** Devices whose vote was counted in `countedWindow`. */
  /** @type {Set<string>} */
  let devices = new Set();

  return {
    /**
     * Count a tap as a vote, or say why not.
     * @param {{ tile: string | number, window?: string, device?: string }} tap
     * @param {TapSource} from
     * @returns {TapResult | Promise<TapResult>} at once from a single process's conductor; later
     *   from a cluster's
     */
    cast(tap, from) {
      // One phone's IPv6 privacy addresses are all in its /64: the address limit counts that.
      const address = addressKey(from.address);
      const device = credentials.verify(tap.device);
      if (device === null) return { ok: false, error: errorValue('SC_ERR_BAD_DEVICE') };
      const open = round();
      if (open !== null && open !== countedWindow) {
        countedWindow = open;
        perAddress = new Map();
        devices = new Set();
      }
      // A change of this device's vote: already counted against its connection and address.
      if (open !== null && devices.has(device)) {
        const change = vote({
          tile: tap.tile,
          ...(tap.window !== undefined ? { window: tap.window } : {}),
          device,
          credential: /** @type {string} */ (tap.device),
        });
        /** @param {TapResult} r @returns {TapResult} */
        const pass = (r) => (r.ok ? { ok: true, id: r.id, ...(r.tile !== undefined ? { tile: r.tile } : {}) } : r);
        return change instanceof Promise ? change.then(pass) : pass(change);
      }
      if (open !== null) {
        if (votedOn.get(from.connection) === open) {
          return { ok: false, error: errorValue('SC_ERR_ALREADY_VOTED', 'one vote per connection per window') };
        }
        if (votesPerAddress > 0 && (perAddress.get(address) ?? 0) >= votesPerAddress) {
          return {
            ok: false,
            error: errorValue('SC_ERR_ADDRESS_LIMIT', `${votesPerAddress} votes from this address in this window`),
          };
        }
      }
      // Counted before the answer (a cluster's conductor answers later): taps in flight from one
      // connection or address cannot pass the checks together. Given back if not counted.
      const key = open ?? '';
      votedOn.set(from.connection, key);
      perAddress.set(address, (perAddress.get(address) ?? 0) + 1);
      const giveBack = () => {
        if (countedWindow === key) perAddress.set(address, Math.max(0, (perAddress.get(address) ?? 1) - 1));
      };
      /** @param {TapResult} result @returns {TapResult} */
      const settle = (result) => {
        if (!result.ok) {
          if (votedOn.get(from.connection) === key) votedOn.delete(from.connection);
          giveBack();
          return result;
        }
        const now = round() ?? `${result.id}#`;
        if (now !== key) {
          // The window was not known here before the vote (or changed meanwhile): count it in
          // the round the conductor took it in.
          giveBack();
          if (now !== countedWindow) {
            countedWindow = now;
            perAddress = new Map();
            devices = new Set();
          }
          votedOn.set(from.connection, now);
          perAddress.set(address, (perAddress.get(address) ?? 0) + 1);
        }
        if (perAddress.size > MAX_ADDRESSES) perAddress.delete(/** @type {string} */ (perAddress.keys().next().value));
        devices.add(device);
        if (devices.size > MAX_DEVICES) devices.delete(/** @type {string} */ (devices.values().next().value));
        return { ok: true, id: result.id, ...(result.tile !== undefined ? { tile: result.tile } : {}) };
      };
      const result = vote({
        tile: tap.tile,
        ...(tap.window !== undefined ? { window: tap.window } : {}),
        device,
        credential: /** @type {string} */ (tap.device),
      });
      return result instanceof Promise ? result.then(settle) : settle(result);
    },
  };
}

/** @typedef {ReturnType<typeof createVoteGuard>} VoteGuard */

// What stands between a thumb and the audience meter, as vote-guard.js does for votes: the
// thumb's device must be a credential this server issued (a phone cannot invent voices), and an
// address sends at most `phonesPerAddress` phones' worth of thumbs (2 a second each, 4 at once:
// the budget of one device, which the meter keeps too). One device, one voice is the meter's
// (core/audience-meter.js): a device's latest thumb replaces its last. Every refusal is a value,
// made once where it can be: thousands of thumbs may come a second.

import { errorValue } from '../../core/errors.js';
import { METER_DEFAULTS } from '../../core/audience-meter.js';
import { createAddressLimiter } from '../http/address-limit.js';

const BAD_DEVICE = Object.freeze(errorValue('SC_ERR_BAD_DEVICE'));
/** Credentials remembered as verified (a phone thumbs twice a second: one HMAC for all of them). */
const MAX_VERIFIED = 20_000;

/**
 * @param {{
 *   thumb: (device: string, value: unknown, credential: string) => import('../../core/errors.js').ErrorValue | null,
 *   credentials: import('./device-credential.js').DeviceCredentials,
 *   phonesPerAddress: number,
 *   now: () => number,
 * }} options  thumb: the conductor's (or, on a cluster's node, the way to the active one: it
 *   checks the credential again); phonesPerAddress: 0 for no limit per address
 */
export function createThumbGuard({ thumb, credentials, phonesPerAddress, now }) {
  const { perSecond, burst } = METER_DEFAULTS.perDevice;
  const limiter =
    phonesPerAddress > 0
      ? createAddressLimiter({ perSecond: perSecond * phonesPerAddress, burst: burst * phonesPerAddress }, now)
      : null;
  const overAddress = Object.freeze(
    errorValue('SC_ERR_RATE_LIMITED', `thumbs from this address: ${phonesPerAddress} phones' worth at most`),
  );
  /** credential -> device id, in the order first verified (bounded: the oldest are forgotten). */
  /** @type {Map<string, string>} */
  const verified = new Map();
  /** @param {unknown} credential */
  const deviceOf = (credential) => {
    const known = typeof credential === 'string' ? verified.get(credential) : undefined;
    if (known !== undefined) return known;
    const id = credentials.verify(credential);
    if (id === null) return null;
    if (verified.size >= MAX_VERIFIED) verified.delete(/** @type {string} */ (verified.keys().next().value));
    verified.set(/** @type {string} */ (credential), id);
    return id;
  };
  return {
    /**
     * A thumb, counted or refused.
     * @param {{ value: unknown, device: unknown }} msg
     * @param {{ address: string }} from
     * @returns {import('../../core/errors.js').ErrorValue | null}  null: counted
     */
    cast(msg, from) {
      const device = deviceOf(msg.device);
      if (device === null) return BAD_DEVICE;
      if (limiter && !limiter.take(from.address)) return overAddress;
      return thumb(device, msg.value, /** @type {string} */ (msg.device));
    },
  };
}

/** @typedef {ReturnType<typeof createThumbGuard>} ThumbGuard */

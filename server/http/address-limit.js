// A token bucket per client address, for HTTP routes any page may call (taps, reports). The
// addresses are bounded: past MAX_ADDRESSES the one seen first is forgotten, so a flood from many
// addresses costs memory up to the bound and no more (a forgotten address starts a full bucket).

import { createTokenBucket } from '../../core/token-bucket.js';
import { CLIENT_RATE } from '../../core/constants.js';
import { addressKey } from './address-key.js';
import { ERRORS, errorValue } from '../../core/errors.js';

/**
 * Phones one address may stand for, by default: device credentials issued to it an hour, votes
 * it casts per window, polling ids and reporting clients it has counted at once. Phones on the
 * venue WiFi have an address each; a few share one behind a phone's hotspot or a small router.
 * A venue whose phones all share one address (a NAT, a reverse proxy) raises it to its audience
 * size with `--phones-per-address` (doc/security.md); 0 is no limit.
 */
export const PHONES_PER_ADDRESS = 32;

/**
 * The request rate one address may send to the audience's HTTP routes (device, tap, report):
 * one connection's rate (CLIENT_RATE) for up to 40 phones, then half a request a second and a
 * burst of one per phone (a NAT's audience all voting as a window opens). Null: no limit.
 * @param {number} phonesPerAddress  0: no limit
 * @returns {{ perSecond: number, burst: number } | null}
 */
export function audienceRate(phonesPerAddress) {
  if (phonesPerAddress <= 0) return null;
  return {
    perSecond: Math.max(CLIENT_RATE.perSecond, phonesPerAddress / 2),
    burst: Math.max(CLIENT_RATE.burst, phonesPerAddress),
  };
}

/** Addresses remembered; the oldest are forgotten past this. */
export const MAX_ADDRESSES = 10_000;

/**
 * @param {{ perSecond: number, burst: number }} rate  per address
 * @param {() => number} now  ms
 */
export function createAddressLimiter(rate, now) {
  /** @type {Map<string, ReturnType<typeof createTokenBucket>>} */
  const buckets = new Map();
  return {
    /**
     * Take a token for a request from `ip`: false when that address (addressKey: its /64 for
     * IPv6) is over its rate.
     * @param {string} ip
     */
    take(ip) {
      const key = addressKey(ip);
      let bucket = buckets.get(key);
      if (!bucket) {
        if (buckets.size >= MAX_ADDRESSES) buckets.delete(/** @type {string} */ (buckets.keys().next().value));
        bucket = createTokenBucket(rate, now());
        buckets.set(key, bucket);
      }
      return bucket.take(now());
    },
    /** How many addresses are remembered. */
    get size() {
      return buckets.size;
    },
  };
}

/** @typedef {ReturnType<typeof createAddressLimiter>} AddressLimiter */

/** The answer to a request over its address's rate. */
const RATE_LIMITED = Object.freeze(errorValue('SC_ERR_RATE_LIMITED'));

/**
 * An onRequest hook that refuses a request over its address's rate before its body is read or
 * parsed: a flood costs the least it can, and a flood of malformed bodies is limited too (they
 * used to fail parsing before the check, so they were never counted). Answered as a value, not
 * thrown: a flood is answered thousands of times a second, and an Error captures a stack each time
 * (bench/RESULTS.md, "Hostile clients").
 * @param {AddressLimiter | null} limiter
 * @returns {import('fastify').onRequestHookHandler}
 */
export function refuseOverRate(limiter) {
  return (req, reply, done) => {
    if (limiter && !limiter.take(req.ip)) {
      reply.code(ERRORS.SC_ERR_RATE_LIMITED.status).send(RATE_LIMITED);
      return;
    }
    done();
  };
}

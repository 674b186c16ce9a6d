// Who may change the performance: the conductor's bearer token, checked in constant time, with a
// budget of failed sign-ins per address so that guessing the token from the audience is slow
// (doc/security.md). Every token-protected route (control, votes, the roster, the scores folder,
// the cluster) asks requireToken.

import { createHash, timingSafeEqual } from 'node:crypto';
import { ScorecastError } from '../../core/errors.js';
import { createTokenBucket } from '../../core/token-bucket.js';
import { addressKey } from './address-key.js';
/** Failed sign-ins allowed per address: 5 at once, then one more every 12 s (5 a minute). */
export const SIGN_IN_RATE = Object.freeze({ perSecond: 1 / 12, burst: 5 });
/** Addresses remembered (bounded memory; the oldest are forgotten first). */
const MAX_ADDRESSES = 10_000;

/**
 * Budget of failed sign-ins, per address (addressKey: an IPv6 /64 is one address): an address that has used up its tries gets 429
 * SC_ERR_RATE_LIMITED for every wrong token until a try comes back. The right token is never
 * refused (behind nginx or a venue NAT, everyone shares the guesser's address and the
 * conductor would be locked out); requests with it cost nothing. doc/security.md says what this
 * does and does not stop (the token's length is what keeps it from being guessed).
 * @param {{ now?: () => number, rate?: { perSecond: number, burst: number } }} [options]
 */
export function createSignInLimiter({ now = () => performance.now(), rate = SIGN_IN_RATE } = {}) {
  /** @type {Map<string, ReturnType<typeof createTokenBucket>>} */
  const failures = new Map();
  return {
    /** @param {string} ip */
    allowed(ip) {
      return failures.get(addressKey(ip))?.available(now()) ?? true;
    },
    /** @param {string} ip */
    failed(ip) {
      const key = addressKey(ip);
      let b = failures.get(key);
      if (!b) {
        if (failures.size >= MAX_ADDRESSES) failures.delete(/** @type {string} */ (failures.keys().next().value));
        b = createTokenBucket(rate, now());
        failures.set(key, b);
      }
      b.take(now());
    },
  };
}

/** @typedef {ReturnType<typeof createSignInLimiter>} SignInLimiter */

/**
 * Compare a presented token with the expected one in constant time (hashing first makes the
 * lengths equal, so the length of the token does not leak either).
 * @param {string | undefined} presented
 * @param {string} expected
 */
export function tokenMatches(presented, expected) {
  if (typeof presented !== 'string') return false;
  const a = createHash('sha256').update(presented).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

/**
 * An onRequest hook that refuses requests without the conductor token. It runs before the body
 * is parsed: a caller without the token learns nothing and changes nothing. With a limiter,
 * failures count against the caller's address and, past its budget, answer 429 instead of 401;
 * the right token always passes.
 * @param {string} token
 * @param {SignInLimiter} [limiter]
 */
export function requireToken(token, limiter) {
  return async (/** @type {import('fastify').FastifyRequest} */ req) => {
    const header = req.headers.authorization;
    const presented = header?.startsWith('Bearer ') ? header.slice(7).trim() : undefined;
    if (tokenMatches(presented, token)) return;
    if (limiter && !limiter.allowed(req.ip))
      throw new ScorecastError(
        'SC_ERR_RATE_LIMITED',
        'too many wrong tokens from this address; wait a minute (the right token still works)',
      );
    limiter?.failed(req.ip);
    throw new ScorecastError('SC_ERR_UNAUTHORIZED');
  };
}

// Conductor control: POST /api/control/:action with a bearer token. Audience clients can only
// read; without the token nothing changes.

import { createHash, timingSafeEqual } from 'node:crypto';
import { ScorecastError } from '../../core/errors.js';
import { createTokenBucket } from '../../core/token-bucket.js';
import { addressKey } from '../http/address-key.js';

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
 * @param {unknown} body
 * @returns {Record<string, unknown>}
 */
function args(body) {
  if (body === undefined || body === null || body === '') return {};
  if (typeof body !== 'object' || Array.isArray(body))
    throw new ScorecastError('SC_ERR_BAD_CONTROL', 'the body must be a JSON object');
  return /** @type {Record<string, unknown>} */ (body);
}

/**
 * The actions, by name. Each returns nothing; the route answers the new state.
 * @type {Record<string, (c: import('./conductor.js').Conductor, a: Record<string, unknown>) => void>}
 */
const ACTIONS = {
  play: (c, a) => {
    c.play(a.countIn === undefined ? {} : { countIn: /** @type {number} */ (a.countIn) });
  },
  pause: (c) => {
    c.pause();
  },
  stop: (c) => {
    c.stop();
  },
  seek: (c, a) => {
    if (a.bar !== undefined) {
      if (!Number.isInteger(a.bar)) throw new ScorecastError('SC_ERR_BAD_CONTROL', 'bar must be an integer');
      if (a.beat !== undefined && !Number.isInteger(a.beat))
        throw new ScorecastError('SC_ERR_BAD_CONTROL', 'beat must be an integer (beat in the bar)');
      c.seek(c.beatOf(/** @type {number} */ (a.bar), /** @type {number | undefined} */ (a.beat)));
    } else if (a.beat !== undefined) {
      c.seek(/** @type {number} */ (a.beat));
    } else {
      throw new ScorecastError('SC_ERR_BAD_CONTROL', 'seek needs {beat} or {bar, beat?}');
    }
  },
  // {open: id} opens the score's vote window now; {close: true} closes the open one (its winner
  // decides as at the window's close).
  vote: (c, a) => {
    if (typeof a.open === 'string' && a.close === undefined) c.openVote(a.open);
    else if (a.close === true && a.open === undefined) c.closeVote();
    else throw new ScorecastError('SC_ERR_BAD_CONTROL', 'vote needs {open: "<vote id>"} or {close: true}');
  },
  // {id} fires the score's preset now (a change of the audience view, score.yaml `presets`).
  preset: (c, a) => {
    if (typeof a.id !== 'string' && !Number.isInteger(a.id))
      throw new ScorecastError('SC_ERR_BAD_CONTROL', 'preset needs {id}, a preset of the score');
    c.firePreset(String(a.id));
  },
  // {tiles: ["t2-3"]} forces the next page choice to play the pages of these tiles, whatever the
  // votes; {tiles: []} gives it back to the votes.
  next: (c, a) => {
    if (!Array.isArray(a.tiles) || !a.tiles.every((t) => typeof t === 'string' && t.length <= 64))
      throw new ScorecastError('SC_ERR_BAD_CONTROL', 'next needs {tiles: ["t2-3"]}, tiles of the next page choice');
    c.forceNext(/** @type {string[]} */ (a.tiles));
  },
  tempo: (c, a) => {
    if (a.rate !== undefined) c.setRate(/** @type {number} */ (a.rate));
    else if (typeof a.bpm === 'number' && a.bpm > 0) c.setRate(a.bpm / c.model.map.tempoAt(c.state.beat));
    else throw new ScorecastError('SC_ERR_BAD_CONTROL', 'tempo needs {rate} (0.25..4) or {bpm} (> 0)');
  },
};

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

/**
 * @param {import('fastify').FastifyInstance} app
 * @param {{ conductor: import('./conductor.js').Conductor, token: string, auth?: SignInLimiter }} options
 */
export function controlRoutes(app, { conductor, token, auth }) {
  app.post('/api/control/:action', { onRequest: requireToken(token, auth) }, async (req) => {
    const { action } = /** @type {{ action: string }} */ (req.params);
    const run = Object.hasOwn(ACTIONS, action) ? ACTIONS[action] : undefined;
    if (!run) throw new ScorecastError('SC_ERR_UNKNOWN_ACTION', action.slice(0, 32));
    run(conductor, args(req.body));
    req.log.info({ action, epoch: conductor.epoch, seq: conductor.seq }, 'control');
    return { epoch: conductor.epoch, seq: conductor.seq, state: conductor.state };
  });

  // The open window's tally, closed outcomes, and the score's windows (for the console to open).
  app.get('/api/votes', { onRequest: requireToken(token, auth) }, async () => ({
    ...conductor.votes(),
    windows: conductor.model.votes.map((v) => ({ id: v.id, tiles: v.tiles, open: v.open, close: v.close })),
    // The next page choice, whose tiles the console offers to force (POST /api/control/next).
    nextChoice: conductor.nextChoice(),
  }));

  // The score's presets, for the console to fire (POST /api/control/preset {id}).
  app.get('/api/presets', { onRequest: requireToken(token, auth) }, async () => ({
    presets: (conductor.model.presets ?? []).map((p) => ({ id: p.id, name: p.name, set: p.set })),
  }));
}

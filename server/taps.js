// Taps (votes) over HTTP, for clients on SSE or polling, which cannot send on their stream.
// The same rules as a WebSocket tap: the same decoder, the same ballot, the same errors.

import { decodeClientMessage } from '../core/protocol.js';
import { createAddressLimiter } from './address-limit.js';
import { CLIENT_RATE } from '../core/constants.js';
import { ERRORS, ScorecastError, errorValue } from '../core/errors.js';

/**
 * @param {import('fastify').FastifyInstance} app
 * @param {{ vote: (tap: import('../core/protocol.js').TapMessage) => ReturnType<import('./conductor.js').Conductor['vote']> | Promise<{ ok: true, id: string } | { ok: false, error: import('../core/errors.js').ErrorValue }>, now: () => number }} options
 *   vote: the conductor's, or a cluster node's (which asks the active conductor)
 */
export function tapRoutes(app, { vote, now }) {
  const limiter = createAddressLimiter(CLIENT_RATE, now);

  app.post('/api/tap', { bodyLimit: 4096 }, async (req, reply) => {
    if (!limiter.take(req.ip)) throw new ScorecastError('SC_ERR_RATE_LIMITED');
    const decoded = decodeClientMessage(JSON.stringify({ ...(/** @type {object} */ (req.body ?? {})), type: 'tap' }));
    if (!decoded.ok) return reply.code(400).send(decoded.error);
    if (decoded.value.type !== 'tap') return reply.code(400).send(errorValue('SC_ERR_BAD_MESSAGE'));
    const result = await vote(decoded.value);
    if (!result.ok) return reply.code(ERRORS[result.error.code]?.status ?? 400).send(result.error);
    return { type: 'voted', window: result.id, tile: String(decoded.value.tile) };
  });
}

// Polling transport at /live/poll: stateless, so any instance can answer any poll and no sticky
// sessions are needed. Short polls answer at once; long polls (`wait`) hold until a change.

import fp from 'fastify-plugin';
import { decodeResyncQuery } from '../../../core/protocol.js';
import { MAX_POLL_WAIT_MS } from '../../../core/constants.js';

/**
 * @param {import('fastify').FastifyInstance} app
 * @param {{ hub: import('../hub.js').Hub, metrics?: import('../hub.js').HubMetrics }} options
 */
async function routes(app, { hub, metrics = {} }) {
  app.get('/live/poll', async (req, reply) => {
    const query = decodeResyncQuery(/** @type {Record<string, unknown>} */ (req.query), MAX_POLL_WAIT_MS);
    if (!query.ok) return reply.code(400).header('cache-control', 'no-store').send(query.error);
    const { epoch, since, wait, view, client } = query.value;
    // An id over its address's cap is not counted; the poll is answered all the same.
    if (client !== undefined) hub.notePoller(client, view ?? 'unknown', req.ip);
    let messages = hub.resync(epoch, since);
    if (messages.length === 0 && wait > 0) {
      metrics.clients?.('poll', 1);
      try {
        await hub.waitForChange(wait);
      } finally {
        metrics.clients?.('poll', -1);
      }
      messages = hub.resync(epoch, since);
    }
    if (messages.length === 0) messages = [hub.heartbeat()];
    const body = `[${messages.map((m) => m.text).join(',')}]`;
    metrics.sent?.('poll', messages.length, Buffer.byteLength(body));
    return reply
      .header('content-type', 'application/json; charset=utf-8')
      .header('cache-control', 'no-store')
      .send(body);
  });
}

/** The routes as a Fastify plugin: `await app.register(pollRoutes, options)`. */
export const pollRoutes = fp(routes, { name: 'poll-routes', fastify: '5.x' });

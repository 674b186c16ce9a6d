// The roster over HTTP, for the conductor's console: `GET /api/roster` (token) and
// `POST /api/roster/:device/:action` (token), an action on one device or on `all`.

import fp from 'fastify-plugin';
import { requireToken } from '../http/auth.js';

/**
 * @param {import('fastify').FastifyInstance} app
 * @typedef {{ ok: true, sent: number } | { ok: false, error: import('../../core/errors.js').ErrorValue, status: number }} ActResult
 * @param {{ roster: { view: () => unknown, act: (id: string, action: string) => ActResult | Promise<ActResult> },
 *   token: string, auth?: import('../http/auth.js').SignInLimiter }} options
 *   roster: this server's, or a cluster's (every node's devices)
 */
async function routes(app, { roster, token, auth }) {
  app.get('/api/roster', { onRequest: requireToken(token, auth) }, async (_req, reply) => {
    reply.header('cache-control', 'no-store');
    return roster.view();
  });

  app.post('/api/roster/:device/:action', { onRequest: requireToken(token, auth) }, async (req, reply) => {
    const { device, action } = /** @type {{ device: string, action: string }} */ (req.params);
    const done = await roster.act(device, action);
    if (!done.ok) return reply.code(done.status).send(done.error);
    req.log.info({ device, action, sent: done.sent }, 'roster action');
    return reply.code(202).send({ device, action, sent: done.sent });
  });
}

/** The routes as a Fastify plugin: `await app.register(rosterRoutes, options)`. */
export const rosterRoutes = fp(routes, { name: 'roster-routes', fastify: '5.x' });

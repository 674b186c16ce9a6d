// The HTTP side of a cluster node: control requests that reach a node which is not the active
// conductor are forwarded to it (through the inbox), and GET /api/cluster lists the nodes.

import fp from 'fastify-plugin';
import { ScorecastError } from '../../core/errors.js';
import { requireToken } from '../http/auth.js';
import { readyWait } from '../performance/control.js';

/** Routes served by the active conductor wherever they arrive (they read or change the performance). */
export const FORWARDED_ROUTES = new Set([
  'POST /api/control/:action',
  // The next section of an open-form piece: a part's tablet or the console on any node chooses
  // on the conductor, not on this node's idle copy of the sections.
  'POST /api/section/choose',
  'POST /api/section/claim',
  'GET /api/votes',
  'POST /api/reload',
  'GET /api/status',
  'GET /api/scores',
  'POST /api/load',
]);
/** Marks a request a node forwarded: it is never forwarded again. */
export const FORWARDED_HEADER = 'x-scorecast-forwarded';

/**
 * @param {import('fastify').FastifyInstance} app
 * @param {{ active: () => boolean, ask: (kind: string, body: unknown) => Promise<any>,
 *   nodes: () => Promise<import('./registry.js').NodeStatus[]>, token: string,
 *   auth?: import('../http/auth.js').SignInLimiter,
 *   roster?: Pick<import('./cluster-roster.js').ClusterRoster, 'waitReady' | 'cancelWait'> }} options
 *   roster: the cluster's, which play when ready waits on where the request arrived
 */
async function routes(app, { active, ask, nodes, token, auth, roster }) {
  // preHandler: the route's own token check (onRequest) has run, so only a request with the
  // token is forwarded, and its parsed body goes with it. The token itself stays here: the
  // request goes through Redis under the cluster's MAC (inbox.js), and the conductor, which
  // holds the token too, signs it in on its side.
  app.addHook('preHandler', async (req, reply) => {
    if (!FORWARDED_ROUTES.has(`${req.method} ${req.routeOptions.url}`) || active()) return;
    if (req.headers[FORWARDED_HEADER]) throw new ScorecastError('SC_ERR_NO_CONDUCTOR', 'this node stopped conducting');
    let body = req.body;
    // Play when ready waits here, on the whole cluster's roster, and then asks the conductor to
    // play: a wait held in the conductor's inbox would hold every vote behind it.
    const action = /** @type {{ action?: string }} */ (req.params).action;
    if (req.routeOptions.url === '/api/control/:action' && roster) {
      const a = typeof body === 'object' && body !== null ? /** @type {Record<string, unknown>} */ (body) : {};
      const wait = action === 'play' ? readyWait(a) : null;
      if (action === 'play' || action === 'pause' || action === 'stop') roster.cancelWait(`cancelled by ${action}`);
      if (wait !== null) {
        await roster.waitReady(wait);
        req.log.info({ action, whenReady: true }, 'every part ready');
        const { whenReady: _w, timeoutMs: _t, ...rest } = a;
        body = rest;
      }
    }
    const answer = await ask('http', { method: req.method, url: req.url, body });
    if (answer.timeout) throw new ScorecastError('SC_ERR_NO_CONDUCTOR');
    reply.code(answer.status);
    if (answer.type) reply.header('content-type', answer.type);
    return reply.send(answer.body);
  });

  app.get('/api/cluster', { onRequest: requireToken(token, auth) }, async (_req, reply) => {
    reply.header('cache-control', 'no-store');
    return { nodes: await nodes() };
  });
}

/** The routes as a Fastify plugin: `await app.register(clusterRoutes, options)`. */
export const clusterRoutes = fp(routes, { name: 'cluster-routes', fastify: '5.x' });

// The plain-HTTP listener of a server that serves HTTPS (`--http-port`): every request is sent to
// the same path under the venue's HTTPS address, and the phones' connectivity checks get either
// the audience page's HTTPS address (first check: the join sheet opens the secure page) or, once
// that address has loaded the page over HTTPS, the answer the OS expects from the internet.
//
// The target's host is always the configured venue name, never the request's Host: the router
// sends every port-80 request here whatever host it named, and a redirect built from Host would
// send a phone wherever the request said (an open redirect).
//
// Redirects are temporary (302 for the checks, as captive-portal.js answers them; 307 otherwise,
// which keeps the method and body): the router's NAT delivers requests for any host here, and a
// permanent redirect would be cached by the phone for that host long after the concert.

import Fastify from 'fastify';
import { CHECKS } from './captive-portal.js';
import { HTTP_TIMEOUTS, limitConnections } from './connection-limit.js';
import { clientErrorHandler } from './errors.js';

/**
 * Where a plain-HTTP request for `url` goes: the same path and query under `origin`. A request
 * target that is not a path (absolute form, `GET http://elsewhere/`; asterisk form) goes to the
 * audience page.
 * @param {string} origin  e.g. https://score.example.org (or with :port), no trailing slash
 * @param {string} url     the request target as received
 */
export function redirectTarget(origin, url) {
  const pathAndQuery = url.startsWith('/') && !url.startsWith('//') ? url : '/';
  return `${origin}${pathAndQuery}`;
}

/**
 * Build the plain-HTTP listener's app (never listens: start.js does).
 * @param {{ origin: string, accepted: import('./captive-portal.js').AcceptedAddresses,
 *   connectionsPerAddress?: number, logger?: boolean | object, trustProxy?: string[] }} o
 *   origin: the venue's HTTPS address (`--public-url`)
 * @returns {import('fastify').FastifyInstance}
 */
export function buildRedirectApp({ origin, accepted, connectionsPerAddress = 0, logger = false, trustProxy }) {
  const { keepAliveTimeout, requestTimeout, ...serverTimeouts } = HTTP_TIMEOUTS;
  const app = /** @type {import('fastify').FastifyInstance} */ (
    /** @type {unknown} */ (
      Fastify({
        logger,
        bodyLimit: 1024,
        keepAliveTimeout,
        requestTimeout,
        http: serverTimeouts,
        clientErrorHandler,
        ...(trustProxy ? { trustProxy } : {}),
      })
    )
  );
  limitConnections(app.server, { perAddress: connectionsPerAddress, plain: true });
  const audience = `${origin}/`;
  for (const check of CHECKS) {
    app.get(check.path, (req, reply) => {
      reply.header('cache-control', 'no-store');
      if (!accepted.has(req.ip)) return reply.redirect(audience, 302);
      reply.code(check.status);
      if (check.type) reply.type(check.type);
      return reply.send(check.body);
    });
  }
  app.get('/redirect', (_req, reply) => reply.header('cache-control', 'no-store').redirect(audience, 302));
  // Bodies are not read: a 307 makes the client send its body again, to the HTTPS address.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_req, _payload, done) => done(null, undefined));
  app.setNotFoundHandler((req, reply) =>
    reply.header('cache-control', 'no-store').redirect(redirectTarget(origin, req.url), 307),
  );
  return app;
}

// The built client (dist/client, from client/vite.config.js): index.html for every page, the
// hashed files under /assets/ (immutable, sent precompressed), and the service worker at /sw.js.
// What the server started with is what it serves: a rebuild needs a restart.

import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import { ScorecastError } from '../core/errors.js';

const NOT_BUILT = 'The client is not built: run npm run build (npm start does it).';

/**
 * @param {string} file
 * @returns {{ body: Buffer, etag: string } | null}
 */
function readOnce(file) {
  if (!existsSync(file)) return null;
  const body = readFileSync(file);
  return { body, etag: `"${createHash('sha256').update(body).digest('hex').slice(0, 16)}"` };
}

/**
 * @param {import('fastify').FastifyInstance} app
 * @param {object} options
 * @param {string} options.clientDir  the build output (dist/client)
 * @param {(view: string) => boolean} options.hasView  whether the current score has this view
 */
export async function clientFiles(app, { clientDir, hasView }) {
  const index = readOnce(path.join(clientDir, 'index.html'));
  const conduct = readOnce(path.join(clientDir, 'conduct.html'));
  const preview = readOnce(path.join(clientDir, 'preview.html'));
  const worker = readOnce(path.join(clientDir, 'sw.js'));
  const assetsDir = path.join(clientDir, 'assets');

  if (existsSync(assetsDir)) {
    await app.register(fastifyStatic, {
      root: assetsDir, prefix: '/assets/', immutable: true, maxAge: '365d',
      // A route per file found at start, not a wildcard: any other path under /assets/
      // ("..", encoded or not) matches no route and gets the ordinary 404.
      wildcard: false,
      // The build writes .br and .gz copies beside the text assets; they are sent for the plain
      // name when Accept-Encoding allows, and are not URLs of their own.
      preCompressed: true,
      globIgnore: ['**/*.br', '**/*.gz'],
    });
  }

  /**
   * @param {import('fastify').FastifyRequest} req
   * @param {import('fastify').FastifyReply} reply
   * @param {{ body: Buffer, etag: string }} file
   * @param {string} type
   */
  const sendFile = (req, reply, file, type) => {
    // no-cache: revalidate every time (index.html names this build's hashed files; a stale
    // sw.js would keep phones on an old build), cheap thanks to the ETag.
    reply.header('cache-control', 'no-cache').header('etag', file.etag).type(type);
    if (req.headers['if-none-match'] === file.etag) return reply.code(304).send();
    return reply.send(file.body);
  };
  /**
   * @param {import('fastify').FastifyRequest} req
   * @param {import('fastify').FastifyReply} reply
   */
  const sendIndex = (req, reply) => {
    if (!index) return reply.code(503).type('text/plain').send(NOT_BUILT);
    return sendFile(req, reply, index, 'text/html; charset=utf-8');
  };

  app.get('/', sendIndex);
  app.get('/view/:view', (req, reply) => {
    const { view } = /** @type {{ view: string }} */ (req.params);
    if (!hasView(view)) throw new ScorecastError('SC_ERR_NOT_FOUND', `no view "${view.slice(0, 64)}" in this score`);
    return sendIndex(req, reply);
  });
  // The conductor's console and the composer's preview: pages of their own (their bundles stay
  // out of the audience page). Without the token they show only a sign-in form.
  for (const [url, file] of /** @type {const} */ ([['/conduct', conduct], ['/preview', preview]])) {
    app.get(url, (req, reply) => {
      if (!file) return reply.code(503).type('text/plain').send(NOT_BUILT);
      return sendFile(req, reply, file, 'text/html; charset=utf-8');
    });
  }
  // Scope `/` comes from serving the worker at the root; client/src/sw-register.js registers it.
  app.get('/sw.js', (req, reply) => {
    if (!worker) throw new ScorecastError('SC_ERR_NOT_FOUND', 'no service worker in this build');
    return sendFile(req, reply, worker, 'text/javascript; charset=utf-8');
  });
}

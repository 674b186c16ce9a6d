// Builds the Fastify application and wires the modules together. Never listens: start.js does,
// and tests use app.inject() or listen on port 0.

import { readFileSync, existsSync, createReadStream } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Fastify from 'fastify';
import fastifyStatic from '@fastify/static';
import { ERRORS, ScorecastError } from '../core/errors.js';
import { createMemoryBus } from './bus.js';
import { createConductor, systemClock } from './conductor.js';
import { createHub } from './hub.js';
import { createMetrics } from './metrics.js';
import { controlRoutes } from './control.js';
import { attachWebSocket } from './transports/websocket.js';
import { sseRoutes } from './transports/sse.js';
import { pollRoutes } from './transports/poll.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const CLIENT_DIR = path.join(ROOT, 'dist', 'client');

const MIME = /** @type {Record<string, string>} */ ({
  '.wav': 'audio/wav', '.mp3': 'audio/mpeg', '.ogg': 'audio/ogg', '.svg': 'image/svg+xml',
  '.png': 'image/png', '.json': 'application/json', '.txt': 'text/plain; charset=utf-8',
});

/**
 * @typedef {object} AppOptions
 * @property {import('./score-loader.js').LoadedScore} score
 * @property {string} token                conductor token
 * @property {boolean} [autoplay]          play at once and loop (the demo)
 * @property {boolean} [loop]
 * @property {import('./conductor.js').Clock} [clock]
 * @property {import('./bus.js').Bus} [bus]
 * @property {boolean | object} [logger]   Fastify logger options
 * @property {string} [clientDir]          built client (dist/client)
 * @property {Partial<import('./hub.js').HubOptions>} [hubOptions]
 */

/**
 * @param {AppOptions} options
 */
export async function buildApp({
  score, token, autoplay = false, loop = autoplay, clock = systemClock, bus = createMemoryBus(),
  logger = false, clientDir = CLIENT_DIR, hubOptions = {},
}) {
  const app = Fastify({ logger, bodyLimit: 64 * 1024, return503OnClosing: true });
  const metrics = createMetrics();
  const conductor = createConductor({ model: score.model, bus, clock, loop });
  const hub = createHub({ bus, now: clock.wall, metrics: metrics.hooks, ...hubOptions });
  const ws = attachWebSocket(app.server, hub, { log: app.log });

  app.setErrorHandler((err, req, reply) => {
    if (err instanceof ScorecastError) {
      return reply.code(err.statusCode).send({ code: err.code, message: err.message });
    }
    const e = /** @type {Error & { statusCode?: number }} */ (err);
    const status = e.statusCode ?? 500;
    if (status >= 500) req.log.error({ err: e }, 'request failed');
    const code = status === 413 ? 'SC_ERR_TOO_BIG' : status < 500 ? 'SC_ERR_BAD_REQUEST' : 'SC_ERR_INTERNAL';
    return reply.code(status).send({ code, message: status < 500 ? e.message : ERRORS.SC_ERR_INTERNAL.message });
  });
  app.setNotFoundHandler((req, reply) => reply.code(404).send({ code: 'SC_ERR_NOT_FOUND', message: ERRORS.SC_ERR_NOT_FOUND.message }));

  app.get('/healthz', async () => ({
    status: 'ok', epoch: hub.epoch, seq: hub.seq, transport: conductor.state.transport, clients: hub.size,
  }));
  app.get('/metrics', async (req, reply) => {
    reply.header('content-type', metrics.registry.contentType);
    return metrics.registry.metrics();
  });

  const { model } = score;
  app.get('/api/score', async () => ({
    id: model.id, title: model.title, composer: model.composer, views: model.views, parts: model.parts,
    bars: model.map.lastBar, beats: model.map.totalBeats,
    assets: score.assets.map((a) => ({ path: a.path, url: a.url, bytes: a.bytes, preload: a.preload })),
  }));

  // Only assets the manifest declares are served: nothing else in or outside the package.
  const assetsByPath = new Map(score.assets.map((a) => [a.path, a]));
  app.get('/scores/:id/*', async (req, reply) => {
    const { id, '*': rest } = /** @type {{ id: string, '*': string }} */ (req.params);
    const asset = id === model.id ? assetsByPath.get(rest) : undefined;
    if (!asset) throw new ScorecastError('SC_ERR_NOT_FOUND');
    const v = /** @type {{ v?: string }} */ (req.query).v;
    reply.header('cache-control', v === asset.hash ? 'public, max-age=31536000, immutable' : 'no-cache');
    reply.header('etag', `"${asset.hash}"`);
    reply.header('content-length', asset.bytes);
    reply.type(MIME[path.extname(asset.path)] ?? 'application/octet-stream');
    return reply.send(createReadStream(asset.file));
  });

  controlRoutes(app, { conductor, token });
  sseRoutes(app, hub);
  pollRoutes(app, hub, metrics.hooks);

  const indexFile = path.join(clientDir, 'index.html');
  const indexHtml = existsSync(indexFile) ? readFileSync(indexFile) : null;
  if (existsSync(path.join(clientDir, 'assets'))) {
    await app.register(fastifyStatic, {
      root: path.join(clientDir, 'assets'), prefix: '/assets/', immutable: true, maxAge: '365d', wildcard: true,
    });
  }
  /** @param {import('fastify').FastifyReply} reply */
  const sendIndex = (reply) => {
    if (!indexHtml) return reply.code(503).type('text/plain').send('The client is not built: run npm run build (npm start does it).');
    return reply.header('cache-control', 'no-cache').type('text/html; charset=utf-8').send(indexHtml);
  };
  app.get('/', (req, reply) => sendIndex(reply));
  app.get('/view/:view', (req, reply) => {
    const { view } = /** @type {{ view: string }} */ (req.params);
    if (!model.views.includes(view)) throw new ScorecastError('SC_ERR_NOT_FOUND', `no view "${view.slice(0, 64)}" in this score`);
    return sendIndex(reply);
  });

  // preClose, not onClose: open WebSocket and SSE connections would keep server.close() waiting.
  app.addHook('preClose', async () => {
    conductor.dispose();
    ws.close();
    hub.close();
  });
  app.addHook('onClose', async () => { await bus.close(); });

  if (autoplay) conductor.play();
  return { app, conductor, hub };
}

// Server-Sent Events transport at /live/sse. Resume point from Last-Event-ID (EventSource's own
// reconnects) or the query; state messages carry `id: epoch:seq`, others carry none.

import fp from 'fastify-plugin';
import { decodeResyncQuery, parseEventId } from '../../../core/protocol.js';
import { MAX_POLL_WAIT_MS, SSE_RETRY_MS } from '../../../core/constants.js';

/** @type {import('../hub.js').Framer} */
export function frameSse(msg) {
  const head = msg.id ? `id: ${msg.id}\n` : msg.type === 'heartbeat' ? ': hb\n' : '';
  return Buffer.from(`${head}data: ${msg.text}\n\n`);
}

/**
 * @param {import('fastify').FastifyInstance} app
 * @param {{ hub: import('../hub.js').Hub }} options
 */
async function routes(app, { hub }) {
  hub.setFramer('sse', frameSse);

  app.get('/live/sse', (req, reply) => {
    const query = decodeResyncQuery(/** @type {Record<string, unknown>} */ (req.query), MAX_POLL_WAIT_MS);
    if (!query.ok) return reply.code(400).send(query.error);
    const resume = parseEventId(req.headers['last-event-id']) ?? { epoch: query.value.epoch, seq: query.value.since };

    reply.hijack();
    const res = reply.raw;
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
      // nginx must not buffer the stream (infra/ proxies it later).
      'x-accel-buffering': 'no',
    });
    res.write(`retry: ${SSE_RETRY_MS}\n\n`);
    res.socket?.setNoDelay(true);
    const session = hub.attach(
      {
        kind: 'sse',
        address: req.ip,
        send: (bytes) => {
          res.write(bytes);
        },
        buffered: () => res.writableLength,
        close: () => {
          res.end();
        },
      },
      { ...resume, view: query.value.view },
    );
    res.on('close', () => session.detach());
    // A write racing a client's disconnect must not become an unhandled 'error' event.
    res.on('error', (err) => {
      req.log.debug({ err: err.message }, 'sse write failed');
      session.detach();
    });
  });
}

/** The routes as a Fastify plugin: `await app.register(sseRoutes, options)`. */
export const sseRoutes = fp(routes, { name: 'sse-routes', fastify: '5.x' });

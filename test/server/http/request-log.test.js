import { Writable } from 'node:stream';
import Fastify, { LogController } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp } from '../../../server/app.js';
import { createRequestCounter, requestLog } from '../../../server/http/request-log.js';
import { packageOf, smallModel } from '../../helpers/fixtures.js';

/** A pino destination that keeps every line as an object. */
function lines() {
  /** @type {any[]} */
  const seen = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) seen.push(JSON.parse(line));
      done();
    },
  });
  return { seen, stream };
}

/** @type {(() => Promise<unknown>)[]} */
let closing = [];
afterEach(async () => {
  for (const close of closing) await close();
  closing = [];
});

describe('request log', () => {
  it('counts answers by status class and keeps the slowest, then starts again', () => {
    const c = createRequestCounter();
    expect(c.take()).toBeNull();
    c.count(200, 3);
    c.count(204, 12.34);
    c.count(404, 1);
    c.count(503, 2);
    expect(c.take()).toEqual({ requests: 4, byStatus: { '2xx': 2, '4xx': 1, '5xx': 1 }, slowestMs: 12.3 });
    expect(c.take()).toBeNull();
  });

  it('the server logs no line per request at info, one at debug, and a summary each period', async () => {
    for (const level of ['info', 'debug']) {
      const { seen, stream } = lines();
      /** @type {() => void} */
      let tick = () => {};
      const app = Fastify({
        logger: { level, stream },
        logController: new LogController({ disableRequestLogging: true }),
      });
      requestLog(app, {
        setInterval: /** @type {any} */ (
          (/** @type {() => void} */ fn) => {
            tick = fn;
            return { unref() {} };
          }
        ),
        clearInterval: () => {},
      });
      app.get('/x', async () => 'ok');
      for (let i = 0; i < 5; i++) await app.inject('/x');
      await app.inject('/missing');
      const perRequest = seen.filter((l) => l.msg === 'request');
      expect(perRequest).toHaveLength(level === 'debug' ? 6 : 0);
      if (level === 'debug')
        expect(perRequest[5]).toMatchObject({ level: 20, method: 'GET', url: '/missing', statusCode: 404 });
      tick();
      const summary = seen.filter((l) => l.msg === 'requests answered in the last minute');
      expect(summary).toHaveLength(1);
      expect(summary[0]).toMatchObject({ level: 30, requests: 6, byStatus: { '2xx': 5, '4xx': 1 } });
      tick();
      expect(seen.filter((l) => l.msg === 'requests answered in the last minute')).toHaveLength(1);
      await app.close();
    }
  });

  it('the scorecast app writes no info line per request', async () => {
    const { seen, stream } = lines();
    const { app } = await buildApp({
      score: packageOf(smallModel()),
      token: 'request-log-token-0123',
      autoplay: false,
      logger: { level: 'info', stream },
    });
    closing.push(() => app.close());
    for (let i = 0; i < 20; i++) await app.inject('/api/score');
    await app.inject('/healthz');
    expect(seen.filter((l) => l.level === 30 && /request/.test(l.msg))).toEqual([]);
  });
});

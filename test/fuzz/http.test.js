// Property-based fuzzing through HTTP (app.inject, no sockets): control bodies, poll and SSE
// parameters, taps, paths and methods. Whatever arrives, the answer is below 500, an error is a
// JSON body with a documented code, and the server keeps serving with its state intact.

import fc from 'fast-check';
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { buildApp } from '../../server/app.js';
import { packageOf, smallModel } from '../helpers/fixtures.js';
import { documented, params, TIMEOUT } from './runs.js';

const TOKEN = 'fuzz-token-1234567890';
/** @type {import('fastify').FastifyInstance} */
let app;
beforeAll(async () => {
  ({ app } = await buildApp({ score: packageOf(smallModel({ bars: 64 })), token: TOKEN }));
});
afterAll(() => app.close());

/** @param {import('light-my-request').Response} res @param {string} [method] */
function expectHandled(res, method = 'GET') {
  expect(res.statusCode, res.body).toBeLessThan(500);
  // A HEAD answer has no body to carry the code.
  if (res.statusCode >= 400 && method !== 'HEAD') {
    const body = res.json();
    expect(documented(body.code), `${res.statusCode} ${res.body}`).toBe(true);
  }
}

const jsonValue = fc.oneof(
  fc.constantFrom(null, true, 0, -1, 1.5, 1e308, -1e308, '', 'x', '9', [], {}),
  fc.integer(),
  fc.double(),
  fc.string({ maxLength: 30 }),
  fc.array(fc.integer(), { maxLength: 5 }),
);
const CONTROL_KEYS = [
  'beat',
  'bar',
  'rate',
  'bpm',
  'countIn',
  'open',
  'close',
  'score',
  'tile',
  'window',
  '__proto__',
  'constructor',
];
const body = fc.oneof(
  fc.dictionary(fc.constantFrom(...CONTROL_KEYS), jsonValue, { maxKeys: 4 }).map((o) => JSON.stringify(o)),
  fc.json({ maxDepth: 3 }),
  fc.string({ maxLength: 200 }),
  fc.constantFrom('', '{', '{"beat":', 'null', '[]', '"x"', '{"beat": 1e999}'),
);
const contentType = fc.constantFrom(
  'application/json',
  'application/json; charset=utf-8',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data',
  undefined,
);

describe('fuzz: HTTP', () => {
  it(
    'control actions with any body: applied when valid, a documented error otherwise',
    async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.oneof(fc.constantFrom('play', 'pause', 'stop', 'seek', 'tempo', 'vote'), fc.string({ maxLength: 20 })),
          body,
          contentType,
          async (action, payload, type) => {
            const res = await app.inject({
              method: 'POST',
              url: `/api/control/${encodeURIComponent(action)}`,
              payload,
              headers: { authorization: `Bearer ${TOKEN}`, ...(type ? { 'content-type': type } : {}) },
            });
            expectHandled(res);
          },
        ),
        params(),
      );
      const health = (await app.inject('/healthz')).json();
      expect(health.status).toBe('ok');
    },
    TIMEOUT,
  );

  it(
    'poll parameters: a stream answer or a documented error',
    async () => {
      const value = fc.oneof(
        fc.string({ maxLength: 30 }),
        fc.constantFrom('0', '-1', '1e3', '99999999999999999999', '%', '%zz', 'NaN', ''),
      );
      const query = fc
        .array(fc.tuple(fc.constantFrom('epoch', 'since', 'seq', 'wait', 'view', 'client', 'x'), value), {
          maxLength: 5,
        })
        .map((pairs) => pairs.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&'));
      await fc.assert(
        fc.asyncProperty(query, async (q) => {
          // wait is capped by the server; keep each case short by never asking to wait here.
          const res = await app.inject({ method: 'GET', url: `/live/poll?${q.replace(/wait=[^&]*/g, 'wait=0')}` });
          expectHandled(res);
        }),
        params(),
      );
    },
    TIMEOUT,
  );

  it(
    'taps with any body: a vote, or a documented error',
    async () => {
      await fc.assert(
        fc.asyncProperty(body, contentType, async (payload, type) => {
          const res = await app.inject({
            method: 'POST',
            url: '/api/tap',
            payload,
            headers: type ? { 'content-type': type } : {},
          });
          expectHandled(res);
        }),
        params(),
      );
    },
    TIMEOUT,
  );

  it(
    'any path and method: an answer below 500, errors from the catalogue',
    async () => {
      const segment = fc.oneof(
        fc.string({ maxLength: 12 }),
        fc.constantFrom('..', '%2e%2e', '%00', '%', '%zz', 'scores', 'api', 'view', 'live', 'assets', '~', '\\'),
      );
      const pathArb = fc.array(segment, { minLength: 1, maxLength: 5 }).map((s) => `/${s.join('/')}`);
      await fc.assert(
        fc.asyncProperty(
          pathArb,
          fc.constantFrom('GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'OPTIONS', 'PATCH'),
          async (p, method) => {
            let url;
            try {
              url = encodeURI(p).replace(/%25/g, '%');
            } catch {
              return; // a lone surrogate: no client can send it
            }
            const res = await app.inject({
              method: /** @type {any} */ (method),
              url,
              headers: { authorization: `Bearer ${TOKEN}` },
            });
            expectHandled(res, method);
          },
        ),
        params(),
      );
      expect((await app.inject('/healthz')).json().status).toBe('ok');
    },
    TIMEOUT,
  );
});

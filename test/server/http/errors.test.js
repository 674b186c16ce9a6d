// Answers Fastify or Node would otherwise word themselves carry catalogue codes; a known path
// asked with the wrong method is 405 with Allow.

import { describe, it, expect, afterEach } from 'vitest';
import { buildApp } from '../../../server/app.js';
import { ERRORS } from '../../../core/errors.js';
import { packageOf, smallModel } from '../../helpers/fixtures.js';

/** @type {import('fastify').FastifyInstance[]} */
let apps = [];
afterEach(async () => {
  for (const a of apps) await a.close();
  apps = [];
});

async function build() {
  const { app } = await buildApp({ score: packageOf(smallModel()), token: 'http-errors-token' });
  apps.push(app);
  return app;
}

describe('HTTP errors in the catalogue', () => {
  it.each([
    ['a URL that is not valid percent-encoding', '/view/%E0%A4%A', 400, 'SC_ERR_BAD_REQUEST'],
    ['an over-long path segment', `/view/${'a'.repeat(200)}`, 414, 'SC_ERR_URL_TOO_LONG'],
  ])('%s: %s answers %i %s', async (_, url, status, code) => {
    const app = await build();
    const res = await app.inject({ url });
    expect(res.statusCode).toBe(status);
    expect(res.json()).toEqual({ code, message: expect.any(String) });
    expect(ERRORS[code].status).toBe(status);
  });

  it.each([
    ['GET', '/api/tap', 'POST'],
    ['GET', '/api/device', 'POST'],
    ['PUT', '/api/control/play', 'POST'],
    ['POST', '/', 'GET, HEAD'],
    ['DELETE', '/healthz', 'GET, HEAD'],
    ['POST', '/live/poll', 'GET, HEAD'],
  ])('%s %s: 405 SC_ERR_METHOD_NOT_ALLOWED, Allow: %s', async (method, url, allow) => {
    const app = await build();
    const res = await app.inject({ method: /** @type {any} */ (method), url });
    expect(res.statusCode).toBe(405);
    expect(res.headers.allow).toBe(allow);
    expect(res.json().code).toBe('SC_ERR_METHOD_NOT_ALLOWED');
  });

  it('a path nothing serves is still 404', async () => {
    const app = await build();
    for (const [method, url] of [
      ['GET', '/nothing-here'],
      ['POST', '/api/nothing'],
      ['GET', '/api/control'],
    ]) {
      const res = await app.inject({ method: /** @type {any} */ (method), url });
      expect(res.statusCode).toBe(404);
      expect(res.json().code).toBe('SC_ERR_NOT_FOUND');
    }
  });
});

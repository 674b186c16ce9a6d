import path from 'node:path';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { describe, it, expect, afterEach } from 'vitest';
import { buildApp } from '../../server/app.js';
import { loadPackage } from '../../server/package/load.js';
import { createFakeClock } from '../helpers/fake-clock.js';

const PKG = new URL('../fixtures/pkg/', import.meta.url).pathname;
/** @type {import('fastify').FastifyInstance[]} */
let apps = [];
afterEach(async () => {
  for (const a of apps) await a.close();
  apps = [];
});

/** @param {string} [clientDir] @param {Partial<import('../../server/app.js').AppOptions>} [options] */
async function build(clientDir, options = {}) {
  const score = await loadPackage(PKG, { cacheDir: mkdtempSync(path.join(os.tmpdir(), 'sc-cache-')) });
  const { app } = await buildApp({ score, token: 'tok-123456789', ...(clientDir ? { clientDir } : {}), ...options });
  apps.push(app);
  return app;
}

describe('app routes', () => {
  it('answers /healthz and /metrics in Prometheus format', async () => {
    const app = await build();
    const health = await app.inject('/healthz');
    expect(health.json()).toMatchObject({ status: 'ok', seq: 0, transport: 'stopped', clients: 0 });
    const metrics = await app.inject('/metrics');
    expect(metrics.headers['content-type']).toMatch(/^text\/plain/);
    for (const name of [
      'scorecast_clients{transport="ws"}',
      'scorecast_push_lag_seconds_bucket',
      'nodejs_eventloop_lag_seconds',
      'process_resident_memory_bytes',
      'nodejs_heap_size_used_bytes',
    ]) {
      expect(metrics.body).toContain(name);
    }
  });

  it('shows in /metrics how late each beat ran against its ideal time', async () => {
    // Every timer fires 30 ms late: each beat the timers run is counted in the 0.05 s bucket.
    const clock = createFakeClock({ lateness: () => 30 });
    const app = await build(undefined, { clock });
    /** @param {string} series */
    const value = async (series) =>
      Number(
        new RegExp(`^${series.replace(/[{}.+]/g, '\\$&')} (\\S+)$`, 'm').exec((await app.inject('/metrics')).body)?.[1],
      );
    expect(await value('scorecast_beat_lateness_seconds_count')).toBe(0);
    const auth = { authorization: 'Bearer tok-123456789' };
    expect((await app.inject({ method: 'POST', url: '/api/control/play', headers: auth })).statusCode).toBe(200);
    clock.advance(5000);
    const count = await value('scorecast_beat_lateness_seconds_count');
    // The first beat sounds on `play` (not late); the timers ran the rest.
    expect(count).toBeGreaterThan(3);
    expect(await value('scorecast_beat_lateness_seconds_bucket{le="0.025"}')).toBe(1);
    expect(await value('scorecast_beat_lateness_seconds_bucket{le="0.05"}')).toBe(count);
  });

  it('shows the resync history in /metrics, growing with each change', async () => {
    const app = await build();
    /** @param {string} name */
    const gauge = async (name) =>
      Number(new RegExp(`^${name} (\\S+)$`, 'm').exec((await app.inject('/metrics')).body)?.[1]);
    expect(await gauge('scorecast_history_deltas')).toBe(0);
    expect(await gauge('scorecast_history_bytes')).toBe(0);
    const auth = { authorization: 'Bearer tok-123456789' };
    for (const beat of [2, 4, 6]) {
      expect(
        (await app.inject({ method: 'POST', url: '/api/control/seek', headers: auth, payload: { beat } })).statusCode,
      ).toBe(200);
    }
    expect(await gauge('scorecast_history_deltas')).toBe(3);
    expect(await gauge('scorecast_history_bytes')).toBeGreaterThan(3 * 20);
  });

  it('tells the server time for clock sync, uncached', async () => {
    const app = await build();
    const before = Date.now();
    const res = await app.inject('/api/time');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.json().t).toBeGreaterThanOrEqual(before - 50);
    expect(res.json().t).toBeLessThanOrEqual(Date.now() + 50);
  });

  it('describes the score and its assets with content-hashed URLs', async () => {
    const app = await build();
    const score = (await app.inject('/api/score')).json();
    expect(score).toMatchObject({ id: 'fixture-pkg', views: ['audience', 'score'], beats: 8 });
    expect(score.assets).toEqual([
      {
        path: 'audio/click.wav',
        url: expect.stringMatching(/^\/scores\/fixture-pkg\/[0-9a-f]{16}\/audio\/click\.wav$/),
        bytes: 15,
        preload: true,
      },
    ]);
    const res = await app.inject(score.assets[0].url);
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe('RIFF-fake-audio');
    expect(res.headers['content-type']).toBe('audio/wav');
    expect(res.headers['cache-control']).toContain('immutable');
  });

  it('answers a conditional request with 304', async () => {
    const app = await build();
    const { assets } = (await app.inject('/api/score')).json();
    const first = await app.inject(assets[0].url);
    const again = await app.inject({ url: assets[0].url, headers: { 'if-none-match': String(first.headers.etag) } });
    expect(again.statusCode).toBe(304);
  });

  it.each([
    '/scores/fixture-pkg/notes.txt',
    '/scores/fixture-pkg/audio/click.wav',
    '/scores/fixture-pkg/score.yaml',
    '/scores/fixture-pkg/../../package.json',
    '/scores/fixture-pkg/..%2F..%2Fpackage.json',
    '/scores/fixture-pkg/%2e%2e/%2e%2e/package.json',
    '/scores/fixture-pkg//etc/passwd',
    '/scores/fixture-pkg/%2Fetc%2Fpasswd',
    '/scores/fixture-pkg/audio/..%5C..%5Cscore.yaml',
    '/scores/other/audio/click.wav',
    '/scores/..%2f..%2f/audio/click.wav',
  ])('path trick %s gets 404', async (url) => {
    const app = await build();
    const res = await app.inject(url);
    expect(res.statusCode).toBe(404);
    expect(res.body).not.toContain('secret');
    expect(res.body).not.toContain('"dependencies"');
  });

  it('serves the built client at / and at known views, 404 at unknown views', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'sc-client-'));
    writeFileSync(path.join(dir, 'index.html'), '<!doctype html><title>scorecast</title>');
    const app = await build(dir);
    expect((await app.inject('/')).body).toContain('<title>scorecast</title>');
    expect((await app.inject('/view/score')).statusCode).toBe(200);
    const unknown = await app.inject('/view/nope');
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().code).toBe('SC_ERR_NOT_FOUND');
  });

  it('says how to build the client when it is missing', async () => {
    const app = await build(path.join(os.tmpdir(), 'does-not-exist-sc'));
    const res = await app.inject('/');
    expect(res.statusCode).toBe(503);
    expect(res.body).toMatch(/npm run build/);
  });

  it('answers unknown routes with SC_ERR_NOT_FOUND', async () => {
    const app = await build();
    const res = await app.inject('/nothing/here');
    expect(res.statusCode).toBe(404);
    expect(res.json().code).toBe('SC_ERR_NOT_FOUND');
  });
});

describe('behind a proxy', () => {
  /**
   * @param {import('fastify').FastifyInstance} app @param {string} client
   */
  const tap = (app, client) =>
    app.inject({
      method: 'POST',
      url: '/api/tap',
      headers: { 'x-forwarded-for': client },
      payload: { tile: 'a', device: 'phone-0001' },
    });
  /** Spend one client's burst of taps; the next one is refused for rate. */
  async function exhaust(/** @type {import('fastify').FastifyInstance} */ app) {
    let last = 0;
    for (let i = 0; i < 100 && last !== 429; i++) last = (await tap(app, '203.0.113.1')).statusCode;
    expect(last).toBe(429);
  }

  /** How many of ten taps in a row from `client` are refused for rate. */
  async function refusedOfTen(/** @type {import('fastify').FastifyInstance} */ app, /** @type {string} */ client) {
    let refused = 0;
    for (let i = 0; i < 10; i++) if ((await tap(app, client)).statusCode === 429) refused++;
    return refused;
  }

  it('with --trust-proxy, limits each client named by X-Forwarded-For on its own', async () => {
    // The app's clock stands still: the budget (a burst of 40, a tap back every 50 ms) does not
    // refill while the taps are sent, however slowly a loaded machine sends them (in CI, taps
    // 50 ms apart never spent it).
    const app = await build(undefined, { trustProxy: ['127.0.0.1'], clock: createFakeClock() });
    await exhaust(app);
    expect(await refusedOfTen(app, '203.0.113.2')).toBe(0);
  });

  it("without it, every request through the proxy shares the proxy's budget", async () => {
    const app = await build(undefined, { clock: createFakeClock() });
    await exhaust(app);
    expect(await refusedOfTen(app, '203.0.113.2')).toBe(10);
  });
});

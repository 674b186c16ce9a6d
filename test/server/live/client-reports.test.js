// The conductor's picture of the audience: connections by transport and view, and the latency
// the clients measured themselves; sign-in rate limits.

import { describe, it, expect } from 'vitest';
import WebSocket from 'ws';
import { useServers, TOKEN } from '../../helpers/server.js';
import { createSignInLimiter, SIGN_IN_RATE } from '../../../server/http/auth.js';
import { buildApp } from '../../../server/app.js';
import {
  MAX_SAMPLES_PER_CLIENT,
  MIN_REPORT_INTERVAL_MS,
  createClientStats,
} from '../../../server/live/client-reports.js';
import { packageOf, smallModel } from '../../helpers/fixtures.js';
import { createFakeClock } from '../../helpers/fake-clock.js';

const servers = useServers();
const auth = { authorization: `Bearer ${TOKEN}` };

/** @param {string} url */
async function openWs(url) {
  const ws = new WebSocket(url);
  servers.defer(() => ws.terminate());
  await new Promise((resolve, reject) => {
    ws.once('message', resolve);
    ws.once('error', reject);
  });
  return ws;
}

describe('GET /api/clients', () => {
  it('counts connections by transport and view, polling clients by their id', async () => {
    const s = await servers.server();
    await openWs(`${s.wsBase}/live?view=violin1`);
    const ws = await openWs(`${s.wsBase}/live`);
    ws.send(JSON.stringify({ type: 'hello', epoch: null, seq: 0, view: 'cello' }));
    const sse = new AbortController();
    servers.defer(() => sse.abort());
    const res = await fetch(`${s.base}/live/sse?view=score`, { signal: sse.signal });
    expect(res.status).toBe(200);
    for (const id of ['phone-a', 'phone-b', 'phone-a'])
      await (await fetch(`${s.base}/live/poll?view=audience&client=${id}`)).text();
    await expect
      .poll(async () => (await (await fetch(`${s.base}/api/clients`, { headers: auth })).json()).total)
      .toBe(5);
    const clients = await (await fetch(`${s.base}/api/clients`, { headers: auth })).json();
    expect(clients.byTransport).toEqual({ ws: 2, sse: 1, poll: 2 });
    expect(clients.byView).toEqual({ violin1: 1, cello: 1, score: 1, audience: 2 });
  });

  it('needs the token', async () => {
    const s = await servers.server();
    expect((await fetch(`${s.base}/api/clients`)).status).toBe(401);
  });

  it('a bad view or client id in the query is a 400, not a count', async () => {
    const s = await servers.server();
    for (const q of ['view=a%20b', `client=${'x'.repeat(65)}`, 'client=<script>']) {
      const res = await fetch(`${s.base}/live/poll?${q}`);
      expect(res.status).toBe(400);
      expect((await res.json()).code).toBe('SC_ERR_BAD_QUERY');
    }
  });
});

describe('client reports', () => {
  it('latency measured by the clients, over WebSocket and POST /api/report, by transport', async () => {
    const s = await servers.server();
    const ws = await openWs(`${s.wsBase}/live?view=audience`);
    ws.send(JSON.stringify({ type: 'report', push: [3, 5, 4, 40], display: [0.5, 1, 2] }));
    let res = await fetch(`${s.base}/api/report`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ transport: 'poll', view: 'audience', push: [250, 310], display: [] }),
    });
    expect(res.status).toBe(204);
    await expect
      .poll(async () => Object.keys((await (await fetch(`${s.base}/api/clients`, { headers: auth })).json()).latency))
      .toEqual(['ws', 'poll']);
    const { latency } = await (await fetch(`${s.base}/api/clients`, { headers: auth })).json();
    // Nearest rank, as every figure of the project (core/stats.js): p50 of 3, 4, 5, 40 is 4.
    expect(latency.ws.push).toEqual({ n: 4, p50: 4, p95: 40, max: 40 });
    expect(latency.ws.display).toMatchObject({ n: 3, max: 2 });
    expect(latency.poll.push).toMatchObject({ n: 2, max: 310 });
    expect(latency.poll.display.n).toBe(0);
    // Refused reports say why, and count nothing.
    for (const body of [
      { transport: 'ws', push: [1] },
      { transport: 'poll', push: 'fast' },
      { transport: 'poll', push: new Array(33).fill(1) },
      { transport: 'poll', push: [1e9] },
      [1, 2],
    ]) {
      res = await fetch(`${s.base}/api/report`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(res.status).toBe(400);
      expect((await res.json()).code).toBe('SC_ERR_BAD_MESSAGE');
    }
    ws.send(JSON.stringify({ type: 'report', push: ['x'] }));
    const err = await new Promise((resolve) =>
      ws.on('message', (d) => {
        const m = JSON.parse(String(d));
        if (m.type === 'error') resolve(m);
      }),
    );
    expect(err).toMatchObject({ code: 'SC_ERR_BAD_MESSAGE' });
    const after = await (await fetch(`${s.base}/api/clients`, { headers: auth })).json();
    expect(after.latency.poll.push.n).toBe(2);
    expect(after.latency.ws.push.n).toBe(4);
  });
});

describe('each client weighs a bounded share of the figures', () => {
  it('one connection sending many 600 s reports does not move the p50 of four honest ones', async () => {
    const s = await servers.server();
    const honest = await Promise.all([1, 2, 3, 4].map(() => openWs(`${s.wsBase}/live`)));
    const liar = await openWs(`${s.wsBase}/live`);
    for (const ws of honest) ws.send(JSON.stringify({ type: 'report', push: new Array(32).fill(5), display: [] }));
    /** @type {string[]} */
    const refusals = [];
    liar.on('message', (d) => {
      const m = JSON.parse(String(d));
      if (m.type === 'error') refusals.push(m.code);
    });
    for (let i = 0; i < 20; i++)
      liar.send(JSON.stringify({ type: 'report', push: new Array(32).fill(600_000), display: [] }));
    // A burst of reports weighs what one does.
    await expect.poll(() => refusals.length, { timeout: 3000 }).toBe(19);
    expect(new Set(refusals)).toEqual(new Set(['SC_ERR_RATE_LIMITED']));
    const { latency } = await (await fetch(`${s.base}/api/clients`, { headers: auth })).json();
    expect(latency.ws.push).toMatchObject({ n: 5 * 32, p50: 5 });
  });

  it('a client that reports as often as it may still weighs at most its newest samples', () => {
    let t = 0;
    const stats = createClientStats({ now: () => t });
    const from = { address: '10.5.0.1', client: 'liar' };
    for (let i = 0; i < 24; i++, t += MIN_REPORT_INTERVAL_MS)
      expect(stats.add('ws', { type: 'report', push: new Array(32).fill(600_000), display: [] }, from)).toBeNull();
    expect(stats.summary().ws.push.n).toBe(MAX_SAMPLES_PER_CLIENT);
    expect(MAX_SAMPLES_PER_CLIENT).toBeLessThanOrEqual(96);
  });

  it('pages posting reports from one address count up to its cap', async () => {
    const s = await servers.server({ appOptions: { phonesPerAddress: 4 } });
    /** @param {string} client */
    const post = (client) =>
      fetch(`${s.base}/api/report`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ transport: 'poll', view: 'audience', client, push: [100], display: [] }),
      });
    const statuses = [];
    for (let i = 0; i < 6; i++) statuses.push((await post(`page-${i}`)).status);
    expect(statuses).toEqual([204, 204, 204, 204, 429, 429]);
    const refused = await post('page-9');
    expect((await refused.json()).code).toBe('SC_ERR_ADDRESS_LIMIT');
    // A known page is not refused for the cap, only for reporting again within 5 s.
    expect((await (await post('page-0')).json()).code).toBe('SC_ERR_RATE_LIMITED');
    const { latency } = await (await fetch(`${s.base}/api/clients`, { headers: auth })).json();
    expect(latency.poll.push.n).toBe(4);
  });
});

describe('reports per address, IPv6', () => {
  it('pages posting reports from addresses of one /64 count up to its cap', async () => {
    const { app } = await buildApp({ score: packageOf(smallModel()), token: TOKEN, phonesPerAddress: 3 });
    servers.defer(() => app.close());
    /** @param {string} client @param {string} ip */
    const post = (client, ip) =>
      app.inject({
        method: 'POST',
        url: '/api/report',
        remoteAddress: ip,
        payload: { transport: 'poll', view: 'audience', client, push: [100], display: [] },
      });
    const statuses = [];
    for (let i = 0; i < 5; i++) statuses.push((await post(`page-${i}`, `2001:db8:3:3::${i + 1}`)).statusCode);
    expect(statuses).toEqual([204, 204, 204, 429, 429]);
    expect((await post('page-9', '2001:db8:3:4::1')).statusCode).toBe(204);
    // A known page whose address changed within its /64 is the same page (rate-limited, not a new one).
    expect((await post('page-0', '2001:db8:3:3::77')).json().code).toBe('SC_ERR_RATE_LIMITED');
  });
});

describe('sign-in rate limit', () => {
  it('wrong tokens from an address are throttled (429) but the right token always works, even after 1,000 wrong ones', async () => {
    const clock = createFakeClock();
    const { app } = await buildApp({ score: packageOf(smallModel()), token: TOKEN, clock });
    servers.defer(() => app.close());
    /** @param {string} token @param {string} [ip] */
    const status = (token, ip = '10.0.0.7') =>
      app
        .inject({ method: 'GET', url: '/api/status', headers: { authorization: `Bearer ${token}` }, remoteAddress: ip })
        .then((r) => r.statusCode);
    for (let i = 0; i < SIGN_IN_RATE.burst; i++) expect(await status('wrong-token-xyz')).toBe(401);
    expect(await status('wrong-token-xyz')).toBe(429);
    for (let i = 0; i < 1000; i++) await status(`wrong-token-${i}`);
    expect(await status('wrong-token-xyz')).toBe(429);
    // The conductor behind the same NAT or proxy is never locked out, on any protected route.
    expect(await status(TOKEN)).toBe(200);
    const play = await app.inject({
      method: 'POST',
      url: '/api/control/play',
      headers: { authorization: `Bearer ${TOKEN}` },
      remoteAddress: '10.0.0.7',
    });
    expect(play.statusCode).toBe(200);
    const res = await app.inject({
      method: 'POST',
      url: '/api/control/play',
      headers: { authorization: 'Bearer nope-nope-nope' },
      remoteAddress: '10.0.0.7',
    });
    expect(res.statusCode).toBe(429);
    expect(res.json().code).toBe('SC_ERR_RATE_LIMITED');
    // Another address has its own budget; a try comes back after a while.
    expect(await status('wrong-token-xyz', '10.0.0.8')).toBe(401);
    clock.advance(1000 / SIGN_IN_RATE.perSecond);
    expect(await status('wrong-token-xyz')).toBe(401);
    expect(await status('wrong-token-xyz')).toBe(429);
  });

  it('IPv6: wrong tokens from any address of one /64 share one budget', async () => {
    const { app } = await buildApp({ score: packageOf(smallModel()), token: TOKEN, clock: createFakeClock() });
    servers.defer(() => app.close());
    /** @param {string} token @param {string} ip */
    const status = (token, ip) =>
      app
        .inject({ method: 'GET', url: '/api/status', headers: { authorization: `Bearer ${token}` }, remoteAddress: ip })
        .then((r) => r.statusCode);
    for (let i = 0; i < SIGN_IN_RATE.burst; i++)
      expect(await status('wrong-token-xyz', `2001:db8:4:4::${i + 1}`)).toBe(401);
    expect(await status('wrong-token-xyz', '2001:db8:4:4:ffff::1')).toBe(429);
    expect(await status('wrong-token-xyz', '2001:db8:4:5::1')).toBe(401);
    expect(await status(TOKEN, '2001:db8:4:4::99')).toBe(200);
  });

  it('forgets the oldest addresses beyond its bound', () => {
    const limiter = createSignInLimiter({ now: () => 0 });
    for (let i = 0; i < 5; i++) limiter.failed('a');
    expect(limiter.allowed('a')).toBe(false);
    for (let i = 0; i < 10_000; i++) limiter.failed(`ip-${i}`);
    expect(limiter.allowed('a')).toBe(true);
  });
});

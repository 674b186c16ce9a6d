// Votes from the audience reach the tally, over WebSocket and over HTTP (SSE and polling
// clients), with the same rules and errors: a device is a credential this server issued, a
// connection votes once per window, an address casts at most its cap of votes per window.

import http from 'node:http';
import { describe, it, expect, afterEach } from 'vitest';
import { buildApp } from '../../../server/app.js';
import { buildScoreModel } from '../../../core/manifest.js';
import { fakeLink, packageOf } from '../../helpers/fixtures.js';
import { createFakeClock } from '../../helpers/fake-clock.js';

const TOKEN = 'tap-token-123456';
/** @type {import('fastify').FastifyInstance[]} */
let apps = [];
afterEach(async () => {
  for (const a of apps) await a.close();
  apps = [];
});

/** @param {Partial<import('../../../server/app.js').AppOptions>} [options] */
async function setup(options = {}) {
  const r = buildScoreModel({
    id: 'votes',
    title: 'Votes',
    bars: 4,
    meter: [{ bar: 1, time: '4/4', tempo: 60 }],
    cues: [{ bar: 2, vote: { id: 'choice', tiles: ['left', 'right'], close: { bar: 4 } } }],
  });
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  const built = await buildApp({ score: packageOf(r.value), token: TOKEN, ...options });
  apps.push(built.app);
  return built;
}

/** @param {import('fastify').FastifyInstance} app @param {object} body @param {string} [ip] */
const tap = (app, body, ip = '10.1.0.1') =>
  app.inject({ method: 'POST', url: '/api/tap', payload: body, remoteAddress: ip });

/**
 * A device credential, as a phone gets it.
 * @param {import('fastify').FastifyInstance} app @param {string} [ip]
 * @returns {Promise<string>}
 */
async function credential(app, ip = '10.1.0.1') {
  const res = await app.inject({ method: 'POST', url: '/api/device', remoteAddress: ip });
  expect(res.statusCode).toBe(200);
  expect(res.headers['cache-control']).toBe('no-store');
  return res.json().device;
}

/** @param {import('fastify').FastifyInstance} app */
const tally = async (app) =>
  (await app.inject({ url: '/api/votes', headers: { authorization: `Bearer ${TOKEN}` } })).json().open?.tally;

describe('taps and votes', () => {
  it('HTTP taps with an issued credential count in the open window; the tally is for the conductor only', async () => {
    const { app, conductor } = await setup();
    const device = await credential(app);
    expect(device).toMatch(/^[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{22}$/);
    expect((await tap(app, { tile: 'left', device })).json()).toMatchObject({ code: 'SC_ERR_NO_VOTE_WINDOW' });
    conductor.seek(conductor.beatOf(2));
    const ok = await tap(app, { tile: 'left', device });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toEqual({ type: 'voted', window: 'choice', tile: 'left' });
    // the phone changes its mind (its vote moves), then taps its tile again (takes it back), then votes again
    const again = await tap(app, { tile: 'right', device });
    expect(again.json()).toEqual({ type: 'voted', window: 'choice', tile: 'right' });
    expect(await tally(app)).toEqual({ left: 0, right: 1 });
    expect((await tap(app, { tile: 'right', device })).json()).toEqual({ type: 'voted', window: 'choice', tile: null });
    expect((await tap(app, { tile: 'left', device })).json()).toEqual({
      type: 'voted',
      window: 'choice',
      tile: 'left',
    });
    const other = await credential(app);
    expect((await tap(app, { tile: 'middle', device: other })).json().code).toBe('SC_ERR_UNKNOWN_TILE');
    expect((await tap(app, { tile: { x: 1 }, device: other })).json().code).toBe('SC_ERR_BAD_MESSAGE');
    expect((await app.inject({ url: '/api/votes' })).statusCode).toBe(401);
    expect(await tally(app)).toEqual({ left: 1, right: 0 });
  });

  it('a device cannot be invented or altered: 403 SC_ERR_BAD_DEVICE, and nothing counts', async () => {
    const { app, conductor } = await setup();
    conductor.seek(conductor.beatOf(2));
    const real = await credential(app);
    const [id, mac] = real.split('.');
    const flip = (/** @type {string} */ c) => (c === 'A' ? 'B' : 'A');
    for (const device of [
      undefined,
      'phone-0001',
      'x'.repeat(45),
      `${id}.${'A'.repeat(22)}`,
      `${flip(id[0])}${id.slice(1)}.${mac}`, // another id under this id's MAC
      `${id}.${mac.slice(0, -1)}${flip(mac[21])}`, // the MAC's last character changed
    ]) {
      const res = await tap(app, { tile: 'left', ...(device === undefined ? {} : { device }) });
      expect(res.statusCode, String(device)).toBe(403);
      expect(res.json().code).toBe('SC_ERR_BAD_DEVICE');
    }
    // A credential issued under another conductor token does not verify here either.
    const { app: elsewhere } = await setup({ token: 'another-token-7890' });
    const foreign = await credential(elsewhere);
    expect((await tap(app, { tile: 'left', device: foreign })).json().code).toBe('SC_ERR_BAD_DEVICE');
    expect(await tally(app)).toEqual({ left: 0, right: 0 });
  });

  it('one WebSocket cannot cast a vote per invented id, and a connection votes once per window whatever credentials it brings', async () => {
    const { app, conductor, hub } = await setup();
    conductor.seek(conductor.beatOf(2));
    const link = fakeLink();
    const session = hub.attach({ ...link, address: '10.1.0.2' }, { epoch: null, seq: 0 });
    for (let i = 0; i < 30; i++)
      session.receive(
        JSON.stringify({ type: 'tap', tile: 'left', device: `forged-${String(i).padStart(4, '0')}` }),
        false,
      );
    expect(await tally(app)).toEqual({ left: 0, right: 0 });
    const credentials = [await credential(app), await credential(app), await credential(app)];
    for (const device of credentials) session.receive(JSON.stringify({ type: 'tap', tile: 'right', device }), false);
    const answers = link.messages
      .filter((m) => m.type === 'voted' || m.type === 'error')
      .map((m) => (m.type === 'voted' ? 'voted' : m.code));
    expect(answers.slice(-3)).toEqual(['voted', 'SC_ERR_ALREADY_VOTED', 'SC_ERR_ALREADY_VOTED']);
    expect(answers.slice(0, 3)).toEqual(['SC_ERR_BAD_DEVICE', 'SC_ERR_BAD_DEVICE', 'SC_ERR_BAD_DEVICE']);
    expect(await tally(app)).toEqual({ left: 0, right: 1 });
    // The credentials it could not use still vote from their own connections.
    const second = hub.attach({ ...fakeLink(), address: '10.1.0.2' }, { epoch: null, seq: 0 });
    second.receive(JSON.stringify({ type: 'tap', tile: 'left', device: credentials[1] }), false);
    expect(await tally(app)).toEqual({ left: 1, right: 1 });
  });

  it('a window the conductor opens again is a new round for a connection too', async () => {
    const { conductor, hub, app } = await setup();
    const link = fakeLink();
    const session = hub.attach({ ...link, address: '10.1.0.3' }, { epoch: null, seq: 0 });
    const device = await credential(app);
    conductor.openVote('choice');
    session.receive(JSON.stringify({ type: 'tap', tile: 'left', device }), false);
    conductor.closeVote();
    conductor.openVote('choice');
    session.receive(JSON.stringify({ type: 'tap', tile: 'right', device }), false);
    expect(link.ofType('voted').map((m) => m.tile)).toEqual(['left', 'right']);
  });

  it('IPv6: a phone rotating privacy addresses in its /64 is one address, over HTTP and on sockets; an IPv4-mapped address is its IPv4 address', async () => {
    const { app, conductor, hub } = await setup({ phonesPerAddress: 2 });
    /** @type {string[]} */
    const issued = [];
    for (let i = 1; i <= 2; i++) issued.push(await credential(app, `2001:db8:1:2::${i}`));
    const over = await app.inject({
      method: 'POST',
      url: '/api/device',
      remoteAddress: '2001:db8:1:2:aaaa:bbbb:cccc:dddd',
    });
    expect(over.json().code).toBe('SC_ERR_ADDRESS_LIMIT');
    for (let i = 1; i <= 4; i++) issued.push(await credential(app, `2001:db8:1:${10 + i}::1`));
    expect((await credential(app, '10.3.0.1')).length).toBeGreaterThan(0);
    expect((await credential(app, '10.3.0.1')).length).toBeGreaterThan(0);
    const mapped = await app.inject({ method: 'POST', url: '/api/device', remoteAddress: '::ffff:10.3.0.1' });
    expect(mapped.json().code).toBe('SC_ERR_ADDRESS_LIMIT');
    conductor.seek(conductor.beatOf(2));
    // Votes over HTTP, each from a new address in one /64.
    const codes = [];
    for (let i = 0; i < 3; i++)
      codes.push(
        (await tap(app, { tile: 'left', device: issued[i] }, `2001:db8:9:9::${i + 1}`)).json().code ?? 'voted',
      );
    expect(codes).toEqual(['voted', 'voted', 'SC_ERR_ADDRESS_LIMIT']);
    // Votes on WebSocket sessions, the address as the transport attaches it.
    const links = [3, 4, 5].map((i) => {
      const link = fakeLink();
      const session = hub.attach({ ...link, address: `2001:db8:7:7:${i}::1` }, { epoch: null, seq: 0 });
      session.receive(JSON.stringify({ type: 'tap', tile: 'right', device: issued[i] }), false);
      return link;
    });
    expect(
      links.map(
        (l) =>
          l.ofType('voted').length + l.ofType('error').filter((m) => m.code === 'SC_ERR_ADDRESS_LIMIT').length * 10,
      ),
    ).toEqual([1, 1, 10]);
    expect(await tally(app)).toEqual({ left: 2, right: 2 });
  });

  it('an address gets at most its cap of credentials and casts at most its cap of votes per window; others are not affected', async () => {
    const { app, conductor } = await setup({ phonesPerAddress: 3 });
    const issued = [];
    for (let i = 0; i < 3; i++) issued.push(await credential(app, '10.2.0.1'));
    const over = await app.inject({ method: 'POST', url: '/api/device', remoteAddress: '10.2.0.1' });
    expect(over.statusCode).toBe(429);
    expect(over.json().code).toBe('SC_ERR_ADDRESS_LIMIT');
    // Credentials fetched elsewhere, then all used from one address (one request each: a new connection each).
    for (let i = 0; i < 2; i++) issued.push(await credential(app, `10.2.1.${i}`));
    conductor.seek(conductor.beatOf(2));
    const codes = [];
    for (const device of issued)
      codes.push((await tap(app, { tile: 'left', device }, '10.2.0.9')).json().code ?? 'voted');
    expect(codes).toEqual(['voted', 'voted', 'voted', 'SC_ERR_ADDRESS_LIMIT', 'SC_ERR_ADDRESS_LIMIT']);
    expect((await tap(app, { tile: 'right', device: issued[3] }, '10.2.0.10')).statusCode).toBe(200);
    expect(await tally(app)).toEqual({ left: 3, right: 1 });
  });

  it("behind a trusted proxy, phones' taps on one of its pooled sockets count once each, and a phone's own X-Forwarded-For gains nothing", async () => {
    const { app, conductor } = await setup({ trustProxy: ['127.0.0.1'], phonesPerAddress: 3 });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = /** @type {import('node:net').AddressInfo} */ (app.server.address());
    // nginx carries many phones' requests on one keep-alive socket to the edge.
    const pool = new http.Agent({ keepAlive: true, maxSockets: 1 });
    /** @param {string} url @param {string} forwarded @param {object} [body] @returns {Promise<any>} */
    const post = (url, forwarded, body) =>
      new Promise((resolve, reject) => {
        const text = JSON.stringify(body ?? {});
        const req = http.request({ port, host: '127.0.0.1', path: url, method: 'POST', agent: pool }, (res) => {
          let data = '';
          res.on('data', (c) => {
            data += c;
          });
          res.on('end', () => resolve(JSON.parse(data)));
        });
        req.setHeader('content-type', 'application/json');
        req.setHeader('x-forwarded-for', forwarded);
        req.on('error', reject);
        req.end(text);
      });
    conductor.seek(conductor.beatOf(2));
    const answers = [];
    for (let i = 1; i <= 5; i++) {
      const { device } = await post('/api/device', `10.4.0.${i}`);
      answers.push((await post('/api/tap', `10.4.0.${i}`, { tile: 'left', device })).type);
    }
    pool.destroy();
    expect(answers).toEqual(['voted', 'voted', 'voted', 'voted', 'voted']);
    // A header the phone wrote itself, before the proxy's entry, is not what counts.
    const devices = [];
    for (let i = 0; i < 3; i++) devices.push(await credential(app, `10.4.1.${i}`));
    devices.push(await credential(app, '10.4.1.9'));
    const forged = [];
    for (const [i, device] of devices.entries())
      forged.push(
        (
          await app.inject({
            method: 'POST',
            url: '/api/tap',
            payload: { tile: 'right', device },
            remoteAddress: '127.0.0.1',
            headers: { 'x-forwarded-for': `6.6.6.${i}, 10.4.2.1` },
          })
        ).json().code ?? 'voted',
      );
    expect(forged).toEqual(['voted', 'voted', 'voted', 'SC_ERR_ADDRESS_LIMIT']);
    expect(await tally(app)).toEqual({ left: 5, right: 3 });
  });

  it.each([300, 0])(
    'a venue behind one NAT sets the cap to its audience (%i; 0: no limit): 150 phones on one address all get a credential and vote at once',
    async (phonesPerAddress) => {
      const { app, conductor } = await setup({ phonesPerAddress });
      conductor.seek(conductor.beatOf(2));
      const devices = [];
      for (let i = 0; i < 150; i++) devices.push(await credential(app, '10.3.0.1'));
      /** @type {Record<number, number>} */
      const statuses = {};
      for (const device of devices) {
        const { statusCode } = await tap(app, { tile: 'left', device }, '10.3.0.1');
        statuses[statusCode] = (statuses[statusCode] ?? 0) + 1;
      }
      expect(statuses).toEqual({ 200: 150 });
      expect(await tally(app)).toEqual({ left: 150, right: 0 });
    },
  );

  it.each(['/api/tap', '/api/report', '/api/device'])(
    '%s refuses an address over its rate before reading the body: a flood of malformed bodies is limited too',
    async (url) => {
      // Malformed JSON used to fail parsing before the rate was checked: never counted, never 429.
      // A clock that stands still: the flood is one instant, however slowly a loaded machine sends it.
      const { app } = await setup({ clock: createFakeClock() });
      const post = (/** @type {string} */ ip) =>
        app.inject({
          method: 'POST',
          url,
          payload: '{"tile":',
          headers: { 'content-type': 'application/json' },
          remoteAddress: ip,
        });
      const codes = [];
      for (let i = 0; i < 60; i++) codes.push((await post('10.7.0.1')).statusCode);
      expect(codes.filter((c) => c === 429).length).toBeGreaterThanOrEqual(15);
      const refused = await post('10.7.0.1');
      expect(refused.statusCode).toBe(429);
      expect(refused.json().code).toBe('SC_ERR_RATE_LIMITED');
      // Another address is not affected: its malformed body is answered as one.
      const other = await post('10.7.0.2');
      expect(other.statusCode).toBe(400);
    },
  );

  it('HTTP taps from one address are rate-limited', async () => {
    const { app, conductor } = await setup({ clock: createFakeClock() });
    conductor.seek(conductor.beatOf(2));
    const device = await credential(app);
    const codes = [];
    for (let i = 0; i < 60; i++) codes.push((await tap(app, { tile: 'left', device })).statusCode);
    expect(codes.filter((c) => c === 429).length).toBeGreaterThanOrEqual(15);
  });
});

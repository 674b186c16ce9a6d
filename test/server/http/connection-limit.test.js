// Bounds on connections, on real sockets: per-address connection caps (WebSockets included),
// header and request timeouts, the idle time before an upgrade.

import net from 'node:net';
import { describe, it, expect } from 'vitest';
import WebSocket from 'ws';
import { useServers } from '../../helpers/server.js';
import { EventEmitter } from 'node:events';
import { CONNECTIONS_PER_ADDRESS, HTTP_TIMEOUTS, limitConnections } from '../../../server/http/connection-limit.js';

const servers = useServers();

/**
 * Try to open a WebSocket: 'open', or the HTTP status it was refused with.
 * @param {string} url
 * @param {import('ws').ClientOptions} [options]
 * @returns {Promise<{ ws: WebSocket, result: 'open' | number }>}
 */
function tryWs(url, options) {
  const ws = new WebSocket(url, options);
  return new Promise((resolve) => {
    ws.once('open', () => resolve({ ws, result: 'open' }));
    ws.once('unexpected-response', (_req, res) => {
      resolve({ ws, result: res.statusCode ?? 0 });
      res.resume();
    });
    ws.once('error', () => resolve({ ws, result: 0 }));
  });
}

/**
 * A raw TCP connection that records what it receives and when it closes.
 * @param {number} port
 */
function rawConnection(port) {
  const socket = net.connect(port, '127.0.0.1');
  const started = performance.now();
  let received = '';
  socket.on('data', (d) => {
    received += d;
  });
  socket.on('error', () => {});
  const closed = new Promise((resolve) => socket.once('close', () => resolve(performance.now() - started)));
  return {
    socket,
    closed,
    get received() {
      return received;
    },
  };
}

/** @param {string} base */
const portOf = (base) => Number(new URL(base).port);

describe('connections per address', () => {
  it(`by default one address holds at most ${CONNECTIONS_PER_ADDRESS} connections: a flood of WebSockets is refused 429 SC_ERR_ADDRESS_LIMIT past it`, async () => {
    expect(CONNECTIONS_PER_ADDRESS).toBeLessThan(1500);
    const s = await servers.server();
    /** @type {WebSocket[]} */
    const sockets = [];
    servers.defer(() => {
      for (const ws of sockets) ws.terminate();
    });
    /** @type {Record<string, number>} */
    const results = {};
    // In batches (bounded: the cap and 20 more attempts in all).
    const attempts = CONNECTIONS_PER_ADDRESS + 20;
    for (let i = 0; i < attempts; i += 100) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(100, attempts - i) }, () => tryWs(`${s.wsBase}/live`)),
      );
      for (const { ws, result } of batch) {
        sockets.push(ws);
        results[result] = (results[result] ?? 0) + 1;
      }
    }
    expect(results).toEqual({ open: CONNECTIONS_PER_ADDRESS, 429: 20 });
    // A refused plain-HTTP request reads the catalogue code.
    const refused = rawConnection(portOf(s.base));
    await refused.closed;
    expect(refused.received).toMatch(/^HTTP\/1\.1 429 /);
    expect(JSON.parse(refused.received.split('\r\n\r\n')[1]).code).toBe('SC_ERR_ADDRESS_LIMIT');
    // A connection that closes makes room.
    const opened = /** @type {WebSocket} */ (sockets.find((ws) => ws.readyState === WebSocket.OPEN));
    await new Promise((resolve) => {
      opened.once('close', resolve);
      opened.close();
    });
    await expect
      .poll(
        async () =>
          await tryWs(`${s.wsBase}/live`).then(({ ws, result }) => {
            sockets.push(ws);
            return result;
          }),
      )
      .toBe('open');
  });

  it('IPv6: connections from any address of one /64 count against one cap; an IPv4-mapped peer is its IPv4 address', () => {
    // Loopback has no /64 to connect from: a server's 'connection' events with sockets as Node
    // names their peers.
    const server = new EventEmitter();
    const limit = limitConnections(/** @type {any} */ (server), { perAddress: 2, plain: true });
    /** @param {string} remoteAddress */
    const connect = (remoteAddress) => {
      const socket = Object.assign(new EventEmitter(), {
        remoteAddress,
        refused: '',
        end(/** @type {string} */ text) {
          socket.refused = text;
        },
        destroySoon() {},
      });
      server.emit('connection', socket);
      return socket;
    };
    const a = connect('2001:db8:1:2::1');
    connect('2001:db8:1:2:ffff:0:0:2');
    expect(connect('2001:db8:1:2::3').refused).toMatch(/^HTTP\/1\.1 429 [\s\S]*SC_ERR_ADDRESS_LIMIT/);
    expect(connect('2001:db8:1:3::1').refused).toBe('');
    expect(limit.count('2001:db8:1:2::abcd')).toBe(2);
    a.emit('close');
    expect(connect('2001:db8:1:2::4').refused).toBe('');
    connect('10.0.0.1');
    connect('::ffff:10.0.0.1');
    expect(connect('10.0.0.1').refused).toMatch(/429/);
  });

  it('behind a trusted proxy each forwarded client has its own cap, WebSockets and requests alike; the proxy has none; anyone else is its own address', async () => {
    const s = await servers.server({
      autoplay: false,
      appOptions: { trustProxy: ['127.0.0.1'], connectionsPerAddress: 3 },
    });
    /** @type {WebSocket[]} */
    const sockets = [];
    servers.defer(() => {
      for (const ws of sockets) ws.terminate();
    });
    /** @param {string} forwarded @param {string} [localAddress] */
    const ws = async (forwarded, localAddress = '127.0.0.1') => {
      const { ws: socket, result } = await tryWs(`${s.wsBase}/live`, {
        localAddress,
        headers: { 'x-forwarded-for': forwarded },
      });
      sockets.push(socket);
      return result;
    };
    /** @param {string} forwarded */
    const get = (forwarded) => fetch(`${s.base}/healthz`, { headers: { 'x-forwarded-for': forwarded } });
    // Seven sockets from the proxy, more than the cap: it stands for everyone.
    expect([await ws('10.0.0.1'), await ws('10.0.0.1'), await ws('10.0.0.1')]).toEqual(['open', 'open', 'open']);
    expect(await ws('10.0.0.1')).toBe(429);
    expect([await ws('10.0.0.2'), await ws('10.0.0.2'), await ws('10.0.0.2')]).toEqual(['open', 'open', 'open']);
    // A request of a client at its cap is refused with the catalogue code; another client's passes.
    const refused = await get('10.0.0.1');
    expect(refused.status).toBe(429);
    expect((await refused.json()).code).toBe('SC_ERR_ADDRESS_LIMIT');
    // A request gives its connection back when it is answered: more requests than the cap, one
    // after another, all pass.
    for (let i = 0; i < 5; i++) expect((await get('10.0.0.3')).status).toBe(200);
    // A WebSocket that closes makes room for its client.
    const first = /** @type {WebSocket} */ (sockets[0]);
    await new Promise((resolve) => {
      first.once('close', resolve);
      first.close();
    });
    await expect.poll(async () => (await get('10.0.0.1')).status).toBe(200);
    // A peer that is not a trusted proxy is its own address, whatever it forwards.
    expect([
      await ws('10.0.0.4', '127.0.0.2'),
      await ws('10.0.0.5', '127.0.0.2'),
      await ws('10.0.0.6', '127.0.0.2'),
    ]).toEqual(['open', 'open', 'open']);
    expect(await ws('10.0.0.7', '127.0.0.2')).toBe(429);
  });

  it('the cap is configurable; 0 is no limit', async () => {
    const capped = await servers.server({ appOptions: { connectionsPerAddress: 3 } });
    const free = await servers.server({ appOptions: { connectionsPerAddress: 0 } });
    /** @type {WebSocket[]} */
    const sockets = [];
    servers.defer(() => {
      for (const ws of sockets) ws.terminate();
    });
    /** @param {string} wsBase */
    const open = async (wsBase) => {
      const batch = await Promise.all(Array.from({ length: 6 }, () => tryWs(`${wsBase}/live`)));
      sockets.push(...batch.map((b) => b.ws));
      return batch.filter((b) => b.result === 'open').length;
    };
    expect(await open(capped.wsBase)).toBe(3);
    expect(await open(free.wsBase)).toBe(6);
  });
});

describe('timeouts', () => {
  it('the defaults: a request head within 10 s, a body within 30 s, checked every second', async () => {
    const s = await servers.server();
    const server = /** @type {import('node:http').Server} */ (s.app.server);
    expect(server.headersTimeout).toBe(HTTP_TIMEOUTS.headersTimeout);
    expect(server.requestTimeout).toBe(HTTP_TIMEOUTS.requestTimeout);
    expect(server.keepAliveTimeout).toBe(HTTP_TIMEOUTS.keepAliveTimeout);
    expect(HTTP_TIMEOUTS).toMatchObject({
      headersTimeout: 10_000,
      requestTimeout: 30_000,
      connectionsCheckingInterval: 1000,
    });
  });

  it('slow headers and an idle connection before an upgrade are answered 408 SC_ERR_TIMEOUT and closed; a long poll is not cut', async () => {
    const s = await servers.server({
      autoplay: false,
      appOptions: { httpTimeouts: { headersTimeout: 300, requestTimeout: 600, connectionsCheckingInterval: 50 } },
    });
    const port = portOf(s.base);
    const slow = rawConnection(port);
    slow.socket.write('GET /live HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n');
    const idle = rawConnection(port);
    for (const c of [slow, idle]) {
      const after = /** @type {number} */ (await c.closed);
      expect(after).toBeLessThan(3000);
      expect(c.received).toMatch(/^HTTP\/1\.1 408 /);
      expect(JSON.parse(c.received.split('\r\n\r\n')[1]).code).toBe('SC_ERR_TIMEOUT');
    }
    // A response may take longer than the request timeout: a long poll held 1 s is answered.
    const [snapshot] = await (await fetch(`${s.base}/live/poll`)).json();
    const t0 = performance.now();
    const held = await fetch(`${s.base}/live/poll?epoch=${snapshot.epoch}&since=${snapshot.seq}&wait=1000`);
    expect(held.status).toBe(200);
    expect((await held.json())[0].type).toBe('heartbeat');
    expect(performance.now() - t0).toBeGreaterThan(900);
  });

  it('headers over 16 KB answer 431 with a catalogue code', async () => {
    const s = await servers.server();
    const c = rawConnection(portOf(s.base));
    c.socket.write(`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    await c.closed;
    expect(c.received).toMatch(/^HTTP\/1\.1 431 /);
    expect(JSON.parse(c.received.split('\r\n\r\n')[1])).toMatchObject({ code: 'SC_ERR_HEADERS_TOO_BIG' });
  });
});

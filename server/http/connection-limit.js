// Bounds on connections: how long a request may take to arrive, and how
// many connections one address may hold open at once.

import { ERRORS } from '../../core/errors.js';
import { addressKey } from './address-key.js';

/**
 * Node's HTTP server timeouts (ms). A connection that has not sent a whole request head within
 * `headersTimeout` (whether it sent part of one, or nothing since it connected: the idle time
 * before a WebSocket upgrade is the same clock) is answered 408 and closed; a request body must
 * arrive within `requestTimeout`. Neither limits a response: long polls, SSE and WebSockets live
 * as long as they need. They are checked every `connectionsCheckingInterval` (Node's default of
 * 30 s let 200 slow-header connections stay half a minute). An idle keep-alive connection is
 * closed after `keepAliveTimeout` (Fastify's default is 72 s; a phone reconnects in one round
 * trip, and idle sockets count against the address's connections).
 */
/** @type {Readonly<{ headersTimeout: number, requestTimeout: number, connectionsCheckingInterval: number, keepAliveTimeout: number }>} */
export const HTTP_TIMEOUTS = Object.freeze({
  headersTimeout: 10_000,
  requestTimeout: 30_000,
  connectionsCheckingInterval: 1000,
  keepAliveTimeout: 10_000,
});

/**
 * Connections one address may hold open at once, by default. Phones on the venue WiFi have an
 * address each and hold one or two connections (the live stream, a keep-alive socket); behind
 * a venue NAT or a reverse proxy all of them share one address, so the default leaves room for
 * about 250 phones there while refusing one machine's flood of sockets. 20,000 open files per
 * process (these machines) is about 39 such addresses. 0: no limit (`--connections-per-address`).
 */
export const CONNECTIONS_PER_ADDRESS = 512;

/**
 * Count the connections each client holds open (addressKey: an IPv6 /64 is one address) and
 * refuse those past `perAddress`. A direct peer is counted as its socket is accepted, and one
 * past the cap is refused at once: a plain-HTTP peer reads `429 SC_ERR_ADDRESS_LIMIT` (before it
 * sends anything), a TLS peer's connection is just closed. A trusted proxy's socket (nginx) is not
 * counted against the proxy, which stands for every phone: its sockets are pooled between
 * clients, so what counts there is each request in flight and each WebSocket, against the client
 * the proxy forwarded (client-address.js), from `onRequest` and `admitUpgrade` until it ends.
 * Without those, behind nginx the whole venue shared one address's cap and one machine holding
 * 1,024 WebSockets locked every phone out.
 * @param {import('node:net').Server} server  an http or https server
 * @param {{ perAddress: number, plain: boolean, clients?: import('./client-address.js').ClientAddress }} options
 *   perAddress 0: no limit; clients: who the client of a proxied request is (default: no proxy)
 */
export function limitConnections(server, { perAddress, plain, clients }) {
  /** @type {Map<string, number>} */
  const open = new Map();
  /** Sockets from a trusted proxy, decided once as each is accepted. */
  /** @type {WeakSet<object>} */
  const proxied = new WeakSet();
  const def = ERRORS.SC_ERR_ADDRESS_LIMIT;
  const message = `${def.message} (${perAddress} connections at once)`;
  const body = JSON.stringify({ code: def.code, message });
  const refusal = `HTTP/1.1 ${def.status} Too Many Requests\r\nConnection: close\r\nRetry-After: 5\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
  const refused = Object.freeze({ code: def.code, message });
  /** @param {string} key */
  const release = (key) => {
    const left = (open.get(key) ?? 1) - 1;
    if (left > 0) open.set(key, left);
    else open.delete(key);
  };
  /**
   * One more connection for `key`, or false when it holds its cap.
   * @param {string} key
   */
  const claim = (key) => {
    const n = open.get(key) ?? 0;
    if (n >= perAddress) return false;
    open.set(key, n + 1);
    return true;
  };
  const count = (/** @type {string} */ ip) => open.get(addressKey(ip)) ?? 0;
  if (perAddress <= 0)
    return {
      count: () => 0,
      /** @type {import('fastify').onRequestHookHandler} */
      onRequest: (_req, _reply, done) => done(),
      admitUpgrade: () => true,
    };
  server.on('connection', (/** @type {import('node:net').Socket} */ socket) => {
    if (clients?.isProxy(socket.remoteAddress)) {
      proxied.add(socket);
      return;
    }
    const ip = addressKey(socket.remoteAddress);
    if (!claim(ip)) {
      if (plain) socket.end(refusal);
      socket.destroySoon();
      return;
    }
    socket.once('close', () => release(ip));
  });
  return {
    /** Connections open from `ip` (and the rest of its /64, for IPv6). @param {string} ip */
    count,
    /**
     * A Fastify onRequest hook: a request that came through a trusted proxy holds one of its
     * client's connections until its response ends (a long poll or an SSE stream as long as it
     * lasts); past the cap it is answered 429 SC_ERR_ADDRESS_LIMIT. Other requests pass: their
     * socket was counted as it opened.
     * @type {import('fastify').onRequestHookHandler}
     */
    onRequest(req, reply, done) {
      if (!proxied.has(req.raw.socket)) return done();
      const key = addressKey(req.ip);
      if (!claim(key)) {
        reply.code(def.status).header('retry-after', '5').send(refused);
        return;
      }
      reply.raw.once('close', () => release(key));
      done();
    },
    /**
     * Whether a WebSocket upgrade may go on. Through a trusted proxy it holds one of its
     * client's connections until the socket closes; past the cap it is answered 429 and closed.
     * @param {import('node:http').IncomingMessage} req
     * @param {import('node:stream').Duplex} socket
     * @param {string} client  the client of the upgrade (client-address.js)
     */
    admitUpgrade(req, socket, client) {
      if (!proxied.has(req.socket)) return true;
      const key = addressKey(client);
      if (!claim(key)) {
        socket.end(refusal, () => socket.destroy());
        return false;
      }
      socket.once('close', () => release(key));
      return true;
    },
  };
}

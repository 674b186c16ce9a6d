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
 * Count the server's connections per peer address (addressKey: an IPv6 /64 is one address) and refuse those past `perAddress` at once:
 * a plain-HTTP peer reads `429 SC_ERR_ADDRESS_LIMIT` (before it sends anything: the check is at
 * accept), a TLS peer's connection is just closed.
 * @param {import('node:net').Server} server  an http or https server
 * @param {{ perAddress: number, plain: boolean }} options  perAddress 0: no limit
 */
export function limitConnections(server, { perAddress, plain }) {
  /** @type {Map<string, number>} */
  const open = new Map();
  const def = ERRORS.SC_ERR_ADDRESS_LIMIT;
  const body = JSON.stringify({ code: def.code, message: `${def.message} (${perAddress} connections at once)` });
  const refusal = `HTTP/1.1 ${def.status} Too Many Requests\r\nConnection: close\r\nRetry-After: 5\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
  if (perAddress <= 0) return { count: () => 0 };
  server.on('connection', (/** @type {import('node:net').Socket} */ socket) => {
    const ip = addressKey(socket.remoteAddress);
    const n = open.get(ip) ?? 0;
    if (n >= perAddress) {
      if (plain) socket.end(refusal);
      socket.destroySoon();
      return;
    }
    open.set(ip, n + 1);
    socket.once('close', () => {
      const left = (open.get(ip) ?? 1) - 1;
      if (left > 0) open.set(ip, left);
      else open.delete(ip);
    });
  });
  return {
    /** Connections open from `ip` (and the rest of its /64, for IPv6). @param {string} ip */
    count: (ip) => open.get(addressKey(ip)) ?? 0,
  };
}

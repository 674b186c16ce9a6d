// Who "the client" is, one answer for every per-address limit (doc/security.md, "Behind a reverse
// proxy"). Without trusted proxies it is the TCP peer. With them (`--trust-proxy`: nginx's
// address) it is the address the nearest untrusted hop has in X-Forwarded-For, read by
// @fastify/proxy-addr with the one compiled trust list that Fastify's req.ip uses too: an HTTP
// request, a WebSocket upgrade, a tap, a report and a sign-in of one phone all count against one
// key, and a client that writes X-Forwarded-For itself gains nothing unless a trusted proxy
// passes that header on (ours overwrites it: infra/nginx/scorecast.conf.template).

import proxyAddr from '@fastify/proxy-addr';

/**
 * @typedef {object} ClientAddress
 * @property {((address: string, hop: number) => boolean) | null} trust  the compiled trust list
 *   (Fastify's `trustProxy`), null without trusted proxies
 * @property {(address: string | undefined) => boolean} isProxy  whether a TCP peer is a trusted proxy
 * @property {(req: import('node:http').IncomingMessage) => string} of  the client of a request or
 *   upgrade: the TCP peer, or the address a trusted proxy forwarded
 */

/**
 * @param {string[] | null | undefined} trustProxy  addresses or CIDRs of trusted proxies (none: the
 *   TCP peer is the client)
 * @returns {ClientAddress}
 */
export function createClientAddress(trustProxy) {
  if (!trustProxy || trustProxy.length === 0)
    return { trust: null, isProxy: () => false, of: (req) => req.socket.remoteAddress ?? '' };
  const trust = proxyAddr.compile(trustProxy);
  return {
    trust,
    isProxy: (address) => address !== undefined && trust(address, 0),
    of: (req) => proxyAddr(req, trust),
  };
}

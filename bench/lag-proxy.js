// A TCP proxy on loopback that delays each direction's bytes by a latency plus random jitter, in
// order (as TCP over a jittery WiFi link delivers them: a late segment holds back the ones behind
// it). For bench/sync.js: pages reach the server through it as phones would through an access
// point. Loopback only.

import net from 'node:net';

/**
 * @typedef {object} LagProxy
 * @property {number} port
 * @property {() => Promise<void>} close
 */

/**
 * @param {{ target: number, latencyMs: number, jitterMs: number, random?: () => number }} o
 *   each chunk is delivered latencyMs ± jitterMs (uniform, at least 0) after it was read, and
 *   never before the chunk read before it
 * @returns {Promise<LagProxy>}
 */
export async function startLagProxy({ target, latencyMs, jitterMs, random = Math.random }) {
  /** @type {Set<net.Socket>} */
  const sockets = new Set();
  const delay = () => Math.max(0, latencyMs + (2 * random() - 1) * jitterMs);

  /**
   * @param {net.Socket} from
   * @param {net.Socket} to
   */
  function pipe(from, to) {
    let last = 0;
    from.on('data', (chunk) => {
      const at = Math.max(last, performance.now() + delay());
      last = at;
      setTimeout(() => { if (!to.destroyed) to.write(chunk); }, at - performance.now());
    });
    from.on('end', () => setTimeout(() => to.end(), Math.max(0, last - performance.now()) + 1));
    from.on('error', () => to.destroy());
    from.on('close', () => setTimeout(() => to.destroy(), Math.max(0, last - performance.now()) + 1));
  }

  const server = net.createServer((client) => {
    const upstream = net.connect(target, '127.0.0.1');
    for (const s of [client, upstream]) {
      s.setNoDelay(true);
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
    }
    pipe(client, upstream);
    pipe(upstream, client);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
  const { port } = /** @type {net.AddressInfo} */ (server.address());
  return {
    port,
    close: () => new Promise((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    }),
  };
}

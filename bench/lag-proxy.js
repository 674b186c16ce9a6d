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
    /** @type {Array<{ at: number, chunk: Buffer | null }>} null: the end */
    const queue = [];
    /** @type {NodeJS.Timeout | null} */
    let timer = null;
    // One timer per direction, draining in order: separate timers of fractional delays may fire
    // out of order.
    const drain = () => {
      timer = null;
      while (queue.length > 0 && queue[0].at <= performance.now()) {
        const { chunk } = /** @type {{ at: number, chunk: Buffer | null }} */ (queue.shift());
        if (to.destroyed) return;
        if (chunk) to.write(chunk);
        else to.end();
      }
      if (queue.length > 0) timer = setTimeout(drain, Math.max(1, queue[0].at - performance.now()));
    };
    /** @param {Buffer | null} chunk */
    const push = (chunk) => {
      last = Math.max(last, performance.now() + delay());
      queue.push({ at: last, chunk });
      if (timer === null) timer = setTimeout(drain, Math.max(0, queue[0].at - performance.now()));
    };
    from.on('data', (chunk) => push(chunk));
    from.on('end', () => push(null));
    from.on('error', () => to.destroy());
    from.on('close', () => {
      if (queue.length === 0) to.destroy();
      else setTimeout(() => to.destroy(), last - performance.now() + 50);
    });
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
    close: () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

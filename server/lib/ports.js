// Loopback ports for the processes scorecast starts itself: the preview's `--port 0`, the
// cluster runner's Redis, edges and nginx, and the test harnesses.

import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * A free port on `host`, chosen by the kernel and closed again before it is returned (whoever
 * listens on it next must be quick: another process could take it meanwhile).
 * @param {string} [host]
 * @returns {Promise<number>}
 */
export function freePort(host = '127.0.0.1') {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, host, () => {
      const { port } = /** @type {net.AddressInfo} */ (srv.address());
      srv.close(() => resolve(port));
    });
  });
}

/**
 * Resolves once something accepts TCP connections on `host:port`, trying every 50 ms; throws
 * after `ms` milliseconds naming what did not come up.
 * @param {number} port
 * @param {number} ms
 * @param {{ host?: string, what?: string }} [options]
 */
export async function waitForPort(port, ms, { host = '127.0.0.1', what = 'nothing' } = {}) {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    const ok = await new Promise((resolve) => {
      const s = net.connect(port, host, () => {
        s.destroy();
        resolve(true);
      });
      s.on('error', () => resolve(false));
    });
    if (ok) return;
    await sleep(50);
  }
  throw new Error(
    `${what === 'nothing' ? 'nothing listens' : `${what} did not listen`} on ${host}:${port} after ${ms} ms`,
  );
}

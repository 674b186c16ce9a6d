// A TCP proxy on loopback that can go silent: while paused it forwards nothing either way and
// closes nothing, like a phone whose access point vanished (the sockets stay open; TCP delivers
// what was held once the link is back). Browsers without Playwright's setOffline (WebKitGTK over
// WebDriver, Firefox over BiDi) get their silent cut from this.

import net from 'node:net';

/**
 * @typedef {object} PauseProxy
 * @property {number} port  where the page connects (127.0.0.1)
 * @property {() => void} pause  stop forwarding on every connection, and on new ones
 * @property {() => void} resume  forward again, what was held first
 * @property {() => number} connections  connections accepted so far
 * @property {() => Promise<void>} close  closes the listener and every connection
 */

/**
 * Proxy 127.0.0.1:<free port> to 127.0.0.1:`target`.
 * @param {number} target
 * @returns {Promise<PauseProxy>}
 */
export async function startPauseProxy(target) {
  let paused = false;
  let accepted = 0;
  /** @type {Set<net.Socket>} */
  const sockets = new Set();
  const server = net.createServer((client) => {
    accepted++;
    const upstream = net.connect(target, '127.0.0.1');
    for (const [from, to] of [
      [client, upstream],
      [upstream, client],
    ]) {
      sockets.add(from);
      // Not pipe(): a paused socket must stay paused when the other side drains.
      from.on('data', (chunk) => {
        if (!to.write(chunk) && !paused) {
          from.pause();
          to.once('drain', () => {
            if (!paused) from.resume();
          });
        }
      });
      from.on('end', () => to.end());
      from.on('error', () => to.destroy());
      from.on('close', () => {
        sockets.delete(from);
        to.destroy();
      });
      if (paused) from.pause();
    }
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve(undefined));
  });
  return {
    port: /** @type {net.AddressInfo} */ (server.address()).port,
    pause() {
      paused = true;
      for (const s of sockets) s.pause();
    },
    resume() {
      paused = false;
      for (const s of sockets) s.resume();
    },
    connections: () => accepted,
    close() {
      for (const s of sockets) s.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

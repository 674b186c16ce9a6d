// A loopback TCP proxy in front of the server that can act like a venue firewall refusing
// WebSocket upgrades while plain HTTP gets through (as some access points do). A page loaded
// through it can "roam" onto such a network mid-piece when a test turns blocking on.

import net from 'node:net';

/**
 * @param {{ target: number }} options the server's port on 127.0.0.1
 * @returns {Promise<{ port: number, base: string, blockWebSockets: (on: boolean) => void, close: () => Promise<void> }>}
 */
export async function startFirewall({ target }) {
  let blocking = false;
  /** @type {Set<net.Socket>} */
  const sockets = new Set();
  const server = net.createServer((client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => {});
    client.once('data', (first) => {
      // A new connection's first bytes are its request line and headers.
      if (blocking && /^upgrade:\s*websocket/im.test(first.toString('latin1'))) {
        client.end('HTTP/1.1 403 Forbidden\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
        return;
      }
      const upstream = net.connect(target, '127.0.0.1', () => {
        upstream.write(first);
        client.pipe(upstream).pipe(client);
      });
      sockets.add(upstream);
      upstream.on('close', () => { sockets.delete(upstream); client.destroy(); });
      upstream.on('error', () => client.destroy());
      client.on('close', () => upstream.destroy());
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
  const { port } = /** @type {net.AddressInfo} */ (server.address());
  return {
    port,
    base: `http://127.0.0.1:${port}`,
    /** @param {boolean} on */
    blockWebSockets(on) { blocking = on; },
    close: () => new Promise((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    }),
  };
}

// A loopback TCP proxy in front of the server that can act like a venue firewall refusing
// WebSocket upgrades while plain HTTP gets through (as some access points do). A page loaded
// through it can "roam" onto such a network mid-piece: `roam()` ends every connection made so
// far as a network change does (the phone's system drops the sockets of the address it lost, so
// the browser learns at once; the server hears nothing and must find out by itself), and a test
// turns blocking on for the connections made after.

import net from 'node:net';

/**
 * @param {{ target: number }} options the server's port on 127.0.0.1
 * @returns {Promise<{ port: number, base: string, blockWebSockets: (on: boolean) => void, roam: () => void, close: () => Promise<void> }>}
 */
export async function startFirewall({ target }) {
  let blocking = false;
  /** @type {Set<net.Socket>} */
  const sockets = new Set();
  /** Each proxied connection: once silenced, the server side hears nothing more, not even a close. */
  /** @type {Set<{ client: net.Socket, upstream: net.Socket, silent: boolean }>} */
  const tunnels = new Set();
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
        if (tunnel.silent) return;
        upstream.write(first);
        client.pipe(upstream).pipe(client);
      });
      const tunnel = { client, upstream, silent: false };
      tunnels.add(tunnel);
      sockets.add(upstream);
      upstream.on('close', () => {
        sockets.delete(upstream);
        tunnels.delete(tunnel);
        if (!tunnel.silent) client.destroy();
      });
      upstream.on('error', () => {
        if (!tunnel.silent) client.destroy();
      });
      client.on('close', () => {
        tunnels.delete(tunnel);
        if (!tunnel.silent) upstream.destroy();
      });
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
  const { port } = /** @type {net.AddressInfo} */ (server.address());
  return {
    port,
    base: `http://127.0.0.1:${port}`,
    /** @param {boolean} on */
    blockWebSockets(on) {
      blocking = on;
    },
    roam() {
      for (const t of tunnels) {
        t.silent = true;
        t.client.unpipe(t.upstream);
        t.upstream.unpipe(t.client);
        t.upstream.pause();
        t.client.destroy();
      }
    },
    close: () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

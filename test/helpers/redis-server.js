// A real redis-server for cluster tests, on a free loopback port, without persistence; and a TCP
// proxy in front of it that a test can cut (a node losing Redis) and restore.

import { spawn, spawnSync } from 'node:child_process';
import net from 'node:net';
import { freePort, waitForPort } from '../../server/lib/ports.js';

/** Whether redis-server is installed (test/setup/ensure-deps.sh installs it for `npm test`). */
export const HAVE_REDIS = spawnSync('redis-server', ['--version']).status === 0;

export { freePort };

/**
 * Start redis-server; `restart()` stops it and starts it again empty on the same port.
 * @param {{ port?: number }} [options]
 */
export async function startRedis({ port } = {}) {
  const p = port ?? (await freePort());
  /** @type {import('node:child_process').ChildProcess} */
  let child;
  const launch = async () => {
    child = spawn('redis-server', ['--bind', '127.0.0.1', '--port', String(p), '--save', '', '--appendonly', 'no'], {
      stdio: 'ignore',
    });
    await waitForPort(p, 5000, { what: 'redis-server' });
  };
  const stop = async () => {
    if (child.exitCode !== null) return;
    const gone = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await gone;
  };
  await launch();
  return {
    port: p,
    url: `redis://127.0.0.1:${p}`,
    stop,
    async restart() {
      await stop();
      await launch();
    },
  };
}

/**
 * A proxy on a free port to `port`: cut() closes every connection through it and refuses new
 * ones until restore().
 * @param {number} port
 */
export async function startCutProxy(port) {
  /** @type {Set<net.Socket>} */
  const sockets = new Set();
  let cut = false;
  const server = net.createServer((client) => {
    if (cut) {
      client.destroy();
      return;
    }
    const upstream = net.connect(port, '127.0.0.1');
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => {});
    }
    client.pipe(upstream);
    upstream.pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', () => r(undefined)));
  const { port: own } = /** @type {net.AddressInfo} */ (server.address());
  return {
    url: `redis://127.0.0.1:${own}`,
    cut() {
      cut = true;
      for (const s of sockets) s.destroy();
    },
    restore() {
      cut = false;
    },
    close() {
      for (const s of sockets) s.destroy();
      return new Promise((r) => server.close(r));
    },
  };
}

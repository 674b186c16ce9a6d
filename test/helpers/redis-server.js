// A real redis-server for cluster tests, on a free loopback port, without persistence, locked
// down as a venue's should be (infra/systemd/README.md): the default user off, one user per role
// with a random password (server/cluster/redis-acl.js), optionally TLS only; and a TCP proxy in
// front of it that a test can cut (a node losing Redis) and restore.

import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freePort, waitForPort } from '../../server/lib/ports.js';
import { REDIS_USERS, aclConfig } from '../../server/cluster/redis-acl.js';
import { testCa } from './tls-certs.js';

/** Whether redis-server is installed (test/setup/ensure-deps.sh installs it for `npm test`). */
export const HAVE_REDIS = spawnSync('redis-server', ['--version']).status === 0;

export { freePort };

/**
 * A CA and a certificate for 127.0.0.1 signed by it, made with openssl in `dir`.
 * @param {string} dir
 */
function makeCertificates(dir) {
  const { ca, leaf } = testCa({ dir, days: 1 });
  const { cert, key } = leaf({ name: '127.0.0.1', file: 'redis', days: 1 });
  return { ca, cert, key };
}

/**
 * Start redis-server; `restart()` stops it and starts it again empty on the same port.
 * `urls.edge` and `urls.conductor` carry each role's user and password; `url` is the
 * conductor's.
 * @param {{ port?: number, tls?: boolean }} [options]
 */
export async function startRedis({ port, tls = false } = {}) {
  const p = port ?? (await freePort());
  const dir = mkdtempSync(path.join(os.tmpdir(), 'scorecast-redis-'));
  const pw = () => randomBytes(18).toString('base64url');
  const passwords = { edge: pw(), conductor: pw(), admin: pw() };
  const certs = tls ? makeCertificates(dir) : null;
  const conf = path.join(dir, 'redis.conf');
  writeFileSync(
    conf,
    [
      'bind 127.0.0.1',
      'protected-mode yes',
      ...(certs
        ? ['port 0', `tls-port ${p}`, `tls-cert-file ${certs.cert}`, `tls-key-file ${certs.key}`].concat([
            `tls-ca-cert-file ${certs.ca}`,
            'tls-auth-clients no',
          ])
        : [`port ${p}`]),
      'save ""',
      'appendonly no',
      // Every prefix (the tests give each its own); and a user for the tests' own look at Redis.
      aclConfig(passwords, '*:'),
      `user admin on >${passwords.admin} ~* &* +@all`,
      '',
    ].join('\n'),
    { mode: 0o600 },
  );
  /** @type {import('node:child_process').ChildProcess} */
  let child;
  const launch = async () => {
    child = spawn('redis-server', [conf], { stdio: 'ignore' });
    await waitForPort(p, 5000, { what: 'redis-server' });
  };
  const stop = async () => {
    if (child.exitCode !== null) return;
    const gone = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await gone;
  };
  await launch();
  const scheme = tls ? 'rediss' : 'redis';
  /** @param {'edge' | 'conductor' | 'admin'} role */
  const urlOf = (role) =>
    `${scheme}://${role === 'admin' ? 'admin' : REDIS_USERS[role]}:${passwords[role]}@127.0.0.1:${p}`;
  return {
    port: p,
    url: urlOf('conductor'),
    urls: { edge: urlOf('edge'), conductor: urlOf('conductor') },
    /** Every command on every key: for a test's own look at what Redis holds. */
    adminUrl: urlOf('admin'),
    /** Without a user or password. */
    openUrl: `${scheme}://127.0.0.1:${p}`,
    passwords,
    /** The CA certificate (PEM) that signed the server's, with `tls`. */
    ca: certs ? readFileSync(certs.ca, 'utf8') : undefined,
    caFile: certs?.ca,
    stop: async () => {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
    async restart() {
      await stop();
      await launch();
    },
  };
}

/**
 * A proxy on a free port to `port`: cut() closes every connection through it and refuses new
 * ones until restore(). Its `url` is `through` (a Redis URL, with its user and password) with
 * the proxy's port.
 * @param {number} port
 * @param {string} [through]
 */
export async function startCutProxy(port, through = `redis://127.0.0.1:${port}`) {
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
  const url = new URL(through);
  url.port = String(own);
  return {
    url: url.toString(),
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

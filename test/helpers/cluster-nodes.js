// Cluster nodes as real processes (server/commands/start.js --redis ...), for tests that kill them.

import { forkServer } from '../../artillery/lib/server.js';
import { fork } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { requestFrom } from '../../infra/lab/json-request.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const CLUSTER_SCORE = path.join(ROOT, 'test', 'fixtures', 'cluster');
export const CLUSTER_TOKEN = 'cluster-token-0123456789';
/** The cluster fixture with two parts (violin, cello), for the roster and play when ready. */
export const CLUSTER_PARTS_SCORE = path.join(ROOT, 'test', 'fixtures', 'cluster-parts');

/**
 * Start one node; resolves when it listens. Its Redis URL, with the role's user and password,
 * goes in SCORECAST_REDIS (a password is never on a command line).
 * @param {{ redis: { edge: string, conductor: string }, role: 'conductor' | 'edge' | 'both', id: string,
 *   port?: number, args?: string[], env?: NodeJS.ProcessEnv, score?: string, startMs?: number }} options
 *   startMs: how long it may take to listen
 */
export async function startNode({
  redis,
  role,
  id,
  port = 0,
  args = [],
  env = {},
  score = CLUSTER_SCORE,
  startMs = 15_000,
}) {
  const server = await forkServer({
    root: ROOT,
    timeoutMs: startMs,
    env: { SCORECAST_REDIS: role === 'edge' ? redis.edge : redis.conductor, ...env },
    args: [
      '--score',
      score,
      '--host',
      '127.0.0.1',
      '--port',
      String(port),
      '--token',
      CLUSTER_TOKEN,
      '--role',
      role,
      '--node-id',
      id,
      '--log-level',
      'warn',
      ...args,
    ],
  }).catch((/** @type {Error} */ err) => {
    throw new Error(`node ${id}: ${err.message}`);
  });
  const base = server.url;
  return {
    id,
    child: server.child,
    port: server.port,
    base,
    wsBase: base.replace('http', 'ws'),
    stderr: server.output,
    /** @param {NodeJS.Signals} [signal] */
    stop: (signal = 'SIGTERM') => server.stop(signal),
  };
}

/** @typedef {Awaited<ReturnType<typeof startNode>>} TestNode */

/**
 * @param {string} base
 * @param {string} url
 * @param {{ method?: string, body?: unknown, token?: string | null }} [options]
 */
export async function call(base, url, { method = 'GET', body, token = CLUSTER_TOKEN } = {}) {
  /** @type {Record<string, string>} */
  const headers = {};
  if (token) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${base}${url}`, {
    method,
    headers,
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, body: await res.json() };
}

/**
 * A phone: a device credential from `base`, and a tap on a connection of its own (a phone's
 * taps never share a connection with another phone's, and the vote guard counts one vote per
 * connection and window).
 * @param {string} base
 */
export async function phone(base) {
  const { device } = (await call(base, '/api/device', { method: 'POST', token: null })).body;
  return {
    device,
    /**
     * @param {string} at  the node's base URL the tap goes to
     * @param {string} tile
     * @returns {Promise<{ status: number, body: any }>}
     */
    tap: (at, tile) => requestFrom(`${at}/api/tap`, { method: 'POST', body: { tile, device } }),
  };
}

/**
 * @param {() => Promise<boolean> | boolean} cond
 * @param {number} [ms]
 */
export async function until(cond, ms = 10_000) {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}

/**
 * Until `base`'s /api/cluster lists node `id` as the active conductor (it holds the lease).
 * @param {string} base @param {string} id @param {number} [ms]
 */
export const untilActive = (base, id, ms) =>
  until(
    async () => (await call(base, '/api/cluster')).body.nodes?.some((/** @type {any} */ n) => n.id === id && n.active),
    ms,
  );

/**
 * @typedef {object} RunningCluster
 * @property {string} url  nginx's base URL
 * @property {number} redisPort
 * @property {string} redisConf  the configuration Redis was started with (users and passwords), to start it again
 * @property {{ name: string, pid: number, port: number }[]} procs
 * @property {() => Promise<void>} stop
 */

/**
 * The whole cluster as `npm run cluster` runs it (infra/cluster/run.js: Redis, two conductors,
 * `edges` edges, nginx), on the cluster fixture, waiting to be played; resolves when nginx listens.
 * @param {{ edges?: number }} [options]
 * @returns {Promise<RunningCluster>}
 */
export async function startCluster({ edges = 3 } = {}) {
  const runner = fork(
    path.join(ROOT, 'infra', 'cluster', 'run.js'),
    ['--edges', String(edges), '--port', '0', '--token', CLUSTER_TOKEN, '--score', CLUSTER_SCORE, '--no-autoplay'],
    { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] },
  );
  const ready = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the cluster was not ready within 60 s')), 60_000);
    runner.on('message', (m) => {
      clearTimeout(timer);
      resolve(/** @type {any} */ (m));
    });
    runner.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`npm run cluster exited (${code})`));
    });
  });
  return {
    ...ready,
    async stop() {
      if (runner.exitCode !== null || runner.signalCode !== null) return;
      const gone = new Promise((r) => runner.once('exit', r));
      runner.kill('SIGTERM');
      await gone;
    },
  };
}

/**
 * One HTTP request on a connection of its own from `localAddress` (any 127.x.y.z: a phone of its
 * own to a server on loopback), answered with its status and body (JSON when it parses).
 */
export { requestFrom };

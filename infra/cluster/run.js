#!/usr/bin/env node
// `npm run cluster -- --edges 3 --port 8080`: a whole cluster on loopback (README, "Several
// machines"): Redis, an active and a standby conductor, N edges and nginx in front of them,
// installed from Debian's packages when missing. Prints `cluster ready: http://127.0.0.1:PORT`
// and stops everything on SIGINT or SIGTERM. Started by a harness over IPC (tests, benchmarks),
// it also sends {type: 'ready', ...} with every process's port and pid.

import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { randomBytes } from 'node:crypto';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { freePort, waitForPort } from '../../server/lib/ports.js';
import { REDIS_USERS, aclConfig } from '../../server/cluster/redis-acl.js';
import { SERVER_NODE_FLAGS } from '../../server/commands/node-flags.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const TEMPLATE = path.join(ROOT, 'infra', 'nginx', 'scorecast.conf.template');

export const CLUSTER_USAGE = `usage: npm run cluster -- [options]

Runs a scorecast cluster on loopback: Redis, an active and a standby conductor, N edges and nginx
in front of them (redis-server and nginx are installed from Debian's packages when missing).
  --edges N      edges behind nginx (default 3)
  --port P       nginx's port, where the audience goes (default 8080)
  --score DIR    the score package (default scores/demo)
  --token T      the conductor token (SCORECAST_TOKEN; generated when unset)
  --no-autoplay  wait for the conductor instead of playing the demo at once
  -h, --help     this text
`;

/**
 * nginx's configuration for edges on `ports` (on loopback) or at `servers` (host:port, on other
 * hosts), listening on `listen`, files under `prefix`.
 * @param {{ ports?: number[], servers?: string[], listen: string, prefix: string, workers?: number | 'auto' }} options
 *   workers: nginx's worker processes ('auto': one a core; one worker was one core's worth of
 *   headroom against a flood)
 */
export function nginxConfig({
  ports = [],
  servers = ports.map((p) => `127.0.0.1:${p}`),
  listen,
  prefix,
  workers = 'auto',
}) {
  return readFileSync(TEMPLATE, 'utf8')
    .replaceAll('@@PREFIX@@', prefix)
    .replaceAll('@@LISTEN@@', listen)
    .replaceAll('@@WORKERS@@', String(workers))
    .replace('@@EDGES@@', servers.map((s) => `    server ${s} max_fails=1 fail_timeout=2s;`).join('\n'));
}

/** @param {string} name */
const installed = (name) => spawnSync('sh', ['-c', `command -v ${name} || test -x /usr/sbin/${name}`]).status === 0;
/** @param {string} name */
const binary = (name) =>
  spawnSync('sh', ['-c', `command -v ${name}`])
    .stdout.toString()
    .trim() || `/usr/sbin/${name}`;

/** redis-server and nginx from Debian's packages, when missing. */
function ensureServers() {
  const need = [
    ['redis-server', 'redis-server'],
    ['nginx', 'nginx'],
  ]
    .filter(([bin]) => !installed(bin))
    .map(([, pkg]) => pkg);
  if (need.length === 0) return;
  process.stderr.write(`cluster: installing ${need.join(' ')} from Debian's packages\n`);
  const sudo = process.getuid?.() === 0 ? [] : ['sudo'];
  const run = (/** @type {string[]} */ args) => {
    const r = spawnSync(sudo[0] ?? args[0], sudo.length ? args : args.slice(1), {
      stdio: 'inherit',
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
    if (r.status !== 0) throw new Error(`${args.join(' ')} failed`);
  };
  run(['apt-get', 'update', '-qq']);
  run(['apt-get', 'install', '-y', '-qq', ...need]);
}

/**
 * @param {string[]} argv
 */
export async function main(argv) {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(CLUSTER_USAGE);
    process.exit(0);
  }
  const { values } = parseArgs({
    args: argv,
    options: {
      edges: { type: 'string', default: '3' },
      port: { type: 'string', default: '8080' },
      score: { type: 'string' },
      token: { type: 'string' },
      'no-autoplay': { type: 'boolean' },
    },
    strict: true,
  });
  const edges = Number(values.edges);
  const port = Number(values.port);
  if (!(Number.isInteger(edges) && edges >= 1 && edges <= 32))
    throw new Error(`--edges must be 1..32, got "${values.edges}"`);
  if (!(Number.isInteger(port) && port >= 0 && port < 65536))
    throw new Error(`--port must be 0..65535, got "${values.port}"`);
  const token = values.token ?? process.env.SCORECAST_TOKEN ?? randomBytes(18).toString('base64url');
  const score = path.resolve(values.score ?? path.join(ROOT, 'scores', 'demo'));
  const autoplay = !values['no-autoplay'];
  ensureServers();
  if (!existsSync(path.join(ROOT, 'dist', 'client', 'index.html'))) {
    process.stderr.write('cluster: building the client first (npm run build)\n');
    if (spawnSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'inherit' }).status !== 0)
      throw new Error('npm run build failed');
  }

  const dir = mkdtempSync(path.join(os.tmpdir(), 'scorecast-cluster-'));
  // nginx's workers drop root for `nobody` and must reach their cache and temporary files.
  chmodSync(dir, 0o755);
  for (const d of ['tmp', 'cache']) mkdirSync(path.join(dir, d));
  /** @type {{ name: string, child: import('node:child_process').ChildProcess, port: number }[]} */
  const procs = [];
  let stopping = false;
  /**
   * @param {string} name @param {string} cmd @param {string[]} args @param {number} p
   * @param {import('node:child_process').SpawnOptions} [options]
   */
  const start = (name, cmd, args, p, options = {}) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'ignore', 'inherit'], ...options });
    child.on('exit', (code, signal) => {
      if (!stopping) process.stderr.write(`cluster: ${name} exited (${signal ?? code})\n`);
    });
    procs.push({ name, child, port: p });
    return child;
  };

  const stop = async () => {
    if (stopping) return;
    stopping = true;
    // nginx first (no new requests), then the edges, the conductors, Redis last.
    for (const p of [...procs].reverse()) {
      if (p.child.exitCode !== null || p.child.signalCode !== null) continue;
      const gone = new Promise((r) => p.child.once('exit', r));
      p.child.kill(p.name === 'nginx' ? 'SIGQUIT' : 'SIGTERM');
      await Promise.race([gone, new Promise((r) => setTimeout(r, 6000))]);
      if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
    }
    removeDir();
  };
  // nginx's cache manager may still be writing while it exits: retry, and never fail the stop.
  const removeDir = () => {
    try {
      rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
    } catch {
      /* left in the temp folder */
    }
  };
  process.on('exit', removeDir);
  process.on('SIGINT', () => {
    void stop().then(() => process.exit(0));
  });
  process.on('SIGTERM', () => {
    void stop().then(() => process.exit(0));
  });
  if (process.send)
    process.on('disconnect', () => {
      void stop().then(() => process.exit(0));
    });

  try {
    const redisPort = await freePort();
    // Redis as a venue's should be (infra/systemd/README.md): the default user off, a user per
    // role with a random password of its own. The passwords go to files only this user can
    // read (Redis's configuration keeps their SHA-256), never on a command line.
    /** @type {{ edge: string, conductor: string }} */
    const passwords = { edge: randomBytes(24).toString('base64url'), conductor: randomBytes(24).toString('base64url') };
    const redisConf = path.join(dir, 'redis.conf');
    writeFileSync(
      redisConf,
      [
        'bind 127.0.0.1',
        'protected-mode yes',
        `port ${redisPort}`,
        'save ""',
        'appendonly no',
        aclConfig(passwords),
        '',
      ].join('\n'),
      { mode: 0o600 },
    );
    /** @type {Record<'edge' | 'conductor', string>} */
    const passwordFiles = {
      edge: path.join(dir, 'redis-edge.password'),
      conductor: path.join(dir, 'redis-conductor.password'),
    };
    for (const role of /** @type {const} */ (['edge', 'conductor']))
      writeFileSync(passwordFiles[role], `${passwords[role]}\n`, { mode: 0o600 });
    start('redis', binary('redis-server'), [redisConf], redisPort);
    await waitForPort(redisPort, 5000);
    const redis = `redis://127.0.0.1:${redisPort}`;
    const env = { ...process.env, SCORECAST_QR: '0', SCORECAST_TOKEN: token };
    /** @param {string} id @param {'edge' | 'conductor'} role */
    const node = async (id, role) => {
      const p = await freePort();
      start(
        id,
        process.execPath,
        [
          // The flags the systemd unit and start.js's first line give the server: node is called
          // on start.js here, so its first line's flags would not apply.
          ...SERVER_NODE_FLAGS,
          path.join(ROOT, 'server', 'commands', 'start.js'),
          '--score',
          score,
          '--host',
          '127.0.0.1',
          '--port',
          String(p),
          '--redis',
          `redis://${REDIS_USERS[role]}@127.0.0.1:${redisPort}`,
          '--redis-password-file',
          passwordFiles[role],
          '--role',
          role,
          '--node-id',
          id,
          '--trust-proxy',
          '127.0.0.1',
          '--log-level',
          'warn',
          ...(autoplay ? ['--autoplay'] : []),
        ],
        p,
        { env },
      );
      await waitForPort(p, 20_000);
      return p;
    };
    // The first conductor takes the lease; the second stands by.
    await node('conductor-1', 'conductor');
    const [, ...edgePorts] = await Promise.all([
      node('conductor-2', 'conductor'),
      ...Array.from({ length: edges }, (_, i) => node(`edge-${i + 1}`, 'edge')),
    ]);
    const listenPort = port === 0 ? await freePort() : port;
    const conf = path.join(dir, 'nginx.conf');
    writeFileSync(conf, nginxConfig({ ports: edgePorts, listen: `127.0.0.1:${listenPort}`, prefix: dir }));
    start('nginx', binary('nginx'), ['-c', conf, '-p', dir], listenPort);
    await waitForPort(listenPort, 5000);
    const url = `http://127.0.0.1:${listenPort}`;
    process.stdout.write(
      `cluster ready: ${url}\n  conductor token: ${token}\n  nodes: ${url}/api/cluster (with the token)\n` +
        `  redis: ${redis} (users ${REDIS_USERS.edge} and ${REDIS_USERS.conductor}; passwords in ${dir}/redis-*.password)\n`,
    );
    process.send?.({
      type: 'ready',
      url,
      port: listenPort,
      token,
      redis,
      redisPort,
      redisConf,
      dir,
      procs: procs.map((p) => ({ name: p.name, pid: p.child.pid, port: p.port })),
    });
  } catch (err) {
    process.stderr.write(`cluster: ${/** @type {Error} */ (err).message}\n`);
    await stop();
    process.exit(1);
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main(process.argv.slice(2)).catch((err) => {
    process.stderr.write(`cluster: ${err.message}\nrun with --help for the options\n`);
    process.exit(2);
  });
}

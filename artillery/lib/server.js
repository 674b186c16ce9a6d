// Starts the scorecast server under test on a loopback port: `node server/commands/start.js --score
// scores/seed-profile --host 127.0.0.1 --autoplay`, forked with IPC so it tells us its port.

import { fork, spawn, spawnSync } from 'node:child_process';
import { existsSync, createWriteStream } from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { childEnv } from './env.js';

const START_TIMEOUT_MS = 30_000;

/**
 * The server under test, started here.
 * @typedef {{ pid: number, port: number, url: string, command: string, readonly exited: boolean, stop: () => Promise<void> }} StartedServer
 */

/**
 * The built client and the seed profile's generated audio must exist: `npm run build` makes them.
 * @param {string} root
 * @param {{ log?: (s: string) => void }} [options]
 */
export function ensureBuilt(root, { log = console.log } = {}) {
  const need = [
    path.join(root, 'dist', 'client', 'index.html'),
    path.join(root, 'scores', 'seed-profile', 'generated', 'ambience.wav'),
  ];
  const missing = need.filter((f) => !existsSync(f));
  if (missing.length === 0) return false;
  log(`qa: ${missing.map((f) => path.relative(root, f)).join(', ')} missing: running npm run build in ${root}`);
  const r = spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit', env: childEnv() });
  if (r.status !== 0) throw new Error(`npm run build in ${root} failed (exit ${r.status})`);
  return true;
}

/**
 * A server process that listens, as forkServer gives it.
 * @typedef {object} ForkedServer
 * @property {import('node:child_process').ChildProcess} child
 * @property {number} pid
 * @property {number} port
 * @property {string} url  http://127.0.0.1:port (or the host given)
 * @property {boolean} exited
 * @property {() => string} output  the last 4,000 characters it wrote (stdout and stderr)
 * @property {(signal?: NodeJS.Signals) => Promise<void>} stop  signal (default SIGTERM), then
 *   SIGKILL after 8 s; resolves when it has exited
 */

/**
 * Fork `server/commands/start.js` (or another entry of `root`, e.g. `server/commands/cli.js`, a benchmark's floor
 * server) with IPC, without waiting: the child, and the port it says it listens on
 * (`{type: 'listening', port}`). The one way the QA suite, the benchmarks, the browser tests and
 * the cluster tests start a server process; forkServer waits for it.
 * @param {{ root: string, args: string[], env?: NodeJS.ProcessEnv, entry?: string,
 *   timeoutMs?: number, logFile?: string, execArgv?: string[], echoErrors?: boolean, netns?: string }} options
 *   env: added to this process's environment, a key set to undefined taken out (SCORECAST_QR=0 is
 *   always set: no QR code in logs); echoErrors: its stderr also goes to this process's; netns: a
 *   network namespace to run it in (`ip netns exec`, which execs: the IPC channel stays)
 * @returns {{ child: import('node:child_process').ChildProcess, listening: Promise<number>,
 *   message: Promise<{ type: 'listening', port: number, url: string, token?: string, httpPort?: number | null }>,
 *   output: () => string }} listening: its port; message: the whole message it listens with
 *   (server/commands/start.js sends all of these)
 */
export function spawnServer({
  root,
  args,
  env = {},
  entry = path.join('server', 'commands', 'start.js'),
  timeoutMs = START_TIMEOUT_MS,
  logFile,
  execArgv,
  echoErrors = false,
  netns,
}) {
  const merged = /** @type {NodeJS.ProcessEnv} */ (childEnv({ SCORECAST_QR: '0', ...env }));
  for (const [k, v] of Object.entries(merged)) if (v === undefined) delete merged[k];
  /** @type {import('node:child_process').SpawnOptions} */
  const options = { cwd: root, env: merged, stdio: ['ignore', 'pipe', 'pipe', 'ipc'] };
  const child = netns
    ? spawn(
        'ip',
        ['netns', 'exec', netns, process.execPath, ...(execArgv ?? []), path.join(root, entry), ...args],
        options,
      )
    : fork(path.join(root, entry), args, { ...options, ...(execArgv ? { execArgv } : {}) });
  const out = logFile ? createWriteStream(logFile) : null;
  let tail = '';
  /** @param {Buffer} d */
  const keep = (d) => {
    out?.write(d);
    tail = (tail + d).slice(-4000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', (/** @type {Buffer} */ d) => {
    keep(d);
    if (echoErrors) process.stderr.write(d);
  });
  child.once('exit', () => out?.end());
  /** @type {Promise<any>} */
  const message = new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`server did not start in ${timeoutMs} ms:\n${tail}`));
    }, timeoutMs);
    child.on('message', (msg) => {
      const m = /** @type {{ type?: string, port?: number } | null} */ (/** @type {unknown} */ (msg));
      if (m && m.type === 'listening') {
        clearTimeout(timer);
        resolve(m);
      }
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`server exited (${code ?? signal}) before listening:\n${tail}`));
    });
  });
  /** @type {Promise<number>} */
  const listening = message.then((m) => m.port);
  // A caller that waits on the child itself (the benchmarks' waitFor) need not await these.
  message.catch(() => {});
  listening.catch(() => {});
  return { child, listening, message, output: () => tail };
}

/**
 * Fork a server (spawnServer) and wait until it listens.
 * @param {Parameters<typeof spawnServer>[0] & { host?: string }} options
 * @returns {Promise<ForkedServer>}
 */
export async function forkServer({ host = '127.0.0.1', ...options }) {
  const { child, listening, output } = spawnServer(options);
  const port = await listening;
  let exited = child.exitCode !== null || child.signalCode !== null;
  const exitPromise = new Promise((/** @type {(v?: unknown) => void} */ r) => {
    if (exited) r();
    else
      child.once('exit', () => {
        exited = true;
        r();
      });
  });
  return {
    child,
    pid: /** @type {number} */ (child.pid),
    port,
    url: `http://${host}:${port}`,
    get exited() {
      return exited;
    },
    output,
    async stop(signal = 'SIGTERM') {
      if (!exited) {
        child.kill(signal);
        const t = setTimeout(() => child.kill('SIGKILL'), 8000);
        await exitPromise;
        clearTimeout(t);
      }
    },
  };
}

/**
 * The QA suite's server: the seed profile (or `score`), autoplaying, on a free loopback port,
 * with a token of its own and no per-address caps.
 * @param {{ root: string, score?: string, logFile?: string, log?: (s: string) => void }} options
 * @returns {Promise<StartedServer>}
 */
export async function startServer({ root, score = 'scores/seed-profile', logFile, log = console.log }) {
  ensureBuilt(root, { log });
  const args = ['--score', score, '--port', '0', '--host', '127.0.0.1', '--autoplay', '--log-level', 'warn'];
  const token = `qa-${randomBytes(12).toString('hex')}`;
  const server = await forkServer({
    root,
    args,
    ...(logFile ? { logFile } : {}),
    // Every load client comes from loopback: no per-address caps (doc/security.md).
    env: {
      SCORECAST_CONNECTIONS_PER_ADDRESS: '0',
      SCORECAST_PHONES_PER_ADDRESS: '0',
      SCORECAST_TOKEN: token,
      NODE_ENV: 'production',
    },
  });
  return {
    pid: server.pid,
    port: server.port,
    url: server.url,
    command: `SCORECAST_QR=0 SCORECAST_TOKEN=... node server/commands/start.js ${args.join(' ').replace('--port 0', '--port <free>')}`,
    get exited() {
      return server.exited;
    },
    stop: () => server.stop(),
  };
}

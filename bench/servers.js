// The servers the benchmarks measure, as child processes: ours (server/commands/start.js of a checkout,
// autoplaying a score) and the floor (bench/floor-server.js, a bare `ws` server on our schedule).
// Waits for their IPC messages, stops them with SIGTERM then SIGKILL, and never leaves one behind
// when a benchmark exits early.

import { existsSync } from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { HEARTBEAT_MS } from '../core/constants.js';
import { measureSchedule } from './score-schedule.js';
import { spawnServer } from '../artillery/lib/server.js';

const BENCH = path.dirname(fileURLToPath(import.meta.url));
/** The conductor token of every server a benchmark starts. */
export const TOKEN = 'benchtoken123';

/**
 * The per-address caps lifted for ours and base (server/http/connection-limit.js,
 * address-limit.js): every client of a benchmark connects from 127.0.0.1, one address, and would
 * be refused past 512 connections and 32 phones. The benchmark reports say so.
 */
export const LIFTED_CAPS = Object.freeze({ SCORECAST_CONNECTIONS_PER_ADDRESS: '0', SCORECAST_PHONES_PER_ADDRESS: '0' });

/** Children alive now, killed if the benchmark exits early. @type {Set<import('node:child_process').ChildProcess>} */
export const children = new Set();
process.on('exit', () => {
  for (const c of children) c.kill('SIGKILL');
});
for (const sig of /** @type {const} */ (['SIGINT', 'SIGTERM'])) process.on(sig, () => process.exit(130));

/** Longest wait for a child to exit after SIGTERM before it is killed. */
const EXIT_TIMEOUT_MS = 10_000;

/**
 * Wait for a message of `type` from a child, failing when it exits first or after `ms`.
 * @param {import('node:child_process').ChildProcess} child
 * @param {string} type
 * @param {number} ms
 * @param {string} what for the error message
 * @returns {Promise<any>}
 */
export function waitFor(child, type, ms, what) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      done();
      reject(new Error(`${what}: no '${type}' within ${ms} ms`));
    }, ms);
    /** @param {any} msg */
    const onMessage = (msg) => {
      if (msg?.type === type) {
        done();
        resolve(msg);
      }
    };
    /** @param {number | null} code @param {string | null} signal */
    const onExit = (code, signal) => {
      done();
      reject(new Error(`${what} exited (${signal ?? code}) before '${type}'`));
    };
    function done() {
      clearTimeout(timer);
      child.off('message', onMessage);
      child.off('exit', onExit);
    }
    child.on('message', onMessage);
    child.on('exit', onExit);
  });
}

/**
 * Stop a child: SIGTERM, then SIGKILL if it has not exited in time.
 * @param {import('node:child_process').ChildProcess} child
 */
export async function stopChild(child) {
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((resolve) => {
      child.once('exit', resolve);
    });
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), EXIT_TIMEOUT_MS);
    await exited;
    clearTimeout(timer);
  }
  children.delete(child);
}

/**
 * What to start. `ours` and `base` run server/commands/start.js of `root`; every other target is the floor,
 * with the liveness traffic of a diagnostic variant when `keepalive` is set (floor-server.js).
 * @typedef {object} ServerSpec
 * @property {string} target
 * @property {string} scoreDir   the score ours autoplays (looping)
 * @property {string} root       checkout whose server/commands/start.js runs (ours, base)
 * @property {import('./score-schedule.js').ScoreSchedule | null} schedule  the floor's schedule
 * @property {'separate' | 'corked' | 'ride' | null} [keepalive]
 * @property {string[]} [execArgv]  Node flags of the server process (e.g. --cpu-prof)
 * @property {Record<string, string>} [env]  more environment for ours and base (it wins over the
 *   defaults here, which lift the per-address limits: every client of a benchmark shares one address)
 */

/**
 * The Node flags a checkout's server ships with (its server/commands/node-flags.js; none before
 * that file existed): ours and base run as they would be started, then with `execArgv`.
 * @param {string} root
 * @returns {readonly string[]}
 */
export function shippedFlags(root) {
  const file = path.join(root, 'server', 'commands', 'node-flags.js');
  return existsSync(file) ? createRequire(import.meta.url)(file).SERVER_NODE_FLAGS : [];
}

/**
 * Start a server; it sends `{type: 'listening', port}` over IPC once it listens.
 * @param {ServerSpec} o
 */
export function startServer(o) {
  const execArgv = o.execArgv ?? [];
  const { child } =
    o.target !== 'ours' && o.target !== 'base'
      ? spawnServer({
          root: path.dirname(BENCH),
          entry: path.join('bench', 'floor-server.js'),
          args: [
            '--port',
            '0',
            '--schedule',
            JSON.stringify(o.schedule),
            '--max-seconds',
            '1800',
            '--keepalive-ms',
            o.keepalive ? String(HEARTBEAT_MS) : '0',
            '--keepalive',
            o.keepalive ?? 'separate',
          ],
          execArgv,
          echoErrors: true,
        })
      : spawnServer({
          root: o.root,
          args: ['--score', o.scoreDir, '--port', '0', '--host', '127.0.0.1', '--autoplay', '--log-level', 'warn'],
          env: {
            ...LIFTED_CAPS,
            SCORECAST_TOKEN: TOKEN,
            ...o.env,
          },
          execArgv: [...shippedFlags(o.root), ...execArgv],
          echoErrors: true,
        });
  children.add(child);
  return child;
}

/**
 * What our server sends for a score, measured on the wire over one loop (the floor replays it):
 * starts ours on the score, listens, stops it.
 * @param {string} scoreDir
 * @param {string} root  checkout whose server/commands/start.js runs
 * @param {number} [startTimeoutMs]
 * @returns {Promise<import('./score-schedule.js').ScoreSchedule>}
 */
export async function probeSchedule(scoreDir, root, startTimeoutMs = 30_000) {
  const probe = startServer({ target: 'ours', scoreDir, root, schedule: null });
  try {
    const { port } = await waitFor(probe, 'listening', startTimeoutMs, 'our server');
    return await measureSchedule(`ws://127.0.0.1:${port}/live`);
  } finally {
    await stopChild(probe);
  }
}

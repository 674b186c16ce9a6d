#!/usr/bin/env node
// An edge's fixed cost: the CPU of every node of a cluster (`npm run cluster`: Redis, two
// conductors, N edges, nginx) while the score plays with no client at all, and with a few
// clients, against the one process (conducting, no nginx) in the same states, in the same run.
// What an edge pays whatever its clients is paid once per edge, so on a cluster it is the
// difference between "efficiency per edge" and "efficiency above idle" in bench/cluster.js.
// The windows are long (default 40 s) because /proc counts CPU in 10 ms ticks: a 40 s window
// resolves 0.25 ms/s. The phases alternate (one process, cluster, ...) `--repeat` times, so a
// change of the machine's load shows as a difference between repeats, not as a difference
// between the two. Every Node process runs with the server's flags (server/commands/node-flags.js).
//
//   node bench/cluster-fixed.js [--edges 3] [--window 40] [--clients 100] [--repeat 2] [--score DIR]

import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { cpuSplitMs, parentPid } from './proc-stats.js';
import { BENCH_TOKEN, startChild, stopChild } from './children.js';
import { SERVER_NODE_FLAGS } from '../server/commands/node-flags.js';
import { benchArgs } from './cli-args.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const TOKEN = BENCH_TOKEN;
const { values } = benchArgs(import.meta.url, {
  options: {
    edges: { type: 'string', default: '3' },
    window: { type: 'string', default: '40' },
    clients: { type: 'string', default: '100' },
    repeat: { type: 'string', default: '2' },
    score: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  },
});
if (values.help) {
  process.stdout.write(
    'usage: node bench/cluster-fixed.js [--edges 3] [--window 40 (s)] [--clients 100] [--repeat 2] [--score DIR]\n',
  );
  process.exit(0);
}
const EDGES = Number(values.edges);
const WINDOW_MS = Number(values.window) * 1000;
const CLIENTS = Number(values.clients);
const REPEAT = Number(values.repeat);
const SCORE = path.resolve(values.score ?? path.join(ROOT, 'scores', 'seed-profile'));

/** @param {number} ms */
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const loadavg = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

/** User and system CPU (ms) of a process and its children (nginx's workers). @param {number} pid */
function treeCpu(pid) {
  const own = cpuSplitMs(pid);
  let user = own.userMs;
  let system = own.systemMs;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || parentPid(Number(entry)) !== pid) continue;
    const c = cpuSplitMs(Number(entry));
    user += c.userMs;
    system += c.systemMs;
  }
  return { user, system };
}

/**
 * ms of CPU per s of each process over `ms`, user and system apart.
 * @param {Record<string, number>} pids @param {number} ms
 */
async function cpuOver(pids, ms) {
  const a = Object.fromEntries(Object.entries(pids).map(([k, p]) => [k, treeCpu(p)]));
  await sleep(ms);
  return Object.fromEntries(
    Object.entries(pids).map(([k, p]) => {
      const b = treeCpu(p);
      return [k, { user: ((b.user - a[k].user) / ms) * 1000, system: ((b.system - a[k].system) / ms) * 1000 }];
    }),
  );
}

/**
 * N WebSocket clients, each from a loopback address of its own (127.2.x.y); they only count.
 * @param {string} url @param {number} n
 */
async function openClients(url, n) {
  /** @type {WebSocket[]} */
  const sockets = [];
  let got = 0;
  for (let i = 0; i < n; i++) {
    const ws = new WebSocket(`${url.replace('http', 'ws')}/live`, {
      localAddress: `127.2.${Math.floor(i / 250)}.${(i % 250) + 1}`,
    });
    ws.on('message', () => got++);
    ws.on('error', () => {});
    sockets.push(ws);
  }
  await sleep(2000);
  return {
    open: () => sockets.filter((s) => s.readyState === WebSocket.OPEN).length,
    messages: () => got,
    close: () => {
      for (const s of sockets) s.terminate();
    },
  };
}

/**
 * Start, wait, measure idle then with clients, stop.
 * @param {() => Promise<{ child: import('node:child_process').ChildProcess, pids: Record<string, number>, url: string }>} up
 */
async function phase(up) {
  const { child, pids, url } = await up();
  await sleep(3000);
  const load0 = loadavg();
  const idle = await cpuOver(pids, WINDOW_MS);
  const load = await openClients(url, CLIENTS);
  const m0 = load.messages();
  const withClients = await cpuOver(pids, WINDOW_MS);
  const result = { load: [load0, loadavg()], idle, withClients, open: load.open(), messages: load.messages() - m0 };
  load.close();
  await stopChild(child);
  return result;
}

const single = () =>
  phase(async () => {
    const { child, msg } = await startChild(
      path.join(ROOT, 'server', 'commands', 'start.js'),
      ['--score', SCORE, '--port', '0', '--host', '127.0.0.1', '--autoplay', '--log-level', 'warn'],
      'listening',
      { execArgv: [...SERVER_NODE_FLAGS] },
    );
    return { child, pids: { server: /** @type {number} */ (child.pid) }, url: `http://127.0.0.1:${msg.port}` };
  });

const cluster = () =>
  phase(async () => {
    const { child, msg } = await startChild(
      path.join(ROOT, 'infra', 'cluster', 'run.js'),
      ['--edges', String(EDGES), '--port', '0', '--token', TOKEN, '--score', SCORE],
      'ready',
    );
    const pids = Object.fromEntries(msg.procs.map((/** @type {any} */ p) => [p.name, p.pid]));
    return { child, pids, url: msg.url };
  });

const runs = [];
for (let i = 0; i < REPEAT; i++) runs.push({ single: await single(), cluster: await cluster() });

const f1 = (/** @type {number} */ x) => x.toFixed(1);
/** @param {{ user: number, system: number }} c */
const both = (c) => `${f1(c.user + c.system)} (${f1(c.user)} + ${f1(c.system)})`;
const lines = [
  `edge fixed cost ${new Date().toISOString()}: ${EDGES} edges, windows of ${WINDOW_MS / 1000} s, ${path.relative(ROOT, SCORE)}, ${CLIENTS} clients in the second window`,
  '',
  `| repeat | process | 0 clients: CPU ms/s (user + system) | ${CLIENTS} clients (cluster: over all edges) | load average |`,
  '| --- | --- | --- | --- | --- |',
];
runs.forEach((r, i) => {
  for (const [label, p] of /** @type {const} */ ([
    ['one process', r.single],
    ['cluster', r.cluster],
  ])) {
    for (const k of Object.keys(p.idle))
      lines.push(
        `| ${i + 1} | ${label}: ${k} | ${both(p.idle[k])} | ${both(p.withClients[k])} | ${p.load.join(' / ')} |`,
      );
    lines.push(`| ${i + 1} | ${label}: clients open, messages in the window | | ${p.open}, ${p.messages} | |`);
  }
});
process.stdout.write(`${lines.join('\n')}\n`);
process.exit(0);

#!/usr/bin/env node
// Cluster benchmark (`npm run bench:cluster`): the same WebSocket audience on one process and on
// a cluster behind nginx (`npm run cluster`: Redis, two conductors, N edges), in the same run.
// Measures push latency (receipt minus the envelope's `t`, one machine's clock) and the CPU each
// process spends per state change delivered, then kills an edge (how long until every client is
// live again, and whether any lost a state) and the active conductor (how long until the beats
// resume). Everything on loopback. Results and how to read them: bench/RESULTS.md, "Cluster".
//
//   node bench/cluster.js [--clients 1000] [--edges 3] [--window 20] [--score DIR]

import { fork } from 'node:child_process';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { cpuMs, parentPid } from './proc-stats.js';
import { summarize } from './latency-stats.js';

const BENCH = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(BENCH, '..');
const TOKEN = 'bench-cluster-token';

const { values } = parseArgs({
  options: {
    clients: { type: 'string', default: '1000' },
    edges: { type: 'string', default: '3' },
    window: { type: 'string', default: '20' },
    score: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  },
});
if (values.help) {
  process.stdout.write(
    'usage: npm run bench:cluster -- [--clients 1000] [--edges 3] [--window 20 (seconds)] [--score DIR]\n',
  );
  process.exit(0);
}
const CLIENTS = Number(values.clients);
const EDGES = Number(values.edges);
const WINDOW_MS = Number(values.window) * 1000;
const SCORE = path.resolve(values.score ?? path.join(ROOT, 'scores', 'seed-profile'));

/** @param {number} ms */
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * @param {() => boolean} cond
 * @param {number} ms
 */
async function until(cond, ms) {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) return false;
    await sleep(10);
  }
  return true;
}

/** The `i`th client's loopback address (127.1.0.1 on; any 127.x.y.z binds). @param {number} i */
const loopbackOf = (i) => `127.1.${Math.floor(i / 250)}.${(i % 250) + 1}`;

/**
 * N WebSocket clients that reconnect at once (saying what they hold) and record every state's
 * seq and latency.
 * @param {string} url
 * @param {number} n
 */
async function openClients(url, n) {
  /** @typedef {{ epoch: string | null, seq: number, gaps: number, dups: number, reconnects: number, lastAt: number, lat: number[], closed: boolean, ws: WebSocket | null }} Client */
  /** @type {Client[]} */
  const clients = [];
  for (let i = 0; i < n; i++) {
    /** @type {Client} */
    const c = { epoch: null, seq: -1, gaps: 0, dups: 0, reconnects: 0, lastAt: 0, lat: [], closed: false, ws: null };
    const open = () => {
      const q = c.epoch ? `?epoch=${c.epoch}&seq=${c.seq}` : '';
      // An address of its own, as phones have: nginx limits connections and upgrades per client
      // address and sends each address to one edge (infra/nginx/scorecast.conf.template).
      const ws = new WebSocket(`${url.replace('http', 'ws')}/live${q}`, { localAddress: loopbackOf(i) });
      c.ws = ws;
      ws.on('message', (data) => {
        const at = performance.timeOrigin + performance.now();
        const m = JSON.parse(data.toString());
        if (m.type !== 'delta' && m.type !== 'snapshot') return;
        if (m.type === 'delta' && m.epoch === c.epoch) {
          if (m.seq <= c.seq) c.dups++;
          else if (m.seq > c.seq + 1) c.gaps++;
        }
        c.epoch = m.epoch;
        c.seq = m.seq;
        c.lastAt = Date.now();
        c.lat.push(at - m.t);
      });
      ws.on('error', () => {});
      ws.on('close', () => {
        if (!c.closed) {
          c.reconnects++;
          setTimeout(open, Math.random() * 200);
        }
      });
    };
    open();
    clients.push(c);
    if (i % 100 === 99) await sleep(50);
  }
  await until(() => clients.every((c) => c.seq >= 0), 30_000);
  return {
    clients,
    /** Drop the samples so far (the window starts now). */
    reset() {
      for (const c of clients) c.lat = [];
    },
    close() {
      for (const c of clients) {
        c.closed = true;
        c.ws?.terminate();
      }
    },
  };
}

/**
 * @param {string} script @param {string[]} args @param {string} readyType
 * @returns {Promise<{ child: import('node:child_process').ChildProcess, msg: any }>}
 */
function start(script, args, readyType) {
  const child = fork(script, args, {
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    env: { ...process.env, SCORECAST_QR: '0', SCORECAST_TOKEN: TOKEN },
  });
  return new Promise((resolve, reject) => {
    child.on('message', (m) => {
      if (/** @type {any} */ (m).type === readyType) resolve({ child, msg: m });
    });
    child.on('exit', (code) => reject(new Error(`${script} exited (${code})`)));
  });
}

/** @param {import('node:child_process').ChildProcess} child */
async function stop(child) {
  if (child.exitCode !== null) return;
  const gone = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await Promise.race([gone, sleep(15_000)]);
}

/**
 * CPU time of a process and its children (nginx's workers do its work, not its master).
 * @param {number} pid
 */
function treeCpuMs(pid) {
  let total = cpuMs(pid);
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    if (parentPid(Number(entry)) === pid) total += cpuMs(Number(entry));
  }
  return total;
}

/**
 * Measure a window: latency over every client, CPU of each named process, changes delivered.
 * @param {Awaited<ReturnType<typeof openClients>>} load
 * @param {Record<string, number>} pids
 */
async function measure(load, pids) {
  load.reset();
  const seq0 = Math.max(...load.clients.map((c) => c.seq));
  const cpu0 = Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, treeCpuMs(pid)]));
  await sleep(WINDOW_MS);
  const cpu = Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, treeCpuMs(pid) - cpu0[k]]));
  const changes = Math.max(...load.clients.map((c) => c.seq)) - seq0;
  const latency = summarize(load.clients.map((c) => Float64Array.from(c.lat)));
  return { changes, latency, cpuMs: cpu };
}

/** @type {{ date: string, clients: number, edges: number, windowMs: number, score: string, single: any, cluster: any }} */
const out = {
  date: new Date().toISOString(),
  clients: CLIENTS,
  edges: EDGES,
  windowMs: WINDOW_MS,
  score: path.relative(ROOT, SCORE),
  single: null,
  cluster: null,
};

// One process, the same audience.
{
  const { child, msg } = await start(
    path.join(ROOT, 'server', 'commands', 'start.js'),
    ['--score', SCORE, '--port', '0', '--host', '127.0.0.1', '--autoplay', '--log-level', 'warn'],
    'listening',
  );
  const load = await openClients(`http://127.0.0.1:${msg.port}`, CLIENTS);
  await sleep(3000);
  out.single = await measure(load, { server: /** @type {number} */ (child.pid) });
  load.close();
  await stop(child);
}

// The cluster.
{
  const { child, msg } = await start(
    path.join(ROOT, 'infra', 'cluster', 'run.js'),
    ['--edges', String(EDGES), '--port', '0', '--token', TOKEN, '--score', SCORE],
    'ready',
  );
  /** @type {Record<string, number>} */
  const pids = Object.fromEntries(msg.procs.map((/** @type {any} */ p) => [p.name, p.pid]));
  const load = await openClients(msg.url, CLIENTS);
  await sleep(3000);
  const steady = await measure(load, pids);

  const nodes = async () =>
    (await (await fetch(`${msg.url}/api/cluster`, { headers: { authorization: `Bearer ${TOKEN}` } })).json()).nodes;
  const edges = (await nodes()).filter((/** @type {any} */ n) => n.role === 'edge');
  const victim = edges.sort((/** @type {any} */ a, /** @type {any} */ b) => b.clients - a.clients)[0];
  // Kill the busiest edge: every client must have a state from after the kill.
  const before = load.clients.map((c) => c.reconnects);
  let killedAt = Date.now();
  process.kill(victim.pid, 'SIGKILL');
  await until(() => load.clients.some((c, i) => c.reconnects > before[i]), 10_000);
  const moved = load.clients.filter((c, i) => c.reconnects > before[i]);
  const seqAtKill = Math.max(...load.clients.map((c) => c.seq));
  const edgeLive = await until(() => load.clients.every((c) => c.seq > seqAtKill), 30_000);
  const edgeMs = Date.now() - killedAt;
  // Kill the active conductor: how long until a new state reaches the clients.
  await sleep(2000);
  const active = (await nodes()).find((/** @type {any} */ n) => n.active);
  const seqBefore = Math.max(...load.clients.map((c) => c.seq));
  killedAt = Date.now();
  process.kill(active.pid, 'SIGKILL');
  await until(() => load.clients.some((c) => c.seq > seqBefore), 10_000);
  const conductorMs = Date.now() - killedAt;
  await sleep(3000);
  out.cluster = {
    ...steady,
    edgeKill: { edge: victim.id, clientsMoved: moved.length, allLiveMs: edgeLive ? edgeMs : null },
    conductorKill: {
      conductor: active.id,
      beatsResumedMs: conductorMs,
      note: 'seed profile: a state change every 1.5 s or so, so this includes the wait for the next change',
    },
    lostStates: load.clients.reduce((n, c) => n + c.gaps, 0),
    duplicateStates: load.clients.reduce((n, c) => n + c.dups, 0),
  };
  load.close();
  await stop(child);
}

const perChange = (/** @type {number} */ cpu, /** @type {number} */ changes) =>
  changes > 0 ? +(cpu / changes).toFixed(2) : null;
const s = out.single;
const c = out.cluster;
const edgeCpu = Object.entries(c.cpuMs)
  .filter(([k]) => k.startsWith('edge-'))
  .reduce((a, [, v]) => a + /** @type {number} */ (v), 0);
const lines = [
  `cluster benchmark ${out.date}: ${CLIENTS} WebSocket clients, ${EDGES} edges, window ${WINDOW_MS / 1000} s, ${out.score}`,
  '',
  '| | changes | push p50 ms | p95 | p99 | max |',
  '| --- | --- | --- | --- | --- | --- |',
  `| one process | ${s.changes} | ${s.latency.p50.toFixed(1)} | ${s.latency.p95.toFixed(1)} | ${s.latency.p99.toFixed(1)} | ${s.latency.max.toFixed(1)} |`,
  `| cluster via nginx | ${c.changes} | ${c.latency.p50.toFixed(1)} | ${c.latency.p95.toFixed(1)} | ${c.latency.p99.toFixed(1)} | ${c.latency.max.toFixed(1)} |`,
  '',
  '| process | CPU ms per s | CPU ms per change |',
  '| --- | --- | --- |',
  `| one process: server | ${(s.cpuMs.server / (WINDOW_MS / 1000)).toFixed(1)} | ${perChange(s.cpuMs.server, s.changes)} |`,
  ...Object.entries(c.cpuMs).map(
    ([k, v]) =>
      `| cluster: ${k} | ${(/** @type {number} */ (v) / (WINDOW_MS / 1000)).toFixed(1)} | ${perChange(/** @type {number} */ (v), c.changes)} |`,
  ),
  '',
  `edges together / one process, CPU per change: ${((edgeCpu / Math.max(1, s.cpuMs.server)) * (s.changes / Math.max(1, c.changes))).toFixed(2)}`,
  `kill ${c.edgeKill.edge} (${c.edgeKill.clientsMoved} clients on it): all clients live again after ${c.edgeKill.allLiveMs} ms`,
  `kill ${c.conductorKill.conductor}: a new state at the clients after ${c.conductorKill.beatsResumedMs} ms`,
  `states lost: ${c.lostStates}, states twice: ${c.duplicateStates}`,
];
process.stdout.write(`${lines.join('\n')}\n`);
mkdirSync(path.join(BENCH, 'results'), { recursive: true });
const file = path.join(BENCH, 'results', `cluster-${out.date.slice(0, 19).replace(/:/g, '')}.json`);
writeFileSync(file, `${JSON.stringify(out, null, 2)}\n`);
process.stdout.write(`saved ${path.relative(ROOT, file)}\n`);
process.exit(0);

#!/usr/bin/env node
// Reconnect storm (`npm run bench:storm`): an access point reboots and every phone on it comes
// back at once. N WebSocket clients follow our server playing the seed profile; at each storm all
// of them lose their connection in the same instant and reconnect at once, each with the epoch
// and seq it holds (doc/protocol.md, "Resync"), as the browser client does on `online`. A second
// group of clients (the watchers) stays connected throughout.
//
// Per storm it reports how long the clients took to be back (from the drop to the `welcome` of
// the new connection: p50, p95, max, and when the last one was back), whether every client's
// stream went on with no delta missed or repeated (the first delta after the reconnect must be
// the one after the last held), how many needed a snapshot instead of deltas, the watchers'
// worst push latency during the storm against their worst in the quiet time before it, and the
// server's CPU time over the storm.
//
//   node bench/storm.js [--clients 1500] [--watchers 100] [--storms 3] [--every 8s]
//
// Load only on loopback; every loop is bounded (a storm gives up after STORM_TIMEOUT_MS, the
// child processes exit after HARD_LIMIT_MS).

import { fork } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { cpuMs } from './proc-stats.js';
import { waitFor } from './servers.js';
import { forkServer } from '../artillery/lib/server.js';
import { quantile } from '../core/stats.js';
import { benchArgs } from './cli-args.js';

const BENCH = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(BENCH, '..');
const TOKEN = 'benchtoken123';
const HARD_LIMIT_MS = 600_000;
const STORM_TIMEOUT_MS = 30_000;
const RAMP_BATCH = 100;
const RAMP_EVERY_MS = 50;
const HEAD_BYTES = 200;

const wall = () => performance.timeOrigin + performance.now();
const sleep = (/** @type {number} */ ms) => new Promise((r) => setTimeout(r, ms));

/**
 * `type`, `epoch`, `seq` and `t` from the head of an envelope, without parsing the rest.
 * @param {Buffer} data
 */
function head(data) {
  const h = data.toString('latin1', 0, Math.min(data.length, HEAD_BYTES));
  const field = (/** @type {string} */ name, /** @type {boolean} */ quoted) => {
    const i = h.indexOf(`"${name}":${quoted ? '"' : ''}`);
    if (i < 0) return null;
    const from = i + name.length + 3 + (quoted ? 1 : 0);
    return quoted ? h.slice(from, h.indexOf('"', from)) : (h.slice(from, from + 24).match(/^[0-9.e+-]+/)?.[0] ?? null);
  };
  return {
    type: field('type', true) ?? '',
    epoch: field('epoch', true),
    seq: Number(field('seq', false) ?? -1),
    t: Number(field('t', false) ?? -1),
  };
}

/**
 * One client: follows the stream, checks seq continuity, reconnects on demand with what it holds.
 * @param {string} base ws://host:port/live
 */
function follower(base) {
  const c = {
    epoch: /** @type {string | null} */ (null),
    seq: -1,
    /** @type {WebSocket | null} */
    ws: null,
    ready: false,
    /** performance.now() of the drop; NaN when not reconnecting */
    droppedAt: NaN,
    /** ms from the drop to the new welcome */
    backMs: NaN,
    /** the next delta must be seq + 1 of what was held at the drop */
    checking: false,
    gaps: 0,
    repeats: 0,
    snapshots: 0,
    closed: 0,
    maxLatency: 0,
    connect() {
      const url = c.epoch === null ? base : `${base}?epoch=${encodeURIComponent(c.epoch)}&seq=${c.seq}`;
      const ws = new WebSocket(url, {
        perMessageDeflate: false,
        skipUTF8Validation: true,
        handshakeTimeout: STORM_TIMEOUT_MS,
      });
      c.ws = ws;
      ws.on('message', (/** @type {Buffer} */ data) => {
        const now = wall();
        const m = head(data);
        if (m.type === 'welcome') {
          if (!Number.isNaN(c.droppedAt)) {
            c.backMs = performance.now() - c.droppedAt;
            c.droppedAt = NaN;
          }
        } else if (m.type === 'snapshot') {
          if (c.ready) c.snapshots++;
          c.epoch = m.epoch;
          c.seq = m.seq;
          c.ready = true;
          c.checking = false;
        } else if (m.type === 'delta') {
          if (m.seq <= c.seq) c.repeats++;
          else if (m.seq !== c.seq + 1) c.gaps++;
          c.seq = Math.max(c.seq, m.seq);
          c.checking = false;
          c.maxLatency = Math.max(c.maxLatency, now - m.t);
        }
      });
      ws.on('error', () => {});
      ws.on('close', () => {
        if (c.ws === ws && Number.isNaN(c.droppedAt)) c.closed++;
      });
    },
    /** Lose the connection (the server sees it end) and reconnect at once. */
    drop() {
      const old = c.ws;
      c.droppedAt = performance.now();
      c.backMs = NaN;
      c.checking = true;
      c.ws = null;
      old?.terminate();
      c.connect();
    },
  };
  return c;
}

/**
 * The client side, in its own process: `node storm.js --role clients`, driven over IPC.
 * @param {{ url: string, clients: number, watchers: number, storms: number, everyMs: number }} o
 */
async function clientsRole(o) {
  setTimeout(() => process.exit(3), HARD_LIMIT_MS).unref();
  process.on('disconnect', () => process.exit(0));
  const all = Array.from({ length: o.clients + o.watchers }, () => follower(o.url));
  for (let i = 0; i < all.length; i += RAMP_BATCH) {
    for (const c of all.slice(i, i + RAMP_BATCH)) c.connect();
    await sleep(RAMP_EVERY_MS);
  }
  const until = performance.now() + 60_000;
  while (all.some((c) => !c.ready) && performance.now() < until) await sleep(100);
  const droppers = all.slice(0, o.clients);
  const watchers = all.slice(o.clients);
  process.send?.({ type: 'ready', ready: all.filter((c) => c.ready).length });
  const storms = [];
  for (let s = 0; s < o.storms; s++) {
    for (const w of watchers) w.maxLatency = 0;
    await sleep(o.everyMs);
    const quietMax = Math.max(...watchers.map((w) => w.maxLatency));
    for (const w of watchers) w.maxLatency = 0;
    for (const c of droppers) {
      c.gaps = 0;
      c.repeats = 0;
      c.snapshots = 0;
    }
    process.send?.({ type: 'storm', n: s });
    await new Promise((resolve) => {
      process.once('message', resolve);
    });
    const t0 = performance.now();
    for (const c of droppers) c.drop();
    while (droppers.some((c) => Number.isNaN(c.backMs)) && performance.now() - t0 < STORM_TIMEOUT_MS) await sleep(20);
    const lastBackMs = performance.now() - t0;
    // Let every reconnected client receive its next deltas (two beats of the seed profile).
    await sleep(2000);
    const back = droppers.map((c) => c.backMs);
    storms.push({
      storm: s + 1,
      clients: droppers.length,
      back: back.filter((x) => Number.isFinite(x)).length,
      p50: quantile(back, 0.5),
      p95: quantile(back, 0.95),
      max: quantile(back, 1),
      lastBackMs,
      gaps: droppers.reduce((n, c) => n + c.gaps, 0),
      repeats: droppers.reduce((n, c) => n + c.repeats, 0),
      unchecked: droppers.filter((c) => c.checking).length,
      snapshots: droppers.reduce((n, c) => n + c.snapshots, 0),
      watcherQuietMax: quietMax,
      watcherStormMax: Math.max(...watchers.map((w) => w.maxLatency)),
      watcherClosed: watchers.reduce((n, w) => n + w.closed, 0),
    });
    process.send?.({ type: 'storm-done', n: s });
  }
  process.send?.({ type: 'result', storms }, undefined, {}, () => process.exit(0));
}

async function main() {
  const { values } = benchArgs(import.meta.url, {
    options: {
      role: { type: 'string', default: 'main' },
      config: { type: 'string' },
      clients: { type: 'string', default: '1500' },
      watchers: { type: 'string', default: '100' },
      storms: { type: 'string', default: '3' },
      every: { type: 'string', default: '8s' },
    },
    strict: true,
  });
  if (values.role === 'clients') return clientsRole(JSON.parse(/** @type {string} */ (values.config)));
  const clients = Number(values.clients);
  const watchers = Number(values.watchers);
  const storms = Number(values.storms);
  const everyMs = Number(String(values.every).replace(/s$/, '')) * 1000;
  if (
    !(
      clients >= 1 &&
      clients <= 5000 &&
      watchers >= 1 &&
      watchers <= 1000 &&
      storms >= 1 &&
      storms <= 10 &&
      everyMs >= 2000 &&
      everyMs <= 60_000
    )
  ) {
    throw new Error('--clients 1..5000, --watchers 1..1000, --storms 1..10, --every 2s..60s');
  }
  const command = ['node', 'bench/storm.js', ...process.argv.slice(2)].join(' ');
  const server = await forkServer({
    root: ROOT,
    args: [
      '--score',
      path.join(ROOT, 'scores', 'seed-profile'),
      '--port',
      '0',
      '--host',
      '127.0.0.1',
      '--autoplay',
      '--log-level',
      'warn',
    ],
    env: { SCORECAST_CONNECTIONS_PER_ADDRESS: '0', SCORECAST_PHONES_PER_ADDRESS: '0', SCORECAST_TOKEN: TOKEN },
  });
  /** @type {import('node:child_process').ChildProcess | null} */
  let load = null;
  try {
    const { port } = server;
    const config = { url: `ws://127.0.0.1:${port}/live`, clients, watchers, storms, everyMs };
    load = fork(fileURLToPath(import.meta.url), ['--role', 'clients', '--config', JSON.stringify(config)], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const { ready } = await waitFor(load, 'ready', 120_000, 'the storm clients');
    process.stderr.write(`${command}\n${ready} of ${clients + watchers} clients ready\n`);
    /** @type {number[]} */
    const cpu = [];
    load.on('message', (/** @type {any} */ m) => {
      if (m.type === 'storm') {
        cpu[m.n] = cpuMs(/** @type {number} */ (server.pid));
        load?.send('go');
      }
      if (m.type === 'storm-done') cpu[m.n] = cpuMs(/** @type {number} */ (server.pid)) - cpu[m.n];
    });
    const { storms: results } = await waitFor(
      load,
      'result',
      storms * (everyMs + STORM_TIMEOUT_MS + 10_000) + 30_000,
      'the storm clients',
    );
    const f = (/** @type {number} */ x) => (Number.isFinite(x) ? x.toFixed(0) : '-');
    const lines = [
      `Command: \`${command}\` (our server, seed profile, ${clients} clients dropped and reconnected at once, ${watchers} watchers staying)`,
      '',
      '| storm | back | reconnect p50 ms | p95 ms | max ms | all back after ms | deltas missed | repeated | not checked | snapshots | watchers max latency quiet / storm ms | watchers cut | server CPU ms (storm + 2 s) |',
      '| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
      ...results.map(
        (/** @type {any} */ r, /** @type {number} */ i) =>
          `| ${r.storm} | ${r.back}/${r.clients} | ${f(r.p50)} | ${f(r.p95)} | ${f(r.max)} | ${f(r.lastBackMs)} | ${r.gaps} | ${r.repeats} | ${r.unchecked} | ${r.snapshots} | ${f(r.watcherQuietMax)} / ${f(r.watcherStormMax)} | ${r.watcherClosed} | ${f(cpu[i])} |`,
      ),
      '',
      '"Not checked": clients that got no delta after coming back, so their continuity is unknown.',
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
    const bad = results.some(
      (/** @type {any} */ r) => r.back < r.clients || r.gaps > 0 || r.repeats > 0 || r.watcherClosed > 0,
    );
    if (bad) process.exitCode = 1;
  } finally {
    load?.kill();
    await server.stop();
  }
}

main().catch((err) => {
  process.stderr.write(`storm: ${err.stack ?? err}\n`);
  process.exit(1);
});

#!/usr/bin/env node
// What finding dead links costs a `ws` server, apart from everything else (bench/RESULTS.md,
// "Current code"). N idle WebSocket clients in a child process; a bare `ws` server in another,
// which in each mode does only:
//   none    nothing (the baseline, measured in the same run)
//   ping    a protocol ping to every socket every --every-ms; the clients' ws answers with pongs
//   frames  nothing, but every client sends a small text frame every --every-ms (a client-side
//           heartbeat instead of server pings)
// and prints the server's CPU time (utime + stime from /proc) over the window, frames read, and
// the cost per frame against `none`. Modes alternate over --repeat rounds.
//
//   node bench/liveness.js [--clients 1500] [--every-ms 2000] [--duration 15s] [--repeat 2]
//                          [--modes none,ping,frames]

import { fork } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import http from 'node:http';
import WebSocket, { WebSocketServer } from 'ws';
import { median } from '../core/stats.js';
import { cpuMs as procCpuMs } from './proc-stats.js';
import { benchArgs } from './cli-args.js';

const MODES = ['none', 'ping', 'frames'];
const HARD_LIMIT_MS = 600_000;

/** CPU (ms) of this process from /proc: user + system. */
const ownCpuMs = () => procCpuMs(process.pid);

/**
 * The server side: `node liveness.js --role server --mode M --every-ms N`.
 * @param {string} mode @param {number} everyMs
 */
function server(mode, everyMs) {
  const http1 = http.createServer();
  const wss = new WebSocketServer({ server: http1, perMessageDeflate: false, clientTracking: false });
  /** @type {Set<import('ws').WebSocket>} */
  const sockets = new Set();
  let frames = 0;
  wss.on('connection', (ws) => {
    sockets.add(ws);
    ws.on('pong', () => {
      frames++;
    });
    ws.on('message', () => {
      frames++;
    });
    ws.on('close', () => sockets.delete(ws));
  });
  if (mode === 'ping')
    setInterval(() => {
      for (const ws of sockets) ws.ping();
    }, everyMs);
  setTimeout(() => process.exit(3), HARD_LIMIT_MS).unref();
  process.on('message', (/** @type {any} */ m) => {
    if (m === 'mark') process.send?.({ cpuMs: ownCpuMs(), frames });
  });
  process.on('disconnect', () => process.exit(0));
  http1.listen(0, '127.0.0.1', () =>
    process.send?.({ port: /** @type {import('node:net').AddressInfo} */ (http1.address()).port }),
  );
}

/**
 * The client side: opens `count` sockets, then (mode frames) sends a frame on each every everyMs.
 * @param {string} url @param {number} count @param {string} mode @param {number} everyMs
 */
async function clients(url, count, mode, everyMs) {
  setTimeout(() => process.exit(3), HARD_LIMIT_MS).unref();
  process.on('disconnect', () => process.exit(0));
  /** @type {WebSocket[]} */
  const sockets = [];
  let open = 0;
  for (let i = 0; i < count; i++) {
    const ws = new WebSocket(url, { perMessageDeflate: false });
    ws.on('open', () => {
      open++;
    });
    ws.on('error', () => {});
    sockets.push(ws);
    if (i % 100 === 99) await new Promise((r) => setTimeout(r, 100));
  }
  const until = Date.now() + 30_000;
  while (open < count && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
  if (mode === 'frames') {
    const frame = '{"type":"alive"}';
    setInterval(() => {
      for (const ws of sockets) if (ws.readyState === ws.OPEN) ws.send(frame);
    }, everyMs);
  }
  process.send?.({ open });
}

const sleep = (/** @type {number} */ ms) => new Promise((r) => setTimeout(r, ms));

/** @param {import('node:child_process').ChildProcess} child */
const nextMessage = (child) => new Promise((resolve) => child.once('message', resolve));

/**
 * One trial of one mode.
 * @param {string} mode @param {number} count @param {number} everyMs @param {number} durationMs
 */
async function trial(mode, count, everyMs, durationMs) {
  const self = fileURLToPath(import.meta.url);
  const srv = fork(self, ['--role', 'server', '--mode', mode, '--every-ms', String(everyMs)]);
  try {
    const { port } = /** @type {{ port: number }} */ (await nextMessage(srv));
    const cl = fork(self, [
      '--role',
      'clients',
      '--url',
      `ws://127.0.0.1:${port}/`,
      '--clients',
      String(count),
      '--mode',
      mode,
      '--every-ms',
      String(everyMs),
    ]);
    try {
      const { open } = /** @type {{ open: number }} */ (await nextMessage(cl));
      await sleep(2 * everyMs);
      srv.send('mark');
      const a = /** @type {{ cpuMs: number, frames: number }} */ (await nextMessage(srv));
      await sleep(durationMs);
      srv.send('mark');
      const b = /** @type {{ cpuMs: number, frames: number }} */ (await nextMessage(srv));
      return { mode, open, cpuMs: b.cpuMs - a.cpuMs, frames: b.frames - a.frames };
    } finally {
      cl.kill();
    }
  } finally {
    srv.kill();
  }
}

async function main() {
  const { values } = benchArgs(import.meta.url, {
    options: {
      role: { type: 'string', default: 'main' },
      mode: { type: 'string', default: 'none' },
      url: { type: 'string' },
      clients: { type: 'string', default: '1500' },
      'every-ms': { type: 'string', default: '2000' },
      duration: { type: 'string', default: '15s' },
      repeat: { type: 'string', default: '2' },
      modes: { type: 'string', default: MODES.join(',') },
    },
    strict: true,
  });
  const everyMs = Number(values['every-ms']);
  const count = Number(values.clients);
  if (values.role === 'server') return server(values.mode, everyMs);
  if (values.role === 'clients') return clients(/** @type {string} */ (values.url), count, values.mode, everyMs);
  const durationMs = Number(String(values.duration).replace(/s$/, '')) * 1000;
  const modes = String(values.modes).split(',');
  if (!modes.every((m) => MODES.includes(m))) throw new Error(`--modes: a comma-separated list of ${MODES.join(', ')}`);
  if (!(count > 0 && count <= 10_000 && everyMs >= 100 && durationMs > 0 && durationMs <= 120_000))
    throw new Error('--clients 1..10000, --every-ms >= 100, --duration up to 120s');
  const repeat = Math.min(10, Math.max(1, Number(values.repeat)));
  process.stdout.write(
    `node bench/liveness.js --clients ${count} --every-ms ${everyMs} --duration ${durationMs / 1000}s --repeat ${repeat} --modes ${modes.join(',')}\n`,
  );
  /** @type {Record<string, { cpuMs: number, frames: number }[]>} */
  const results = {};
  for (let r = 0; r < repeat; r++) {
    for (const mode of modes) {
      const t = await trial(mode, count, everyMs, durationMs);
      (results[mode] ??= []).push(t);
      process.stdout.write(
        `  ${mode} (round ${r + 1}): ${t.open} clients open, server CPU ${t.cpuMs} ms, ${t.frames} frames read\n`,
      );
    }
  }
  const base = results.none ? median(results.none.map((t) => t.cpuMs)) : 0;
  process.stdout.write(
    `\n| mode | server CPU ms per ${durationMs / 1000} s (median) | frames read | µs per frame over "none" |\n| --- | ---: | ---: | ---: |\n`,
  );
  for (const mode of modes) {
    const cpu = median(results[mode].map((t) => t.cpuMs));
    const frames = median(results[mode].map((t) => t.frames));
    const per = frames > 0 && results.none ? (((cpu - base) * 1000) / frames).toFixed(1) : '';
    process.stdout.write(`| ${mode} | ${cpu} | ${frames} | ${per} |\n`);
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((err) => {
    process.stderr.write(`liveness: ${err.message}\n`);
    process.exit(1);
  });
}

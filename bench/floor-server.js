#!/usr/bin/env node
// The floor of the fan-out benchmark: a bare `ws` server that does the least any server must do
// to push our traffic. On the schedule of a score (bench/score-schedule.js) it builds one
// envelope per beat, of the size our delta for that beat has, and writes the same Buffer to every
// socket. No hub, no history, no backpressure checks, no heartbeats, no pings, no HTTP routes.
//
// It builds each envelope the way our hub does (JSON once, Buffer once, `t` = wall time when the
// change is made) and sends text frames, so bench/load-client.js runs the same code path for
// both servers: the same `{"type":"delta","epoch":…,"seq":N,"t":…` head, then padding.
//
//   node bench/floor-server.js --port 0 --schedule '<ScoreSchedule JSON>' [--max-seconds 900]
//                              [--keepalive-ms 2000 [--keepalive-corked]]
// --keepalive-ms adds what our server does besides the deltas (doc/protocol.md, "Heartbeats"):
// a heartbeat envelope to every socket and a protocol ping to every socket, each from its own
// timer as in server/hub.js and server/transports/websocket.js ("floor-ka" in bench/fanout.js).
// With --keepalive-corked, one timer writes both to a corked socket: one syscall per socket
// instead of two ("floor-kc"). Both are diagnostic variants, not the floor.
// With an IPC channel it sends {type: 'listening', port} once listening, like server/start.js.

import http from 'node:http';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { WebSocketServer } from 'ws';

/** @typedef {import('./score-schedule.js').ScoreSchedule} ScoreSchedule */

const EPOCH = 'floor';
const wall = () => performance.timeOrigin + performance.now();

/**
 * An envelope of exactly `bytes` UTF-8 bytes (or its head alone, if that is longer), padded
 * with a `patch.pad` string. The head is the one our hub writes, so clients parse both alike.
 * @param {'welcome' | 'snapshot' | 'delta'} type
 * @param {number} seq
 * @param {number} bytes
 * @returns {Buffer}
 */
export function envelope(type, seq, bytes) {
  const field = type === 'snapshot' ? 'state' : 'patch';
  const head = `{"type":"${type}","epoch":"${EPOCH}","seq":${seq},"t":${wall()},"${field}":{"pad":"`;
  const tail = '"}}';
  const pad = Math.max(0, bytes - head.length - tail.length);
  return Buffer.from(head + '~'.repeat(pad) + tail);
}

/**
 * Start the floor server. Resolves when it listens.
 * @param {{ port?: number, host?: string, schedule: ScoreSchedule, maxSeconds?: number, keepaliveMs?: number, keepaliveCorked?: boolean }} options
 * @returns {Promise<{ port: number, close: () => Promise<void> }>}
 */
export async function startFloor({ port = 0, host = '127.0.0.1', schedule, maxSeconds = 900, keepaliveMs = 0, keepaliveCorked = false }) {
  const server = http.createServer((req, res) => { res.writeHead(404).end(); });
  const wss = new WebSocketServer({ server, path: '/live', perMessageDeflate: false, clientTracking: false });
  /** @type {Set<import('ws').WebSocket>} */
  const sockets = new Set();
  let seq = 0;

  wss.on('connection', (ws) => {
    sockets.add(ws);
    ws.on('close', () => { sockets.delete(ws); });
    ws.on('error', () => { /* the close event follows */ });
    // The same two first messages as ours (sizes from the schedule): welcome, then a snapshot.
    ws.send(envelope('welcome', seq, schedule.welcomeBytes), { binary: false });
    ws.send(envelope('snapshot', seq, schedule.snapshotBytes), { binary: false });
  });

  // Beat b of loop k is due at start + k * loopMs + atMs[b], computed from the start each time so
  // timer lateness does not accumulate (as in server/conductor.js).
  const start = performance.now();
  const beats = schedule.atMs.length;
  let next = 0;
  /** @type {NodeJS.Timeout | undefined} */
  let timer;
  const dueAt = (/** @type {number} */ i) => start + Math.floor(i / beats) * schedule.loopMs + schedule.atMs[i % beats];
  function tick() {
    seq++;
    const buf = envelope('delta', seq, schedule.deltaBytes[next % beats]);
    for (const ws of sockets) ws.send(buf, { binary: false });
    next++;
    arm();
  }
  function arm() {
    timer = setTimeout(tick, Math.max(0, dueAt(next) - performance.now()));
  }
  arm();
  /** @type {NodeJS.Timeout[]} */
  const keepalive = [];
  const heartbeat = () => Buffer.from(JSON.stringify({ type: 'heartbeat', epoch: EPOCH, seq, t: wall() }));
  if (keepaliveMs > 0 && !keepaliveCorked) {
    keepalive.push(setInterval(() => {
      const hb = heartbeat();
      for (const ws of sockets) ws.send(hb, { binary: false });
    }, keepaliveMs));
    keepalive.push(setInterval(() => { for (const ws of sockets) ws.ping(); }, keepaliveMs));
  } else if (keepaliveMs > 0) {
    keepalive.push(setInterval(() => {
      const hb = heartbeat();
      for (const ws of sockets) {
        // ws writes each frame inside its own cork(); an outer cork makes the two frames one writev.
        const socket = /** @type {import('node:net').Socket} */ (/** @type {any} */ (ws)._socket);
        socket.cork();
        ws.ping();
        ws.send(hb, { binary: false });
        socket.uncork();
      }
    }, keepaliveMs));
  }
  // Bounded even when orphaned: the benchmark never needs it longer.
  const deadline = setTimeout(() => { close(); }, maxSeconds * 1000);
  deadline.unref();

  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve(undefined));
  });
  const address = server.address();

  let closing = false;
  async function close() {
    if (closing) return;
    closing = true;
    clearTimeout(timer);
    for (const k of keepalive) clearInterval(k);
    for (const ws of sockets) ws.terminate();
    await new Promise((resolve) => { server.close(() => resolve(undefined)); });
  }
  return { port: typeof address === 'object' && address ? address.port : port, close };
}

async function main() {
  const { values } = parseArgs({
    options: {
      port: { type: 'string', default: '0' },
      host: { type: 'string', default: '127.0.0.1' },
      schedule: { type: 'string' },
      'max-seconds': { type: 'string', default: '900' },
      'keepalive-ms': { type: 'string', default: '0' },
      'keepalive-corked': { type: 'boolean', default: false },
    },
    strict: true,
  });
  if (!values.schedule) throw new Error('floor-server: --schedule <ScoreSchedule JSON> is required');
  const schedule = /** @type {ScoreSchedule} */ (JSON.parse(values.schedule));
  const floor = await startFloor({
    port: Number(values.port), host: values.host, schedule, maxSeconds: Number(values['max-seconds']),
    keepaliveMs: Number(values['keepalive-ms']), keepaliveCorked: values['keepalive-corked'],
  });
  const stop = () => { floor.close().then(() => process.exit(0)); };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  process.on('disconnect', stop);
  if (process.send) process.send({ type: 'listening', port: floor.port });
  else process.stdout.write(`floor listening on ${values.host}:${floor.port}\n`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((err) => {
    process.stderr.write(`floor-server: ${err.message}\n`);
    process.exit(1);
  });
}

#!/usr/bin/env node
// The floor of the fan-out benchmark: a bare `ws` server that does the least any server must do
// to push our traffic. On the schedule of a score (bench/score-schedule.js) it builds one
// envelope per beat, of the size our delta for that beat has, and writes the same Buffer to every
// socket. No hub, no history, no backpressure checks, no heartbeats, no pings, no HTTP routes.
// A client's clock-sync `ping` message (bench/fanout.js --talk-every) is answered with a `pong`,
// as our server answers it: the least a server does for a client that talks.
//
// It builds each envelope the way our hub does (JSON once, Buffer once, `t` = wall time when the
// change is made) and sends text frames, so bench/load-client.js runs the same code path for
// both servers: the same `{"type":"delta","epoch":…,"seq":N,"t":…` head, then padding.
//
//   node bench/floor-server.js --port 0 --schedule '<ScoreSchedule JSON>' [--max-seconds 900]
//                              [--keepalive-ms 2000 --keepalive separate|corked|ride]
// --keepalive-ms adds the liveness traffic of doc/protocol.md ("Heartbeats"), in one of three
// ways, as diagnostic variants (not the floor; their names in bench/fanout.js in brackets):
//   separate  [floor-ka] a heartbeat envelope and a protocol ping to every socket, each from its
//             own timer: what server/live/hub.js and transports/websocket.js did until 409bec4.
//   corked    [floor-kc] both from one timer, written to a corked socket: one syscall, not two.
//   ride      [floor-kr] what ours does now (server/live/transports/websocket.js): a heartbeat only
//             after keepaliveMs with no other message; a socket silent (no pong, no message) for
//             keepaliveMs owes a ping, which rides in the same write as its next message of at
//             most 4 KB, or goes alone once the silence reaches 1.5 x keepaliveMs; the silence is
//             checked every tick (keepaliveMs / 8).
// With an IPC channel it sends {type: 'listening', port} once listening, like server/commands/start.js.

import http from 'node:http';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { WebSocketServer } from 'ws';

/** @typedef {import('./score-schedule.js').ScoreSchedule} ScoreSchedule */

const EPOCH = 'floor';
/** A ping rides only with messages up to this size ('ride' mode; as transports/websocket.js). */
const RIDE_MAX_BYTES = 4096;
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

/** @typedef {'separate' | 'corked' | 'ride'} KeepaliveMode */
const KEEPALIVE_MODES = ['separate', 'corked', 'ride'];

/**
 * ws's underlying net.Socket (private, but stable across ws 8): corking it around two frames
 * makes them one writev.
 * @param {import('ws').WebSocket} ws
 */
const rawSocket = (ws) => /** @type {import('node:net').Socket} */ (/** @type {any} */ (ws)._socket);

/**
 * Start the floor server. Resolves when it listens.
 * @param {{ port?: number, host?: string, schedule: ScoreSchedule, maxSeconds?: number, keepaliveMs?: number, keepalive?: KeepaliveMode }} options
 * @returns {Promise<{ port: number, close: () => Promise<void> }>}
 */
export async function startFloor({
  port = 0,
  host = '127.0.0.1',
  schedule,
  maxSeconds = 900,
  keepaliveMs = 0,
  keepalive: mode = 'separate',
}) {
  const server = http.createServer((_req, res) => {
    res.writeHead(404).end();
  });
  const wss = new WebSocketServer({ server, path: '/live', perMessageDeflate: false, clientTracking: false });
  /** @type {Set<import('ws').WebSocket>} */
  const sockets = new Set();
  let seq = 0;

  /**
   * A clock-sync ping answered as ours answers it (doc/protocol.md, "Clock sync").
   * @this {import('ws').WebSocket} @param {Buffer} data
   */
  function answerPing(data) {
    let msg;
    try {
      msg = JSON.parse(data.toString());
    } catch {
      return;
    }
    if (msg?.type === 'ping')
      this.send(JSON.stringify({ type: 'pong', id: msg.id, t0: msg.t0, t: wall() }), { binary: false });
  }

  wss.on('connection', (ws) => {
    sockets.add(ws);
    if (mode === 'ride' && keepaliveMs > 0) {
      const heard = () => {
        heardAt.set(ws, performance.now());
        pinged.delete(ws);
        pingDue.delete(ws);
      };
      heard();
      ws.on('pong', heard);
      ws.on('message', heard);
    }
    ws.on('close', () => {
      sockets.delete(ws);
      pingDue.delete(ws);
      pinged.delete(ws);
      heardAt.delete(ws);
    });
    ws.on('error', () => {
      /* the close event follows */
    });
    ws.on('message', answerPing);
    // The same two first messages as ours (sizes from the schedule): welcome, then a snapshot.
    ws.send(envelope('welcome', seq, schedule.welcomeBytes), { binary: false });
    ws.send(envelope('snapshot', seq, schedule.snapshotBytes), { binary: false });
  });

  // Beat b of loop k is due at start + k * loopMs + atMs[b], computed from the start each time so
  // timer lateness does not accumulate (as in server/performance/conductor.js).
  const start = performance.now();
  const beats = schedule.atMs.length;
  let next = 0;
  /** @type {NodeJS.Timeout | undefined} */
  let timer;
  const dueAt = (/** @type {number} */ i) => start + Math.floor(i / beats) * schedule.loopMs + schedule.atMs[i % beats];
  /** Sockets whose next message carries a ping ('ride' mode). @type {Set<import('ws').WebSocket>} */
  const pingDue = new Set();
  /** Sockets pinged since their last frame ('ride' mode). @type {Set<import('ws').WebSocket>} */
  const pinged = new Set();
  /** performance.now() of each socket's last frame ('ride' mode). @type {Map<import('ws').WebSocket, number>} */
  const heardAt = new Map();
  let lastBroadcast = 0;
  /** @param {Buffer} buf */
  function broadcast(buf) {
    lastBroadcast = performance.now();
    if (pingDue.size === 0 || buf.length > RIDE_MAX_BYTES) {
      for (const ws of sockets) ws.send(buf, { binary: false });
      return;
    }
    for (const ws of sockets) {
      if (!pingDue.delete(ws)) {
        ws.send(buf, { binary: false });
        continue;
      }
      pinged.add(ws);
      const raw = rawSocket(ws);
      raw.cork();
      ws.send(buf, { binary: false });
      ws.ping();
      raw.uncork();
    }
  }
  function tick() {
    seq++;
    broadcast(envelope('delta', seq, schedule.deltaBytes[next % beats]));
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
  if (keepaliveMs > 0 && mode === 'separate') {
    keepalive.push(
      setInterval(() => {
        const hb = heartbeat();
        for (const ws of sockets) ws.send(hb, { binary: false });
      }, keepaliveMs),
    );
    keepalive.push(
      setInterval(() => {
        for (const ws of sockets) ws.ping();
      }, keepaliveMs),
    );
  } else if (keepaliveMs > 0 && mode === 'corked') {
    keepalive.push(
      setInterval(() => {
        const hb = heartbeat();
        for (const ws of sockets) {
          const raw = rawSocket(ws);
          raw.cork();
          ws.ping();
          ws.send(hb, { binary: false });
          raw.uncork();
        }
      }, keepaliveMs),
    );
  } else if (keepaliveMs > 0 && mode === 'ride') {
    keepalive.push(
      setInterval(() => {
        if (performance.now() - lastBroadcast >= keepaliveMs) broadcast(heartbeat());
      }, keepaliveMs / 2),
    );
    const tick = keepaliveMs / 8;
    keepalive.push(
      setInterval(() => {
        const now = performance.now();
        for (const ws of sockets) {
          const silent = now - (heardAt.get(ws) ?? now);
          if (silent < keepaliveMs || pinged.has(ws)) continue;
          if (silent < keepaliveMs * 1.5) {
            pingDue.add(ws);
            continue;
          }
          pingDue.delete(ws);
          pinged.add(ws);
          ws.ping();
        }
      }, tick),
    );
  }
  // Bounded even when orphaned: the benchmark never needs it longer.
  const deadline = setTimeout(() => {
    close();
  }, maxSeconds * 1000);
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
    await new Promise((resolve) => {
      server.close(() => resolve(undefined));
    });
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
      keepalive: { type: 'string', default: 'separate' },
    },
    strict: true,
  });
  if (!values.schedule) throw new Error('floor-server: --schedule <ScoreSchedule JSON> is required');
  const schedule = /** @type {ScoreSchedule} */ (JSON.parse(values.schedule));
  if (!KEEPALIVE_MODES.includes(/** @type {string} */ (values.keepalive)))
    throw new Error(`floor-server: --keepalive must be one of ${KEEPALIVE_MODES.join(', ')}`);
  const floor = await startFloor({
    port: Number(values.port),
    host: values.host,
    schedule,
    maxSeconds: Number(values['max-seconds']),
    keepaliveMs: Number(values['keepalive-ms']),
    keepalive: /** @type {KeepaliveMode} */ (values.keepalive),
  });
  const stop = () => {
    floor.close().then(() => process.exit(0));
  };
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

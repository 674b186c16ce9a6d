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
//   ride      [floor-kr] our liveness rule as it is now (server/live/transports/websocket.js,
//             doc/protocol.md "Heartbeats and dead links"): a heartbeat only after keepaliveMs
//             with no other message; a socket silent (no pong, no message) for RIDE_RULE.pingAfterMs
//             (5 s) owes a ping, which rides in the same write as its next message of at most 4 KB,
//             or goes alone once the silence reaches 6 s; one silent for 7.75 s is cut (a dead link
//             found within 8 s of its last frame); the read proof: a socket that has not answered a
//             ping for 10 s counts as silent from 5 s after its last pong whatever it sends, and one
//             sent 128 KB since its last pong owes a ping; at most one ping out per socket; one
//             timer checks every socket each 250 ms. Until 2026-11-27 this variant pinged after 2 s
//             of silence (alone at 3 s), the rule ours had before 54fdc58, so it cost more pongs
//             than ours does. Pings carry an 8-byte payload as ours carry their token; the floor
//             does not check it.
// With an IPC channel it sends {type: 'listening', port} once listening, like server/commands/start.js.

import http from 'node:http';
import { pathToFileURL } from 'node:url';
import { WebSocketServer } from 'ws';
import { benchArgs } from './cli-args.js';

/** @typedef {import('./score-schedule.js').ScoreSchedule} ScoreSchedule */

const EPOCH = 'floor';
/**
 * The listen backlog, as our server's (LISTEN_BACKLOG in server/commands/start.js; a test holds the
 * two equal). Node's default of 511 overflows when thousands of clients connect on a busy machine
 * (`TcpExtListenOverflows`), and the clients dropped so wait for TCP's SYN retries or are reset:
 * a queue length is configuration, not work, so the floor gets ours.
 */
export const FLOOR_BACKLOG = 4096;
/**
 * Our liveness rule ('ride' mode), as server/live/transports/websocket.js has it (a test holds the
 * two equal; the floor does not import the server, so that its memory is ws's alone).
 */
export const RIDE_RULE = Object.freeze({
  /** A ping rides only with messages up to this size. */
  rideMaxBytes: 4096,
  tickMs: 250,
  pingAfterMs: 5000,
  pingAloneAfterMs: 6000,
  deadAfterMs: 7750,
  readProofMs: 10_000,
  proofBytes: 128 * 1024,
});
/** A ping's payload, as long as our token. */
const PING_PAYLOAD = Buffer.alloc(8);
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
      const at = performance.now();
      liveness.set(ws, { heardAt: at, pongAt: at, pinged: false, due: false, sent: 0, proven: 0, proofSent: -1 });
      ws.on('pong', heardPong);
      ws.on('message', heardMessage);
    }
    ws.on('close', () => {
      sockets.delete(ws);
      liveness.delete(ws);
    });
    ws.on('error', () => {
      /* the close event follows */
    });
    ws.on('message', answerPing);
    // The same two first messages as ours (sizes from the schedule): welcome, then a snapshot.
    const welcome = envelope('welcome', seq, schedule.welcomeBytes);
    const snapshot = envelope('snapshot', seq, schedule.snapshotBytes);
    ws.send(welcome, { binary: false });
    ws.send(snapshot, { binary: false });
    const l = liveness.get(ws);
    if (l) l.sent += welcome.length + snapshot.length;
  });

  // Beat b of loop k is due at start + k * loopMs + atMs[b], computed from the start each time so
  // timer lateness does not accumulate (as in server/performance/conductor.js).
  const start = performance.now();
  const beats = schedule.atMs.length;
  let next = 0;
  /** @type {NodeJS.Timeout | undefined} */
  let timer;
  const dueAt = (/** @type {number} */ i) => start + Math.floor(i / beats) * schedule.loopMs + schedule.atMs[i % beats];
  /**
   * Each socket's liveness ('ride' mode): last frame and last pong (performance.now()), whether a
   * ping is out or owed, bytes sent, bytes a pong proved read, bytes sent before the ping out.
   * @typedef {{ heardAt: number, pongAt: number, pinged: boolean, due: boolean, sent: number, proven: number, proofSent: number }} Liveness
   */
  /** @type {Map<import('ws').WebSocket, Liveness>} */
  const liveness = new Map();
  /** @param {Liveness} l @param {import('ws').WebSocket} ws */
  function ping(l, ws) {
    l.due = false;
    l.pinged = true;
    l.proofSent = l.sent;
    ws.ping(PING_PAYLOAD);
  }
  /** @this {import('ws').WebSocket} */
  function heardPong() {
    const l = liveness.get(this);
    if (!l) return;
    l.heardAt = l.pongAt = performance.now();
    if (l.proofSent >= 0) l.proven = l.proofSent;
    l.proofSent = -1;
    l.pinged = false;
    l.due = false;
  }
  /** @this {import('ws').WebSocket} */
  function heardMessage() {
    const l = liveness.get(this);
    if (l) l.heardAt = performance.now();
  }
  let lastBroadcast = 0;
  /** @param {Buffer} buf */
  function broadcast(buf) {
    lastBroadcast = performance.now();
    if (liveness.size === 0) {
      for (const ws of sockets) ws.send(buf, { binary: false });
      return;
    }
    const rides = buf.length <= RIDE_RULE.rideMaxBytes;
    for (const ws of sockets) {
      const l = liveness.get(ws);
      if (l) l.sent += buf.length;
      if (!l?.due || !rides) {
        ws.send(buf, { binary: false });
        continue;
      }
      const raw = rawSocket(ws);
      raw.cork();
      ws.send(buf, { binary: false });
      ping(l, ws);
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
    const r = RIDE_RULE;
    keepalive.push(
      setInterval(() => {
        const now = performance.now();
        for (const [ws, l] of liveness) {
          const silent = Math.max(now - l.heardAt, now - l.pongAt - r.readProofMs + r.pingAfterMs);
          if (silent >= r.deadAfterMs) {
            ws.terminate();
            continue;
          }
          const byBytes = l.sent - l.proven >= r.proofBytes;
          if (silent < r.pingAfterMs && !byBytes) {
            l.pinged = false;
            l.due = false;
            continue;
          }
          if (l.pinged || l.proofSent >= 0) continue;
          if (silent < r.pingAloneAfterMs && !(byBytes && l.due)) {
            l.due = true;
            continue;
          }
          ping(l, ws);
        }
      }, r.tickMs),
    );
  }
  // Bounded even when orphaned: the benchmark never needs it longer.
  const deadline = setTimeout(() => {
    close();
  }, maxSeconds * 1000);
  deadline.unref();

  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port, host, backlog: FLOOR_BACKLOG }, () => resolve(undefined));
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
  const { values } = benchArgs(import.meta.url, {
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

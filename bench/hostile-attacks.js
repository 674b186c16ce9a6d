// The attackers of the hostile-client benchmark (bench/hostile.js), run in a process of their
// own: `node bench/hostile-attacks.js`, driven over IPC. Every attack comes from its own loopback
// address (loopback has all of 127.0.0.0/8), as a machine in the audience would, so the server's
// per-address limits meet it; every loop is bounded in count and in time.
//
// - slow-loris: connections that dribble a request head, one byte a second, and open again when
//   the server closes them;
// - never-reading: WebSockets that never read a byte (their send buffers fill) while asking for a
//   whole snapshot ten times a second (a hello), the direct answer that fills a buffer fastest;
// - connection flood: up to 10,000 TCP connections from one address, spread over the attack,
//   each held open without a byte sent;
// - WebSocket flood: sockets that send garbage, large (3 KB), unknown and valid messages faster
//   than allowed, and open again when the server closes them (a frame over the 4 KB limit
//   closes a socket at once, which makes this a reconnect flood: the connection flood is that);
// - HTTP flood: taps with forged device ids and absurd latency reports on keep-alive connections.
//
// IPC, parent -> child: {type:'attack', ...AttackOptions}; child -> parent: {type:'result', ...}.

import http from 'node:http';
import net from 'node:net';
import { randomBytes } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import WebSocket, * as wsLibrary from 'ws';

/**
 * @typedef {object} AttackOptions
 * @property {number} port          the server's, on 127.0.0.1
 * @property {number} durationMs    every attack stops after this long
 * @property {number} slowLoris     slow-header connections held at once
 * @property {number} neverRead     WebSockets that never read
 * @property {number} connAttempts  TCP connections opened from one address, over the whole attack
 * @property {number} floodSockets  WebSockets flooding messages
 * @property {number} floodRate     messages a second, all flooding sockets together
 * @property {number} httpRate      taps and reports a second
 * @property {Record<'slow' | 'never' | 'conn' | 'flood' | 'http', string>} from  source address of each attack
 */

/** Attempts of one kind that open again after the server closed them, at most this many each. */
const MAX_REOPENS = 20_000;
/** Requests in flight at once in the HTTP flood. */
const HTTP_IN_FLIGHT = 64;
const TICK_MS = 50;
/** How long a never-reading socket is given to end once it reads, to tell whether it was cut. */
const CUT_WAIT_MS = 2000;

const sleep = (/** @type {number} */ ms) =>
  new Promise((resolve) => {
    setTimeout(resolve, ms);
  });

/** ws's frame builder (public in ws, missing from @types/ws). */
const Sender = /** @type {any} */ (wsLibrary).Sender;

/**
 * A client-to-server text frame (masked, RFC 6455 5.3), for sockets that speak WebSocket by hand.
 * @param {string} text
 * @returns {Buffer}
 */
const clientFrame = (text) =>
  Buffer.concat(Sender.frame(Buffer.from(text), { fin: true, opcode: 1, mask: true, readOnly: false, rsv1: false }));

/**
 * Slow-loris: `count` connections that each send a request head one byte a second; when the
 * server closes one (408 after its header timeout), it opens again.
 * @param {AttackOptions} o @param {() => boolean} alive
 */
function slowLoris(o, alive) {
  const s = { opened: 0, answered408: 0, closedByServer: 0, maxOpen: 0 };
  let open = 0;
  const line = Buffer.from('X-Slow-Loris: 1\r\n');
  const one = () => {
    if (!alive() || s.opened >= o.slowLoris + MAX_REOPENS) return;
    s.opened++;
    open++;
    s.maxOpen = Math.max(s.maxOpen, open);
    const socket = net.connect({ host: '127.0.0.1', port: o.port, localAddress: o.from.slow });
    let i = 0;
    let got = false;
    socket.on('connect', () => socket.write('GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n'));
    const dribble = setInterval(() => {
      if (socket.writable) socket.write(line.subarray(i % line.length, (i++ % line.length) + 1));
    }, 1000);
    socket.on('data', (d) => {
      if (!got && d.toString('latin1', 0, 12) === 'HTTP/1.1 408') s.answered408++;
      got = true;
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      clearInterval(dribble);
      open--;
      if (alive()) {
        s.closedByServer++;
        setTimeout(one, 100);
      }
    });
    sockets.add(socket);
  };
  for (let i = 0; i < o.slowLoris; i++) one();
  return s;
}

/**
 * Never-reading WebSockets: the upgrade is sent by hand and the socket is paused before a byte is
 * read, so the server's writes pile up; each asks for a snapshot ten times a second.
 * @param {AttackOptions} o @param {() => boolean} alive
 */
function neverRead(o, alive) {
  const s = { opened: 0, helloSent: 0, bytesSent: 0, closed: 0, lifeMs: /** @type {number[]} */ ([]), endedOnRead: 0 };
  const hello = clientFrame(JSON.stringify({ type: 'hello', epoch: null, seq: 0 }));
  for (let i = 0; i < o.neverRead; i++) {
    s.opened++;
    const socket = net.connect({ host: '127.0.0.1', port: o.port, localAddress: o.from.never });
    socket.pause();
    // The upgrade request goes first, and the hellos start only after it: a socket written
    // before it connects sends its writes in no promised order, and on a busy machine (this
    // process held off the CPU for 100 ms before its connect callback ran) a hello went ahead of
    // the request, which the server rightly answered 400 and closed: the never-reading sockets
    // that ended within 0.4 s in some rounds (bench/RESULTS.md, "Hostile clients").
    /** @type {ReturnType<typeof setInterval> | undefined} */
    let asking;
    socket.on('connect', () => {
      socket.write(
        `GET /live HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
      );
      asking = setInterval(() => {
        if (!alive()) {
          clearInterval(asking);
          return;
        }
        if (socket.writable && socket.writableLength < 65536) {
          socket.write(hello);
          s.helloSent++;
          s.bytesSent += hello.length;
        }
      }, 100);
    });
    const opened = performance.now();
    // A paused socket sees the server's close only when a write fails (EPIPE, ECONNRESET).
    socket.on('error', () => {});
    socket.on('close', () => {
      clearInterval(asking);
      if (alive()) {
        s.closed++;
        s.lifeMs.push(performance.now() - opened);
      }
    });
    sockets.add(socket);
    neverReaders.push(socket);
  }
  return s;
}

/**
 * How many never-reading sockets still open had been cut by the server all the same (their
 * writes had not failed yet): each starts reading now, and one the server closed ends (after what
 * was queued for it) within `ms`; one it still holds stays open.
 * @param {number} ms
 */
async function countCut(ms) {
  let cut = 0;
  for (const socket of neverReaders) {
    socket.on('end', () => {
      cut++;
    });
    socket.on('data', () => {});
    socket.resume();
  }
  await sleep(ms);
  return cut;
}

/**
 * Connection flood: `connAttempts` TCP connections from one address, opened evenly over the
 * attack and held without a byte sent until the server closes them (429 past its per-address
 * cap, 408 at its header timeout).
 * @param {AttackOptions} o @param {() => boolean} alive
 */
function connectionFlood(o, alive) {
  const s = { attempts: 0, answered429: 0, answered408: 0, failed: 0, maxOpen: 0 };
  let open = 0;
  // Spread over the first 90% of the attack, so that every attempt is made.
  const perTick = Math.max(1, Math.ceil(o.connAttempts / ((0.9 * o.durationMs) / TICK_MS)));
  const timer = setInterval(() => {
    if (!alive() || s.attempts >= o.connAttempts) {
      clearInterval(timer);
      return;
    }
    for (let k = 0; k < perTick && s.attempts < o.connAttempts; k++) {
      s.attempts++;
      const socket = net.connect({ host: '127.0.0.1', port: o.port, localAddress: o.from.conn });
      let connected = false;
      socket.on('connect', () => {
        connected = true;
        open++;
        s.maxOpen = Math.max(s.maxOpen, open);
      });
      socket.once('data', (d) => {
        const status = d.toString('latin1', 9, 12);
        if (status === '429') s.answered429++;
        else if (status === '408') s.answered408++;
      });
      socket.on('error', () => {
        if (!connected) s.failed++;
      });
      socket.on('close', () => {
        if (connected) open--;
      });
      sockets.add(socket);
    }
  }, TICK_MS);
  return s;
}

/**
 * WebSocket message flood: each socket sends its share of `floodRate` a second, a mix of
 * malformed JSON, large frames, unknown types, forged taps and valid pings; when the server closes it
 * (4002 after 200 refused messages), it opens again.
 * @param {AttackOptions} o @param {() => boolean} alive
 */
function messageFlood(o, alive) {
  const s = { connects: 0, sent: 0, errorsBack: 0, closed4002: 0, closedOther: 0 };
  const kinds = [
    Buffer.from('not json at all {'),
    Buffer.from(JSON.stringify({ type: 'ping', id: 1, t0: 0, pad: 'x'.repeat(3000) })),
    Buffer.from(JSON.stringify({ type: 'launch', target: 'everything' })),
    Buffer.from(JSON.stringify({ type: 'ping', id: 1, t0: 1 })),
    Buffer.from(JSON.stringify({ type: 'tap', tile: 't0', device: 'forged-device-id' })),
  ];
  const perTick = Math.max(1, Math.round((o.floodRate / o.floodSockets) * (TICK_MS / 1000)));
  const one = () => {
    if (!alive() || s.connects >= o.floodSockets + MAX_REOPENS / 10) return;
    s.connects++;
    const ws = new WebSocket(`ws://127.0.0.1:${o.port}/live`, {
      localAddress: o.from.flood,
      perMessageDeflate: false,
      handshakeTimeout: 10_000,
    });
    let n = 0;
    const timer = setInterval(() => {
      if (!alive()) {
        clearInterval(timer);
        return;
      }
      if (ws.readyState !== WebSocket.OPEN || ws.bufferedAmount > 1 << 20) return;
      for (let k = 0; k < perTick; k++) {
        ws.send(kinds[n++ % kinds.length]);
        s.sent++;
      }
    }, TICK_MS);
    ws.on('message', (/** @type {Buffer} */ data) => {
      if (data.toString('latin1', 0, 16).startsWith('{"type":"error"')) s.errorsBack++;
    });
    ws.on('error', () => {});
    ws.on('close', (code) => {
      clearInterval(timer);
      if (code === 4002) s.closed4002++;
      else s.closedOther++;
      if (alive()) setTimeout(one, 100);
    });
    flooders.add(ws);
  };
  for (let i = 0; i < o.floodSockets; i++) one();
  return s;
}

/**
 * HTTP flood: `httpRate` requests a second on keep-alive connections from one address, taps with
 * forged device ids and reports of 600 s latency, at most HTTP_IN_FLIGHT at once.
 * @param {AttackOptions} o @param {() => boolean} alive
 */
function httpFlood(o, alive) {
  /** @type {{ sent: number, skipped: number, byStatus: Record<string, number> }} */
  const s = { sent: 0, skipped: 0, byStatus: {} };
  const agent = new http.Agent({ keepAlive: true, maxSockets: 16, localAddress: o.from.http });
  const bodies = [
    ['/api/tap', JSON.stringify({ tile: 't0', device: 'forged-device-id' })],
    [
      '/api/report',
      JSON.stringify({
        transport: 'poll',
        view: 'audience',
        client: 'fake',
        push: [600_000, 600_000],
        display: [600_000],
      }),
    ],
  ];
  let inFlight = 0;
  const perTick = Math.max(1, Math.round(o.httpRate * (TICK_MS / 1000)));
  const timer = setInterval(() => {
    if (!alive()) {
      clearInterval(timer);
      agent.destroy();
      return;
    }
    for (let k = 0; k < perTick; k++) {
      if (inFlight >= HTTP_IN_FLIGHT) {
        s.skipped++;
        continue;
      }
      const [route, body] = bodies[s.sent % bodies.length];
      s.sent++;
      inFlight++;
      const req = http.request(
        {
          host: '127.0.0.1',
          port: o.port,
          path: route,
          method: 'POST',
          agent,
          headers: { 'content-type': 'application/json' },
        },
        (res) => {
          s.byStatus[res.statusCode ?? 0] = (s.byStatus[res.statusCode ?? 0] ?? 0) + 1;
          res.resume();
          res.on('end', () => {
            inFlight--;
          });
        },
      );
      req.on('error', () => {
        inFlight--;
        s.byStatus.error = (s.byStatus.error ?? 0) + 1;
      });
      req.end(body);
    }
  }, TICK_MS);
  return s;
}

/** Every raw socket the attacks opened, destroyed at the end. @type {Set<net.Socket>} */
const sockets = new Set();
/** @type {Set<WebSocket>} */
const flooders = new Set();
/** @type {net.Socket[]} */
const neverReaders = [];

/**
 * Run every attack for `durationMs`, then close everything.
 * @param {AttackOptions} o
 */
export async function attack(o) {
  const until = performance.now() + o.durationMs;
  const alive = () => performance.now() < until;
  const result = {
    slowLoris: slowLoris(o, alive),
    neverRead: neverRead(o, alive),
    connectionFlood: connectionFlood(o, alive),
    messageFlood: messageFlood(o, alive),
    httpFlood: httpFlood(o, alive),
  };
  await sleep(o.durationMs + TICK_MS);
  result.neverRead.endedOnRead = await countCut(CUT_WAIT_MS);
  for (const socket of sockets) socket.destroy();
  for (const ws of flooders) ws.terminate();
  return result;
}

function main() {
  process.on('disconnect', () => process.exit(0));
  process.once('message', async (/** @type {any} */ msg) => {
    if (msg?.type !== 'attack') return;
    // Bounded even when orphaned.
    setTimeout(() => process.exit(3), msg.durationMs + CUT_WAIT_MS + 60_000).unref();
    const result = await attack(msg);
    process.send?.({ type: 'result', ...result }, undefined, {}, () => process.exit(0));
  });
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) main();

// WebSocket transport at /live, on the `ws` library with noServer: the HTTP server's upgrade
// event is routed here. Same envelope and resync rule as SSE and polling (doc/protocol.md).

import { randomBytes } from 'node:crypto';
import * as wsLibrary from 'ws';
import { decodeResyncQuery } from '../../../core/protocol.js';
import { CLOSE, DEAD_LINK_MS, MAX_CLIENT_MESSAGE_BYTES, MAX_POLL_WAIT_MS } from '../../../core/constants.js';

const { WebSocketServer } = wsLibrary;
/**
 * ws's frame builder (`Sender.frame`, public in ws but missing from @types/ws).
 * @type {{ frame: (data: Buffer, options: { fin: boolean, opcode: number, mask: boolean, readOnly: boolean, rsv1: boolean }) => Buffer[] }}
 */
const Sender = /** @type {any} */ (wsLibrary).Sender;

/**
 * Frames one client message may come in (RFC 6455 5.4, fragmentation). A message is at most
 * MAX_CLIENT_MESSAGE_BYTES and browsers send each in one frame; ws's default of 16,384 let a client
 * send empty continuation frames without end, each parsed and none a message, so none counted by
 * the message rate limit. Past this, ws closes the connection with 1008.
 */
export const MAX_MESSAGE_FRAGMENTS = 16;

/** After a close frame, a connection that has not closed within this time is cut (ms). */
const CLOSE_GRACE_MS = 2000;
/**
 * A client's protocol error (an oversized or malformed frame: ws closes the socket) is logged at
 * most once in this time, with how many were not logged since the last line: each is the
 * client's doing, not the server's, and a reconnect-and-bad-frame flood wrote 1,584 warnings in
 * 8 s (ms).
 */
export const ERROR_LOG_EVERY_MS = 1000;

/**
 * Liveness (doc/protocol.md, "Heartbeats and dead links"). Any frame from the client (a message
 * or a pong) proves the link is up, but only a pong proves the client reads: it answers a ping
 * that was written after everything sent before it. So a socket that keeps sending but has not
 * answered a ping for READ_PROOF_MS is treated as silent from then on (bench/RESULTS.md,
 * "Hostile clients": sockets that sent a hello ten times a second and never read were never
 * pinged, and held 4 MB each in the kernel's send buffer without ever passing the hub's
 * user-space bound). A socket silent for PING_AFTER_MS owes a protocol ping, which rides
 * in the same write as its next small message (at most RIDE_MAX_BYTES: behind a big one, on a
 * slow link, the ping would wait for the whole message and the answer come late); if no such
 * message goes out before the silence reaches PING_ALONE_AFTER_MS, the ping goes alone, in a
 * write of its own. A socket silent for DEAD_AFTER_MS is cut. One timer checks every socket each
 * LIVENESS_TICK_MS, so a dead link is found at most DEAD_AFTER_MS + LIVENESS_TICK_MS =
 * DEAD_LINK_MS after its last frame, and the client has at least DEAD_AFTER_MS -
 * PING_ALONE_AFTER_MS - LIVENESS_TICK_MS = 1,500 ms to answer a ping.
 * Why this shape (bench/RESULTS.md): at 1,500 clients, pinging every socket every 2 s cost as
 * much CPU as the music itself; pinging only silent sockets halved that; then most pings still
 * went alone, each a system call, because they waited only one tick (250 ms) for a message while
 * the seed profile sends one every 750 ms, so the ride window is now a whole second. Riding with
 * big messages too saved a little more CPU but made the load client answer pongs in the middle of
 * reading the big messages, which raised push latency (p99 +20%).
 */
export const LIVENESS_TICK_MS = 250;
export const PING_AFTER_MS = 2000;
export const PING_ALONE_AFTER_MS = 3000;
export const DEAD_AFTER_MS = DEAD_LINK_MS - LIVENESS_TICK_MS;
export const RIDE_MAX_BYTES = 4096;
/** A socket must answer a ping at least this often, however much it sends (the hub's behindMs). */
export const READ_PROOF_MS = 10_000;

/**
 * Proof of reading by bytes. The hub sees only what waits in user space; a socket that does not
 * read first fills the kernel's send buffer (up to 4 MB on these machines) and the peer's receive
 * buffer, invisible there (bench/RESULTS.md, "Hostile clients": 100 never-reading sockets held
 * 227 MB of the kernel's memory and cost the server a snapshot write each ten times a second). So
 * every ping carries a token of its own that the pong must echo (RFC 6455 5.5.3: a pong repeats
 * its ping's data; a pong the client sends unasked proves nothing), and the bytes the hub had
 * written before the ping count as read when its pong comes. A socket sent PROOF_BYTES since its
 * last proof owes a ping (riding with the next small message, or alone a tick later); one whose
 * oldest unanswered ping is PROOF_WAIT_MS old reports every byte not proven read as unsent, so
 * the hub's behind rule (512 KB, doc/protocol.md "Backpressure") stops writing to it there,
 * whether the bytes wait in user space or in the kernel. A client that reads answers within its
 * round trip and never reaches it (at the seed profile's 24 KB/s, 512 KB is 20 s of music).
 */
export const PROOF_BYTES = 128 * 1024;
export const PROOF_WAIT_MS = 1000;
/** Unanswered pings remembered per socket (more is an old ping forgotten: under-credit only). */
const MAX_PROOFS = 8;
const TOKEN_BYTES = 8;

/**
 * @typedef {{ token: Buffer, sent: number, at: number }} Proof
 *   a ping that went out: its token, the bytes written to the socket before it, when (performance.now())
 */

/**
 * @typedef {import('ws').WebSocket & { heardAt: number, pongAt: number, pinged: boolean, pingDue: boolean, sent: number, proven: number, proofs: Proof[], overdue: boolean, session: import('../hub.js').HubSession | null }} LiveSocket
 *   heardAt: performance.now() of the last frame from the client; pongAt: of the last pong that
 *   answered a ping (or the upgrade); pinged: a ping went out since;
 *   pingDue: a ping is owed and waits to ride with the next message;
 *   sent: bytes the hub wrote; proven: of those, how many a pong proved read;
 *   proofs: pings not answered yet, oldest first; overdue: the oldest is PROOF_WAIT_MS old
 */

/** Ping tokens, cut from a random pool refilled as it runs out (one system call per 1,024 pings). */
let tokenPool = Buffer.alloc(0);
let tokenAt = 0;
function nextToken() {
  if (tokenAt + TOKEN_BYTES > tokenPool.length) {
    tokenPool = randomBytes(1024 * TOKEN_BYTES);
    tokenAt = 0;
  }
  tokenAt += TOKEN_BYTES;
  return tokenPool.subarray(tokenAt - TOKEN_BYTES, tokenAt);
}

/**
 * A protocol ping with a fresh token, remembered with the bytes written before it.
 * @param {LiveSocket} ws
 */
export function sendPing(ws) {
  const token = nextToken();
  if (ws.proofs.length >= MAX_PROOFS) ws.proofs.shift();
  ws.proofs.push({ token, sent: ws.sent, at: performance.now() });
  ws.pinged = true;
  ws.pingDue = false;
  ws.ping(token);
}

/**
 * Bytes written to the socket and not proven read, once its proof is overdue; else what waits in
 * user space (`queued`).
 * @param {LiveSocket} ws @param {number} queued
 */
const unsent = (ws, queued) => (ws.overdue ? Math.max(queued, ws.sent - ws.proven) : queued);

/**
 * Whether ws still offers its frame builder: the fast path below frames each message once for
 * every socket with it. Without it (a ws release that dropped it), messages go through `ws.send`.
 */
export const FAST_FRAMING = typeof Sender?.frame === 'function';

/**
 * A message as one whole WebSocket text frame (RFC 6455: FIN, opcode 1, unmasked as a server's
 * frames are), framed by ws's own `Sender.frame`. The hub builds it once per message and the same
 * bytes are written to every socket: `ws.send` would frame the message again for each socket,
 * with a header buffer, a cork and a two-buffer write each time. Without the frame builder, the
 * message's text.
 * @type {import('../hub.js').Framer}
 */
export const frameWs = FAST_FRAMING
  ? (msg) =>
      Buffer.concat(
        Sender.frame(Buffer.from(msg.text), { fin: true, opcode: 1, mask: false, readOnly: false, rsv1: false }),
      )
  : (msg) => Buffer.from(msg.text);

/**
 * The payload of a frame made by frameWs (unmasked: a 2, 4 or 10 byte header, RFC 6455 5.2).
 * @param {Buffer} frame
 */
export function framePayload(frame) {
  const len = frame[1] & 0x7f;
  return frame.subarray(len === 126 ? 4 : len === 127 ? 10 : 2);
}

/**
 * ws's underlying net.Socket (private `_socket`, stable across ws 8), or null when it is not
 * there or does not look like one (a ws upgrade that changed it): then the socket gets its
 * messages through the public `ws.send`, as engine.io does, slower but never silently broken.
 * @param {import('ws').WebSocket} ws
 * @returns {import('node:net').Socket | null}
 */
export function rawSocketOf(ws) {
  const raw = /** @type {{ _socket?: unknown }} */ (/** @type {unknown} */ (ws))._socket;
  const r = /** @type {Partial<import('node:net').Socket> | null | undefined} */ (raw);
  return r &&
    typeof r.write === 'function' &&
    typeof r.cork === 'function' &&
    typeof r.uncork === 'function' &&
    typeof r.writableLength === 'number'
    ? /** @type {import('node:net').Socket} */ (raw)
    : null;
}

/**
 * One socket as the hub's Link: a framed message (frameWs), with the socket's owed ping in the
 * same write if the message is small. A class with fixed fields, not an object of closures: one
 * lives as long as each connection (heap snapshot at 1,500 clients: three closures and their
 * context cost about 230 bytes a connection).
 * Fast path: the frame straight to ws's net.Socket, corked around the frame and the ping; ws
 * writes its own frames (pings, close) to it the same way, in order: with per-message deflate
 * off, ws never holds frames back. Fallback (no raw socket or no frame builder): `ws.send` of the
 * text. Nothing is written once the closing handshake has begun.
 */
export class SocketLink {
  /**
   * @param {LiveSocket} ws
   * @param {import('node:net').Socket | null} raw  rawSocketOf(ws)
   * @param {string} [address]  the client's address (per-address caps)
   */
  constructor(ws, raw, address = '') {
    this.kind = 'ws';
    this.ws = ws;
    /** The socket written directly, or null to go through `ws.send`. */
    this.raw = raw && FAST_FRAMING ? raw : null;
    this.address = address;
  }

  get fast() {
    return this.raw !== null;
  }

  /** @param {Buffer} frame */
  send(frame) {
    const { ws, raw } = this;
    if (ws.readyState !== ws.OPEN) return;
    ws.sent += frame.length;
    if (raw === null) {
      const text = FAST_FRAMING ? framePayload(frame) : frame;
      if (ws.pingDue && text.length <= RIDE_MAX_BYTES) sendPing(ws);
      ws.send(text, { binary: false });
      return;
    }
    if (!ws.pingDue || frame.length > RIDE_MAX_BYTES) {
      raw.write(frame);
      return;
    }
    raw.cork();
    raw.write(frame);
    sendPing(ws);
    raw.uncork();
  }

  /**
   * What waits to be sent. What ws's bufferedAmount adds to the raw socket's is always 0 on the
   * fast path: ws holds frames back only while compressing, and per-message deflate is off.
   */
  buffered() {
    return unsent(this.ws, this.raw !== null ? this.raw.writableLength : this.ws.bufferedAmount);
  }

  /** @param {number} code @param {string} reason */
  close(code, reason) {
    const { ws } = this;
    ws.close(code, reason);
    setTimeout(() => ws.terminate(), CLOSE_GRACE_MS).unref();
  }
}

/**
 * A socket's Link without an address (tests).
 * @param {LiveSocket} ws
 * @param {import('node:net').Socket | null} raw  rawSocketOf(ws)
 */
export const socketWriter = (ws, raw) => new SocketLink(ws, raw);

/**
 * A frame from the client. A message proves the link; a pong that answers one of our pings (or
 * the upgrade) also proves reading, up to the bytes written before that ping. Whether a ping is
 * still owed is decided by the checker (a message does not pay for one that is owed for want of
 * a pong).
 * @param {LiveSocket} ws @param {boolean} isPong
 */
function heard(ws, isPong) {
  ws.heardAt = performance.now();
  if (isPong) {
    ws.pongAt = ws.heardAt;
    ws.pinged = false;
    ws.pingDue = false;
  }
}

/**
 * A pong: proof of reading when it echoes the token of a ping not yet answered (and of every
 * ping before it: a client reads in order); otherwise only a frame.
 * @param {LiveSocket} ws @param {Buffer} data
 */
export function heardPong(ws, data) {
  const i = ws.proofs.findIndex((p) => p.token.equals(data));
  if (i < 0) {
    heard(ws, false);
    return;
  }
  ws.proven = ws.proofs[i].sent;
  ws.proofs.splice(0, i + 1);
  ws.overdue = false;
  heard(ws, true);
}

/**
 * A socket made by liveSocket, as ws hands it to a listener (`this`).
 * @param {import('ws').WebSocket} ws
 */
const asLive = (ws) => /** @type {LiveSocket} */ (ws);

/**
 * A socket's read-proof bookkeeping, from its upgrade (which proves nothing was owed).
 * @param {import('ws').WebSocket} ws
 * @returns {LiveSocket}
 */
export function liveSocket(ws) {
  const live = /** @type {LiveSocket} */ (ws);
  live.sent = 0;
  live.proven = 0;
  live.proofs = [];
  live.overdue = false;
  live.pinged = false;
  live.pingDue = false;
  live.session = null;
  heard(live, true);
  return live;
}

/**
 * @typedef {object} WebSocketOptions
 * @property {string} [path]
 * @property {{ warn: (obj: object, msg: string) => void }} [log]
 * @property {number} [readProofMs]  READ_PROOF_MS (tests shorten it)
 * @property {(req: import('node:http').IncomingMessage) => string} [clientAddress]  the client of an
 *   upgrade, for the per-address limits of its taps and reports (default: the TCP peer; behind a
 *   trusted proxy, the client it forwarded: server/http/client-address.js)
 * @property {(req: import('node:http').IncomingMessage, socket: import('node:stream').Duplex, client: string) => boolean} [admit]
 *   whether the upgrade may go on (false: it has been answered; server/http/connection-limit.js)
 */

/**
 * @param {import('node:http').Server} server
 * @param {import('../hub.js').Hub} hub
 * @param {WebSocketOptions} [options]
 */
export function attachWebSocket(
  server,
  hub,
  {
    path = '/live',
    log,
    readProofMs = READ_PROOF_MS,
    clientAddress = (req) => req.socket.remoteAddress ?? '',
    admit = () => true,
  } = {},
) {
  // Per-message deflate stays off: compression would make every socket's bytes different.
  // UTF-8 is checked by the decoder, which answers SC_ERR_BAD_MESSAGE and keeps the connection
  // (ws would close it with 1007, outside the error catalogue).
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: MAX_CLIENT_MESSAGE_BYTES,
    maxFragments: MAX_MESSAGE_FRAGMENTS,
    perMessageDeflate: false,
    clientTracking: false,
    skipUTF8Validation: true,
  });
  /** @type {Set<LiveSocket>} */
  const sockets = new Set();
  /** @type {ReturnType<typeof setInterval> | null} */
  let checker = null;
  let warnedSlow = false;
  let errorLoggedAt = Number.NEGATIVE_INFINITY;
  let errorsUnlogged = 0;
  hub.setFramer('ws', frameWs);

  /**
   * @param {import('node:http').IncomingMessage} req
   * @param {import('node:stream').Duplex} socket
   * @param {Buffer} head
   */
  function onUpgrade(req, socket, head) {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname !== path) {
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    const query = decodeResyncQuery(Object.fromEntries(url.searchParams), MAX_POLL_WAIT_MS);
    if (!query.ok) {
      const body = JSON.stringify(query.error);
      socket.end(
        `HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      );
      return;
    }
    const client = clientAddress(req);
    if (!admit(req, socket, client)) return;
    const holds = { epoch: query.value.epoch, seq: query.value.since, view: query.value.view };
    // Nothing below keeps the upgrade request: only the client's address goes on with the socket.
    wss.handleUpgrade(req, socket, head, (ws) => {
      const live = liveSocket(ws);
      const link = new SocketLink(live, rawSocketOf(ws), client);
      if (!link.fast && !warnedSlow) {
        warnedSlow = true;
        log?.warn({}, 'ws offers no raw socket or frame builder: WebSocket messages go through ws.send (slower)');
      }
      sockets.add(live);
      if (checker === null) {
        checker = setInterval(check, LIVENESS_TICK_MS);
        checker.unref();
      }
      live.session = hub.attach(link, holds);
      // The same four functions for every connection (ws calls them with the socket as `this`):
      // a closure each per connection cost about 300 bytes with their context.
      ws.on('message', onMessage);
      ws.on('pong', onPong);
      ws.on('close', onClose);
      ws.on('error', onError);
    });
  }

  /** @this {import('ws').WebSocket} @param {Buffer} data @param {boolean} isBinary */
  function onMessage(data, isBinary) {
    heard(asLive(this), false);
    asLive(this).session?.receive(data, isBinary);
  }
  /** @this {import('ws').WebSocket} @param {Buffer} data */
  function onPong(data) {
    heardPong(asLive(this), data);
  }
  /** @this {import('ws').WebSocket} */
  function onClose() {
    sockets.delete(asLive(this));
    asLive(this).session?.detach();
    if (sockets.size === 0 && checker !== null) {
      clearInterval(checker);
      checker = null;
    }
  }
  /** @param {Error} err */
  function onError(err) {
    // Oversized frames arrive here (ws closes them with 1009); the session is detached on close.
    const now = performance.now();
    if (now - errorLoggedAt < ERROR_LOG_EVERY_MS) {
      errorsUnlogged++;
      return;
    }
    errorLoggedAt = now;
    log?.warn({ err: err.message, code: /** @type {any} */ (err).code, unlogged: errorsUnlogged }, 'websocket error');
    errorsUnlogged = 0;
  }

  server.on('upgrade', onUpgrade);

  // One timer for every socket, running while there are sockets: owe a ping, send it alone when
  // no message took it, cut the dead. A socket that has not answered a ping for readProofMs
  // counts as silent since readProofMs - PING_AFTER_MS after its last pong, whatever it sends.
  // A socket sent PROOF_BYTES since its last proof owes a ping too, alone if no message took it
  // within a tick; its proof is overdue once its oldest unanswered ping is PROOF_WAIT_MS old.
  function check() {
    const now = performance.now();
    for (const ws of sockets) {
      ws.overdue = ws.proofs.length > 0 && now - ws.proofs[0].at >= PROOF_WAIT_MS;
      const silent = Math.max(now - ws.heardAt, now - ws.pongAt - readProofMs + PING_AFTER_MS);
      if (silent >= DEAD_AFTER_MS) {
        ws.terminate();
        continue;
      }
      const byBytes = ws.sent - ws.proven >= PROOF_BYTES;
      if (silent < PING_AFTER_MS && !byBytes) {
        ws.pinged = false;
        ws.pingDue = false;
        continue;
      }
      if (ws.pinged) continue;
      if (silent < PING_ALONE_AFTER_MS && !(byBytes && ws.pingDue)) {
        ws.pingDue = true;
        continue;
      }
      sendPing(ws);
    }
  }

  return {
    get size() {
      return sockets.size;
    },
    close() {
      if (checker !== null) clearInterval(checker);
      checker = null;
      server.off('upgrade', onUpgrade);
      for (const ws of sockets) {
        ws.close(CLOSE.GOING_AWAY, 'server shutting down');
        setTimeout(() => ws.terminate(), CLOSE_GRACE_MS).unref();
      }
    },
  };
}

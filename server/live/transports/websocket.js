// WebSocket transport at /live, on the `ws` library with noServer: the HTTP server's upgrade
// event is routed here. Same envelope and resync rule as SSE and polling (doc/protocol.md).

import { randomBytes } from 'node:crypto';
import * as wsLibrary from 'ws';
import { PROOF_TOKEN_MAX, decodeResyncQuery } from '../../../core/protocol.js';
import { CLOSE, MAX_CLIENT_MESSAGE_BYTES, MAX_POLL_WAIT_MS } from '../../../core/constants.js';

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
 * SERVER_DEAD_LINK_MS after its last frame, and the client has at least DEAD_AFTER_MS -
 * PING_ALONE_AFTER_MS - LIVENESS_TICK_MS = 1,500 ms to answer a ping.
 * PING_AFTER_MS is longer than an audience page's clock-sync cadence (client/src/time/clock.js:
 * a `ping` message every 4 s) with a second of slack for a phone's late timers, so a page that
 * talks is never pinged for liveness: its own messages prove the link, and only the read proof
 * (every READ_PROOF_MS or PROOF_BYTES) costs it a pong. At 1,500 clients the pongs of a 2 s rule
 * (about 530 a second, each a read through libuv, the stream and ws's parser) cost a third to a
 * half of a bare broadcast's CPU (bench/RESULTS.md, "the pongs of the 5 s rule"). The price is a
 * later cut on the server's side (8 s after the last frame, was 5 s); a page finds a dead link
 * on its own side as fast as before (nothing heard for DEAD_LINK_MS, and the link probe sooner),
 * since the server's heartbeat rule is unchanged and a browser answers pings without its script.
 * Why pings ride (bench/RESULTS.md): at 1,500 clients, pinging every socket every 2 s cost as
 * much CPU as the music itself; pinging only silent sockets halved that; then most pings still
 * went alone, each a system call, because they waited only one tick (250 ms) for a message while
 * the seed profile sends one every 750 ms, so the ride window is a whole second. Riding with
 * big messages too saved a little more CPU but made the load client answer pongs in the middle of
 * reading the big messages, which raised push latency (p99 +20%).
 */
export const LIVENESS_TICK_MS = 250;
export const PING_AFTER_MS = 5000;
export const PING_ALONE_AFTER_MS = 6000;
/** A dead WebSocket link is cut at most this long after its last frame (ms). */
export const SERVER_DEAD_LINK_MS = 8000;
export const DEAD_AFTER_MS = SERVER_DEAD_LINK_MS - LIVENESS_TICK_MS;
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
 * ping has gone unanswered for PROOF_WAIT_MS reports every byte not proven read as unsent, so
 * the hub's behind rule (512 KB, doc/protocol.md "Backpressure") stops writing to it there,
 * whether the bytes wait in user space or in the kernel. A client that reads answers within its
 * round trip and never reaches it (at the seed profile's 24 KB/s, 512 KB is 20 s of music).
 */
export const PROOF_BYTES = 128 * 1024;
export const PROOF_WAIT_MS = 1000;
/*
 * Proof of reading without a protocol ping: the `pong` message that answers a page's clock-sync
 * `ping` carries a token of this socket's own (`proof`, doc/protocol.md), and the page echoes it in
 * its next `ping`. The pong was written after every byte before it, so its echo proves those bytes
 * read as a protocol pong would, on messages the page sends anyway: a page that talks every 4 s
 * costs the server no ping and no pong frame to read (at 1,500 clients each pong read cost about
 * 21 us: bench/RESULTS.md, "the pongs of the 5 s rule"). The token is random (30 bits from the
 * ping pool, a small integer V8 keeps in the object: PROOF_TOKEN_MAX), so a client cannot echo
 * what it has not read; an echo that does not match is only a message. A client that never echoes
 * is proven by protocol pings as before.
 */
/** A ping's token (RFC 6455 5.5.2: up to 125 bytes, which its pong echoes). */
const TOKEN_BYTES = 8;
/** A ping frame as the server writes it: FIN and opcode 9, unmasked, length 8, the token. */
const PING_FRAME_BYTES = 2 + TOKEN_BYTES;

/**
 * Ping frames, built whole with their tokens in a random pool refilled as it runs out (one system
 * call per 1,024 pings): a ping goes straight to the socket, in the same write as the message it
 * rides with, framed once when the pool is made.
 */
let pingPool = Buffer.alloc(0);
let pingAt = 0;

/**
 * The liveness clock: performance.now() in whole ms. A SocketLink's times are small integers, so
 * V8 keeps them in the object itself; a fraction would box each in a HeapNumber of its own (16
 * bytes a field a connection: heap snapshot at 1,500 clients).
 */
const clock = () => Math.floor(performance.now());
function nextPingFrame() {
  if (pingAt + PING_FRAME_BYTES > pingPool.length) {
    pingPool = randomBytes(1024 * PING_FRAME_BYTES);
    for (let i = 0; i < pingPool.length; i += PING_FRAME_BYTES) {
      pingPool[i] = 0x89;
      pingPool[i + 1] = TOKEN_BYTES;
    }
    pingAt = 0;
  }
  pingAt += PING_FRAME_BYTES;
  return pingPool.subarray(pingAt - PING_FRAME_BYTES, pingAt);
}

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
 * One socket as the hub's Link, and its liveness and read-proof bookkeeping: a class with fixed
 * fields, not an object of closures nor properties added to ws's socket (heap snapshot at 1,500
 * clients: three closures and their context cost about 230 bytes a connection, eight properties
 * added to the WebSocket object a property array of their own). A framed message (frameWs) goes
 * with the socket's owed ping in the same write if the message is small.
 * Fast path: the frame straight to ws's net.Socket, corked around the frame and the ping; ws
 * writes its own frames (close) to it the same way, in order: with per-message deflate off, ws
 * never holds frames back. Fallback (no raw socket or no frame builder): `ws.send` of the text and
 * `ws.ping`. Nothing is written once the closing handshake has begun.
 */
export class SocketLink {
  /**
   * @param {import('ws').WebSocket} ws
   * @param {import('node:net').Socket | null} raw  rawSocketOf(ws)
   * @param {string} [address]  the client's address (per-address caps)
   */
  constructor(ws, raw, address = '') {
    this.kind = 'ws';
    this.ws = ws;
    /** The socket written directly, or null to go through `ws.send`. */
    this.raw = raw && FAST_FRAMING ? raw : null;
    this.address = address;
    /** @type {import('../hub.js').HubSession | null} */
    this.session = null;
    /** clock() of the last frame from the client. */
    this.heardAt = clock();
    /** ... of the last pong that answered a ping (the upgrade counts as one: nothing was owed). */
    this.pongAt = this.heardAt;
    /** A ping went out since the last pong (or since the client last talked). */
    this.pinged = false;
    /** A ping is owed and waits to ride with the next small message. */
    this.pingDue = false;
    /** Bytes the hub wrote. */
    this.sent = 0;
    /** Of those, how many a pong proved read. */
    this.proven = 0;
    /**
     * The ping out, not answered yet: when it went (-1: none), the bytes written before it, and
     * its token, where it lies in the ping pool (the pool is never written again once made: two
     * fields, no copy of the token).
     */
    this.proofAt = -1;
    this.proofSent = 0;
    /** @type {Buffer | null} */
    this.proofPool = null;
    this.proofToken = 0;
    /** The ping out is PROOF_WAIT_MS old. */
    this.overdue = false;
    /** The token offered in the last clock-sync pong, not echoed yet (-1: none), and the bytes written before it. */
    this.offerToken = -1;
    this.offerSent = 0;
  }

  /**
   * A fresh token for the pong this socket is about to be written, remembered with the bytes
   * written before it (it replaces one not echoed: the newer proves more).
   * @returns {number}
   */
  offerProof() {
    const frame = nextPingFrame();
    this.offerToken = frame.readUInt32LE(2) & PROOF_TOKEN_MAX;
    this.offerSent = this.sent;
    return this.offerToken;
  }

  /**
   * A clock-sync ping echoed `token`: if it is the one offered, the bytes written before its pong
   * are proven read, as by a protocol pong; a ping out that asked for no more is answered too.
   * @param {number} token
   */
  proofEchoed(token) {
    if (this.offerToken < 0 || token !== this.offerToken) return;
    this.offerToken = -1;
    if (this.offerSent > this.proven) this.proven = this.offerSent;
    if (this.proofAt >= 0 && this.proofSent <= this.offerSent) {
      this.proofAt = -1;
      this.proofPool = null;
      this.overdue = false;
    }
    heard(this, true);
  }

  get fast() {
    return this.raw !== null;
  }

  /** @param {Buffer} frame */
  send(frame) {
    const { ws, raw } = this;
    if (ws.readyState !== ws.OPEN) return;
    this.sent += frame.length;
    if (raw === null) {
      const text = FAST_FRAMING ? framePayload(frame) : frame;
      if (this.pingDue && text.length <= RIDE_MAX_BYTES) sendPing(this);
      ws.send(text, { binary: false });
      return;
    }
    if (!this.pingDue || frame.length > RIDE_MAX_BYTES) {
      raw.write(frame);
      return;
    }
    raw.cork();
    raw.write(frame);
    sendPing(this);
    raw.uncork();
  }

  /**
   * What waits to be sent: what waits in user space, or once the proof is overdue every byte not
   * proven read. What ws's bufferedAmount adds to the raw socket's is always 0 on the fast path:
   * ws holds frames back only while compressing, and per-message deflate is off.
   */
  buffered() {
    const queued = this.raw !== null ? this.raw.writableLength : this.ws.bufferedAmount;
    return this.overdue ? Math.max(queued, this.sent - this.proven) : queued;
  }

  /** @param {number} code @param {string} reason */
  close(code, reason) {
    const { ws } = this;
    ws.close(code, reason);
    setTimeout(() => ws.terminate(), CLOSE_GRACE_MS).unref();
  }
}

/**
 * A protocol ping with a fresh token, remembered with the bytes written before it. At most one is
 * out per socket: a client answers pings in the order they came, so a second would be answered
 * only after the first and prove nothing more than a new ping once the first is answered.
 * On the fast path the ping goes to the raw socket (inside the caller's cork when it rides with
 * a message); else through `ws.ping`.
 * @param {SocketLink} link
 */
export function sendPing(link) {
  link.pingDue = false;
  link.pinged = true;
  const { ws, raw } = link;
  if (link.proofAt >= 0 || ws.readyState !== ws.OPEN) return;
  const frame = nextPingFrame();
  link.proofPool = pingPool;
  link.proofToken = pingAt - TOKEN_BYTES;
  link.proofSent = link.sent;
  link.proofAt = clock();
  if (raw !== null) raw.write(frame);
  else ws.ping(frame.subarray(2));
}

/**
 * A frame from the client. A message proves the link; a pong that answers our ping (or the
 * upgrade) also proves reading, up to the bytes written before that ping. Whether a ping is
 * still owed is decided by the checker (a message does not pay for one that is owed for want of
 * a pong).
 * @param {SocketLink} link @param {boolean} isPong
 */
function heard(link, isPong) {
  link.heardAt = clock();
  if (isPong) {
    link.pongAt = link.heardAt;
    link.pinged = false;
    link.pingDue = false;
  }
}

/**
 * A pong: proof of reading when it echoes the token of the ping out; otherwise only a frame.
 * @param {SocketLink} link @param {Buffer} data
 */
export function heardPong(link, data) {
  const pool = link.proofPool;
  const at = link.proofToken;
  if (
    link.proofAt < 0 ||
    pool === null ||
    data.length !== TOKEN_BYTES ||
    data.readUInt32LE(0) !== pool.readUInt32LE(at) ||
    data.readUInt32LE(4) !== pool.readUInt32LE(at + 4)
  ) {
    heard(link, false);
    return;
  }
  link.proven = link.proofSent;
  link.proofAt = -1;
  link.proofPool = null;
  link.overdue = false;
  heard(link, true);
}

/**
 * The Link of a socket, as ws hands it to a listener (`this`): the one property added to it.
 * @param {import('ws').WebSocket} ws
 */
const linkOf = (ws) => /** @type {SocketLink} */ (/** @type {any} */ (ws).link);

/**
 * A socket's Link, with its read-proof bookkeeping from the upgrade on (which proves nothing was
 * owed), reachable from the socket.
 * @param {import('ws').WebSocket} ws
 * @param {import('node:net').Socket | null} raw  rawSocketOf(ws)
 * @param {string} [address]
 */
export function liveSocket(ws, raw = rawSocketOf(ws), address = '') {
  const link = new SocketLink(ws, raw, address);
  /** @type {any} */ (ws).link = link;
  return link;
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
  /** @type {Set<SocketLink>} */
  const links = new Set();
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
      const link = liveSocket(ws, rawSocketOf(ws), client);
      if (!link.fast && !warnedSlow) {
        warnedSlow = true;
        log?.warn({}, 'ws offers no raw socket or frame builder: WebSocket messages go through ws.send (slower)');
      }
      links.add(link);
      if (checker === null) {
        checker = setInterval(check, LIVENESS_TICK_MS);
        checker.unref();
      }
      link.session = hub.attach(link, holds);
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
    const link = linkOf(this);
    heard(link, false);
    link.session?.receive(data, isBinary);
  }
  /** @this {import('ws').WebSocket} @param {Buffer} data */
  function onPong(data) {
    heardPong(linkOf(this), data);
  }
  /** @this {import('ws').WebSocket} */
  function onClose() {
    const link = linkOf(this);
    links.delete(link);
    link.session?.detach();
    if (links.size === 0 && checker !== null) {
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
  // within a tick; its proof is overdue once its ping is PROOF_WAIT_MS old. While a ping is out,
  // no other is owed: its answer is what proves the link and the reading.
  function check() {
    const now = clock();
    for (const link of links) {
      link.overdue = link.proofAt >= 0 && now - link.proofAt >= PROOF_WAIT_MS;
      const silent = Math.max(now - link.heardAt, now - link.pongAt - readProofMs + PING_AFTER_MS);
      if (silent >= DEAD_AFTER_MS) {
        link.ws.terminate();
        continue;
      }
      const byBytes = link.sent - link.proven >= PROOF_BYTES;
      if (silent < PING_AFTER_MS && !byBytes) {
        link.pinged = false;
        link.pingDue = false;
        continue;
      }
      if (link.pinged || link.proofAt >= 0) continue;
      if (silent < PING_ALONE_AFTER_MS && !(byBytes && link.pingDue)) {
        link.pingDue = true;
        continue;
      }
      sendPing(link);
    }
  }

  return {
    get size() {
      return links.size;
    },
    close() {
      if (checker !== null) clearInterval(checker);
      checker = null;
      server.off('upgrade', onUpgrade);
      for (const link of links) link.close(CLOSE.GOING_AWAY, 'server shutting down');
    },
  };
}

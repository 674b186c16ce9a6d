// WebSocket transport at /live, on the `ws` library with noServer: the HTTP server's upgrade
// event is routed here. Same envelope and resync rule as SSE and polling (doc/protocol.md).

import { WebSocketServer } from 'ws';
import { decodeResyncQuery } from '../../core/protocol.js';
import { CLOSE, HEARTBEAT_MS, MAX_CLIENT_MESSAGE_BYTES, MAX_POLL_WAIT_MS } from '../../core/constants.js';

/** After a close frame, a connection that has not closed within this time is cut (ms). */
const CLOSE_GRACE_MS = 2000;

/**
 * A ping waits this long for a message to ride along with before it is sent on its own (ms).
 * Sent in the same write as a message, a ping costs no extra system call; at 1,500 clients the
 * separate pings cost as much CPU as the music (bench/RESULTS.md, "floor-ka" and "floor-kc").
 */
const PING_RIDE_MS = HEARTBEAT_MS / 4;

/** @typedef {import('ws').WebSocket & { alive?: boolean, pingDue?: boolean }} LiveSocket */

/**
 * Send a message, and the socket's due ping in the same write (the socket is corked around
 * both; `_socket` is ws's underlying net.Socket).
 * @param {LiveSocket} ws
 * @param {Buffer} bytes
 */
function sendWithPing(ws, bytes) {
  if (!ws.pingDue) { ws.send(bytes, { binary: false }); return; }
  ws.pingDue = false;
  const raw = /** @type {{ _socket?: import('node:net').Socket }} */ (/** @type {unknown} */ (ws))._socket;
  raw?.cork();
  ws.send(bytes, { binary: false });
  ws.ping();
  raw?.uncork();
}

/**
 * @param {import('node:http').Server} server
 * @param {import('../hub.js').Hub} hub
 * @param {{ path?: string, log?: { warn: (obj: object, msg: string) => void } }} [options]
 */
export function attachWebSocket(server, hub, { path = '/live', log } = {}) {
  // Per-message deflate stays off: compression would make every socket's bytes different.
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_CLIENT_MESSAGE_BYTES, perMessageDeflate: false, clientTracking: false });
  /** @type {Set<LiveSocket>} */
  const sockets = new Set();

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
      socket.end(`HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      const live = /** @type {LiveSocket} */ (ws);
      live.alive = true;
      live.pingDue = false;
      sockets.add(live);
      const session = hub.attach({
        kind: 'ws',
        send: (bytes) => sendWithPing(live, bytes),
        buffered: () => ws.bufferedAmount,
        close: (code, reason) => {
          ws.close(code, reason);
          setTimeout(() => ws.terminate(), CLOSE_GRACE_MS).unref();
        },
      }, { epoch: query.value.epoch, seq: query.value.since, view: query.value.view });
      ws.on('message', (data, isBinary) => session.receive(/** @type {Buffer} */ (data), isBinary));
      ws.on('pong', () => { live.alive = true; });
      ws.on('close', () => { sockets.delete(live); session.detach(); });
      ws.on('error', (err) => {
        // Oversized frames arrive here (ws closes them with 1009); the session is detached on close.
        log?.warn({ err: err.message, code: /** @type {any} */ (err).code }, 'websocket error');
      });
    });
  }

  server.on('upgrade', onUpgrade);

  // One timer for every socket: a socket that did not answer the previous ping is dead. The new
  // ping rides along with the next message, or goes alone after PING_RIDE_MS when none came,
  // so the client still has at least 1.5 s to answer and a dead link is found within 4.5 s.
  /** @type {NodeJS.Timeout | null} */
  let straggler = null;
  const pinger = setInterval(() => {
    for (const ws of sockets) {
      if (!ws.alive) { ws.terminate(); continue; }
      ws.alive = false;
      ws.pingDue = true;
    }
    straggler = setTimeout(() => {
      for (const ws of sockets) {
        if (ws.pingDue) { ws.pingDue = false; ws.ping(); }
      }
    }, PING_RIDE_MS);
    straggler.unref();
  }, HEARTBEAT_MS);
  pinger.unref();

  return {
    get size() { return sockets.size; },
    close() {
      clearInterval(pinger);
      if (straggler) clearTimeout(straggler);
      server.off('upgrade', onUpgrade);
      for (const ws of sockets) {
        ws.close(CLOSE.GOING_AWAY, 'server shutting down');
        setTimeout(() => ws.terminate(), CLOSE_GRACE_MS).unref();
      }
    },
  };
}

// WebSocket transport: `GET /live` upgraded (doc/protocol.md, "WebSocket"). The only transport
// that can talk back, so resync is a `hello` on the open socket instead of a new connection.

import { decodeServerMessage } from '../../../../core/protocol.js';
import { liveUrl } from './live-url.js';

/** WebSocket.OPEN; the constant is not read from the injected class, which may be a fake. */
const OPEN = 1;

/** @typedef {import('./index.js').Transport} Transport */

/** @implements {Transport} */
export class WsTransport {
  name = 'ws';
  holdMs = 0;
  onopen = () => {};
  /** @type {(envelope: import('../../../../core/protocol.js').Envelope) => void} */
  onmessage = () => {};
  /** @type {(info: import('./index.js').CloseInfo) => void} */
  onclose = () => {};

  #deps;
  /** @type {import('./index.js').WebSocketLike | null} */
  #socket = null;

  /** @param {import('./index.js').TransportDeps} deps */
  constructor(deps) {
    this.#deps = deps;
  }

  /** @param {import('./index.js').Position} from */
  open(from) {
    const Ctor = this.#deps.WebSocket;
    if (!Ctor) {
      this.onclose({ reason: 'WebSocket is not available', fatal: true });
      return;
    }
    let socket;
    try {
      socket = new Ctor(
        liveUrl(this.#deps.baseUrl, '/live', from, { websocket: true, extra: { view: this.#deps.view } }),
      );
    } catch (err) {
      // Thrown synchronously for a URL or a policy (CSP) the browser refuses: retrying cannot help.
      this.onclose({ reason: `WebSocket refused: ${String(err)}`, fatal: true });
      return;
    }
    this.#socket = socket;
    socket.onopen = () => this.onopen();
    socket.onmessage = (ev) => {
      if (typeof ev.data !== 'string') {
        this.#deps.log('ignored a binary frame: the protocol is text JSON');
        return;
      }
      const result = decodeServerMessage(ev.data);
      if (result.ok) this.onmessage(result.value);
      else this.#deps.log('ignored an invalid server message', result.error);
    };
    // An error event is always followed by a close event; report the close only, once.
    socket.onerror = () => {};
    socket.onclose = (ev) => {
      this.#detach();
      this.onclose({ reason: `WebSocket closed (${ev.code}${ev.reason ? ` ${ev.reason}` : ''})`, fatal: false });
    };
  }

  close() {
    const socket = this.#detach();
    if (socket) socket.close();
  }

  /**
   * @param {import('../../../../core/protocol.js').ClientMessage} message
   * @returns {boolean} false when the socket is not open
   */
  send(message) {
    const socket = this.#socket;
    if (!socket || socket.readyState !== OPEN) return false;
    socket.send(JSON.stringify(message));
    return true;
  }

  /**
   * The server answers a hello with the deltas after `from`, or a snapshot.
   * @param {import('./index.js').Position} from
   */
  resync(from) {
    /** @type {import('../../../../core/protocol.js').HelloMessage} */
    const hello = { type: 'hello', epoch: from.epoch, seq: from.seq };
    if (this.#deps.view !== undefined) hello.view = this.#deps.view;
    return this.send(hello);
  }

  /** Drop the handlers so that a closing socket reports nothing more. */
  #detach() {
    const socket = this.#socket;
    this.#socket = null;
    if (socket) socket.onopen = socket.onmessage = socket.onclose = socket.onerror = null;
    return socket;
  }
}

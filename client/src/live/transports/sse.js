// Server-Sent Events transport: `GET /live/sse` (doc/protocol.md, "Server-Sent Events").
// EventSource reconnects by itself on errors; we close it instead and let the connection manager
// reconnect, so that backoff and fallback are decided in one place.

import { decodeServerMessage } from '../../../../core/protocol.js';
import { liveUrl } from './live-url.js';

/** @typedef {import('./index.js').Transport} Transport */

/** @implements {Transport} */
export class SseTransport {
  name = 'sse';
  holdMs = 0;
  onopen = () => {};
  /** @type {(envelope: import('../../../../core/protocol.js').Envelope) => void} */
  onmessage = () => {};
  /** @type {(info: import('./index.js').CloseInfo) => void} */
  onclose = () => {};

  #deps;
  /** @type {import('./index.js').EventSourceLike | null} */
  #source = null;

  /** @param {import('./index.js').TransportDeps} deps */
  constructor(deps) {
    this.#deps = deps;
  }

  /** @param {import('./index.js').Position} from */
  open(from) {
    const Ctor = this.#deps.EventSource;
    if (!Ctor) {
      this.onclose({ reason: 'EventSource is not available', fatal: true });
      return;
    }
    let source;
    try {
      source = new Ctor(liveUrl(this.#deps.baseUrl, '/live/sse', from, { extra: { view: this.#deps.view } }));
    } catch (err) {
      this.onclose({ reason: `EventSource refused: ${String(err)}`, fatal: true });
      return;
    }
    this.#source = source;
    source.onopen = () => this.onopen();
    source.onmessage = (ev) => {
      const result = typeof ev.data === 'string' ? decodeServerMessage(ev.data) : null;
      if (result?.ok) this.onmessage(result.value);
      else this.#deps.log('ignored an invalid server message', result?.error);
    };
    source.onerror = () => {
      this.close();
      this.onclose({ reason: 'EventSource error', fatal: false });
    };
  }

  close() {
    const source = this.#source;
    this.#source = null;
    if (!source) return;
    source.onopen = source.onmessage = source.onerror = null;
    source.close();
  }

  /**
   * SSE cannot talk back: a new request with the resume point in its query is the resync.
   * @param {import('./index.js').Position} from
   */
  resync(from) {
    if (!this.#source) return false;
    this.close();
    this.open(from);
    return true;
  }
}

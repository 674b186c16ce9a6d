// Long-polling transport: `GET /live/poll?epoch=E&since=N&wait=MS` in a loop (doc/protocol.md,
// "Polling"). Stateless on the server, so each poll carries the resume point, read afresh from
// the connection: a resync is simply the next poll.

import { checkEnvelope } from '../../../../core/protocol.js';
import { liveUrl } from './live-url.js';

/**
 * How long the server may hold a poll (ms). Under the server's 25 s clamp and under the 30 s idle
 * timeouts common in proxies and carrier networks, which would otherwise cut held requests.
 */
export const POLL_WAIT_MS = 20_000;

/**
 * A poll answered faster than this with no state change means the server (or a proxy) is not
 * holding requests; waiting this long before the next one keeps the loop from becoming a flood.
 */
export const MIN_IDLE_POLL_MS = 1000;

/** @typedef {import('./index.js').Transport} Transport */

/** @implements {Transport} */
export class PollTransport {
  name = 'poll';
  holdMs = POLL_WAIT_MS;
  onopen = () => {};
  /** @type {(envelope: import('../../../../core/protocol.js').Envelope) => void} */
  onmessage = () => {};
  /** @type {(info: import('./index.js').CloseInfo) => void} */
  onclose = () => {};

  #deps;
  #running = false;
  #opened = false;
  /** @type {import('./index.js').Position} */
  #from = { epoch: null, seq: 0 };
  /** @type {AbortController | null} */
  #abort = null;
  /** @type {any} */
  #timer = null;

  /** @param {import('./index.js').TransportDeps} deps */
  constructor(deps) {
    this.#deps = deps;
  }

  /** @param {import('./index.js').Position} from read again before every poll */
  open(from) {
    if (!this.#deps.fetch) {
      this.onclose({ reason: 'fetch is not available', fatal: true });
      return;
    }
    this.#from = from;
    this.#running = true;
    void this.#poll();
  }

  close() {
    this.#running = false;
    this.#abort?.abort();
    this.#abort = null;
    if (this.#timer !== null) this.#deps.timers.clearTimeout(this.#timer);
    this.#timer = null;
  }

  /** The next poll asks for what follows the held position; nothing else to do. */
  resync() {
    return this.#running;
  }

  async #poll() {
    const { fetch, now, timers } = this.#deps;
    if (!fetch) return;
    const url = liveUrl(this.#deps.baseUrl, '/live/poll', this.#from, {
      seqParam: 'since',
      extra: { wait: String(POLL_WAIT_MS), view: this.#deps.view, client: this.#deps.clientId },
    });
    const abort = new AbortController();
    this.#abort = abort;
    const started = now();
    /** @type {unknown} */
    let body;
    try {
      const res = await fetch(url, { signal: abort.signal, headers: { accept: 'application/json' } });
      if (!this.#running || abort.signal.aborted) return;
      if (res.status !== 200) return this.#fail(`poll answered HTTP ${res.status}`);
      body = await res.json();
    } catch (err) {
      if (!this.#running || abort.signal.aborted) return;
      return this.#fail(`poll failed: ${String(err)}`);
    }
    if (!this.#running || abort.signal.aborted) return;
    if (!Array.isArray(body)) return this.#fail('poll answer is not a JSON array');
    if (!this.#opened) {
      this.#opened = true;
      this.onopen();
    }
    let changed = false;
    for (const item of body) {
      const result = checkEnvelope(item);
      if (!result.ok) {
        this.#deps.log('ignored an invalid server message', result.error);
        continue;
      }
      if (result.value.type === 'snapshot' || result.value.type === 'delta') changed = true;
      this.onmessage(result.value);
      // The connection may have closed us while handling that message.
      if (!this.#running) return;
    }
    const idle = !changed && now() - started < MIN_IDLE_POLL_MS;
    if (idle) {
      this.#timer = timers.setTimeout(() => {
        this.#timer = null;
        if (this.#running) void this.#poll();
      }, MIN_IDLE_POLL_MS);
    } else {
      void this.#poll();
    }
  }

  /** @param {string} reason */
  #fail(reason) {
    this.close();
    this.onclose({ reason, fatal: false });
  }
}

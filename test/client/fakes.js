// Test doubles for the client's injected environment: a hand-turned clock, WebSocket,
// EventSource and fetch fakes that record what the client did and let a test play the server.

/** A clock whose timers fire only when the test advances it. */
export class FakeClock {
  t = 0;
  #next = 1;
  /** @type {Map<number, { at: number, fn: () => void, ms: number }>} */
  timers = new Map();

  now = () => this.t;

  /**
   * @param {() => void} fn
   * @param {number} ms
   */
  setTimeout = (fn, ms) => {
    const id = this.#next++;
    this.timers.set(id, { at: this.t + Math.max(0, ms), fn, ms });
    return id;
  };

  /** @param {any} id */
  clearTimeout = (id) => {
    this.timers.delete(id);
  };

  /** Delays (as requested) of the timers still pending, in the order they were set. */
  pendingDelays() {
    return [...this.timers.values()].map((timer) => timer.ms);
  }

  /**
   * Move time forward, firing due timers in order (including ones they set).
   * @param {number} ms
   */
  advance(ms) {
    const end = this.t + ms;
    for (;;) {
      let dueId = -1;
      let due = null;
      for (const [id, timer] of this.timers) {
        if (timer.at <= end && (due === null || timer.at < due.at)) {
          dueId = id;
          due = timer;
        }
      }
      if (!due) break;
      this.timers.delete(dueId);
      this.t = due.at;
      due.fn();
    }
    this.t = end;
  }
}

/** A WebSocket class whose instances are driven by the test. */
export function fakeWebSocketClass() {
  return class FakeWebSocket {
    /** @type {FakeWebSocket[]} */
    static instances = [];
    readyState = 0;
    /** @type {any[]} */
    sent = [];
    closedByClient = false;
    /** @type {((ev: any) => void) | null} */ onopen = null;
    /** @type {((ev: any) => void) | null} */ onmessage = null;
    /** @type {((ev: any) => void) | null} */ onclose = null;
    /** @type {((ev: any) => void) | null} */ onerror = null;

    /** @param {string} url */
    constructor(url) {
      this.url = url;
      FakeWebSocket.instances.push(this);
    }

    /** @param {string} data */
    send(data) {
      this.sent.push(JSON.parse(data));
    }

    close() {
      this.closedByClient = true;
      this.readyState = 3;
      // Like a browser, a close() still ends in a close event: the transport must have let go.
      this.onclose?.({ code: 1005, reason: '' });
    }

    // The server's side.
    serverOpen() {
      this.readyState = 1;
      this.onopen?.({});
    }
    /** @param {unknown} message an object (sent as JSON) or raw data */
    serverSend(message) {
      const data = typeof message === 'string' || message instanceof ArrayBuffer ? message : JSON.stringify(message);
      this.onmessage?.({ data });
    }
    /** @param {number} [code] */
    serverClose(code = 1006) {
      this.readyState = 3;
      this.onerror?.({});
      this.onclose?.({ code, reason: '' });
    }
  };
}

/** An EventSource class whose instances are driven by the test. */
export function fakeEventSourceClass() {
  return class FakeEventSource {
    /** @type {FakeEventSource[]} */
    static instances = [];
    closed = false;
    /** @type {((ev: any) => void) | null} */ onopen = null;
    /** @type {((ev: any) => void) | null} */ onmessage = null;
    /** @type {((ev: any) => void) | null} */ onerror = null;

    /** @param {string} url */
    constructor(url) {
      this.url = url;
      FakeEventSource.instances.push(this);
    }

    close() {
      this.closed = true;
    }

    serverOpen() {
      this.onopen?.({});
    }
    /** @param {unknown} message */
    serverSend(message) {
      this.onmessage?.({ data: typeof message === 'string' ? message : JSON.stringify(message) });
    }
    serverError() {
      this.onerror?.({});
    }
  };
}

/**
 * @typedef {object} FakeRequest
 * @property {string} url
 * @property {AbortSignal} signal
 * @property {{ credentials?: string, cache?: string }} init the request's other options
 * @property {(status: number, body: unknown) => void} respond body: JSON value, or a string sent as is
 * @property {(error: Error) => void} fail network error
 */

/** A fetch that holds every request until the test answers it. */
export function fakeFetch() {
  /** @type {FakeRequest[]} */
  const requests = [];
  /**
   * @param {string} url
   * @param {{ signal: AbortSignal, credentials?: string, cache?: string }} init
   */
  const fetch = (url, init) =>
    new Promise((resolve, reject) => {
      init.signal.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')));
      requests.push({
        url,
        signal: init.signal,
        init: { credentials: init.credentials, cache: init.cache },
        respond: (status, body) =>
          resolve({
            status,
            json: async () => (typeof body === 'string' ? JSON.parse(body) : body),
          }),
        fail: (error) => reject(error),
      });
    });
  return { fetch, requests };
}

/** Let pending promise callbacks (a fetch answer, its json()) run. */
export const flush = () => new Promise((resolve) => setImmediate(resolve));

/** Envelope builders (doc/protocol.md, "Server messages"). */
export const msg = {
  /** @param {string} epoch @param {number} seq */
  welcome: (epoch, seq) => ({
    type: 'welcome',
    epoch,
    seq,
    t: 1,
    transport: 'ws',
    heartbeatMs: 2000,
    deadLinkMs: 5000,
    maxMessageBytes: 4096,
  }),
  /** @param {string} epoch @param {number} seq @param {object} state */
  snapshot: (epoch, seq, state) => ({ type: 'snapshot', epoch, seq, t: 1, state }),
  /** @param {string} epoch @param {number} seq @param {unknown} patch */
  delta: (epoch, seq, patch) => ({ type: 'delta', epoch, seq, t: 1, patch }),
  /** @param {string} epoch @param {number} seq */
  heartbeat: (epoch, seq) => ({ type: 'heartbeat', epoch, seq, t: 1 }),
};

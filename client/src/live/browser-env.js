// The browser's implementations of what the connection needs (see ConnectionEnv).

/**
 * @param {import('./transports/index.js').Log} log
 * @param {object} [page]  what the page runs on (default: the browser's globals)
 * @param {Window & typeof globalThis} [page.window]
 * @param {Document} [page.document]
 * @param {(url: string, init?: RequestInit) => Promise<Response>} [page.fetch]
 * @param {typeof WebSocket} [page.WebSocket]
 * @returns {import('./connection.js').ConnectionEnv}
 */
export function browserEnv(
  log,
  {
    window = globalThis.window,
    document = globalThis.document,
    fetch = globalThis.fetch,
    WebSocket = globalThis.WebSocket,
  } = {},
) {
  const EventSource = /** @type {any} */ (window).EventSource;
  return {
    // Missing APIs stay undefined: the connection then skips that transport.
    WebSocket: typeof WebSocket === 'function' ? WebSocket : undefined,
    EventSource: typeof EventSource === 'function' ? EventSource : undefined,
    // Wrapped: called as a method of another object, window.fetch and setTimeout throw
    // "Illegal invocation".
    fetch: typeof fetch === 'function' ? (url, init) => fetch(url, init) : undefined,
    timers: {
      setTimeout: (fn, ms) => setTimeout(fn, ms),
      clearTimeout: (handle) => clearTimeout(handle),
    },
    now: () => performance.now(),
    random: () => Math.random(),
    window,
    document,
    log,
  };
}

/**
 * This tab's sessionStorage, or null where the browser refuses it (storage blocked, a sandboxed
 * frame): what a page keeps for a reload (its device id, the console's token).
 * @param {Window} [window]
 * @returns {Storage | null}
 */
export function sessionStore(window = globalThis.window) {
  try {
    return window.sessionStorage;
  } catch {
    return null;
  }
}

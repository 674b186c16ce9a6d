// The browser's implementations of what the connection needs (see ConnectionEnv).

/**
 * @param {import('./transports/index.js').Log} log
 * @returns {import('./connection.js').ConnectionEnv}
 */
export function browserEnv(log) {
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

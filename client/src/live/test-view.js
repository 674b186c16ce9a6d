// For browser tests: a read-only view of a page at window.scorecast. Every page shows its
// connection's state, epoch and seq there; a page adds what else its tests read.

/**
 * @param {Window} window
 * @param {Pick<import('./connection.js').Connection, 'state' | 'epoch' | 'seq'>} connection
 * @param {object} [more] the page's own properties; its getters stay getters, read at each access
 */
export function exposeForTests(window, connection, more = {}) {
  const view = Object.defineProperties(
    {
      get state() {
        return connection.state;
      },
      get epoch() {
        return connection.epoch;
      },
      get seq() {
        return connection.seq;
      },
    },
    Object.getOwnPropertyDescriptors(more),
  );
  Object.defineProperty(window, 'scorecast', { value: Object.freeze(view) });
}

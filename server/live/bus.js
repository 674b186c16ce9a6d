// The link from the conductor to the hubs. The in-memory bus is the default; a broker (Redis)
// implements the same interface so that several server instances can share one conductor.

/**
 * One published state change. `state` is the whole state after the change; a bus keeps only the
 * newest one (for hubs that join late or detect a gap) and forwards the rest.
 * @typedef {object} StateChange
 * @property {string} epoch
 * @property {number} seq
 * @property {number} t       server time the change was made
 * @property {unknown} patch  merge patch from seq - 1 (null for the first state of an epoch)
 * @property {unknown} state
 * @property {string} [text]  a delta's envelope as clients get it (`{"type":"delta",...}`), when
 *   the bus carried it made already (server/cluster/redis-bus.js): the hub sends it as it is
 */

/**
 * @typedef {object} Bus
 * @property {(change: StateChange) => void} publish
 * @property {(fn: (change: StateChange) => void) => () => void} subscribe returns unsubscribe
 * @property {() => StateChange | null} latest the newest change (its state is the whole state)
 * @property {() => Promise<void>} close
 */

/**
 * An in-process bus: subscribers are called synchronously, in order, for every change.
 * @returns {Bus}
 */
export function createMemoryBus() {
  /** @type {Set<(change: StateChange) => void>} */
  const subscribers = new Set();
  /** @type {StateChange | null} */
  let newest = null;
  return {
    publish(change) {
      newest = change;
      for (const fn of subscribers) fn(change);
    },
    subscribe(fn) {
      subscribers.add(fn);
      return () => {
        subscribers.delete(fn);
      };
    },
    latest: () => newest,
    async close() {
      subscribers.clear();
    },
  };
}

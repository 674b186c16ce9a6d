// A clock for tests: time moves only when the test says so, and timers can be made to fire
// late by a chosen amount (to check that lateness never accumulates).

/**
 * @param {{ start?: number, wallStart?: number, lateness?: () => number }} [options]
 *   lateness: ms each timer fires after its due time (default 0)
 */
export function createFakeClock({ start = 1000, wallStart = 1_700_000_000_000, lateness = () => 0 } = {}) {
  let now = start;
  let nextId = 1;
  /** @type {Map<number, { at: number, fn: () => void }>} */
  const timers = new Map();

  const clock = {
    now: () => now,
    wall: () => wallStart + (now - start),
    /** @param {() => void} fn @param {number} ms */
    setTimer(fn, ms) {
      const id = nextId++;
      timers.set(id, { at: now + Math.max(0, ms) + lateness(), fn });
      return id;
    },
    /** @param {unknown} id */
    clearTimer(id) {
      timers.delete(/** @type {number} */ (id));
    },
    /** Advance time to `now + ms`, firing due timers in time order. */
    advance(/** @type {number} */ ms) {
      const end = now + ms;
      for (;;) {
        /** @type {[number, { at: number, fn: () => void }] | null} */
        let first = null;
        for (const [id, t] of timers) if (t.at <= end && (!first || t.at < first[1].at)) first = [id, t];
        if (!first) break;
        const [id, t] = first;
        timers.delete(id);
        now = Math.max(now, t.at);
        t.fn();
      }
      now = end;
    },
    get pending() {
      return timers.size;
    },
  };
  return clock;
}

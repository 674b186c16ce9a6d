// The node registry on a fake Redis hash and a hand-driven clock: a node writes its status when
// it starts and every EVERY_MS after, a status older than STALE_MS is a node gone.

import { afterEach, describe, expect, it, vi } from 'vitest';
import { createRegistry, EVERY_MS, STALE_MS } from '../../../server/cluster/registry.js';

/** A hash with its writes counted; the lease held by `holder`. @param {string | null} holder */
function fakeHash(holder) {
  /** @type {Map<string, string>} */
  const hash = new Map();
  const redis = {
    writes: 0,
    hset: async (/** @type {string} */ _k, /** @type {string} */ field, /** @type {string} */ value) => {
      redis.writes++;
      hash.set(field, value);
      return 1;
    },
    hgetall: async () => Object.fromEntries(hash),
    get: async () => holder,
    hdel: async (/** @type {string} */ _k, /** @type {string} */ field) => Number(hash.delete(field)),
  };
  return redis;
}

const status = () => ({
  role: /** @type {const} */ ('edge'),
  active: false,
  pid: 1,
  host: 'h',
  clients: 3,
  lagMs: 5,
  rejected: 0,
});

afterEach(() => {
  vi.useRealTimers();
});

describe('the node registry', () => {
  it('writes a status at start and every 2 s after, not every second', async () => {
    vi.useFakeTimers();
    const redis = fakeHash('c1');
    const registry = createRegistry({ redis: /** @type {any} */ (redis), key: 'nodes', node: 'e1', status });
    expect(redis.writes).toBe(1);
    await vi.advanceTimersByTimeAsync(4000);
    expect(redis.writes).toBe(3);
    await registry.close();
  });

  it(`lists a node heard from within ${STALE_MS} ms and forgets one not heard from since`, async () => {
    vi.useFakeTimers();
    const redis = fakeHash('c1');
    const e1 = createRegistry({ redis: /** @type {any} */ (redis), key: 'nodes', node: 'e1', status });
    const e2 = createRegistry({ redis: /** @type {any} */ (redis), key: 'nodes', node: 'e2', status });
    await vi.advanceTimersByTimeAsync(EVERY_MS * 2);
    expect((await e1.nodes('lease')).map((n) => n.id)).toEqual(['e1', 'e2']);
    // e2 stops writing (killed): gone STALE_MS after its last status, while e1 goes on
    await e2.close();
    await redis.hset('nodes', 'e2', JSON.stringify({ id: 'e2', ...status(), at: Date.now() }));
    await vi.advanceTimersByTimeAsync(STALE_MS - EVERY_MS);
    expect((await e1.nodes('lease')).map((n) => n.id)).toEqual(['e1', 'e2']);
    await vi.advanceTimersByTimeAsync(EVERY_MS + 1);
    expect((await e1.nodes('lease')).map((n) => n.id)).toEqual(['e1']);
    await e1.close();
  });
});

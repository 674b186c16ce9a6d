import { describe, it, expect, beforeAll, afterAll, afterEach } from 'vitest';
import { createRedisBus } from '../../../server/cluster/redis-bus.js';
import { clusterKey, createSeal } from '../../../server/cluster/seal.js';
import { connectRedis } from '../../../server/cluster/redis.js';
import { HAVE_REDIS, startCutProxy, startRedis } from '../../helpers/redis-server.js';

if (!HAVE_REDIS)
  console.warn('cluster tests skipped: redis-server is not installed (test/setup/ensure-deps.sh installs it)');

/** @type {Awaited<ReturnType<typeof startRedis>>} */
let redis;
const seal = createSeal(clusterKey('bus-test-token-0123'));
let n = 0;
/** @type {(() => Promise<unknown>)[]} */
let cleanup = [];
/** A look at what Redis holds, beside the nodes (whose users may not look). @type {import('ioredis').Redis} */
let admin;
beforeAll(async () => {
  if (!HAVE_REDIS) return;
  redis = await startRedis();
  admin = connectRedis(redis.adminUrl, 'test-admin');
});
afterAll(async () => {
  admin?.disconnect();
  await redis?.stop();
});
afterEach(async () => {
  for (const f of cleanup.reverse()) await f();
  cleanup = [];
});

/**
 * @param {Partial<import('../../../server/cluster/redis-bus.js').RedisBusOptions>} [options]
 * @param {string} [prefix]
 */
async function bus(prefix, options = {}) {
  const b = createRedisBus({ url: redis.url, seal, node: `n${++n}`, prefix, ...options });
  cleanup.push(() => b.close());
  await b.start();
  /** @type {import('../../../server/live/bus.js').StateChange[]} */
  const seen = [];
  b.subscribe((c) => seen.push(c));
  return { b, seen };
}

/** A publisher of changes {n: i}: a fresh state, then one delta per call. */
function changes(epoch = 'e1') {
  let seq = 0;
  return {
    fresh: () => ({ epoch, seq: (seq = 0), t: Date.now(), patch: null, state: { n: 0 } }),
    next: () => {
      seq += 1;
      return { epoch, seq, t: Date.now(), patch: { n: seq }, state: { n: seq } };
    },
  };
}

/**
 * @param {() => boolean} cond
 * @param {number} [ms]
 */
async function until(cond, ms = 5000) {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** @param {import('../../../server/live/bus.js').StateChange[]} seen */
const seqs = (seen) => seen.map((c) => c.seq);

/**
 * Two nodes: `a` active, whose first state (`c.fresh()`) `b` has seen.
 * @param {string} prefix
 * @param {{ a?: Partial<import('../../../server/cluster/redis-bus.js').RedisBusOptions>,
 *   b?: Partial<import('../../../server/cluster/redis-bus.js').RedisBusOptions> }} [options]
 */
async function publishing(prefix, options = {}) {
  const a = await bus(prefix, options.a);
  const b = await bus(prefix, options.b);
  await a.b.activate();
  const c = changes();
  a.b.publish(c.fresh());
  await until(() => b.seen.length === 1);
  return { a, b, c };
}

/**
 * As `publishing`, with `b` behind a proxy, then cut off from Redis: `proxy.restore()` gives it
 * its link back. `seen`: what b has read.
 * @param {string} prefix
 * @param {Partial<import('../../../server/cluster/redis-bus.js').RedisBusOptions>} [options]  a's
 */
async function cutOff(prefix, options = {}) {
  const proxy = await startCutProxy(redis.port, redis.url);
  cleanup.push(() => proxy.close());
  const { a, b, c } = await publishing(prefix, { a: options, b: { url: proxy.url } });
  proxy.cut();
  return { a, c, proxy, seen: b.seen };
}

describe.skipIf(!HAVE_REDIS)('Redis bus', () => {
  it("delivers the active node's changes to every node, in order, with the same epoch and seq", async () => {
    const prefix = `t${n}:`;
    const { a, b, c } = await publishing(prefix);
    for (let i = 0; i < 20; i++) a.b.publish(c.next());
    await until(() => a.seen.length === 21 && b.seen.length === 21);
    for (const { seen } of [a, b]) {
      expect(seqs(seen)).toEqual([...Array(21).keys()]);
      expect(seen.every((x) => x.epoch === 'e1')).toBe(true);
      expect(seen[20].state).toEqual({ n: 20 });
    }
    // Each delta arrives with the envelope clients get for it, made once by the publisher.
    expect(JSON.parse(/** @type {string} */ (b.seen[7].text))).toEqual({
      type: 'delta',
      epoch: 'e1',
      seq: 7,
      t: b.seen[7].t,
      patch: { n: 7 },
    });
    expect(b.seen[0].text).toBeUndefined();
    // A node joining later starts from the newest whole state.
    const late = await bus(prefix);
    expect(late.b.latest()).toMatchObject({ epoch: 'e1', seq: 20, state: { n: 20 }, patch: null });
  });

  it('publishes nothing from a node that is not active', async () => {
    const prefix = `t${n}:`;
    const a = await bus(prefix);
    const b = await bus(prefix);
    a.b.publish(changes().fresh());
    await new Promise((r) => setTimeout(r, 200));
    expect(a.seen).toEqual([]);
    expect(b.seen).toEqual([]);
    expect(await admin.exists(a.b.keys.stream)).toBe(0);
  });

  it("hands on an entry's text only when it is a delta's envelope and nothing more; an entry without its MAC not at all", async () => {
    const prefix = `t${n}:`;
    const a = await bus(prefix);
    const b = await bus(prefix);
    await a.b.activate();
    a.b.publish(changes().fresh());
    await until(() => b.seen.length === 1);
    const t = Date.now();
    // Written with the key (as an older or newer node might): an extra field, so re-encoded here.
    const extra = JSON.stringify({ type: 'delta', epoch: 'e1', seq: 1, t, patch: { n: 1 }, note: 'x' });
    await admin.xadd(a.b.keys.stream, '*', 'c', extra, 'm', seal.sign(`${prefix}stream`, extra));
    await until(() => b.seen.length === 2);
    expect(b.seen[1]).toMatchObject({ seq: 1, state: { n: 1 } });
    expect(b.seen[1].text).toBeUndefined();
    // The same envelope without a valid MAC: refused.
    const forged = JSON.stringify({ type: 'delta', epoch: 'e1', seq: 2, t, patch: { n: 'forged' } });
    await admin.xadd(a.b.keys.stream, '*', 'c', forged, 'm', 'A'.repeat(43));
    await until(() => b.b.rejected === 1);
    expect(b.seen).toHaveLength(2);
  });

  it('refuses the publishes of a node whose lease another node holds, and says so', async () => {
    const { a, b, c } = await publishing(`t${n}:`);
    let fenced = 0;
    a.b.onFenced(() => fenced++);
    await a.b.redis.set(a.b.keys.lease, 'someone-else');
    a.b.publish(c.next());
    await until(() => fenced === 1);
    expect(a.b.active).toBe(false);
    a.b.publish(c.next());
    await new Promise((r) => setTimeout(r, 200));
    expect(seqs(b.seen)).toEqual([0]);
  });

  it('catches up from the stream after losing Redis: every change, none twice', async () => {
    const { a, c, proxy, seen } = await cutOff(`t${n}:`);
    for (let i = 0; i < 30; i++) a.b.publish(c.next());
    await until(() => a.seen.length === 31);
    await new Promise((r) => setTimeout(r, 300));
    expect(seen.length).toBe(1);
    proxy.restore();
    await until(() => seen.length === 31);
    expect(seqs(seen)).toEqual([...Array(31).keys()]);
    expect(seen.slice(1).every((x) => x.patch !== null)).toBe(true);
    expect(seen[30].state).toEqual({ n: 30 });
  });

  it("takes the newest whole state when it fell out of the stream's range", async () => {
    const { a, c, proxy, seen } = await cutOff(`t${n}:`, { maxLen: 10 });
    // Far more than the stream keeps (MAXLEN ~ trims whole nodes of 100 entries).
    for (let i = 0; i < 400; i++) a.b.publish(c.next());
    await until(() => a.seen.at(-1)?.seq === 400);
    expect(await admin.xlen(a.b.keys.stream)).toBeLessThan(300);
    proxy.restore();
    await until(() => seen.at(-1)?.seq === 400);
    // A whole state stands in for what the stream no longer has; nothing arrives out of order.
    const jumps = seen.filter((x, i) => i > 0 && x.seq !== seen[i - 1].seq + 1);
    expect(jumps.length).toBe(1);
    expect(jumps[0].patch).toBe(null);
    expect(seen.at(-1)?.state).toEqual({ n: 400 });
    expect(seqs(seen)).toEqual([...seqs(seen)].sort((x, y) => x - y));
  });

  it('continues the epoch and seq when another node takes over, as a delta', async () => {
    const prefix = `t${n}:`;
    const a = await bus(prefix);
    const b = await bus(prefix);
    await a.b.activate();
    const c = changes('first');
    a.b.publish(c.fresh());
    for (let i = 0; i < 5; i++) a.b.publish(c.next());
    await until(() => b.seen.length === 6);
    a.b.deactivate();
    await a.b.redis.del(a.b.keys.lease);
    await b.b.activate();
    // The new conductor resumes in an epoch of its own, from seq 0.
    const d = changes('second');
    b.b.publish({ ...d.fresh(), state: { n: 5, resumed: true } });
    b.b.publish({ epoch: 'second', seq: 1, t: Date.now(), patch: { n: 6 }, state: { n: 6, resumed: true } });
    await until(() => a.seen.length === 8 && b.seen.length === 8);
    for (const { seen } of [a, b]) {
      expect(seqs(seen)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
      expect(seen.every((x) => x.epoch === 'first')).toBe(true);
      expect(seen[6].patch).toEqual({ resumed: true });
      expect(seen[7].state).toEqual({ n: 6, resumed: true });
    }
    // A new epoch of its own (a score loaded) is published as it is.
    b.b.publish({ epoch: 'third', seq: 0, t: Date.now(), patch: null, state: { n: 0 } });
    await until(() => a.seen.length === 9);
    expect(a.seen[8]).toMatchObject({ epoch: 'third', seq: 0, patch: null });
  });

  it('rides out a Redis restart: the nodes go on with the changes published after it', async () => {
    const own = await startRedis();
    cleanup.push(() => own.stop());
    const make = async () => {
      const b = createRedisBus({ url: own.url, seal, node: `n${++n}` });
      cleanup.push(() => b.close());
      await b.start();
      /** @type {import('../../../server/live/bus.js').StateChange[]} */
      const seen = [];
      b.subscribe((x) => seen.push(x));
      return { b, seen };
    };
    const a = await make();
    const b = await make();
    await a.b.activate();
    const c = changes();
    a.b.publish(c.fresh());
    for (let i = 0; i < 3; i++) a.b.publish(c.next());
    await until(() => b.seen.length === 4);
    await own.restart();
    for (let i = 0; i < 3; i++) a.b.publish(c.next());
    await until(() => b.seen.at(-1)?.seq === 6, 8000);
    expect(seqs(b.seen)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(b.seen.at(-1)?.state).toEqual({ n: 6 });
  });
});

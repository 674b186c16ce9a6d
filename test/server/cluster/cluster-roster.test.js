// The roster across a cluster on a fake Redis (one hash, one channel, shared by the nodes) and a
// hand-driven clock: a device on another node listed and its action delivered there, a node gone
// dropping out, the audience summed over the nodes (bounded, never a row per phone), forged and
// replayed messages refused, and play when ready waiting on a part of another node.

import { describe, it, expect } from 'vitest';
import { createRoster, SHARE_POINTS, SHARE_ROWS, WORST_ROWS } from '../../../server/live/roster.js';
import { createClusterRoster, mergePoints, SHARE_STALE_MS, WANTED_MS } from '../../../server/cluster/cluster-roster.js';
import { createSeal, clusterKey, sealed } from '../../../server/cluster/seal.js';
import { quantile } from '../../../core/stats.js';
import { deviceStatus } from '../../helpers/fixtures.js';
import { fakeRedis } from '../../helpers/fake-redis.js';

const seal = createSeal(clusterKey('cluster-roster-token-0123'));
const KEY = 'sc:roster';
const CHANNEL = 'sc:roster:act';

/** Nodes on one fake Redis and one clock. @param {string[]} parts */
function cluster(parts = ['violin', 'cello']) {
  const redis = fakeRedis();
  const clock = { t: 1_700_000_000_000 };
  /** @param {string} name @param {{ everyMs?: number, store?: import('../../../server/cluster/cluster-roster.js').RosterStore }} [o] */
  async function node(name, { everyMs = 0, store = redis.store } = {}) {
    /** @type {{ to: string, do: string }[]} */
    const told = [];
    const local = createRoster({
      now: () => clock.t,
      stream: () => ({ epoch: 'e1', seq: 10 }),
      parts: () => parts,
      tell: (connection, envelope) => {
        told.push({ to: /** @type {{ socket: string }} */ (connection).socket, do: envelope.do });
        return true;
      },
      tellAll: () => 0,
    });
    const roster = createClusterRoster({
      local,
      redis: store,
      listen: redis.listen,
      seal,
      key: KEY,
      channel: CHANNEL,
      node: name,
      now: () => clock.t,
      actWaitMs: 300,
      everyMs,
    });
    await roster.start();
    let n = 0;
    /** A WebSocket session stands for its connection (a string would be a polling page's). */
    /** @type {Map<string, object>} */
    const sockets = new Map();
    const socket = (/** @type {string} */ id) => {
      if (!sockets.has(id)) sockets.set(id, { socket: id });
      return /** @type {object} */ (sockets.get(id));
    };
    return {
      socket,
      local,
      roster,
      told,
      /** A device reports on its own connection. @param {string} view @param {Record<string, unknown>} over */
      report(view, over) {
        return local.note('ws', view, deviceStatus(over), {
          address: `10.0.0.${++n % 250}`,
          connection: socket(String(over.id)),
        });
      },
    };
  }
  return {
    redis,
    node,
    advance: (/** @type {number} */ ms) => {
      clock.t += ms;
    },
  };
}

/** A look's message reaches the nodes (the fake channel delivers on the next turn), then two rounds. */
const share = async (/** @type {{ roster: { tick: () => Promise<void> } }[]} */ ...nodes) => {
  await new Promise((r) => setImmediate(r));
  for (let i = 0; i < 2; i++) for (const n of nodes) await n.roster.tick();
};

describe('mergePoints', () => {
  it("gives one node's quantiles back, and two nodes' within a rank or two of the exact ones", () => {
    const a = Array.from({ length: 900 }, (_, i) => (i * 7) % 40);
    const b = Array.from({ length: 600 }, (_, i) => 20 + ((i * 11) % 60));
    /** @param {number[]} xs */
    const pointsOf = (xs) => {
      const s = [...xs].sort((x, y) => x - y);
      return {
        n: s.length,
        q: Array.from({ length: SHARE_POINTS }, (_, i) => quantile(s, i / (SHARE_POINTS - 1))),
      };
    };
    const one = mergePoints([pointsOf(a)]);
    expect(one.n).toBe(900);
    expect(Math.abs(/** @type {number} */ (one.p50) - quantile(a, 0.5))).toBeLessThanOrEqual(1.5);
    const both = mergePoints([pointsOf(a), pointsOf(b)]);
    const all = [...a, ...b];
    expect(both.n).toBe(1500);
    expect(both.max).toBe(Math.max(...all));
    // within the values 3% of the ranks either side of the exact quantile
    for (const p of [0.5, 0.95]) {
      const got = /** @type {number} */ (p === 0.5 ? both.p50 : both.p95);
      expect(got).toBeGreaterThanOrEqual(quantile(all, p - 0.03));
      expect(got).toBeLessThanOrEqual(quantile(all, Math.min(1, p + 0.03)));
    }
    expect(mergePoints([{ n: 0, q: [] }])).toEqual({ n: 0, p50: null, p95: null, max: null });
  });
});

describe('the roster across a cluster (fake Redis)', () => {
  it("lists a part device of another node with that node's name, and only once the roster is wanted", async () => {
    const c = cluster();
    const a = await c.node('a');
    const b = await c.node('b');
    b.report('cello', { id: 'dcello', name: 'cello desk' });
    await share(b);
    // Nobody looked yet: b wrote nothing.
    expect(c.redis.hashes.get(KEY)?.has('b') ?? false).toBe(false);
    const first = await a.roster.view();
    expect(first.devices).toEqual([]);
    await share(b);
    const v = await a.roster.view();
    expect(v.devices).toMatchObject([{ id: 'dcello', view: 'cello', node: 'b', link: 'live', name: 'cello desk' }]);
    expect(v.parts).toMatchObject([
      { part: 'violin', missing: true, ready: false },
      { part: 'cello', missing: false, ready: true, devices: ['dcello'] },
    ]);
    expect(v.nodes.map((/** @type {{ node: string }} */ n) => n.node)).toEqual(['a', 'b']);
  });

  it('with nobody looking a node sends Redis nothing; told of a look, it writes its share at once, and stops after', async () => {
    const c = cluster();
    /** @type {string[]} */
    const sent = [];
    // b's commands, counted: every method of the store, wrapped
    const store = /** @type {typeof c.redis.store} */ (
      Object.fromEntries(
        Object.entries(c.redis.store).map(([k, fn]) => [
          k,
          (/** @type {any[]} */ ...args) => {
            sent.push(`${k} ${args[1] ?? ''}`);
            return /** @type {any} */ (fn)(...args);
          },
        ]),
      )
    );
    const a = await c.node('a');
    // rounds every 30 ms, or never within this test: the share must come from the look itself
    const b = await c.node('b', { everyMs: 60_000, store });
    const quiet = await c.node('q', { everyMs: 30, store });
    b.report('cello', { id: 'dcello' });
    const started = sent.length;
    await new Promise((r) => setTimeout(r, 300));
    expect(sent.slice(started)).toEqual([]);

    await a.roster.view();
    // the look's message, then b's write (no round of b's own falls in this test)
    await new Promise((r) => setTimeout(r, 20));
    expect(c.redis.hashes.get(KEY)?.has('b')).toBe(true);
    expect((await a.roster.view()).devices).toMatchObject([{ id: 'dcello', node: 'b' }]);

    // The look over: the rounds stop, and nothing more is sent.
    c.advance(WANTED_MS + 1);
    await new Promise((r) => setTimeout(r, 100));
    const after = sent.length;
    await new Promise((r) => setTimeout(r, 200));
    expect(sent.slice(after)).toEqual([]);
    await quiet.roster.close();
    await b.roster.close();
  });

  it(`drops a node not heard from for ${SHARE_STALE_MS} ms, and its share from the hash`, async () => {
    const c = cluster();
    const a = await c.node('a');
    const b = await c.node('b');
    b.report('cello', { id: 'dcello' });
    await a.roster.view();
    await share(b);
    expect((await a.roster.view()).devices).toHaveLength(1);
    c.advance(SHARE_STALE_MS - 100);
    expect((await a.roster.view()).devices).toHaveLength(1);
    c.advance(200);
    expect((await a.roster.view()).devices).toEqual([]);
    expect(c.redis.hashes.get(KEY)?.has('b')).toBe(false);
  });

  it('sums the audience of every node: counts, spreads, ten worst rows, and a share bounded in size', async () => {
    const c = cluster();
    const a = await c.node('a');
    const b = await c.node('b');
    for (let i = 0; i < 750; i++) {
      a.report('audience', { id: `pa${i}`, name: '', clockError: i % 10 });
      b.report('audience', { id: `pb${i}`, name: '', clockError: 10 + (i % 10) });
    }
    for (let i = 0; i < 100; i++) b.report('violin', { id: `v${String(i).padStart(3, '0')}` });
    await a.roster.view();
    await share(b);
    const v = await a.roster.view();
    expect(v.audience).toMatchObject({ total: 1500, live: 1500, silent: 0 });
    expect(v.audience.clockError.n).toBe(1500);
    expect(v.audience.clockError.max).toBe(19);
    expect(v.audience.clockError.p50).toBeGreaterThanOrEqual(8);
    expect(v.audience.clockError.p50).toBeLessThanOrEqual(11);
    expect(v.audience.worst).toHaveLength(WORST_ROWS);
    expect(v.devices).toHaveLength(SHARE_ROWS);
    expect(v.omitted).toBe(100 - SHARE_ROWS);
    const written = /** @type {string} */ (c.redis.hashes.get(KEY)?.get('b'));
    expect(written.length).toBeLessThan(32 * 1024);
  });

  it('an action on a device of another node reaches it there alone; one gone from every node answers 404 SC_ERR_NO_DEVICE', async () => {
    const c = cluster();
    const a = await c.node('a');
    const b = await c.node('b');
    const d = await c.node('d');
    b.report('cello', { id: 'dcello' });
    expect(await a.roster.act('dcello', 'reload')).toEqual({ ok: true, sent: 1, node: 'b' });
    expect(b.told).toEqual([{ to: 'dcello', do: 'reload' }]);
    expect(a.told).toEqual([]);
    expect(d.told).toEqual([]);
    b.local.closed({ connection: b.socket('dcello') });
    const gone = await a.roster.act('dcello', 'reload');
    expect(gone).toMatchObject({ ok: false, status: 404, error: { code: 'SC_ERR_NO_DEVICE' } });
    expect(await a.roster.act('dcello', 'dance')).toMatchObject({
      status: 404,
      error: { code: 'SC_ERR_UNKNOWN_ACTION' },
    });
  });

  it("shows this node's devices alone, marked partial, when Redis does not answer a look", async () => {
    const c = cluster();
    const a = await c.node('a');
    a.report('violin', { id: 'dviolin' });
    const never = new Promise(() => {});
    c.redis.store.hgetall = () => /** @type {Promise<Record<string, string>>} */ (never);
    const v = await a.roster.view();
    expect(v.partial).toBe(true);
    expect(v.devices.map((/** @type {{ id: string }} */ d) => d.id)).toEqual(['dviolin']);
  });

  it('refuses a forged action (no valid MAC) and one replayed', async () => {
    const c = cluster();
    const a = await c.node('a');
    const b = await c.node('b');
    b.report('cello', { id: 'dcello' });
    const forged = JSON.stringify({
      op: 'act',
      id: 'x1',
      device: 'dcello',
      action: 'reload',
      from: 'evil',
      t: 1_700_000_000_000,
    });
    await c.redis.store.publish(CHANNEL, `${'A'.repeat(43)}.${forged}`);
    await a.roster.act('dcello', 'attention');
    expect(b.told).toEqual([{ to: 'dcello', do: 'attention' }]);
    // the genuine message added again: refused by its id
    const genuine = c.redis.published.find((m) => m.includes('"op":"act"'));
    await c.redis.store.publish(CHANNEL, /** @type {string} */ (genuine));
    await new Promise((r) => setTimeout(r, 20));
    expect(b.told).toHaveLength(1);
    expect(b.roster.refused).toBeGreaterThanOrEqual(2);
    // an old one, sealed but written long ago
    c.advance(60_000);
    await c.redis.store.publish(
      CHANNEL,
      sealed(
        seal,
        CHANNEL,
        JSON.stringify({ op: 'act', id: 'x2', device: 'dcello', action: 'reload', from: 'a', t: 1_700_000_000_000 }),
      ),
    );
    await new Promise((r) => setTimeout(r, 20));
    expect(b.told).toHaveLength(1);
  });

  it('play when ready waits for a part on another node, and a cancel on any node ends the wait', async () => {
    const c = cluster(['violin', 'cello']);
    const a = await c.node('a');
    const b = await c.node('b');
    a.report('violin', { id: 'dviolin' });
    b.report('cello', { id: 'dcello', audio: false });
    let settled = /** @type {string | null} */ (null);
    const waiting = a.roster.waitReady(60_000).then(
      () => {
        settled = 'ready';
      },
      (e) => {
        settled = e.code;
      },
    );
    await share(b);
    await a.roster.tick();
    expect(settled).toBeNull();
    expect((await a.roster.view()).waiting).toMatchObject({ node: 'a' });
    c.advance(500);
    a.report('violin', { id: 'dviolin' });
    b.report('cello', { id: 'dcello', audio: true });
    await share(b);
    await a.roster.tick();
    await waiting;
    expect(settled).toBe('ready');
    expect((await a.roster.view()).waiting).toBeNull();

    // Another wait (the cello's audio locked again), cancelled by a pause that arrived on b.
    c.advance(500);
    b.report('cello', { id: 'dcello', audio: false });
    await share(b);
    const parts = a.roster.waitReady(60_000).catch((e) => e);
    await a.roster.tick();
    c.advance(500);
    b.roster.cancelWait('cancelled by pause');
    await a.roster.tick();
    const err = await parts;
    expect(err.code).toBe('SC_ERR_NOT_READY');
    expect(err.problems[0]).toContain('cancelled on another node');
  });

  it('a second play when ready is not cancelled by a round that read the hash before it', async () => {
    const c = cluster(['violin', 'cello']);
    /** Reads of the hash held back until released: what Redis answered in the order asked. */
    /** @type {(() => void)[]} */
    const held = [];
    let hold = false;
    const store = {
      ...c.redis.store,
      hgetall: async (/** @type {string} */ key) => {
        const answer = await c.redis.store.hgetall(key);
        if (hold) await new Promise((r) => held.push(() => r(undefined)));
        return answer;
      },
    };
    const a = await c.node('a', { store });
    a.report('violin', { id: 'dviolin', audio: false });
    const first = a.roster.waitReady(60_000).catch((e) => e);
    await new Promise((r) => setImmediate(r));
    hold = true;
    const round = a.roster.tick(); // its read answers with the first wait in the hash
    await new Promise((r) => setImmediate(r));
    expect(held).toHaveLength(1);
    hold = false;
    let second = /** @type {string | null} */ (null);
    const waiting = a.roster.waitReady(60_000).then(
      () => {
        second = 'ready';
      },
      (e) => {
        second = e.problems[0];
      },
    );
    await new Promise((r) => setImmediate(r));
    for (const release of held) release();
    await round;
    expect((await first).problems[0]).toContain('another play when ready replaced this one');
    expect(second).toBeNull();
    c.advance(500);
    a.report('violin', { id: 'dviolin' });
    a.report('cello', { id: 'dcello' });
    await a.roster.tick();
    await waiting;
    expect(second).toBe('ready');
  });

  it('a play when ready longer than a look sees a part on another node get ready after the look ran out', async () => {
    const c = cluster(['violin', 'cello']);
    const a = await c.node('a');
    const b = await c.node('b');
    a.report('violin', { id: 'dviolin' });
    b.report('cello', { id: 'dcello', audio: false });
    let settled = /** @type {string | null} */ (null);
    const waiting = a.roster.waitReady(60_000).then(
      () => {
        settled = 'ready';
      },
      (e) => {
        settled = e.code;
      },
    );
    await share(a, b);
    // Nobody looks at the roster meanwhile (the console in a tab the browser throttles): the wait
    // alone must keep the nodes sharing past WANTED_MS.
    for (let s = 1; s <= 2 * (WANTED_MS / 1000); s++) {
      c.advance(1000);
      a.report('violin', { id: 'dviolin' });
      b.report('cello', { id: 'dcello', audio: s >= 1.5 * (WANTED_MS / 1000) });
      await share(a, b);
      if (settled !== null) break;
    }
    expect(settled).toBe('ready');
    await waiting;
  });
});

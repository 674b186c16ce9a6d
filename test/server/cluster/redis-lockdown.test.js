// Redis that only scorecast can touch (doc/security.md, "Redis"): a client without a user and
// password is refused, each role's user does only its work, the conductor token never reaches
// Redis, and what a Redis writer adds (votes, states, a lease, a record) is not taken up by the
// nodes. A real cluster of processes (two conductors and an edge) on a locked-down Redis.

import { cpSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { connectRedis } from '../../../server/cluster/redis.js';
import { clusterKey, createSeal, sealed, unseal } from '../../../server/cluster/seal.js';
import { HAVE_REDIS, startRedis } from '../../helpers/redis-server.js';
import { CLUSTER_SCORE, CLUSTER_TOKEN, call, phone, startNode, until } from '../../helpers/cluster-nodes.js';
import { openWs } from '../../helpers/live-clients.js';

if (!HAVE_REDIS)
  console.warn('cluster tests skipped: redis-server is not installed (test/setup/ensure-deps.sh installs it)');

/** @type {Awaited<ReturnType<typeof startRedis>>} */
let redis;
/** What Redis holds, seen by a user the nodes do not have (the test's own look, and the "attacker"). */
/** @type {import('ioredis').Redis} */
let admin;
/** @type {import('../../helpers/cluster-nodes.js').TestNode[]} */
const nodes = [];
/** @type {Record<string, import('../../helpers/cluster-nodes.js').TestNode>} */
const n = {};
/** A node's MACs, as one that holds the token makes them. */
const seal = createSeal(clusterKey(CLUSTER_TOKEN));

beforeAll(async () => {
  if (!HAVE_REDIS) return;
  redis = await startRedis();
  admin = connectRedis(redis.adminUrl, 'test-admin');
  n.c1 = await startNode({ redis: redis.urls, role: 'conductor', id: 'c1' });
  nodes.push(n.c1);
  await until(async () => (await call(n.c1.base, '/api/cluster')).body.nodes?.some((/** @type {any} */ x) => x.active));
  n.c2 = await startNode({ redis: redis.urls, role: 'conductor', id: 'c2' });
  n.e1 = await startNode({ redis: redis.urls, role: 'edge', id: 'e1' });
  nodes.push(n.c2, n.e1);
  await until(async () => (await call(n.e1.base, '/api/cluster')).body.nodes?.length === 3);
}, 60_000);

afterAll(async () => {
  for (const x of nodes) await x.stop('SIGKILL');
  admin?.disconnect();
  await redis?.stop();
});

/** @param {any[]} messages */
const states = (messages) => messages.filter((m) => m.type === 'delta' || m.type === 'snapshot');

/** The open window's tally, as the active conductor has it (asked through the edge). */
const tally = async () => (await call(n.e1.base, '/api/votes')).body.open?.tally;

/**
 * Every string Redis holds: values, hash fields and stream entries of every key.
 * @returns {Promise<string[]>}
 */
async function everything() {
  /** @type {string[]} */
  const out = [];
  let cursor = '0';
  do {
    const [next, keys] = await admin.scan(cursor, 'COUNT', 1000);
    cursor = next;
    for (const key of keys) {
      const type = await admin.type(key);
      out.push(key);
      if (type === 'string') out.push(String(await admin.get(key)));
      else if (type === 'hash') out.push(...Object.entries(await admin.hgetall(key)).flat());
      else if (type === 'stream') for (const [id, fields] of await admin.xrange(key, '-', '+')) out.push(id, ...fields);
      else out.push(`a ${type} nobody expected`);
    }
  } while (cursor !== '0');
  return out;
}

/** @param {string} text @param {string} [purpose] */
const inboxEntry = (text, purpose) => (purpose ? ['r', text, 'm', seal.sign(purpose, text)] : ['r', text]);

describe.skipIf(!HAVE_REDIS)('Redis that only scorecast can touch', () => {
  it("refuses a client without a user and password, and lets each role's user do only its work", async () => {
    const anonymous = connectRedis(redis.openUrl, 'anonymous');
    const edge = connectRedis(redis.urls.edge, 'edge-user');
    anonymous.on('error', () => {});
    try {
      await expect(anonymous.get('scorecast:record')).rejects.toThrow(/NOAUTH/);
      await expect(anonymous.xadd('scorecast:inbox', '*', 'r', '{}')).rejects.toThrow(/NOAUTH/);
      // An edge appends to the inbox but may not read it (the votes in it), take the lease,
      // write the state stream, read the record, or wipe Redis.
      expect(await edge.xadd('scorecast:probe-none', '*', 'a', 'b').catch((e) => e.message)).toMatch(/NOPERM/);
      await expect(edge.xrange('scorecast:inbox', '-', '+')).rejects.toThrow(/NOPERM/);
      await expect(edge.set('scorecast:lease', 'me')).rejects.toThrow(/NOPERM/);
      await expect(edge.xadd('scorecast:stream', '*', 'c', '{}')).rejects.toThrow(/NOPERM/);
      await expect(edge.get('scorecast:record')).rejects.toThrow(/NOPERM/);
      await expect(edge.flushall()).rejects.toThrow(/NOPERM/);
      await expect(edge.config('GET', 'requirepass')).rejects.toThrow(/NOPERM/);
      // It publishes actions on devices on the roster channel (they carry MACs), and nowhere else.
      expect(await edge.publish('scorecast:roster:act', 'probe')).toBeGreaterThanOrEqual(0);
      await expect(edge.publish('scorecast:stream', 'probe')).rejects.toThrow(/NOPERM/);
    } finally {
      anonymous.disconnect();
      edge.disconnect();
    }
  });

  it('forwards control and counts votes without the conductor token ever reaching Redis', async () => {
    expect((await call(n.e1.base, '/api/control/vote', { method: 'POST', body: { open: 'choice' } })).status).toBe(200);
    expect((await call(n.e1.base, '/api/status')).status).toBe(200);
    expect((await call(n.e1.base, '/api/scores')).status).toBe(200);
    for (let i = 0; i < 3; i++) {
      const p = await phone(n.e1.base);
      expect((await p.tap(n.e1.base, 'left')).body).toMatchObject({ type: 'voted', tile: 'left' });
    }
    expect(await tally()).toEqual({ left: 3, right: 0 });
    const held = await everything();
    expect(held.some((s) => s.includes('"kind":"http"'))).toBe(true);
    expect(held.filter((s) => s.includes(CLUSTER_TOKEN))).toEqual([]);
    expect(held.filter((s) => /bearer/i.test(s))).toEqual([]);
  });

  it('counts no vote a node did not send: without a MAC, with an invented device, or one added again', async () => {
    const before = await tally();
    const p = await phone(n.e1.base);
    const deviceId = p.device.split('.')[0];
    const request = (/** @type {object} */ body, /** @type {number} */ i) =>
      JSON.stringify({ id: `forged:${i}`, from: 'e1', kind: 'tap', body, s: 'forged', n: i, t: Date.now() });
    // A Redis writer without the token: a real phone's credential, but no MAC.
    await admin.xadd(
      'scorecast:inbox',
      '*',
      ...inboxEntry(request({ tile: 'right', device: deviceId, credential: p.device }, 1)),
    );
    // A node's say-so (a good MAC) for a device no credential stands for.
    await admin.xadd(
      'scorecast:inbox',
      '*',
      ...inboxEntry(
        request({ tile: 'right', device: 'invented-device-0001', credential: 'invented-device-0001' }, 2),
        'scorecast:inbox',
      ),
    );
    // A vote a node sent, added again (its MAC is still good): taken up once, not twice (a
    // second tap on the same tile would take the vote back).
    const [last] = await admin
      .xrevrange('scorecast:inbox', '+', '-', 'COUNT', 50)
      .then((all) => all.filter(([, f]) => f[1].includes('"kind":"tap"') && !f[1].includes('forged')));
    await admin.xadd('scorecast:inbox', '*', ...last[1]);
    // Requests are taken up in order: once this one is answered, the ones above were read.
    expect((await p.tap(n.e1.base, 'right')).body).toMatchObject({ type: 'voted', tile: 'right' });
    expect(await tally()).toEqual({ ...before, right: (before.right ?? 0) + 1 });
  });

  it('shows clients no state the conductor did not write, and says how many it refused', async () => {
    const client = await openWs(n.e1.wsBase);
    await until(() => states(client.messages).length >= 1);
    const { epoch, seq, state } = states(client.messages)[0];
    const t = Date.now();
    const forged = { ...state, cues: { ...state.cues, audience: { text: 'FORGED' } } };
    await admin.xadd(
      'scorecast:stream',
      '*',
      'c',
      JSON.stringify({ epoch, seq: seq + 1, t, patch: { cues: { audience: { text: 'FORGED' } } } }),
    );
    await admin.xadd(
      'scorecast:stream',
      '*',
      'c',
      JSON.stringify({ epoch: 'forged-epoch', seq: 0, t, patch: null, state: forged }),
      'm',
      'x'.repeat(43),
    );
    await admin.hset('scorecast:latest', 'change', JSON.stringify({ epoch: 'forged-epoch', seq: 5, t, state: forged }));
    // A real change after them (closing the window): the client gets it, and nothing forged.
    expect((await call(n.e1.base, '/api/control/vote', { method: 'POST', body: { close: true } })).status).toBe(200);
    await until(() =>
      states(client.messages).some((m) => m.patch?.cues?.audience !== undefined && !m.patch.cues.audience?.vote),
    );
    const rejected = async () =>
      (await call(n.e1.base, '/api/cluster')).body.nodes.find((/** @type {any} */ x) => x.id === 'e1').rejected;
    await until(async () => (await rejected()) >= 2, 10_000);
    expect(JSON.stringify(client.messages)).not.toContain('FORGED');
    expect(states(client.messages).every((m) => m.epoch === epoch)).toBe(true);
    client.close();
  });

  it('takes a window opened again in the same epoch as a new round: one vote per connection again', async () => {
    const open = () => call(n.e1.base, '/api/control/vote', { method: 'POST', body: { open: 'choice' } });
    const client = await openWs(n.e1.wsBase);
    const voteShown = () =>
      states(client.messages).reduce(
        (shown, m) => {
          const v = (m.state ?? m.patch)?.cues?.audience;
          return v === undefined ? shown : v?.vote?.id === 'choice';
        },
        /** @type {boolean} */ (false),
      );
    expect((await open()).status).toBe(200);
    await until(voteShown);
    const phones = [await phone(n.e1.base), await phone(n.e1.base), await phone(n.e1.base)];
    for (const p of phones) expect((await p.tap(n.e1.base, 'left')).body).toMatchObject({ type: 'voted' });
    expect((await call(n.e1.base, '/api/control/vote', { method: 'POST', body: { close: true } })).status).toBe(200);
    await until(() => !voteShown());
    expect((await open()).status).toBe(200);
    await until(voteShown);
    // One connection brings the three devices that voted last round: one vote counts.
    const tapper = await openWs(n.e1.wsBase);
    /** @type {any[]} */
    const answers = [];
    for (const p of phones) {
      tapper.ws.send(JSON.stringify({ type: 'tap', tile: 'right', device: p.device }));
      answers.push(await tapper.waitFor((m) => (m.type === 'voted' || m.type === 'error') && !answers.includes(m)));
    }
    expect(answers.map((a) => a.type)).toEqual(['voted', 'error', 'error']);
    expect(answers.slice(1).map((a) => a.code)).toEqual(['SC_ERR_ALREADY_VOTED', 'SC_ERR_ALREADY_VOTED']);
    expect(await tally()).toEqual({ left: 0, right: 1 });
    expect((await call(n.e1.base, '/api/control/vote', { method: 'POST', body: { close: true } })).status).toBe(200);
    client.close();
    tapper.close();
  });

  it('refuses a saved record whose score lies outside the scores folder when the standby takes over', {
    timeout: 40_000,
  }, async () => {
    // A package that would load: a copy of the fixture in a folder of the attacker's choosing.
    const elsewhere = path.join(mkdtempSync(path.join(os.tmpdir(), 'sc-elsewhere-')), 'cluster');
    cpSync(CLUSTER_SCORE, elsewhere, { recursive: true });
    await new Promise((r) => setTimeout(r, 300));
    const raw = /** @type {string} */ (await admin.get('scorecast:record'));
    const saved = JSON.parse(/** @type {string} */ (unseal(seal, 'scorecast:record', raw)));
    // Even with a good MAC (written by someone holding the token), the folder is checked.
    await admin.set(
      'scorecast:record',
      sealed(seal, 'scorecast:record', JSON.stringify({ ...saved, score: elsewhere })),
    );
    await n.c1.stop('SIGKILL');
    await until(
      async () =>
        (await call(n.e1.base, '/api/cluster')).body.nodes?.find((/** @type {any} */ x) => x.id === 'c2')?.active ===
        true,
      15_000,
    );
    // The edge answers 503 for the moments it is still finding the new conductor (a loaded
    // machine): asked again until it answers. What is checked here is which score the standby
    // plays, not how soon (node.test.js bounds the failover itself): the waits are hang guards,
    // and beside the venue lab in npm test 5 s was once not enough (ci3).
    /** @type {any} */
    let status = null;
    await until(async () => {
      status = await call(n.e1.base, '/api/status');
      return status.status !== 503;
    }, 15_000);
    expect(status.status).toBe(200);
    expect(status.body.dir).toBe(CLUSTER_SCORE);
  });

  it('gives an outsider who takes the lease no way to push a state to the phones', async () => {
    const client = await openWs(n.e1.wsBase);
    await until(() => states(client.messages).length >= 1);
    const { epoch, seq } = states(client.messages)[0];
    await admin.set('scorecast:lease', 'outsider', 'PX', 60_000);
    const t = Date.now();
    for (let i = 1; i <= 3; i++)
      await admin.xadd(
        'scorecast:stream',
        '*',
        'c',
        JSON.stringify({ epoch, seq: seq + i, t, patch: { cues: { audience: { text: `FORGED ${i}` } } } }),
      );
    await new Promise((r) => setTimeout(r, 1000));
    expect(JSON.stringify(client.messages)).not.toContain('FORGED');
    client.close();
  });
});

// What was pending when the conductor died, across a failover: the standby takes up the record the
// conductor saved in Redis. A count-in under way starts over in full; a jump asked for (through an
// edge) and not yet landed when the conductor was killed has landed, on the grid, by the time the
// standby conducts.

import { describe, it, expect, afterAll } from 'vitest';
import { HAVE_REDIS, startRedis } from '../../helpers/redis-server.js';
import { call, startNode, until, untilActive } from '../../helpers/cluster-nodes.js';

/** @type {Array<Awaited<ReturnType<typeof startRedis>>>} */
const redises = [];
/** @type {import('../../helpers/cluster-nodes.js').TestNode[]} */
const nodes = [];
afterAll(async () => {
  for (const n of nodes) await n.stop('SIGKILL');
  for (const r of redises) await r.stop();
});

/**
 * Two conductors and an edge on a Redis of their own, the first one active; the performance
 * stopped, at a quarter of its tempo (a beat a second).
 * @param {string} name
 */
async function trio(name) {
  const redis = await startRedis();
  redises.push(redis);
  const urls = /** @type {any} */ (redis).urls;
  const c1 = await startNode({ redis: urls, role: 'conductor', id: `${name}1`, startMs: 45_000 });
  nodes.push(c1);
  await untilActive(c1.base, `${name}1`);
  const c2 = await startNode({ redis: urls, role: 'conductor', id: `${name}2`, startMs: 45_000 });
  const edge = await startNode({ redis: urls, role: 'edge', id: `${name}e`, startMs: 45_000 });
  nodes.push(c2, edge);
  await until(async () => (await call(edge.base, '/api/cluster')).body.nodes?.length === 3);
  const control = async (/** @type {string} */ action, /** @type {unknown} */ body = {}) => {
    const res = await call(edge.base, `/api/control/${action}`, { method: 'POST', body });
    expect(res.status, `${action}: ${JSON.stringify(res.body)}`).toBe(200);
    return res.body;
  };
  await control('stop');
  await control('tempo', { rate: 0.25 });
  /** The state an edge's polling client gets. */
  const stateNow = async () => (await fetch(`${edge.base}/live/poll`).then((r) => r.json()))[0].state;
  /** The standby conducts (the edge hears of its state a little later: the tests wait for it). */
  const failover = async () => {
    await c1.stop('SIGKILL');
    await until(
      async () =>
        (await call(edge.base, '/api/cluster')).body.nodes?.some(
          (/** @type {any} */ n) => n.id === `${name}2` && n.active,
        ),
      10_000,
    );
  };
  return { control, stateNow, failover };
}

describe.skipIf(!HAVE_REDIS)('what was pending across a conductor failover', () => {
  it('a count-in under way starts over in full on the standby', async () => {
    const { control, stateNow, failover } = await trio('count');
    await control('seek', { bar: 9 });
    // Four bars of clicks at a beat a second: 16 s, the conductor killed 1 s into them.
    const played = await control('play', { countIn: 4 });
    expect(played.state.countIn).toMatchObject({ beats: 16, beatMs: 1000 });
    await new Promise((r) => setTimeout(r, 1000));
    const killedAt = Date.now();
    await failover();
    // The standby's state reaches the edge: counting in again from the takeover.
    await until(async () => ((await stateNow()).countIn?.t ?? 0) >= killedAt, 10_000);
    const s = await stateNow();
    expect(s).toMatchObject({ playback: 'playing', bar: 9, countIn: { beats: 16, beatMs: 1000 } });
    expect(s.beatT).toBeUndefined();
    // The clicks start again from the takeover, all sixteen before bar 9.
    expect(s.countIn.t).toBeGreaterThanOrEqual(killedAt);
    expect(s.next.t - s.countIn.t).toBe(16_000);
  }, 120_000);

  it('a jump asked through an edge and killed before it landed has landed on the standby', async () => {
    const { control, stateNow, failover } = await trio('jump');
    await control('seek', { bar: 2 });
    await control('play');
    await new Promise((r) => setTimeout(r, 500));
    // At a beat a second the jump lands 0.3 to 1.3 s from now: the conductor is killed first.
    await control('seek', { bar: 40 });
    await failover();
    // Without the jump in the record the standby would play on from bar 2 (a bar every 4 s).
    await until(async () => (await stateNow()).bar >= 40, 10_000);
    const s = await stateNow();
    expect(s.playback).toBe('playing');
    expect(s.bar).toBeGreaterThanOrEqual(40);
    expect(s.bar).toBeLessThanOrEqual(43);
  }, 120_000);
});

// A loop across a conductor failover: set through an edge, the active conductor killed, the
// standby goes on in the loop (the same passage, the time round counting on) from the record the
// conductor saved in Redis.

import { describe, it, expect } from 'vitest';
import { HAVE_REDIS } from '../../helpers/redis-server.js';
import { useCluster } from '../../helpers/use-cluster.js';
import { call, until, untilActive } from '../../helpers/cluster-nodes.js';

const cluster = useCluster();

describe.skipIf(!HAVE_REDIS)('a loop across a conductor failover', () => {
  it('the standby takes the loop up where it had got to, and goes on round it', async () => {
    const c1 = await cluster.start({ role: 'conductor', id: 'l1' });
    await untilActive(c1.base, 'l1');
    await cluster.start({ role: 'conductor', id: 'l2' });
    const e1 = await cluster.start({ role: 'edge', id: 'le' });
    await until(async () => (await call(e1.base, '/api/cluster')).body.nodes?.length === 3);
    // Bar 3 looped (1 s a round at 240 bpm) with a 2-beat count-in, set and played through the edge.
    const set = await call(e1.base, '/api/control/loop', {
      method: 'POST',
      body: { from: { bar: 3 }, to: { bar: 3 }, countIn: 2 },
    });
    expect(set.status).toBe(200);
    expect(set.body.state.loop).toEqual({ from: 3, to: 3, start: 8, end: 11, round: 1, countIn: 2 });
    expect((await call(e1.base, '/api/control/play', { method: 'POST' })).status).toBe(200);
    /** The state an edge's polling client gets. */
    const stateNow = async () => (await fetch(`${e1.base}/live/poll`).then((r) => r.json()))[0].state;
    const loopNow = async () => (await stateNow()).loop;
    await until(async () => (await loopNow())?.round >= 3, 10_000);
    await c1.stop('SIGKILL');
    // The standby conducts: still in the loop, the round counting on.
    await untilActive(e1.base, 'l2', 10_000);
    const taken = await loopNow();
    expect(taken).toMatchObject({ from: 3, to: 3, start: 8, end: 11, countIn: 2 });
    expect(taken.round).toBeGreaterThanOrEqual(3);
    await until(async () => (await loopNow())?.round >= taken.round + 2, 10_000);
    const snap = await stateNow();
    expect(snap.beat).toBeGreaterThanOrEqual(8);
    expect(snap.beat).toBeLessThanOrEqual(11);
  }, 60_000);
});

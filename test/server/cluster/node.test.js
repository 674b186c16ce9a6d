// Cluster nodes as real processes on one Redis: roles, forwarding, votes from any node, and the
// standby taking over from a conductor that was killed.

import { describe, it, expect } from 'vitest';
import { HAVE_REDIS, startRedis } from '../../helpers/redis-server.js';
import { useCluster } from '../../helpers/use-cluster.js';
import { call, phone, startNode, until, untilActive } from '../../helpers/cluster-nodes.js';
import { openWs } from '../../helpers/live-clients.js';

if (!HAVE_REDIS)
  console.warn('cluster tests skipped: redis-server is not installed (test/setup/ensure-deps.sh installs it)');

const cluster = useCluster();

/** The fixture plays 4 beats a second (4/4 at 240 bpm). */
const BEAT_MS = 250;

/** @param {any[]} messages */
const states = (messages) => messages.filter((m) => m.type === 'delta' || m.type === 'snapshot');

describe.skipIf(!HAVE_REDIS)('cluster nodes', () => {
  it('forwards control from an edge, counts votes from every node once, and fails over to the standby within 2 s on the same grid', async () => {
    const c1 = await cluster.start({ role: 'conductor', id: 'c1' });
    await untilActive(c1.base, 'c1');
    const c2 = await cluster.start({ role: 'conductor', id: 'c2' });
    const e1 = await cluster.start({ role: 'edge', id: 'e1' });
    await until(async () => (await call(e1.base, '/api/cluster')).body.nodes?.length === 3);
    const listed = (await call(e1.base, '/api/cluster')).body.nodes;
    expect(listed.map((/** @type {any} */ n) => [n.id, n.role, n.active])).toEqual([
      ['c1', 'conductor', true],
      ['c2', 'standby', false],
      ['e1', 'edge', false],
    ]);
    expect(listed[0]).toMatchObject({ pid: c1.child.pid, clients: 0 });
    expect((await call(e1.base, '/api/cluster', { token: null })).status).toBe(401);

    // Control at an edge: refused without the token (nothing forwarded), played with it.
    expect((await call(e1.base, '/api/control/play', { method: 'POST', token: 'wrong-token-0000' })).status).toBe(401);
    const edge = await openWs(e1.wsBase);
    const onStandby = await openWs(c2.wsBase);
    /** @type {number[]} */
    const arrivals = [];
    edge.ws.on('message', () => arrivals.push(Date.now()));
    const played = await call(e1.base, '/api/control/play', { method: 'POST' });
    expect(played.status).toBe(200);
    expect(played.body.state.transport).toBe('playing');

    // The vote window opens at beat 4; votes through an edge (HTTP) and the standby (WebSocket).
    await until(() => states(edge.messages).some((m) => m.patch?.beat >= 5 || m.state?.beat >= 5));
    // Credentials from any node hold on every node (one conductor token signs them).
    const phones = [
      await phone(e1.base),
      await phone(c2.base),
      await phone(e1.base),
      await phone(c2.base),
      await phone(e1.base),
    ];
    for (const p of phones.slice(0, 2)) {
      expect((await p.tap(e1.base, 'left')).body).toEqual({ type: 'voted', window: 'choice', tile: 'left' });
    }
    onStandby.ws.send(JSON.stringify({ type: 'tap', tile: 'right', device: phones[2].device }));
    await onStandby.waitFor((m) => m.type === 'voted');
    expect((await call(e1.base, '/api/votes')).body.open.tally).toEqual({ left: 2, right: 1 });

    // Clients on different nodes see the identical stream.
    await until(() => states(edge.messages).length >= 12 && states(onStandby.messages).length >= 12);
    const key = (/** @type {any} */ m) => `${m.epoch}:${m.seq}`;
    const edgeKeys = states(edge.messages).slice(1).map(key);
    const standbyKeys = new Set(states(onStandby.messages).map(key));
    expect(edgeKeys.filter((k) => standbyKeys.has(k)).length).toBeGreaterThan(8);
    const text = (/** @type {any} */ m) => JSON.stringify(m.patch);
    const standbyPatch = new Map(states(onStandby.messages).map((m) => [key(m), text(m)]));
    for (const m of states(edge.messages).slice(1))
      if (standbyPatch.has(key(m))) expect(text(m)).toBe(standbyPatch.get(key(m)));

    // Kill the active conductor. Votes cast during the switch wait for the standby.
    const before = states(edge.messages).length;
    const killedAt = Date.now();
    await c1.stop('SIGKILL');
    const during = phones.slice(3).map((p) => p.tap(e1.base, 'right'));
    const twice = phones[0].tap(e1.base, 'right');
    await until(() => states(edge.messages).length > before + 2, 5000);
    const firstAfter = arrivals[edge.messages.indexOf(states(edge.messages)[before])];
    const takeoverMs = firstAfter - killedAt;
    console.log(
      `cluster failover: the first change from the standby reached the edge ${takeoverMs} ms after the conductor was killed`,
    );
    expect(takeoverMs).toBeLessThan(2000);
    for (const r of await Promise.all(during)) expect(r.body).toMatchObject({ type: 'voted', tile: 'right' });
    // phone 0 changes its mind during the switch: the standby knows its vote (the recorded ballot
    // keeps each phone's choice) and moves it, one vote still
    expect((await twice).body).toMatchObject({ type: 'voted', tile: 'right' });
    const votes = await call(e1.base, '/api/votes');
    expect(votes.status).toBe(200);
    expect(votes.body.open.tally).toEqual({ left: 1, right: 4 });

    // One epoch, consecutive seqs, no snapshot after the first: the edge's clients noticed nothing.
    const all = states(edge.messages);
    expect(new Set(all.map((m) => m.epoch)).size).toBe(1);
    expect(all.slice(1).every((m) => m.type === 'delta')).toBe(true);
    all.slice(1).forEach((m, i) => {
      expect(m.seq).toBe(all[i].seq + 1);
    });
    // Every beat on one grid: beatT = first beatT + (beat - first beat) * 250 ms.
    /** @type {any} */
    let state = all[0].state;
    /** @type {{ beat: number, beatT: number }[]} */
    const beats = [];
    for (const m of all.slice(1)) {
      state = { ...state, ...m.patch };
      if (m.patch.beat !== undefined && state.transport === 'playing')
        beats.push({ beat: state.beat, beatT: state.beatT });
    }
    expect(beats.length).toBeGreaterThan(10);
    for (const b of beats)
      expect(Math.abs(b.beatT - (beats[0].beatT + (b.beat - beats[0].beat) * BEAT_MS))).toBeLessThan(2);
    // Beat after beat, but for those due while no conductor was active: the standby goes on at
    // the beat due when it took over, never repeating one.
    const jumps = beats
      .slice(1)
      .map((b, i) => b.beat - beats[i].beat)
      .filter((d) => d !== 1);
    expect(jumps.length).toBeLessThanOrEqual(1);
    for (const d of jumps) expect(d).toBeGreaterThan(1);
    for (const d of jumps) expect(d).toBeLessThanOrEqual(Math.ceil(takeoverMs / BEAT_MS) + 1);

    await until(
      async () =>
        (await call(e1.base, '/api/cluster')).body.nodes?.find((/** @type {any} */ n) => n.id === 'c2')?.active ===
        true,
    );
    edge.close();
    onStandby.close();
  }, 60_000);

  it('fences off a conductor that stalled past its lease: it stands by when it wakes, and clients see one stream', async () => {
    const quiet = ['--log-level', 'error'];
    const own = await startRedis();
    try {
      const c1 = await startNode({ redis: own.urls, role: 'both', id: 's1', args: quiet });
      cluster.nodes.push(c1);
      await untilActive(c1.base, 's1');
      const c2 = await startNode({ redis: own.urls, role: 'both', id: 's2', args: quiet });
      cluster.nodes.push(c2);
      const client = await openWs(c2.wsBase);
      expect((await call(c2.base, '/api/control/play', { method: 'POST' })).status).toBe(200);
      await until(() => states(client.messages).length >= 6);
      // A stall (a paused VM, a swapping machine): the lease lapses, s2 takes over.
      c1.child.kill('SIGSTOP');
      await until(
        async () =>
          (await call(c2.base, '/api/cluster')).body.nodes?.find((/** @type {any} */ n) => n.id === 's2')?.active ===
          true,
        5000,
      );
      const duringStall = states(client.messages).length;
      c1.child.kill('SIGCONT');
      // s1 wakes with its beat timers overdue: its publishes are refused and it stands by.
      await until(
        async () =>
          (await call(c1.base, '/api/cluster')).body.nodes?.find((/** @type {any} */ n) => n.id === 's1')?.role ===
          'standby',
        5000,
      );
      await new Promise((r) => setTimeout(r, 1500));
      expect(states(client.messages).length).toBeGreaterThan(duringStall + 3);
      const all = states(client.messages);
      expect(new Set(all.map((m) => m.epoch)).size).toBe(1);
      all.slice(1).forEach((m, i) => {
        expect(m.seq).toBe(all[i].seq + 1);
      });
      const listed = (await call(c1.base, '/api/cluster')).body.nodes;
      expect(listed.filter((/** @type {any} */ n) => n.active).map((/** @type {any} */ n) => n.id)).toEqual(['s2']);
      client.close();
      await c1.stop();
      await c2.stop();
    } finally {
      await own.stop();
    }
  }, 60_000);
});

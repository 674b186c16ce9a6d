// The whole cluster as `npm run cluster` runs it (Redis, two conductors, three edges, nginx), used
// through nginx like phones would: every client sees the same states whichever edge it is on, and
// none misses a state when an edge dies, when Redis restarts, or when the conductor is killed.

import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import WebSocket from 'ws';
import { HAVE_REDIS } from '../../helpers/redis-server.js';
import { call, startCluster, until } from '../../helpers/cluster-nodes.js';
import { openPoll, openSse } from '../../helpers/live-clients.js';
import { SERVER_NODE_FLAGS } from '../../../server/commands/node-flags.js';

const HAVE_NGINX = spawnSync('sh', ['-c', 'command -v nginx || test -x /usr/sbin/nginx']).status === 0;
if (!HAVE_REDIS || !HAVE_NGINX)
  console.warn(
    'cluster proxy tests skipped: redis-server or nginx is not installed (test/setup/ensure-deps.sh installs them)',
  );

/** @type {import('../../helpers/cluster-nodes.js').RunningCluster} */
let ready;
/** @type {import('node:child_process').ChildProcess | null} */
let ownRedis = null;

beforeAll(async () => {
  if (!HAVE_REDIS || !HAVE_NGINX) return;
  ready = await startCluster({ edges: 3 });
}, 70_000);

afterAll(async () => {
  await ready?.stop();
  ownRedis?.kill('SIGKILL');
}, 30_000);

/**
 * A WebSocket client that reconnects through nginx at once when its connection ends, saying
 * which epoch and seq it holds, like the browser's.
 * @param {string} url http://host:port
 * @param {string} localAddress  its own loopback address (nginx sends each address to one edge)
 */
function reconnectingWs(url, localAddress) {
  /** @type {any[]} */
  const states = [];
  let reconnects = 0;
  let closed = false;
  /** @type {WebSocket} */
  let ws;
  const open = () => {
    const last = states.at(-1);
    const q = last ? `?epoch=${last.epoch}&seq=${last.seq}` : '';
    ws = new WebSocket(`${url.replace('http', 'ws')}/live${q}`, { localAddress });
    ws.on('message', (data) => {
      const m = JSON.parse(data.toString());
      if (m.type === 'delta' || m.type === 'snapshot') states.push(m);
    });
    ws.on('error', () => {});
    ws.on('close', () => {
      if (!closed) {
        reconnects++;
        setTimeout(open, 50 + Math.random() * 100);
      }
    });
  };
  open();
  return {
    states,
    get reconnects() {
      return reconnects;
    },
    close() {
      closed = true;
      ws.terminate();
    },
  };
}

/**
 * Every state after the first arrives as the next seq of the same epoch: nothing missed, nothing
 * twice. Except, at most once, a snapshot whose seq lies in `resnapshot` (exclusive, inclusive):
 * Redis restarting empty loses the entries it held that no node had read yet, and every node then
 * sends its clients the newest state whole (redis-bus.js, "a change missing"); the client holds
 * the whole state again, a jump forward in seq.
 * @param {any[]} states
 * @param {[number, number]} [resnapshot]
 */
function expectUnbroken(states, resnapshot = [Infinity, Infinity]) {
  expect(states.length).toBeGreaterThan(1);
  expect(new Set(states.map((m) => m.epoch)).size).toBe(1);
  const breaks = states.slice(1).filter((m, i) => m.seq !== states[i].seq + 1);
  const allowed = (/** @type {any} */ m, /** @type {number} */ i) =>
    i === 0 && m.type === 'snapshot' && m.seq > resnapshot[0] && m.seq <= resnapshot[1];
  const prev = (/** @type {any} */ m) => states[states.indexOf(m) - 1].seq;
  expect(breaks.filter((m, i) => !allowed(m, i)).map((m) => `${prev(m)} -> ${m.seq} (${m.type})`)).toEqual([]);
  expect(breaks.every((m) => m.seq > prev(m))).toBe(true);
}

/** @param {string} name */
const proc = (name) => /** @type {{ pid: number, port: number }} */ (ready.procs.find((p) => p.name === name));

describe.skipIf(!HAVE_REDIS || !HAVE_NGINX)('a cluster behind nginx', () => {
  it('runs every node with the Node flags the systemd unit gives the server', () => {
    const nodes = ready.procs.filter((p) => /^(conductor|edge)-/.test(p.name));
    expect(nodes).toHaveLength(5);
    for (const p of nodes) {
      const argv = readFileSync(`/proc/${p.pid}/cmdline`, 'utf8').split('\0');
      expect(argv.slice(1, 1 + SERVER_NODE_FLAGS.length), p.name).toEqual([...SERVER_NODE_FLAGS]);
    }
  });

  it('gives every client the same states; an edge, Redis and the conductor die and no client misses a state', async () => {
    const { url } = ready;
    await until(async () => (await call(url, '/api/cluster')).body.nodes?.length === 5, 15_000);
    expect((await call(url, '/api/control/play', { method: 'POST' })).status).toBe(200);

    const ws = Array.from({ length: 9 }, (_, i) => reconnectingWs(url, `127.0.1.${i + 1}`));
    const sse = await openSse(url);
    const poll = await openPoll(url, { wait: 5000 });
    await until(() => ws.every((c) => c.states.length >= 8), 10_000);
    // Spread over the edges by nginx (by a hash of each client's address). Each node writes its
    // status every 2 s, so the registry's client counts may be that old: read until it has them.
    /** @type {[string, number][]} */
    let byEdge = [];
    await until(async () => {
      const nodes = (await call(url, '/api/cluster')).body.nodes;
      byEdge = nodes
        .filter((/** @type {any} */ n) => n.role === 'edge')
        .map((/** @type {any} */ n) => [n.id, n.clients]);
      return byEdge.filter(([, n]) => n > 0).length >= 2;
    }, 6000).catch(() => {});
    expect(byEdge.filter(([, n]) => n > 0).length).toBeGreaterThanOrEqual(2);

    // The same seq stream over every transport and edge.
    await until(() => states(sse.messages).length >= 8 && states(poll.messages).length >= 4, 10_000);
    const key = (/** @type {any} */ m) => `${m.epoch}:${m.seq}:${JSON.stringify(m.patch ?? null)}`;
    const reference = new Map(ws[0].states.slice(1).map((m) => [`${m.epoch}:${m.seq}`, key(m)]));
    for (const list of [...ws.map((c) => c.states), states(sse.messages), states(poll.messages)]) {
      for (const m of list.slice(1))
        if (m.type === 'delta' && reference.has(`${m.epoch}:${m.seq}`))
          expect(key(m)).toBe(reference.get(`${m.epoch}:${m.seq}`));
    }
    sse.close();

    // Kill the edge holding the most clients: they come back through nginx on the others.
    const [victim] = [...byEdge].sort((a, b) => b[1] - a[1])[0];
    process.kill(proc(victim).pid, 'SIGKILL');
    const killedAt = Date.now();
    await until(() => ws.reduce((n, c) => n + c.reconnects, 0) >= 1, 5000);
    const seqNow = Math.max(...ws.map((c) => c.states.at(-1).seq));
    await until(() => ws.every((c) => c.states.at(-1).seq > seqNow + 2), 5000);
    console.log(`cluster: all clients live again ${Date.now() - killedAt} ms after edge ${victim} was killed`);

    // Redis restarts empty mid-piece: the edges catch up, the conductor goes on.
    const atRedisKill = Math.min(...ws.map((c) => c.states.at(-1).seq));
    process.kill(proc('redis').pid, 'SIGKILL');
    await new Promise((r) => setTimeout(r, 300));
    ownRedis = spawn('redis-server', [ready.redisConf], { stdio: 'ignore' });
    const beforeRedis = Math.max(...ws.map((c) => c.states.at(-1).seq));
    // (Two seconds of beats: a standby that tried the vanished lease first has left it again.)
    await until(() => ws.every((c) => c.states.at(-1).seq > beforeRedis + 8), 10_000);

    // Kill the active conductor: the standby goes on within 2 s.
    const active = (await call(url, '/api/cluster')).body.nodes.find((/** @type {any} */ n) => n.active);
    expect(active).toBeDefined();
    const lastBefore = Math.max(...ws.map((c) => c.states.at(-1).seq));
    process.kill(active.pid, 'SIGKILL');
    const conductorKilledAt = Date.now();
    await until(() => ws.some((c) => c.states.at(-1).seq > lastBefore), 5000);
    const resumedMs = Date.now() - conductorKilledAt;
    console.log(`cluster: beats resumed ${resumedMs} ms after the active conductor was killed`);
    expect(resumedMs).toBeLessThan(2000);
    const after = Math.max(...ws.map((c) => c.states.at(-1).seq));
    await until(() => ws.every((c) => c.states.at(-1).seq > after + 2), 5000);

    // A snapshot may stand in for what Redis lost, never for an edge's or the conductor's death.
    const redisWindow = /** @type {[number, number]} */ ([atRedisKill, lastBefore]);
    for (const c of ws) expectUnbroken(c.states, redisWindow);
    expectUnbroken(
      states(poll.messages).filter((m, i, all) => i === 0 || m.seq !== all[i - 1].seq),
      redisWindow,
    );
    const nodesAfter = (await call(url, '/api/cluster')).body.nodes;
    expect(nodesAfter.filter((/** @type {any} */ n) => n.active).map((/** @type {any} */ n) => n.id)).toEqual([
      active.id === 'conductor-1' ? 'conductor-2' : 'conductor-1',
    ]);
    for (const c of ws) c.close();
    poll.close();
  }, 90_000);
});

/** @param {any[]} messages */
function states(messages) {
  return messages.filter((m) => m.type === 'delta' || m.type === 'snapshot');
}

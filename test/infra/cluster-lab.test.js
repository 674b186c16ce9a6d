// The cluster of infra/systemd/README.md deployed as written, every role on a host of its own
// (infra/lab/cluster-lab.js: Redis, two conductors, two edges, nginx and the phones each in a
// network namespace), and used the way a venue uses it: phones with an address each reach nginx
// only, nginx the nodes, the nodes Redis. Needs root and network namespaces, nginx, redis-server
// and openssl; elsewhere the suite says why it did not run. It runs in a copy of its own
// (scx-vt<pid>-...) and removes it at the end, and the copies of test runs killed before theirs.

import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { testLabId } from '../../infra/lab/instance.js';
import { labSupport } from '../../infra/lab/lab.js';
import { CADDR, clusterUp, pruneEndedClusters } from '../../infra/lab/cluster-lab.js';

const installed = (/** @type {string} */ bin) =>
  spawnSync('sh', ['-c', `command -v ${bin} || test -x /usr/sbin/${bin}`]).status === 0;
const support = labSupport({ toxiproxy: false });
const missing = ['nginx', 'redis-server', 'redis-cli', 'openssl', 'nft'].filter((b) => !installed(b));
const reasons = [...support.reasons, ...missing.map((b) => `${b} is not installed`)];

/** The edges' default phones per address (--phones-per-address). */
const CAP = 32;

/** @type {import('../../infra/lab/cluster-lab.js').ClusterLab} */
let lab;

/** @param {string} p @param {{ method?: string, body?: unknown, phone?: number }} [o] */
const asConductor = async (p, { method = 'GET', body, phone = 249 } = {}) =>
  (
    await lab.phones.call('http', {
      requests: [{ phone, method, path: p, body, headers: { authorization: `Bearer ${lab.token}` } }],
    })
  )[0];

/** The nodes as GET /api/cluster lists them. @returns {Promise<any[]>} */
const nodes = async () => (await asConductor('/api/cluster')).body.nodes ?? [];

/** Votes counted in the open window. */
async function counted() {
  const tally = (await asConductor('/api/votes')).body.open?.tally ?? {};
  return Object.values(tally).reduce((a, b) => a + Number(b), 0);
}

/** @param {() => Promise<boolean>} cond @param {number} ms */
async function until(cond, ms) {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, 100));
  }
  return true;
}

/**
 * A control request, then wait until every phone of the audience has a state from after it (so
 * that every node serving phones knows it).
 * @param {string} action @param {unknown} body
 */
async function control(action, body) {
  const r = await asConductor(`/api/control/${action}`, { method: 'POST', body });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  expect((await lab.phones.call('newer', { tag: 'audience', ms: 10_000 })).ok).toBe(true);
}

/** Try a TCP connection from a namespace: 0 connected, 124 nothing answered in 2 s, else refused or unreachable. @param {string} ns @param {string} host @param {number} port */
const tcpFrom = (ns, host, port) =>
  spawnSync('ip', ['netns', 'exec', ns, 'timeout', '2', 'bash', '-c', `exec 3<>/dev/tcp/${host}/${port}`]).status;

describe.skipIf(reasons.length > 0)(
  reasons.length === 0
    ? 'cluster lab: the systemd recipe over namespaces (root)'
    : `cluster lab: NOT RUN here because ${reasons.join('; ')}`,
  () => {
    beforeAll(async () => {
      pruneEndedClusters();
      lab = await clusterUp({
        id: testLabId(),
        edges: 2,
        phones: 250,
        score: path.resolve('test/fixtures/cluster'),
      });
      await lab.phones.call('open', { tag: 'audience', first: 0, n: 60 });
      await control('play', {});
    }, 150_000);
    afterAll(async () => {
      await lab?.down();
    }, 60_000);

    it('Redis answers only the nodes, and only with a user: NOAUTH without one, silence from nginx, no route from the phones; the nodes answer only the servers and nginx', async () => {
      const cond = lab.hosts.nodes[0].ns;
      const ca = path.join(lab.dir, 'etc', 'redis-ca.crt');
      const cli = (/** @type {string} */ ns) =>
        spawnSync(
          'ip',
          ['netns', 'exec', ns, 'timeout', '3', 'redis-cli', '-h', CADDR.redis, '--tls', '--cacert', ca, 'ping'],
          { encoding: 'utf8' },
        );
      expect(cli(cond).stdout).toMatch(/NOAUTH/);
      // nginx's host is on the servers' network but not in the README's firewall set.
      expect(tcpFrom(lab.hosts.nginx, CADDR.redis, 6379)).toBe(124);
      expect(await lab.phones.call('probe', { host: CADDR.redis, port: 6379 })).toBe('ENETUNREACH');
      // A node's port: silent to every host but the servers' and nginx's (the README's second rule).
      expect(tcpFrom(lab.hosts.redis, lab.hosts.nodes[2].addr, 8082)).toBe(124);
      expect(tcpFrom(lab.hosts.nginx, lab.hosts.nodes[2].addr, 8082)).toBe(0);
      // The phones reach nginx, and no node directly.
      expect(await lab.phones.call('probe', { host: CADDR.audience, port: 80 })).toBe('connected');
      expect(await lab.phones.call('probe', { host: lab.hosts.nodes[2].addr, port: 8082 })).toBe('ENETUNREACH');
    });

    it('the audience loads through nginx from 60 addresses, spread over every node of the upstream list', async () => {
      const pages = await lab.phones.call('http', {
        requests: Array.from({ length: 20 }, (_, i) => ({ phone: 60 + i, path: '/' })),
      });
      for (const p of pages) expect(p.status).toBe(200);
      const [metrics] = await lab.phones.call('http', { requests: [{ phone: 80, path: '/metrics' }] });
      expect(metrics.status).toBe(404);
      const state = await lab.phones.call('state', { tag: 'audience' });
      expect(state.n).toBe(60);
      expect(state.minSeq).toBeGreaterThanOrEqual(0);
      const list = await nodes();
      expect(list.map((n) => n.id).sort()).toEqual(['cond1-conductor', 'cond2-conductor', 'edge1-edge', 'edge2-edge']);
      const serving = list.filter((n) => n.clients > 0);
      expect(serving.length).toBeGreaterThanOrEqual(3);
      expect(list.reduce((a, n) => a + n.clients, 0)).toBeGreaterThanOrEqual(60);
    });

    it(`votes are counted per phone: 40 over HTTP and 40 over WebSocket all count; one machine forging X-Forwarded-For gets at most ${CAP} credentials`, async () => {
      await control('vote', { open: 'choice' });
      const overHttp = await lab.phones.call('vote', { first: 100, n: 40, over: 'http' });
      expect(overHttp.filter((/** @type {any} */ v) => v.tap === 200)).toHaveLength(40);
      const overWs = await lab.phones.call('vote', { first: 140, n: 40, over: 'ws' });
      expect(overWs.filter((/** @type {any} */ v) => v.tap === 'voted')).toHaveLength(40);
      expect(await counted()).toBe(80);
      const forged = await lab.phones.call('http', {
        requests: Array.from({ length: 50 }, (_, i) => ({
          phone: 200,
          method: 'POST',
          path: '/api/device',
          headers: { 'x-forwarded-for': `10.66.0.${i + 1}` },
        })),
      });
      const granted = forged.filter((/** @type {any} */ r) => r.status === 200).length;
      expect(granted).toBeGreaterThan(0);
      expect(granted).toBeLessThanOrEqual(CAP);
      await control('vote', { close: true });
    }, 60_000);

    it('one machine trying to hold 300 WebSockets gets at most 128 (nginx refuses the rest with 429); other phones are still served', async () => {
      const flood = await lab.phones.call('hold', { tag: 'flood', phone: 230, n: 300 });
      try {
        expect(flood.open).toBeGreaterThan(0);
        expect(flood.open).toBeLessThanOrEqual(128);
        expect(flood.refused['429']).toBeGreaterThan(0);
        const pages = await lab.phones.call('http', {
          requests: Array.from({ length: 10 }, (_, i) => ({ phone: 231 + i, path: '/api/score' })),
        });
        for (const p of pages) expect(p.status).toBe(200);
        await lab.phones.call('open', { tag: 'late', first: 231, n: 10 });
        expect((await lab.phones.call('state', { tag: 'late' })).minSeq).toBeGreaterThanOrEqual(0);
      } finally {
        await lab.phones.call('close', { tag: 'flood' });
        await lab.phones.call('close', { tag: 'late' });
      }
    }, 60_000);

    it('an edge killed (SIGKILL) is ridden out: its phones get newer states from the other nodes, none lost; restarted as systemd would, it rejoins', async () => {
      const before = await lab.phones.call('state', { tag: 'audience' });
      const edges = (await nodes()).filter((n) => n.role === 'edge').sort((a, b) => b.clients - a.clients);
      const victim = edges[0];
      expect(victim.clients).toBeGreaterThan(0);
      const name = victim.id.replace(/-edge$/, '');
      const proc = lab.proc(name);
      expect(proc.child.pid).toBe(victim.pid);
      proc.child.kill('SIGKILL');
      const back = await lab.phones.call('newer', { tag: 'audience', ms: 10_000 });
      expect(back.ok, `${back.behind} phones without a newer state`).toBe(true);
      const after = await lab.phones.call('state', { tag: 'audience' });
      // The node list's client counts lag by a registry beat: its phones are some of those counted.
      expect(after.reconnects - before.reconnects).toBeGreaterThan(0);
      expect(after.gaps).toBe(0);
      expect(after.dups).toBe(0);
      // Restart=always, RestartSec=1.
      await new Promise((r) => setTimeout(r, 1000));
      await /** @type {NonNullable<typeof proc.restart>} */ (proc.restart)();
      expect(
        await until(async () => (await nodes()).some((n) => n.id === victim.id && n.pid !== victim.pid), 10_000),
      ).toBe(true);
    }, 60_000);

    it('the active conductor killed is ridden out: the standby conducts and the beats go on, none lost', async () => {
      const active = (await nodes()).find((n) => n.active);
      expect(active?.id).toBe('cond1-conductor');
      lab.proc('cond1').child.kill('SIGKILL');
      const back = await lab.phones.call('newer', { tag: 'audience', ms: 10_000 });
      expect(back.ok, `${back.behind} phones without a newer state`).toBe(true);
      expect(await until(async () => (await nodes()).find((n) => n.active)?.id === 'cond2-conductor', 5000)).toBe(true);
      const after = await lab.phones.call('state', { tag: 'audience' });
      expect(after.gaps).toBe(0);
      expect(after.dups).toBe(0);
    }, 60_000);
  },
);

// The roster across a real cluster (a conductor, two edges, one Redis; the nodes as processes):
// a part device on edge B is listed and reloaded through edge A, play when ready asked at edge A
// waits for that part, and when edge B is killed its device drops out and an action on it is
// 404 SC_ERR_NO_DEVICE.

import { describe, it, expect, afterAll } from 'vitest';
import { HAVE_REDIS } from '../../helpers/redis-server.js';
import { useCluster } from '../../helpers/use-cluster.js';
import { CLUSTER_PARTS_SCORE, call, until, untilActive } from '../../helpers/cluster-nodes.js';
import WebSocket from 'ws';
import { deviceStatus } from '../../helpers/fixtures.js';
import { SHARE_STALE_MS } from '../../../server/cluster/cluster-roster.js';

if (!HAVE_REDIS)
  console.warn('cluster roster tests skipped: redis-server is not installed (test/setup/ensure-deps.sh installs it)');

const cluster = useCluster();
/** @type {ReturnType<typeof setInterval>[]} */
const timers = [];
afterAll(() => {
  for (const t of timers) clearInterval(t);
});

/**
 * A part page on `wsBase` that reports its status every 500 ms, as the page does.
 * @param {string} wsBase @param {string} view @param {Record<string, unknown>} status
 */
async function partDevice(wsBase, view, status) {
  const live = new WebSocket(`${wsBase}/live?view=${view}`);
  /** @type {any[]} */
  const got = [];
  live.on('message', (m) => got.push(JSON.parse(String(m))));
  await new Promise((resolve, reject) => {
    live.once('open', resolve);
    live.once('error', reject);
  });
  let now = { ...status };
  const send = () => {
    if (live.readyState === live.OPEN) live.send(JSON.stringify({ type: 'report', device: deviceStatus(now) }));
  };
  send();
  const timer = setInterval(send, 500);
  timers.push(timer);
  return {
    got,
    /** @param {Record<string, unknown>} over */
    set: (over) => {
      now = { ...now, ...over };
    },
    close: () => {
      clearInterval(timer);
      live.terminate();
    },
  };
}

describe.skipIf(!HAVE_REDIS)('the roster across a cluster', () => {
  it('lists a device on edge B at edge A, reloads it through A, waits for its part to play, and drops it when B dies', async () => {
    const common = { score: CLUSTER_PARTS_SCORE };
    const c1 = await cluster.start({ ...common, role: 'conductor', id: 'c1' });
    await untilActive(c1.base, 'c1');
    const a = await cluster.start({ ...common, role: 'edge', id: 'ea' });
    const b = await cluster.start({ ...common, role: 'edge', id: 'eb' });
    await until(async () => (await call(a.base, '/api/cluster')).body.nodes?.length === 3);

    const cello = await partDevice(b.wsBase, 'cello', { id: 'dcello', name: 'cello desk', audio: false });
    const violin = await partDevice(a.wsBase, 'violin', { id: 'dviolin', name: 'violin desk' });
    const t0 = Date.now();
    await until(async () => {
      const r = await call(a.base, '/api/roster');
      return r.body.devices?.some((/** @type {any} */ d) => d.id === 'dcello' && d.node === 'eb');
    });
    console.log(`cluster roster: edge B's device listed at edge A ${Date.now() - t0} ms after the first look`);
    const listed = (await call(a.base, '/api/roster')).body;
    expect(listed.devices.map((/** @type {any} */ d) => `${d.id}@${d.node}`)).toEqual(['dcello@eb', 'dviolin@ea']);
    expect(listed.parts).toMatchObject([
      { part: 'violin', ready: true },
      { part: 'cello', ready: false, why: ['audio locked'] },
    ]);

    // Reload through edge A: the cello's page on edge B gets it, the violin's does not.
    const reload = await call(a.base, '/api/roster/dcello/reload', { method: 'POST' });
    expect(reload).toMatchObject({ status: 202, body: { device: 'dcello', action: 'reload', sent: 1 } });
    await until(() => cello.got.some((m) => m.type === 'command' && m.do === 'reload'));
    expect(violin.got.some((m) => m.type === 'command')).toBe(false);

    // Play when ready at edge A waits for the cello on edge B.
    const played = call(a.base, '/api/control/play', { method: 'POST', body: { whenReady: true, timeoutMs: 20_000 } });
    await until(async () => (await call(c1.base, '/api/roster')).body.waiting !== null);
    await new Promise((r) => setTimeout(r, 700));
    expect((await call(c1.base, '/healthz')).body.transport).toBe('stopped');
    const unlockedAt = Date.now();
    cello.set({ audio: true });
    const res = await played;
    console.log(`cluster play when ready: played ${Date.now() - unlockedAt} ms after the cello's audio unlocked`);
    expect(res.status).toBe(200);
    expect(res.body.state.transport).toBe('playing');

    // Edge B dies: its device drops out of the roster, and an action on it is 404.
    cello.close();
    const killed = Date.now();
    await b.stop('SIGKILL');
    await until(async () => {
      const r = await call(a.base, '/api/roster');
      return !r.body.devices.some((/** @type {any} */ d) => d.id === 'dcello');
    }, SHARE_STALE_MS + 5000);
    console.log(`cluster roster: a killed edge's device dropped out after ${Date.now() - killed} ms`);
    const gone = await call(a.base, '/api/roster/dcello/reload', { method: 'POST' });
    expect(gone).toMatchObject({ status: 404, body: { code: 'SC_ERR_NO_DEVICE' } });
    violin.close();
  });
});

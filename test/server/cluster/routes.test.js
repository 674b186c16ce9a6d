// A cluster node's HTTP side without a conductor running: what is forwarded, what is refused, and
// the clear error when nobody conducts.

import path from 'node:path';
import os from 'node:os';
import { mkdtempSync } from 'node:fs';
import { describe, it, expect, beforeAll, afterAll, afterEach } from 'vitest';
import { buildApp } from '../../../server/app.js';
import { loadPackage } from '../../../server/package/load.js';
import { startClusterNode } from '../../../server/cluster/node.js';
import { HAVE_REDIS, freePort, startRedis } from '../../helpers/redis-server.js';
import { CLUSTER_SCORE } from '../../helpers/cluster-nodes.js';

const TOKEN = 'routes-token-123456';
/** @type {Awaited<ReturnType<typeof startRedis>>} */
let redis;
/** @type {import('fastify').FastifyInstance[]} */
let apps = [];
beforeAll(async () => {
  if (HAVE_REDIS) redis = await startRedis();
});
afterAll(async () => {
  await redis?.stop();
});
afterEach(async () => {
  for (const a of apps) await a.close();
  apps = [];
});

/** An edge node, alone: no conductor answers. */
async function edge() {
  const node = await startClusterNode({
    url: redis.url,
    token: TOKEN,
    role: 'edge',
    node: `edge-${apps.length}`,
    prefix: `r${Date.now()}:`,
    askTimeoutMs: 300,
  });
  const score = await loadPackage(CLUSTER_SCORE, { cacheDir: mkdtempSync(path.join(os.tmpdir(), 'sc-cache-')) });
  const built = await buildApp({ score, token: TOKEN, bus: node.bus, cluster: node.hooks });
  node.attach(built);
  apps.push(built.app);
  return built;
}

const auth = { authorization: `Bearer ${TOKEN}` };

describe.skipIf(!HAVE_REDIS)('cluster routes', () => {
  it('answers SC_ERR_NO_CONDUCTOR (503) to control and votes when no conductor is active', async () => {
    const { app, conductor } = await edge();
    const play = await app.inject({ method: 'POST', url: '/api/control/play', headers: auth });
    expect(play.statusCode).toBe(503);
    expect(play.json().code).toBe('SC_ERR_NO_CONDUCTOR');
    // The edge's own conductor did not play in its place.
    expect(conductor.state.transport).toBe('stopped');
    const { device } = (await app.inject({ method: 'POST', url: '/api/device' })).json();
    const tap = await app.inject({ method: 'POST', url: '/api/tap', payload: { tile: 'left', device } });
    expect(tap.statusCode).toBe(503);
    expect(tap.json().code).toBe('SC_ERR_NO_CONDUCTOR');
  });

  it('checks the token where the request arrives, and never forwards a forwarded request again', async () => {
    const { app } = await edge();
    const wrong = await app.inject({
      method: 'POST',
      url: '/api/control/play',
      headers: { authorization: 'Bearer not-the-token' },
    });
    expect(wrong.statusCode).toBe(401);
    const again = await app.inject({
      method: 'POST',
      url: '/api/control/play',
      headers: { ...auth, 'x-scorecast-forwarded': '1' },
    });
    expect(again.statusCode).toBe(503);
    expect(again.json().message).toMatch(/stopped conducting/);
  });

  it("serves what is not the conductor's itself: the score, health, the node list", async () => {
    const { app } = await edge();
    expect((await app.inject('/api/score')).statusCode).toBe(200);
    expect((await app.inject('/healthz')).statusCode).toBe(200);
    expect((await app.inject('/api/cluster')).statusCode).toBe(401);
    const listed = await app.inject({ url: '/api/cluster', headers: auth });
    expect(listed.statusCode).toBe(200);
    expect(listed.json().nodes).toEqual([
      expect.objectContaining({ id: 'edge-0', role: 'edge', active: false, pid: process.pid, clients: 0 }),
    ]);
  });
});

describe('cluster node start', () => {
  it('says so when Redis cannot be reached, instead of waiting for ever', async () => {
    const port = await freePort();
    await expect(
      startClusterNode({ url: `redis://127.0.0.1:${port}`, token: TOKEN, role: 'edge', connectTimeoutMs: 500 }),
    ).rejects.toThrow(`cannot reach Redis at redis://127.0.0.1:${port} within 0.5 s`);
  });
});

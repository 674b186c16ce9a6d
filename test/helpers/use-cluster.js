// A test file's cluster: one Redis for the file (where redis-server is installed: the file's tests
// skip without it), the nodes its tests start on it as real processes, every one killed and Redis
// stopped after the file.

import { beforeAll, afterAll } from 'vitest';
import { HAVE_REDIS, startRedis } from './redis-server.js';
import { startNode } from './cluster-nodes.js';

/** @typedef {import('./cluster-nodes.js').TestNode} TestNode */

export function useCluster() {
  /** @type {Awaited<ReturnType<typeof startRedis>> | undefined} */
  let redis;
  /** @type {TestNode[]} Killed after the file's tests: push nodes started on another Redis too. */
  const nodes = [];
  beforeAll(async () => {
    if (HAVE_REDIS) redis = await startRedis();
  });
  afterAll(async () => {
    for (const n of nodes) await n.stop('SIGKILL');
    await redis?.stop();
  });
  const cluster = {
    nodes,
    /** The file's Redis (started before its tests). */
    get redis() {
      if (!redis) throw new Error('no Redis: a cluster test runs only where redis-server is installed (HAVE_REDIS)');
      return redis;
    },
    /**
     * A node on the file's Redis; resolves when it listens.
     * @param {Omit<Parameters<typeof startNode>[0], 'redis'>} options
     */
    async start(options) {
      const node = await startNode({ redis: cluster.redis.urls, ...options });
      nodes.push(node);
      return node;
    },
  };
  return cluster;
}

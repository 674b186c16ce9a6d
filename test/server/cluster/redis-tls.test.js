// A node reaches a Redis on another host over TLS (`rediss://`, with the CA that signed Redis's
// certificate: SCORECAST_REDIS_CA), and never shows the Redis password.

import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { startClusterNode } from '../../../server/cluster/node.js';
import { redactUrl } from '../../../server/cluster/redis.js';
import { HAVE_REDIS, startRedis } from '../../helpers/redis-server.js';

const TOKEN = 'tls-token-0123456789';
/** @type {Awaited<ReturnType<typeof startRedis>>} */
let redis;
beforeAll(async () => {
  if (HAVE_REDIS) redis = await startRedis({ tls: true });
}, 30_000);
afterAll(async () => {
  await redis?.stop();
});

describe.skipIf(!HAVE_REDIS)('Redis over TLS', () => {
  it('connects with rediss:// and the CA, and refuses a server the CA did not sign', async () => {
    const node = await startClusterNode({
      url: { url: redis.urls.conductor, ca: /** @type {string} */ (redis.ca) },
      token: TOKEN,
      role: 'edge',
      node: 'tls-edge',
      connectTimeoutMs: 5000,
    });
    expect(await node.bus.redis.get('scorecast:lease')).toBe(null);
    await node.bus.close();
    // Without the CA the certificate is not trusted: the node says it cannot reach Redis, and
    // the message names the URL without its password.
    const refused = startClusterNode({ url: redis.urls.edge, token: TOKEN, role: 'edge', connectTimeoutMs: 700 });
    await expect(refused).rejects.toThrow(`cannot reach Redis at rediss://scorecast-edge:***@127.0.0.1:${redis.port}`);
    await expect(refused).rejects.toThrow(
      expect.objectContaining({ message: expect.not.stringContaining(redis.passwords.edge) }),
    );
  });
});

describe('the Redis URL in logs', () => {
  it.each([
    ['rediss://scorecast-edge:pa%40ss@10.0.0.2:6379', 'rediss://scorecast-edge:***@10.0.0.2:6379'],
    ['redis://:secret@10.0.0.2:6379/2', 'redis://:***@10.0.0.2:6379/2'],
    ['redis://scorecast-edge@10.0.0.2:6379', 'redis://scorecast-edge@10.0.0.2:6379'],
  ])('shows %s as %s', (url, shown) => {
    expect(redactUrl(url)).toBe(shown);
  });
});

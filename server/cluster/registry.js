// Who is in the cluster: every node writes its status to one Redis hash when it starts and every
// EVERY_MS after; GET /api/cluster reads it. A node not heard from for STALE_MS is gone (and
// forgotten).

/** A node whose status is older than this is gone (ms). */
export const STALE_MS = 5000;
/**
 * How often a node writes its status (ms). Every 2 s, not every second: a write and its reply
 * woke every node twice a second for figures (clients, lag) the console shows rounded, and an
 * edge pays that for the whole performance. A node counts as gone (STALE_MS) after two writes
 * missed, no longer four.
 */
export const EVERY_MS = 2000;

/**
 * @typedef {object} NodeStatus
 * @property {string} id
 * @property {'conductor' | 'standby' | 'edge'} role
 * @property {boolean} active  holds the conductor lease
 * @property {number} pid
 * @property {string} host
 * @property {number} clients  connected here (WebSocket, SSE, recent polling clients)
 * @property {number} lagMs    the newest change's age when it arrived here
 * @property {number} rejected  entries, requests and records this node refused from Redis since
 *   start (no valid MAC, or an old one added again: doc/security.md, "Redis")
 * @property {number} at       when this status was written (ms since the Unix epoch)
 */

/**
 * @param {{ redis: import('./redis.js').RedisConnection, key: string, node: string, status: () => Omit<NodeStatus, 'at' | 'id'> }} options
 */
export function createRegistry({ redis, key, node, status }) {
  const write = () => redis.hset(key, node, JSON.stringify({ id: node, ...status(), at: Date.now() })).catch(() => {});
  const timer = setInterval(write, EVERY_MS);
  timer.unref();
  void write();
  return {
    /**
     * Every node heard from lately, by id. Who is active comes from the lease itself, not from
     * the statuses (a conductor killed a moment ago still has a status saying it was).
     * @param {string} leaseKey
     * @returns {Promise<NodeStatus[]>}
     */
    async nodes(leaseKey) {
      const [all, holder] = await Promise.all([redis.hgetall(key), redis.get(leaseKey)]);
      const since = Date.now() - STALE_MS;
      /** @type {NodeStatus[]} */
      const live = [];
      for (const [id, text] of Object.entries(all)) {
        const s = /** @type {NodeStatus} */ (JSON.parse(text));
        const active = s.id === holder;
        if (s.at >= since)
          live.push({ ...s, active, role: s.role === 'edge' ? 'edge' : active ? 'conductor' : 'standby' });
        else await redis.hdel(key, id);
      }
      return live.sort((a, b) => a.id.localeCompare(b.id));
    },
    /** Stop writing and leave the list. */
    async close() {
      clearInterval(timer);
      await redis.hdel(key, node).catch(() => {});
    },
  };
}

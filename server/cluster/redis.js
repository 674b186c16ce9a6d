// Connections to Redis and the names of the keys a cluster shares. Each blocking reader (the
// state stream, the conductor's inbox) and the reply subscription needs a connection of its own:
// a blocked XREAD or a SUBSCRIBE holds its connection for everything else.

import { Redis } from 'ioredis';

/**
 * The keys of one cluster, all under one prefix (several clusters can share a Redis).
 * @param {string} prefix
 */
export function clusterKeys(prefix) {
  return {
    /** the state stream: one entry per change (bounded, MAXLEN ~) */
    stream: `${prefix}stream`,
    /** the newest change with its whole state and its stream id (a hash: id, change) */
    latest: `${prefix}latest`,
    /** the performance as the active conductor saves it (JSON), for a standby to go on with */
    record: `${prefix}record`,
    /** who is the active conductor: its node id, with a time to live the holder renews */
    lease: `${prefix}lease`,
    /** votes, reports and control requests from every node, for the active conductor */
    inbox: `${prefix}inbox`,
    /** each node's status (a hash: node id -> JSON), refreshed every second */
    nodes: `${prefix}nodes`,
    /** @param {string} node the channel on which `node` gets the answers to its requests */
    replies: (node) => `${prefix}reply:${node}`,
  };
}

/** @typedef {ReturnType<typeof clusterKeys>} ClusterKeys */

/**
 * A connection that rides out a Redis restart: it reconnects every 100 ms to 1 s and keeps the
 * commands given meanwhile, in order, for when Redis is back.
 * @param {string} url  redis://host:port[/db]
 * @param {string} name shown by CLIENT LIST
 */
export function connectRedis(url, name) {
  return new Redis(url, {
    connectionName: name,
    maxRetriesPerRequest: null,
    retryStrategy: (times) => Math.min(times * 100, 1000),
    enableReadyCheck: true,
  });
}

/** @typedef {Redis} RedisConnection */

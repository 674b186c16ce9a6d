// Connections to Redis and the names of the keys a cluster shares. Each blocking reader (the
// state stream, the conductor's inbox) and the reply subscription needs a connection of its own:
// a blocked XREAD or a SUBSCRIBE holds its connection for everything else.

import { Redis } from 'ioredis';

export { redactUrl } from './redact-url.js';

/**
 * The keys of one cluster, all under one prefix (several clusters can share a Redis).
 * @param {string} prefix
 */
export function clusterKeys(prefix) {
  return {
    prefix,
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
    /** each node's status (a hash: node id -> JSON), refreshed every 2 s (registry.js) */
    nodes: `${prefix}nodes`,
    /** what each node's roster shares while the console looks (a hash: node id -> sealed JSON) */
    roster: `${prefix}roster`,
    /** actions on devices and their answers, between the nodes' rosters */
    rosterChannel: `${prefix}roster:act`,
    /** @param {string} node the channel on which `node` gets the answers to its requests */
    replies: (node) => `${prefix}reply:${node}`,
  };
}

/** @typedef {ReturnType<typeof clusterKeys>} ClusterKeys */

/**
 * How to reach Redis: a URL (`redis://[user[:password]@]host:port[/db]`, or `rediss://` for TLS),
 * and optionally the password (kept out of the URL, so that it is not on a command line) and the
 * certificate authority that signed Redis's TLS certificate.
 * @typedef {object} RedisTarget
 * @property {string} url
 * @property {string} [password]  wins over one in the URL
 * @property {string | Buffer} [ca]  PEM; with rediss://
 */

/**
 * A connection that rides out a Redis restart: it reconnects every 100 ms to 1 s and keeps the
 * commands given meanwhile, in order, for when Redis is back.
 * @param {RedisTarget | string} target
 * @param {string} name shown by CLIENT LIST
 */
export function connectRedis(target, name) {
  const { url, password, ca } = typeof target === 'string' ? { url: target } : target;
  // The user and password go as options: ioredis reads `redis://user@host` (no colon) as a
  // password, and what the URL holds would override the options.
  const u = new URL(url);
  const username = decodeURIComponent(u.username);
  const inUrl = decodeURIComponent(u.password);
  u.username = '';
  u.password = '';
  const secret = password ?? (inUrl || undefined);
  return new Redis(u.toString(), {
    ...(username ? { username } : {}),
    ...(secret !== undefined ? { password: secret } : {}),
    connectionName: name,
    maxRetriesPerRequest: null,
    retryStrategy: (times) => Math.min(times * 100, 1000),
    enableReadyCheck: true,
    ...(ca !== undefined && url.startsWith('rediss:') ? { tls: { ca } } : {}),
  });
}

/** @typedef {Redis} RedisConnection */

// The Redis users of a cluster (infra/systemd/README.md): each role gets the commands and keys
// its work needs and nothing more, and Redis's default user is off, so a client without a
// password is refused. An edge reads the state stream and the newest state, sees who holds the
// lease (GET /api/cluster), appends to the inbox without reading it (the votes in it are not an
// edge's to read), writes the node registry and the roster's shares, hears its answers, and
// sends and hears actions on devices (the roster channel, whose messages carry MACs); a conductor (active or
// standby) does everything a conductor does, on the cluster's keys only. No role may run
// FLUSHALL, CONFIG, KEYS, DEBUG or anything else outside this list.

import { createHash } from 'node:crypto';

/** The user names, one per role. */
export const REDIS_USERS = Object.freeze({ edge: 'scorecast-edge', conductor: 'scorecast-conductor' });

/** What every connection does: the ready check (INFO), its name in CLIENT LIST, PING. */
const CONNECTION = ['+ping', '+info', '+client|setname'];

/**
 * Each role's ACL rules (`ACL SETUSER name <rules>`) for a cluster whose keys start with `prefix`
 * (a glob pattern such as `*:` serves every prefix ending in a colon).
 * @param {string} [prefix]
 * @returns {{ edge: string[], conductor: string[] }}
 */
export function aclRules(prefix = 'scorecast:') {
  const k = (/** @type {string} */ name) => `${prefix}${name}`;
  return {
    edge: [
      'resetkeys',
      'resetchannels',
      `%R~${k('stream')}`,
      `%R~${k('latest')}`,
      `%R~${k('lease')}`,
      `%W~${k('inbox')}`,
      `~${k('nodes')}`,
      `~${k('roster')}`,
      `&${k('reply:*')}`,
      `&${k('roster:act')}`,
      '-@all',
      ...CONNECTION,
      '+xread',
      '+hmget',
      '+get',
      '+xadd',
      '+hset',
      '+hgetall',
      '+hdel',
      '+subscribe',
      '+publish',
    ],
    conductor: [
      'resetkeys',
      'resetchannels',
      `~${prefix}*`,
      `&${k('reply:*')}`,
      `&${k('roster:act')}`,
      '-@all',
      ...CONNECTION,
      '+eval',
      '+get',
      '+set',
      '+pexpire',
      '+del',
      '+xadd',
      '+xread',
      '+xrevrange',
      '+hset',
      '+hmget',
      '+hgetall',
      '+hdel',
      '+publish',
      '+subscribe',
    ],
  };
}

/**
 * redis.conf lines for the two users with these passwords (Redis keeps only their SHA-256), and
 * the default user off.
 * @param {{ edge: string, conductor: string }} passwords
 * @param {string} [prefix]
 */
export function aclConfig(passwords, prefix) {
  const rules = aclRules(prefix);
  const hash = (/** @type {string} */ p) => createHash('sha256').update(p).digest('hex');
  return [
    'user default off resetkeys resetchannels -@all',
    `user ${REDIS_USERS.edge} reset on #${hash(passwords.edge)} ${rules.edge.join(' ')}`,
    `user ${REDIS_USERS.conductor} reset on #${hash(passwords.conductor)} ${rules.conductor.join(' ')}`,
  ].join('\n');
}

// One node of a cluster (README, "Several machines"). Every node serves clients from the Redis
// bus. A node with role `conductor` or `both` also contends for the conductor lease: the holder
// conducts (publishes, takes votes, answers forwarded control requests) and saves the
// performance in Redis with every change; the others stand by and take over within the lease's
// time to live, at the beat the performance has reached, on the same grid, with the open vote's
// tally and voters. `edge` nodes never conduct.

import os from 'node:os';
import { errorValue } from '../../core/errors.js';
import { createDeviceCredentials, secretFromToken } from '../performance/device-credential.js';
import { inScoresFolder } from '../performance/save/persist.js';
import { createRedisBus } from './redis-bus.js';
import { connectRedis, redactUrl } from './redis.js';
import { createClusterRoster } from './cluster-roster.js';
import { clusterKey, createSeal } from './seal.js';
import { createLease } from './lease.js';
import { createInboxClient, inboxEnd, serveInbox } from './inbox.js';
import { createRegistry } from './registry.js';
import { createSectionOffers } from './section-offer.js';
import { clusterRoutes, FORWARDED_HEADER } from './routes.js';

/**
 * A report's sender as a node sent it through the inbox.
 * @param {unknown} from
 * @returns {from is { address: string, client: string }}
 */
const isSource = (from) =>
  typeof from === 'object' &&
  from !== null &&
  typeof (/** @type {{ address?: unknown }} */ (from).address) === 'string' &&
  typeof (/** @type {{ client?: unknown }} */ (from).client) === 'string';

export const ROLES = /** @type {const} */ (['conductor', 'edge', 'both']);
/** @typedef {typeof ROLES[number]} Role */

/**
 * What the active conductor saves in Redis with every change and after every batch of votes.
 * @typedef {object} ClusterRecord
 * @property {import('../performance/conductor.js').PerformanceRecord} performance
 * @property {string} score  the score package's folder
 * @property {string} inbox  the last inbox request taken up
 * @property {import('./inbox.js').SessionMarks} [senders]  the highest request number taken up
 *   per sending session (a request added to the inbox again is refused after a failover too)
 */

/**
 * @typedef {object} ClusterNodeOptions
 * @property {import('./redis.js').RedisTarget | string} url  where Redis is (redis://host:port)
 * @property {string} token      the conductor token: the cluster's MAC key is derived from it
 * @property {Role} role
 * @property {string} [node]     this node's id (default host-pid)
 * @property {string} [prefix]   of the cluster's Redis keys
 * @property {number} [leaseMs]  the conductor lease's time to live
 * @property {number} [maxLen]   state stream entries kept, about
 * @property {number} [askTimeoutMs] how long a forwarded request waits for the conductor
 * @property {number} [connectTimeoutMs] how long to wait for Redis at start
 */

/**
 * Connect to Redis and take the newest state, before the app is built (its hub starts from it).
 * @param {ClusterNodeOptions} options
 */
export async function startClusterNode({
  url,
  token,
  role,
  node = `${os.hostname()}-${process.pid}`,
  prefix = 'scorecast:',
  leaseMs = 1000,
  maxLen,
  askTimeoutMs,
  connectTimeoutMs = 10_000,
}) {
  /** @type {{ warn: (o: object, msg: string) => void, info: (o: object, msg: string) => void } | null} */
  let logger = null;
  const log = {
    warn: (/** @type {object} */ o, /** @type {string} */ m) => logger?.warn(o, m),
    info: (/** @type {object} */ o, /** @type {string} */ m) => logger?.info(o, m),
  };
  const seal = createSeal(clusterKey(token));
  const bus = createRedisBus({ url, seal, node, prefix, leaseMs, log, ...(maxLen ? { maxLen } : {}) });
  await startBus(bus, url, connectTimeoutMs);
  const inbox = await createInboxClient({
    url,
    keys: bus.keys,
    node,
    redis: bus.redis,
    seal,
    log,
    ...(askTimeoutMs ? { timeoutMs: askTimeoutMs } : {}),
  });
  const round = windowRounds(bus);
  /** @type {ReturnType<typeof clusterRoster> | null} */
  let rosters = null;

  /** Hooks for buildApp: votes and client reports go to the active conductor. */
  const hooks = {
    round,
    /**
     * @param {{ tile: string | number, window?: string, device: string, credential?: string }} tap  a tap the
     *   vote guard let through, with the phone's credential: the conductor checks it again
     * @returns {Promise<{ ok: true, id: string, tile?: string | null } | { ok: false, error: import('../../core/errors.js').ErrorValue }>}
     */
    async vote(tap) {
      const answer = await inbox.ask('tap', tap);
      return answer.timeout ? { ok: false, error: errorValue('SC_ERR_NO_CONDUCTOR') } : answer;
    },
    /**
     * A report this node counted in its own figures; the active conductor's figures get it too.
     * @param {string} kind
     * @param {import('../../core/protocol.js').ReportMessage} report
     * @param {{ address: string, client: string }} from
     */
    report(kind, report, from) {
      if (!bus.active) inbox.report(kind, report, from);
    },
    /**
     * A thumb the thumb guard let through on this node: sent on to the active conductor (batched),
     * unless this node is it. One device, one voice across the nodes: the conductor's meter keys
     * voices by the device the credential names, whichever node the thumbs came through.
     * @param {string} credential @param {string} value
     * @returns {boolean} whether it was sent on (false: this node conducts; count it here)
     */
    thumb(credential, value) {
      if (bus.active) return false;
      inbox.thumb(credential, value);
      return true;
    },
    /** GET /api/section's answer while this node does not conduct (section-offer.js). */
    section: createSectionOffers({ bus, ask: inbox.ask }).offer,
    /**
     * The roster across the cluster, around this node's own (server/cluster/cluster-roster.js).
     * @param {import('../live/roster.js').Roster} local
     */
    roster(local) {
      rosters = clusterRoster({ local, url, bus, seal, node, log });
      return rosters.roster;
    },
  };

  /**
   * Wire the built app in; before it listens (this adds routes).
   * @param {{ app: import('fastify').FastifyInstance, conductor: import('../performance/conductor.js').Conductor,
   *   hub: import('../live/hub.js').Hub, clientStats: ReturnType<typeof import('../live/client-reports.js').createClientStats>,
   *   auth?: import('../http/auth.js').SignInLimiter, autoplay?: boolean, scoresDir: string,
   *   currentDir: () => string, switchTo: (dir: string) => Promise<unknown> }} built
   *   scoresDir: the folder whose scores a saved record may name
   */
  function attach({ app, conductor, hub, clientStats, auth, autoplay = false, currentDir, switchTo, scoresDir }) {
    logger = app.log;
    let cursor = '0-0';
    /** @type {ReturnType<typeof serveInbox> | null} */
    let serving = null;
    /** @returns {ClusterRecord} */
    const recordNow = () => ({
      performance: conductor.record(),
      score: currentDir(),
      inbox: cursor,
      ...(serving ? { senders: serving.marks() } : {}),
    });
    bus.setRecordSource(() => JSON.stringify(recordNow()));
    // A vote is counted for the device its credential names, checked here with the cluster's
    // device secret: the node that sent it is not taken at its word.
    const credentials = createDeviceCredentials({ secret: secretFromToken(token) });
    /** What this node conducted when it last stood down, for when Redis lost the record. */
    /** @type {{ record: ClusterRecord, at: number } | null} */
    let own = null;

    /** @param {import('./inbox.js').InboxRequest} req */
    async function handle(req) {
      if (req.kind === 'tap') {
        const { tile, window, credential } = req.body ?? {};
        const device = credentials.verify(credential);
        if (device === null) return { ok: false, error: errorValue('SC_ERR_BAD_DEVICE') };
        const r = conductor.vote({ tile, device, ...(window !== undefined ? { window } : {}) });
        return r.ok ? { ok: true, id: r.id, tile: r.tile } : r;
      }
      if (req.kind === 'thumbs') {
        // Each checked again here, as votes are; refusals are dropped (the edge answered the phone).
        if (!Array.isArray(req.body)) return null;
        for (const entry of req.body.slice(0, 20_000)) {
          if (!Array.isArray(entry)) continue;
          const device = credentials.verify(entry[0]);
          if (device !== null) conductor.thumb(device, entry[1]);
        }
        return null;
      }
      if (req.kind === 'reports') {
        for (const [kind, report, from] of req.body) {
          clientStats.add(kind, report, isSource(from) ? from : { address: 'cluster', client: 'cluster' });
        }
        return null;
      }
      if (req.kind === 'http') {
        const { method, url: path, body } = req.body;
        // The token was checked where the request arrived; it never went through Redis.
        const res = await app.inject({
          method,
          url: path,
          headers: {
            authorization: `Bearer ${token}`,
            [FORWARDED_HEADER]: '1',
            ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
          },
          ...(body !== undefined ? { payload: body } : {}),
        });
        return { status: res.statusCode, type: res.headers['content-type'], body: res.body };
      }
      return null;
    }

    /** The lease is ours: go on with the performance saved in Redis (or start one). */
    async function takeOver() {
      // Redis restarted empty: the conductor that had the lease goes on with its own record (it
      // may have lost the lease to a standby that tried first); any other node leaves it the lease.
      /** @type {ClusterRecord | null} */
      let saved = null;
      let refused = false;
      try {
        saved = await bus.readRecord();
      } catch (err) {
        if (/** @type {{ code?: string }} */ (err).code !== 'SC_ERR_CLUSTER_UNSIGNED') throw err;
        refused = true;
        log.warn({ code: 'SC_ERR_CLUSTER_UNSIGNED' }, `${/** @type {Error} */ (err).message}; starting fresh`);
      }
      /** @type {ClusterRecord | null} */
      let record = saved ?? (own && Date.now() - own.at < 60_000 ? own.record : null);
      if (!record && !refused && bus.latest()) return false;
      // The same rule as a single server's resume (persist.js): the score a save names must be
      // one of the scores folder's, never any folder a Redis writer names.
      if (record && typeof record.score === 'string' && !inScoresFolder(record.score, scoresDir)) {
        log.warn(
          { code: 'SC_ERR_SAVE_OUTSIDE', score: record.score, scoresDir },
          `the performance saved in Redis names the score ${JSON.stringify(record.score)}, outside the scores folder ${scoresDir}; not taken up: this node's score plays from its start`,
        );
        record = null;
      }
      const t0 = performance.now();
      if (record && record.score !== currentDir()) {
        await switchTo(record.score).catch((err) =>
          log.warn(
            { err: err.message, score: record.score },
            "the saved score does not load here; playing this node's",
          ),
        );
      }
      await bus.activate();
      cursor = typeof record?.inbox === 'string' ? record.inbox : await inboxEnd(bus.redis, bus.keys.inbox);
      let resumed = false;
      if (record) {
        try {
          conductor.resume(record.performance);
          resumed = true;
        } catch (err) {
          log.warn(
            { err: /** @type {Error} */ (err).message },
            'the saved performance does not fit this score; starting it fresh',
          );
        }
      }
      if (!resumed) {
        conductor.resume(conductor.record());
        if (autoplay) conductor.play();
      }
      serving = serveInbox({
        url,
        keys: bus.keys,
        node,
        redis: bus.redis,
        seal,
        from: cursor,
        ...(record?.senders ? { marks: record.senders } : {}),
        handle,
        log,
        save: () => bus.saveRecord(),
        setCursor: (id) => {
          cursor = id;
        },
      });
      log.info(
        {
          node,
          resumed,
          playback: conductor.state.playback,
          beat: conductor.state.beat,
          ms: Math.round(performance.now() - t0),
        },
        'conducting',
      );
      return true;
    }

    function stepDown() {
      own = { record: recordNow(), at: Date.now() };
      conductor.dispose();
      bus.deactivate();
      void serving?.stop();
      serving = null;
      log.warn({ node }, 'another node holds the conductor lease now; standing by');
    }

    const lease =
      role === 'edge'
        ? null
        : createLease({
            redis: bus.redis,
            key: bus.keys.lease,
            node,
            ttlMs: leaseMs,
            everyMs: Math.max(50, Math.round(leaseMs / 5)),
            onGain: takeOver,
            onLose: stepDown,
            log,
          });
    bus.onFenced(() => {
      if (lease?.held) lease.lost();
      else stepDown();
    });

    const registry = createRegistry({
      redis: bus.redis,
      key: bus.keys.nodes,
      node,
      status: () => ({
        role: role === 'edge' ? 'edge' : bus.active ? 'conductor' : 'standby',
        active: bus.active,
        pid: process.pid,
        host: os.hostname(),
        clients: hub.clients,
        lagMs: Math.round(bus.lagMs),
        rejected: bus.rejected + inbox.rejected + (serving?.rejected ?? 0),
      }),
    });
    void rosters?.roster.start().catch((err) => log.warn({ err: err.message }, 'the roster channel failed'));
    app.register(clusterRoutes, {
      active: () => bus.active,
      ...(rosters ? { roster: rosters.roster } : {}),
      ask: inbox.ask,
      nodes: () => registry.nodes(bus.keys.lease),
      token,
      auth,
    });

    // Give the lease up first: a standby takes over at once instead of after its time to live.
    app.addHook('preClose', async () => {
      await lease?.stop();
      await serving?.stop();
      await registry.close();
      await rosters?.close();
      await inbox.close();
    });
  }

  return {
    bus,
    hooks,
    attach,
    node,
    /** Whether this node conducts now. */
    get active() {
      return bus.active;
    },
  };
}

/** @typedef {Awaited<ReturnType<typeof startClusterNode>>} ClusterNode */

/**
 * Start the bus (its first read of the newest state), or close it and throw when Redis is not
 * reached in time.
 * @param {import('./redis-bus.js').RedisBus} bus
 * @param {import('./redis.js').RedisTarget | string} url
 * @param {number} connectTimeoutMs
 */
async function startBus(bus, url, connectTimeoutMs) {
  /** @type {NodeJS.Timeout | undefined} */
  let timer;
  const unreachable = new Promise((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new Error(
            `cannot reach Redis at ${redactUrl(typeof url === 'string' ? url : url.url)} within ${connectTimeoutMs / 1000} s (or it refused this node's user and password)`,
          ),
        ),
      connectTimeoutMs,
    );
  });
  try {
    await Promise.race([bus.start(), unreachable]);
  } catch (err) {
    await bus.close();
    throw err;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * This node's roster with every other node's merged in, and the roster channel's subscription
 * (a SUBSCRIBE holds its connection).
 * @param {{ local: import('../live/roster.js').Roster, url: import('./redis.js').RedisTarget | string,
 *   bus: import('./redis-bus.js').RedisBus, seal: import('./seal.js').Seal, node: string,
 *   log: { warn: (o: object, msg: string) => void } }} options
 */
function clusterRoster({ local, url, bus, seal, node, log }) {
  /** @type {import('./redis.js').RedisConnection | null} */
  let sub = null;
  const roster = createClusterRoster({
    local,
    redis: bus.redis,
    listen: async (onMessage) => {
      sub = connectRedis(url, `scorecast-${node}-roster`);
      sub.on('error', () => {});
      sub.on('message', (_channel, text) => onMessage(text));
      await sub.subscribe(bus.keys.rosterChannel);
    },
    seal,
    key: bus.keys.roster,
    channel: bus.keys.rosterChannel,
    node,
    log,
  });
  return {
    roster,
    async close() {
      await roster.close();
      sub?.disconnect();
    },
  };
}

/**
 * The vote round open as this node sees the performance: the window's id, the epoch, and how
 * many times a window has opened here. A window closed and opened again in the same epoch (a
 * seek back into it, the conductor opening it again) is a new round, so the vote guard forgets
 * the devices of the last one: otherwise their taps pass as changes of a vote already counted,
 * and one connection could cast a vote for each of them.
 * @param {Pick<import('./redis-bus.js').RedisBus, 'subscribe' | 'latest'>} bus
 * @returns {() => string | null}
 */
export function windowRounds(bus) {
  /** @param {import('../live/bus.js').StateChange | null} change */
  const openIn = (change) => {
    const id = /** @type {{ cues?: { audience?: { vote?: { id?: unknown } } } } | undefined} */ (change?.state)?.cues
      ?.audience?.vote?.id;
    return typeof id === 'string' ? id : null;
  };
  let epoch = bus.latest()?.epoch ?? '';
  let open = openIn(bus.latest());
  let opened = 0;
  bus.subscribe((change) => {
    const now = openIn(change);
    if (now !== null && (now !== open || change.epoch !== epoch)) opened++;
    open = now;
    epoch = change.epoch;
  });
  return () => (open === null ? null : `${open}@${epoch}#${opened}`);
}

// One node of a cluster (README, "Several machines"). Every node serves clients from the Redis
// bus. A node with role `conductor` or `both` also contends for the conductor lease: the holder
// conducts (publishes, takes votes, answers forwarded control requests) and saves the
// performance in Redis with every change; the others stand by and take over within the lease's
// time to live, at the beat the performance has reached, on the same grid, with the open vote's
// tally and voters. `edge` nodes never conduct.

import os from 'node:os';
import { errorValue } from '../../core/errors.js';
import { createRedisBus } from './redis-bus.js';
import { createLease } from './lease.js';
import { createInboxClient, inboxEnd, serveInbox } from './inbox.js';
import { createRegistry } from './registry.js';
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
 */

/**
 * @typedef {object} ClusterNodeOptions
 * @property {string} url        redis://host:port
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
  const bus = createRedisBus({ url, node, prefix, leaseMs, log, ...(maxLen ? { maxLen } : {}) });
  /** @type {NodeJS.Timeout | undefined} */
  let timer;
  const unreachable = new Promise((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`cannot reach Redis at ${url} within ${connectTimeoutMs / 1000} s`)),
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
  const inbox = await createInboxClient({
    url,
    keys: bus.keys,
    node,
    redis: bus.redis,
    ...(askTimeoutMs ? { timeoutMs: askTimeoutMs } : {}),
  });

  /** Hooks for buildApp: votes and client reports go to the active conductor. */
  const hooks = {
    /**
     * @param {{ tile: string | number, window?: string, device: string }} tap  a tap the vote guard let through
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
  };

  /**
   * Wire the built app in; before it listens (this adds routes).
   * @param {{ app: import('fastify').FastifyInstance, conductor: import('../performance/conductor.js').Conductor,
   *   hub: import('../live/hub.js').Hub, clientStats: ReturnType<typeof import('../live/client-reports.js').createClientStats>,
   *   token: string, auth?: import('../http/auth.js').SignInLimiter, autoplay?: boolean,
   *   currentDir: () => string, switchTo: (dir: string) => Promise<unknown> }} built
   */
  function attach({ app, conductor, hub, clientStats, token, auth, autoplay = false, currentDir, switchTo }) {
    logger = app.log;
    let cursor = '0-0';
    bus.setRecordSource(() =>
      JSON.stringify(
        /** @type {ClusterRecord} */ ({ performance: conductor.record(), score: currentDir(), inbox: cursor }),
      ),
    );
    /** @type {ReturnType<typeof serveInbox> | null} */
    let serving = null;
    /** What this node conducted when it last stood down, for when Redis lost the record. */
    /** @type {{ record: ClusterRecord, at: number } | null} */
    let own = null;

    /** @param {import('./inbox.js').InboxRequest} req */
    async function handle(req) {
      if (req.kind === 'tap') {
        const r = conductor.vote(req.body);
        return r.ok ? { ok: true, id: r.id, tile: r.tile } : r;
      }
      if (req.kind === 'reports') {
        for (const [kind, report, from] of req.body) {
          clientStats.add(kind, report, isSource(from) ? from : { address: 'cluster', client: 'cluster' });
        }
        return null;
      }
      if (req.kind === 'http') {
        const { method, url: path, headers, body } = req.body;
        const res = await app.inject({
          method,
          url: path,
          headers: { ...headers, [FORWARDED_HEADER]: '1' },
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
      const record = (await bus.readRecord()) ?? (own && Date.now() - own.at < 60_000 ? own.record : null);
      if (!record && bus.latest()) return false;
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
      cursor = record?.inbox ?? (await inboxEnd(bus.redis, bus.keys.inbox));
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
        from: cursor,
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
          transport: conductor.state.transport,
          beat: conductor.state.beat,
          ms: Math.round(performance.now() - t0),
        },
        'conducting',
      );
      return true;
    }

    function stepDown() {
      own = { record: { performance: conductor.record(), score: currentDir(), inbox: cursor }, at: Date.now() };
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
        clients: hub.audience().total,
        lagMs: Math.round(bus.lagMs),
      }),
    });
    clusterRoutes(app, {
      active: () => bus.active,
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

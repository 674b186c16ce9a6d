// The bus of a cluster (README, "Several machines"): the active conductor appends every state
// change to a bounded Redis Stream and keeps the newest whole state beside it; every node reads
// the stream with blocking reads and hands the changes to its hub. Unlike pub/sub, a node that
// lost Redis for a while reads on from where it was; one that fell out of the stream's range
// (MAXLEN ~) takes the newest whole state instead. Epoch and seq come from the one publisher, so
// they are the same on every node and a client moving between nodes resumes exactly.

import { applyPatch, diffPatch } from '../../core/merge-patch.js';
import { clusterKeys, connectRedis } from './redis.js';

/**
 * Append a change, but only while this node holds the lease (a conductor that stalled and was
 * replaced must not publish over its successor). A lease that vanished (Redis restarted empty)
 * is taken again. KEYS: lease, stream, latest, record. ARGV: node, leaseMs, maxLen, entry,
 * latest change, record ('' = leave as is). Returns the entry's id, or nil when fenced off.
 */
const PUBLISH_SCRIPT = `
local holder = redis.call('GET', KEYS[1])
if holder == false then redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
elseif holder ~= ARGV[1] then return false end
local id = redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[3], '*', 'c', ARGV[4])
redis.call('HSET', KEYS[3], 'id', id, 'change', ARGV[5])
if ARGV[6] ~= '' then redis.call('SET', KEYS[4], ARGV[6]) end
return id`;

/** Save the record alone, fenced like a publish. KEYS: lease, record. ARGV: node, leaseMs, record. */
const SAVE_SCRIPT = `
local holder = redis.call('GET', KEYS[1])
if holder == false then redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
elseif holder ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[2], ARGV[3])
return 1`;

/** How long one blocking read waits before it asks again (ms). */
const BLOCK_MS = 5000;
/** Pause after a failed read (Redis gone), before the next attempt (ms). */
const RETRY_MS = 200;

/**
 * Stream ids `ms-n`, compared as numbers.
 * @param {string} a @param {string} b
 */
export function streamIdAfter(a, b) {
  const [am, an] = a.split('-').map(Number);
  const [bm, bn] = b.split('-').map(Number);
  return am > bm || (am === bm && an > bn);
}

/**
 * @typedef {object} RedisBusOptions
 * @property {string} url            redis://host:port
 * @property {string} node           this node's id (the lease holds it)
 * @property {string} [prefix]       of every key (several clusters may share one Redis)
 * @property {number} [maxLen]       stream entries kept, about (MAXLEN ~)
 * @property {number} [leaseMs]      the lease's time to live when a publish has to take it again
 * @property {() => number} [now]    wall clock (ms since the Unix epoch)
 * @property {{ warn: (o: object, msg: string) => void }} [log]
 */

/**
 * @param {RedisBusOptions} options
 */
export function createRedisBus({
  url,
  node,
  prefix = 'scorecast:',
  maxLen = 10_000,
  leaseMs = 1000,
  now = () => performance.timeOrigin + performance.now(),
  log = { warn: () => {} },
}) {
  const keys = clusterKeys(prefix);
  const cmd = connectRedis(url, `scorecast-${node}-cmd`);
  const reader = connectRedis(url, `scorecast-${node}-stream`);
  // An unreachable Redis is reported by the reads and publishes that fail, not by each retry.
  cmd.on('error', () => {});
  reader.on('error', () => {});
  /** @type {Set<(change: import('../live/bus.js').StateChange) => void>} */
  const subscribers = new Set();
  /** @type {import('../live/bus.js').StateChange | null} */
  let current = null;
  let lastId = '0-0';
  let closed = false;
  let active = false;
  let lagMs = 0;
  /** While taking over: the newest change published before, which the first publish continues. */
  /** @type {import('../live/bus.js').StateChange | null} */
  let base = null;
  /** After taking over: the conductor's epoch, published as the cluster's with seqs shifted. */
  /** @type {{ from: string, to: string, offset: number } | null} */
  let rebase = null;
  /** @type {() => string} */
  let recordSource = () => '';
  /** @type {Set<() => void>} */
  const fencedHandlers = new Set();
  /** @type {Promise<void> | null} */
  let reading = null;

  /** @param {import('../live/bus.js').StateChange} change */
  function deliver(change) {
    current = change;
    lagMs = Math.max(0, now() - change.t);
    for (const fn of subscribers) {
      try {
        fn(change);
      } catch (err) {
        log.warn({ err }, 'a bus subscriber failed');
      }
    }
  }

  /** @returns {Promise<{ id: string, change: import('../live/bus.js').StateChange } | null>} */
  async function readLatest() {
    const [id, change] = await cmd.hmget(keys.latest, 'id', 'change');
    if (!id || !change) return null;
    return { id, change: { ...JSON.parse(change), patch: null } };
  }

  /** Behind the stream's range, or a change missing: take the newest whole state. */
  async function resnapshot() {
    const l = await readLatest();
    if (!l) return;
    if (!current || l.change.epoch !== current.epoch || l.change.seq > current.seq) deliver(l.change);
    if (streamIdAfter(l.id, lastId)) lastId = l.id;
  }

  /** @param {string} raw one stream entry */
  async function handle(raw) {
    /** @type {import('../live/bus.js').StateChange} */
    const c = JSON.parse(raw);
    const same = current !== null && c.epoch === current.epoch;
    if (same && c.seq <= /** @type {import('../live/bus.js').StateChange} */ (current).seq) return;
    if (c.patch === null) deliver(c);
    else if (same && c.seq === /** @type {import('../live/bus.js').StateChange} */ (current).seq + 1)
      deliver({
        ...c,
        state: applyPatch(/** @type {import('../live/bus.js').StateChange} */ (current).state, c.patch),
      });
    else await resnapshot();
  }

  async function readLoop() {
    while (!closed) {
      try {
        const res = /** @type {[string, [string, string[]][]][] | null} */ (
          await reader.xread('BLOCK', BLOCK_MS, 'STREAMS', keys.stream, lastId)
        );
        if (!res) continue;
        for (const [id, fields] of res[0][1]) {
          const from = lastId;
          await handle(fields[1]);
          // A re-snapshot may have moved past this entry already.
          if (lastId === from || streamIdAfter(id, lastId)) lastId = id;
        }
      } catch (err) {
        if (closed) break;
        log.warn({ err: /** @type {Error} */ (err).message }, 'reading the state stream failed; retrying');
        await new Promise((r) => setTimeout(r, RETRY_MS));
      }
    }
  }

  /** @param {import('../live/bus.js').StateChange} change */
  function send(change) {
    const { epoch, seq, t, patch, state } = change;
    const entry = JSON.stringify(patch === null ? { epoch, seq, t, patch, state } : { epoch, seq, t, patch });
    const newest = JSON.stringify({ epoch, seq, t, state });
    cmd
      .eval(
        PUBLISH_SCRIPT,
        4,
        keys.lease,
        keys.stream,
        keys.latest,
        keys.record,
        node,
        leaseMs,
        maxLen,
        entry,
        newest,
        recordSource(),
      )
      .then((id) => {
        if (id === null) fenced();
      })
      .catch((err) => {
        if (!closed) log.warn({ err: err.message, seq }, 'publishing a change to Redis failed');
      });
  }

  function fenced() {
    if (!active) return;
    active = false;
    for (const fn of fencedHandlers) fn();
  }

  return {
    keys,
    /** The command connection (the lease and the node registry use it too). */
    redis: cmd,
    url,
    get active() {
      return active;
    },
    /** Wall-clock time from the newest change's making to its arrival here (ms). */
    get lagMs() {
      return lagMs;
    },

    /** Connect, take the newest state, and read the stream from there on. */
    async start() {
      const l = await readLatest();
      if (l) {
        current = l.change;
        lastId = l.id;
      }
      reading = readLoop();
    },

    /**
     * Publish from now on. The first change published (a conductor's resume: a fresh state in
     * a new epoch) continues the cluster's epoch and seq, as a delta from the newest state, so
     * clients on every node go on without a snapshot.
     */
    async activate() {
      const l = await readLatest();
      // Redis restarted empty: go on from the newest change this node has seen.
      base = l ? l.change : current;
      rebase = null;
      active = true;
    },

    /** Publish nothing more (the lease went to another node). */
    deactivate() {
      active = false;
      base = null;
      rebase = null;
    },

    /**
     * What the performance is, saved with every change (a standby goes on from it).
     * @param {() => string} fn JSON
     */
    setRecordSource(fn) {
      recordSource = fn;
    },

    /** Save the record now (after votes, which change no state). False: fenced off; throws when Redis failed. */
    async saveRecord() {
      const ok = await cmd.eval(SAVE_SCRIPT, 2, keys.lease, keys.record, node, leaseMs, recordSource());
      if (ok !== 1) fenced();
      return ok === 1;
    },

    /** @returns {Promise<any>} the saved record, or null */
    async readRecord() {
      const raw = await cmd.get(keys.record);
      return raw ? JSON.parse(raw) : null;
    },

    /** @param {() => void} fn called when a publish found another node holding the lease */
    onFenced(fn) {
      fencedHandlers.add(fn);
    },

    /** @param {import('../live/bus.js').StateChange} change */
    publish(change) {
      // Only the active conductor publishes; an idle local conductor (edge, standby) is silent.
      if (!active) return;
      let out = change;
      if (base && change.patch === null) {
        const patch = diffPatch(base.state, change.state);
        rebase = { from: change.epoch, to: base.epoch, offset: base.seq + (patch === undefined ? 0 : 1) - change.seq };
        base = null;
        if (patch === undefined) return;
        out = { ...change, epoch: rebase.to, seq: change.seq + rebase.offset, patch };
      } else if (rebase && change.epoch === rebase.from) {
        out = { ...change, epoch: rebase.to, seq: change.seq + rebase.offset };
      } else {
        base = null;
        rebase = null;
      }
      send(out);
    },

    /** @param {(change: import('../live/bus.js').StateChange) => void} fn */
    subscribe(fn) {
      subscribers.add(fn);
      return () => {
        subscribers.delete(fn);
      };
    },

    latest: () => current,

    async close() {
      if (closed) return;
      closed = true;
      subscribers.clear();
      reader.disconnect();
      await Promise.race([reading, new Promise((r) => setTimeout(r, 1000))]);
      // Commands queued for a Redis that is gone must not hold the shutdown.
      await Promise.race([cmd.quit().catch(() => {}), new Promise((r) => setTimeout(r, 500))]);
      cmd.disconnect();
    },
  };
}

/** @typedef {ReturnType<typeof createRedisBus>} RedisBus */

// The bus of a cluster (README, "Several machines"): the active conductor appends every state
// change to a bounded Redis Stream and keeps the newest whole state beside it; every node reads
// the stream with blocking reads and hands the changes to its hub. Unlike pub/sub, a node that
// lost Redis for a while reads on from where it was; one that fell out of the stream's range
// (MAXLEN ~) takes the newest whole state instead. Epoch and seq come from the one publisher, so
// they are the same on every node and a client moving between nodes resumes exactly.

import { applyPatch, diffPatch } from '../../core/merge-patch.js';
import { encode } from '../../core/protocol.js';
import { ScorecastError } from '../../core/errors.js';
import { clusterKeys, connectRedis } from './redis.js';
import { sealed, unseal } from './seal.js';

/**
 * Append a change, but only while this node holds the lease (a conductor that stalled and was
 * replaced must not publish over its successor). A lease that vanished (Redis restarted empty)
 * is taken again. KEYS: lease, stream, latest, record. ARGV: node, leaseMs, maxLen, entry,
 * latest change, record ('' = leave as is), the entry's MAC, the latest change's MAC. Returns
 * the entry's id, or nil when fenced off.
 */
const PUBLISH_SCRIPT = `
local holder = redis.call('GET', KEYS[1])
if holder == false then redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
elseif holder ~= ARGV[1] then return false end
local id = redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[3], '*', 'c', ARGV[4], 'm', ARGV[7])
redis.call('HSET', KEYS[3], 'id', id, 'change', ARGV[5], 'm', ARGV[8])
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
 * A whole state of an epoch this node has not seen is refused when it is older than the state
 * shown by more than this (ms): an entry the conductor wrote long ago, added again by a Redis
 * client (its MAC is still good), must not take the phones back. Hosts kept by NTP agree to
 * milliseconds; this leaves room for a host whose clock is off.
 */
const REPLAY_SKEW_MS = 30_000;
/** Epochs remembered as past: a state of one of them is never shown again. */
const PAST_EPOCHS = 64;
/** At most one warning about refused entries per this many ms. */
const WARN_EVERY_MS = 10_000;

/** The keys of a delta's envelope, in the order the hub writes them (server/live/history.js). */
const DELTA_KEYS = 'type,epoch,seq,t,patch';

/**
 * Whether a stream entry is a delta's envelope as a hub would write it, nothing more: then its
 * text can go to the clients as it is.
 * @param {object & { type?: string }} c
 */
const isDeltaEnvelope = (c) => c.type === 'delta' && Object.keys(c).join() === DELTA_KEYS;

/**
 * A stream entry's change (c) and its MAC (m), from its fields as Buffers.
 * @param {Buffer[]} fields
 */
function entryFields(fields) {
  /** @type {{ raw?: Buffer, mac?: string }} */
  const out = {};
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const name = fields[i].toString();
    // A field named twice: the first counts.
    if (name === 'c') out.raw ??= fields[i + 1];
    else if (name === 'm') out.mac ??= fields[i + 1].toString();
  }
  return out;
}

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
 * @property {import('./redis.js').RedisTarget | string} url  where Redis is
 * @property {import('./seal.js').Seal} seal  the cluster's MACs (server/cluster/seal.js)
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
  seal,
  node,
  prefix = 'scorecast:',
  maxLen = 10_000,
  leaseMs = 1000,
  now = () => performance.timeOrigin + performance.now(),
  log = { warn: () => {} },
}) {
  const keys = clusterKeys(prefix);
  // The purposes of the MACs name the cluster: an entry of one cluster sharing a Redis with
  // another (under another prefix) is not taken by the other.
  const purpose = { entry: `${prefix}stream`, latest: `${prefix}latest`, record: `${prefix}record` };
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
  /** Epochs shown before the current one, newest last (bounded). */
  /** @type {string[]} */
  const pastEpochs = [];
  let rejected = 0;
  let warnedAt = -Infinity;

  /**
   * An entry or record without a valid MAC (written by a Redis client that does not hold the
   * conductor token), or a replay of an old one: dropped, counted, and logged now and then.
   * @param {string} what
   */
  function reject(what) {
    rejected++;
    if (now() - warnedAt < WARN_EVERY_MS) return;
    warnedAt = now();
    log.warn(
      { code: 'SC_ERR_CLUSTER_UNSIGNED', what, rejected },
      'refused what Redis held: not written by a node of this cluster (no valid MAC), or an old entry added again',
    );
  }

  /**
   * A whole state that would take clients back to an epoch gone by, or to a state much older
   * than the one shown.
   * @param {import('../live/bus.js').StateChange} c
   */
  function replayed(c) {
    if (!current || c.epoch === current.epoch) return false;
    return pastEpochs.includes(c.epoch) || !(c.t >= current.t - REPLAY_SKEW_MS);
  }

  /** @param {import('../live/bus.js').StateChange} change */
  function deliver(change) {
    if (current && current.epoch !== change.epoch) {
      pastEpochs.push(current.epoch);
      if (pastEpochs.length > PAST_EPOCHS) pastEpochs.shift();
    }
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
    const [id, change, mac] = await cmd.hmget(keys.latest, 'id', 'change', 'm');
    if (!id || !change) return null;
    if (!seal.verify(purpose.latest, change, mac)) {
      reject('the newest state');
      return null;
    }
    return { id, change: { ...JSON.parse(change), patch: null } };
  }

  /** Behind the stream's range, or a change missing: take the newest whole state. */
  async function resnapshot() {
    const l = await readLatest();
    if (!l) return;
    if (replayed(l.change)) reject('the newest state, an old one added again');
    else if (!current || l.change.epoch !== current.epoch || l.change.seq > current.seq) deliver(l.change);
    if (streamIdAfter(l.id, lastId)) lastId = l.id;
  }

  /**
   * One stream entry's fields, as Buffers: c, the change; m, its MAC. The MAC is checked on the
   * bytes as they came (no string made of them first). A delta the publisher wrote as the
   * envelope every client gets (`{"type":"delta","epoch",...,"patch"}`, see send) is handed on
   * with that text, so no hub encodes it again.
   * @param {Buffer[]} fields
   */
  async function handle(fields) {
    const { raw, mac } = entryFields(fields);
    if (!raw || !seal.verify(purpose.entry, raw, mac)) {
      reject('a state stream entry');
      return;
    }
    const text = raw.toString();
    /** @type {import('../live/bus.js').StateChange & { type?: string }} */
    const c = JSON.parse(text);
    const same = current !== null && c.epoch === current.epoch;
    if (same && c.seq <= /** @type {import('../live/bus.js').StateChange} */ (current).seq) return;
    if (c.patch === null && replayed(c)) reject('a state stream entry, an old one added again');
    else if (c.patch === null) deliver(c);
    else if (same && c.seq === /** @type {import('../live/bus.js').StateChange} */ (current).seq + 1) {
      const { epoch, seq, t, patch } = c;
      deliver({
        epoch,
        seq,
        t,
        patch,
        state: applyPatch(/** @type {import('../live/bus.js').StateChange} */ (current).state, patch),
        ...(isDeltaEnvelope(c) ? { text } : {}),
      });
    } else await resnapshot();
  }

  async function readLoop() {
    while (!closed) {
      try {
        const res = /** @type {[Buffer, [Buffer, Buffer[]][]][] | null} */ (
          await reader.xreadBuffer('BLOCK', BLOCK_MS, 'STREAMS', keys.stream, lastId)
        );
        if (!res) continue;
        for (const [idBytes, fields] of res[0][1]) {
          const id = idBytes.toString();
          const from = lastId;
          await handle(fields);
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
    // A delta goes as the envelope the hubs send their clients for it (server/live/history.js),
    // made once here: every node hands the same text on instead of encoding it again.
    const entry =
      patch === null
        ? JSON.stringify({ epoch, seq, t, patch, state })
        : encode({ type: 'delta', epoch, seq, t, patch });
    const newest = JSON.stringify({ epoch, seq, t, state });
    const record = recordSource();
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
        record === '' ? '' : sealed(seal, purpose.record, record),
        seal.sign(purpose.entry, entry),
        seal.sign(purpose.latest, newest),
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
    /** Entries and records refused since start: no valid MAC, or an old entry added again. */
    get rejected() {
      return rejected;
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
      const ok = await cmd.eval(
        SAVE_SCRIPT,
        2,
        keys.lease,
        keys.record,
        node,
        leaseMs,
        sealed(seal, purpose.record, recordSource()),
      );
      if (ok !== 1) fenced();
      return ok === 1;
    },

    /**
     * The saved record, or null. Throws SC_ERR_CLUSTER_UNSIGNED when Redis holds one that no
     * node of this cluster wrote (no valid MAC).
     * @returns {Promise<any>}
     */
    async readRecord() {
      const raw = await cmd.get(keys.record);
      if (!raw) return null;
      const text = unseal(seal, purpose.record, raw);
      if (text === null) {
        reject('the saved record');
        throw new ScorecastError(
          'SC_ERR_CLUSTER_UNSIGNED',
          'the performance saved in Redis was not written by a node of this cluster (no valid MAC under this conductor token); not taken up',
        );
      }
      return JSON.parse(text);
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

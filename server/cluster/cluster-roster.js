// The roster across a cluster: each node's roster holds the devices connected to it
// (server/live/roster.js); the console may ask any node. While someone looks (a console's GET
// /api/roster in the last WANTED_MS, or a play when ready still waiting), every node writes what
// it shares (its part devices, its parts' readiness, its audience summed up: bounded, never one
// row per phone) to one Redis hash every SHARE_EVERY_MS, under the cluster's MAC; the node asked merges
// the fresh ones. A node not heard from for SHARE_STALE_MS (killed, cut off) drops out. A look
// is announced on the roster channel every node already listens to (and kept in the hash for a
// node that starts later): with no one looking a node sends Redis nothing and runs no timer,
// where it used to ask the hash twice a second whether anyone looked; told, it writes its share
// at once instead of on its next round.
//
// An action on a device goes to the node that holds it: the node asked tries its own roster,
// then publishes the action on the cluster's roster channel; every other node tries its own and
// answers. 404 SC_ERR_NO_DEVICE when none has it. Play when ready waits on the merged parts, on
// the node where the request arrived; a play, pause or stop on any node, or another play when
// ready, cancels it (the one waiting is named in the hash, and they take that name away).

import { randomBytes } from 'node:crypto';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { ScorecastError, errorValue } from '../../core/errors.js';
import { DEVICE_ACTIONS } from '../../core/roster.js';
import { WORST_ROWS } from '../live/roster.js';
import { sealed, unseal } from './seal.js';

/** Each node writes its share this often while the roster is wanted (ms). */
export const SHARE_EVERY_MS = 500;
/** A share older than this is a node gone: its devices drop out (ms, by the writer's clock). */
export const SHARE_STALE_MS = 2500;
/** A look at the roster keeps the nodes writing this long (ms). */
export const WANTED_MS = 10_000;
/** How long a look at the roster waits for Redis before it shows this node's devices alone (ms). */
const READ_WAIT_MS = 1000;
/** How long an action waits for the other nodes' answers (ms). */
export const ACT_WAIT_MS = 1000;
/** A message on the roster channel older than this, or one seen before, is refused (ms). */
const MESSAGE_FRESH_MS = 10_000;
/** Message ids remembered against replays. */
const SEEN_MAX = 1024;
/** A share inflates to this at most (bytes): SHARE_ROWS rows and the summary take a tenth of it. */
const SHARE_MAX_BYTES = 256 * 1024;
/** The hash's fields besides the nodes' shares (a node id never starts with "_"). */
const WANTED = '_wanted';
const WAITING = '_waiting';

/**
 * @typedef {ReturnType<import('../live/roster.js').Roster['share']>} Share
 * @typedef {{ n: number, q: number[] }} Points
 * @typedef {{ n: number, p50: number | null, p95: number | null, max: number | null }} Spread
 */

/**
 * The fraction of a node's values at or below `v`, from its quantile points (linear between).
 * @param {number[]} q @param {number} v
 */
function fractionBelow(q, v) {
  const k = q.length - 1;
  if (v < q[0]) return 0;
  if (v >= q[k]) return 1;
  let j = 0;
  while (q[j + 1] <= v) j++;
  return (j + (v - q[j]) / (q[j + 1] - q[j])) / k;
}

/**
 * Several nodes' distributions as one: the count, the quantiles from the merged points (to about
 * 1/32 of a rank), the largest.
 * @param {Points[]} list
 * @returns {Spread}
 */
export function mergePoints(list) {
  const parts = list.filter((p) => p.n > 0 && p.q.length > 1);
  const n = parts.reduce((s, p) => s + p.n, 0);
  if (n === 0) return { n: 0, p50: null, p95: null, max: null };
  const lo = Math.min(...parts.map((p) => p.q[0]));
  const hi = Math.max(...parts.map((p) => p.q[p.q.length - 1]));
  /** @param {number} f */
  const at = (f) => {
    let a = lo;
    let b = hi;
    for (let i = 0; i < 40 && b - a > 0.005; i++) {
      const mid = (a + b) / 2;
      const below = parts.reduce((s, p) => s + p.n * fractionBelow(p.q, mid), 0);
      if (below >= f * n) b = mid;
      else a = mid;
    }
    return Math.round(b * 100) / 100;
  };
  return { n, p50: at(0.5), p95: at(0.95), max: hi };
}

const LINK_ORDER = /** @type {Record<string, number>} */ ({ live: 0, silent: 1, gone: 2 });
/** The order of the audience's worst rows (roster.js): silent, then furthest behind, then clock error. */
const worstScore = (/** @type {any} */ r) =>
  (r.link === 'live' ? 0 : 1e12) + (r.behind ?? 1e6) * 1e4 + (r.clockError ?? 1e3);

/**
 * The nodes' shares as one roster: every part device (once, where it is best connected, with the
 * node it is on), each part ready when a device on any node is, the audience summed over all.
 * @param {{ node: string, share: Share }[]} shares  the first one's parts give the order
 */
export function mergeShares(shares) {
  /** @type {Map<string, any>} */
  const rows = new Map();
  for (const { node, share } of shares)
    for (const r of share.devices) {
      const had = rows.get(r.id);
      const better =
        !had ||
        (LINK_ORDER[r.link] ?? 3) < (LINK_ORDER[had.link] ?? 3) ||
        (r.link === had.link && r.lastSeenMs < had.lastSeenMs);
      if (better) rows.set(r.id, { ...r, node });
    }
  const devices = [...rows.values()].sort((a, b) => a.view.localeCompare(b.view) || a.id.localeCompare(b.id));

  /** @type {Map<string, Share['parts'][number][]>} */
  const byPart = new Map();
  for (const { share } of shares)
    for (const p of share.parts) {
      const list = byPart.get(p.part) ?? [];
      list.push(p);
      byPart.set(p.part, list);
    }
  const parts = [...byPart].map(([part, list]) => {
    const present = list.filter((p) => !p.missing);
    if (present.length === 0) return { part, devices: [], missing: true, ready: false, why: ['no device'] };
    const best = present.find((p) => p.ready) ?? [...present].sort((a, b) => a.why.length - b.why.length)[0];
    return {
      part,
      devices: [...new Set(present.flatMap((p) => p.devices))],
      missing: false,
      ready: best.ready,
      why: best.why,
    };
  });

  const audiences = shares.map((s) => s.share.audience);
  const sum = (/** @type {'total' | 'live' | 'silent'} */ k) => audiences.reduce((s, a) => s + a[k], 0);
  const worst = shares
    .flatMap(({ node, share }) => share.audience.worst.map((r) => ({ ...r, node })))
    .sort((a, b) => worstScore(b) - worstScore(a))
    .slice(0, WORST_ROWS);
  return {
    parts,
    devices,
    omitted: shares.reduce((s, x) => s + x.share.omitted, 0),
    audience: {
      total: sum('total'),
      live: sum('live'),
      silent: sum('silent'),
      clockError: mergePoints(audiences.map((a) => a.clockError)),
      behind: mergePoints(audiences.map((a) => a.behind)),
      rtt: mergePoints(audiences.map((a) => a.rtt)),
      worst,
    },
  };
}

/**
 * The Redis side this needs (an ioredis connection; tests give a fake one).
 * @typedef {object} RosterStore
 * @property {(key: string, field: string, value: string) => Promise<unknown>} hset
 * @property {(key: string) => Promise<Record<string, string>>} hgetall
 * @property {(key: string, ...fields: string[]) => Promise<(string | null)[]>} hmget
 * @property {(key: string, ...fields: string[]) => Promise<unknown>} hdel
 * @property {(channel: string, message: string) => Promise<number>} publish  how many subscribers heard it
 */

/**
 * @typedef {object} ClusterRosterOptions
 * @property {import('../live/roster.js').Roster} local  this node's devices
 * @property {RosterStore} redis
 * @property {(onMessage: (text: string) => void) => Promise<void>} listen  subscribe to `channel`
 * @property {import('./seal.js').Seal} seal
 * @property {string} key      the hash of shares
 * @property {string} channel  where actions and their answers go
 * @property {string} node
 * @property {() => number} [now]  wall clock (ms since the Unix epoch)
 * @property {number} [staleMs]
 * @property {number} [everyMs]  how often the node writes its share and looks (0: only when `tick` is called)
 * @property {number} [actWaitMs]
 * @property {{ warn: (o: object, msg: string) => void }} [log]
 */

/** @param {ClusterRosterOptions} options */
export function createClusterRoster({
  local,
  redis,
  listen,
  seal,
  key,
  channel,
  node,
  now = Date.now,
  staleMs = SHARE_STALE_MS,
  everyMs = SHARE_EVERY_MS,
  actWaitMs = ACT_WAIT_MS,
  log = { warn: () => {} },
}) {
  const purpose = { share: `${key}:share`, wanted: `${key}:wanted`, waiting: `${key}:waiting`, message: channel };
  let wantedUntil = 0;
  /** @type {{ id: string, resolve: () => void, reject: (e: Error) => void, timer: ReturnType<typeof setTimeout> } | null} */
  let waiter = null;
  /** The last merged parts, for the reasons a wait gives up with. */
  /** @type {ReturnType<typeof mergeShares>['parts']} */
  let lastParts = [];
  /** @type {Map<string, { expect: number, all: boolean, answers: { from: string, ok: boolean, sent: number }[], done: () => void }>} */
  const pending = new Map();
  /** @type {Set<string>} */
  const seen = new Set();
  /** Runs only while the roster is wanted or a wait is open. */
  /** @type {ReturnType<typeof setInterval> | undefined} */
  let timer;
  // One round at a time: while Redis is away its commands wait, and rounds must not pile up.
  let ticking = false;
  let closed = false;
  let refused = 0;
  let bytesOut = 0;

  const newId = () => `${node}:${randomBytes(9).toString('base64url')}`;
  /** @param {string} p @param {unknown} value */
  const seal_ = (p, value) => sealed(seal, p, JSON.stringify(value));
  /** @param {string} p @param {string | null | undefined} text */
  const open = (p, text) => {
    if (typeof text !== 'string') return null;
    const body = unseal(seal, p, text);
    if (body === null) {
      refused++;
      return null;
    }
    return JSON.parse(body);
  };

  /**
   * A share as written: its JSON deflated (a third to a fifth of the bytes on the bus; rows
   * repeat their field names), in base64, sealed.
   * @param {object} share
   */
  const packShare = (share) =>
    sealed(seal, purpose.share, deflateRawSync(JSON.stringify(share), { level: 6 }).toString('base64'));
  /** @param {string} text @returns {Share | null} */
  function unpackShare(text) {
    const body = unseal(seal, purpose.share, text);
    if (body === null) {
      refused++;
      return null;
    }
    try {
      return JSON.parse(inflateRawSync(Buffer.from(body, 'base64'), { maxOutputLength: SHARE_MAX_BYTES }).toString());
    } catch {
      refused++;
      return null;
    }
  }

  /** Ask every node to write its share for WANTED_MS (renewed half way). */
  function want() {
    const t = now();
    if (wantedUntil - t > WANTED_MS / 2) return;
    wantedUntil = t + WANTED_MS;
    void redis.hset(key, WANTED, seal_(purpose.wanted, { until: wantedUntil })).catch(() => {});
    void send({ op: 'want', id: newId(), until: wantedUntil });
    arm();
  }

  /**
   * Another node's look (its message, or the hash's field at start): write shares until `until`,
   * at most WANTED_MS from now whatever a writer's clock says.
   * @param {unknown} until
   */
  function wantedBy(until) {
    if (typeof until !== 'number' || !(until > wantedUntil)) return;
    wantedUntil = Math.min(until, now() + WANTED_MS);
    arm();
  }

  function round() {
    if (ticking) return;
    ticking = true;
    tick()
      .catch((err) => {
        if (!closed) log.warn({ err: /** @type {Error} */ (err).message }, 'sharing the roster failed');
      })
      .finally(() => {
        ticking = false;
      });
  }

  /** Write and check every everyMs from now (a first round at once) while wanted or waiting. */
  function arm() {
    if (everyMs <= 0 || closed || timer !== undefined) return;
    timer = setInterval(round, everyMs);
    timer.unref();
    round();
  }

  /**
   * Every fresh share (this node's own from its roster now), and the wait the hash names. Redis
   * unreachable for READ_WAIT_MS: this node's own alone (`partial`), not a request held open.
   */
  async function read() {
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    let late;
    const all = await Promise.race([
      redis.hgetall(key).catch(() => null),
      new Promise((resolve) => {
        late = setTimeout(() => resolve(null), READ_WAIT_MS);
      }),
    ]).finally(() => clearTimeout(late));
    if (all === null) return { shares: [{ node, share: local.share() }], waiting: null, partial: true };
    return { ...fresh(/** @type {Record<string, string>} */ (all)), partial: false };
  }

  /** @param {Record<string, string>} all  the hash */
  function fresh(all) {
    const t = now();
    /** @type {{ node: string, share: Share }[]} */
    const shares = [{ node, share: local.share() }];
    const stale = [];
    for (const [field, text] of Object.entries(all)) {
      if (field.startsWith('_') || field === node) continue;
      const share = unpackShare(text);
      if (share && typeof share.t === 'number' && share.t >= t - staleMs) shares.push({ node: field, share });
      else stale.push(field);
    }
    if (stale.length > 0) void redis.hdel(key, ...stale).catch(() => {});
    const waiting = open(purpose.waiting, all[WAITING]);
    return { shares, waiting: waiting && waiting.until > t ? waiting : null };
  }

  /** @param {string} why */
  function notReadyError(why) {
    const problems = lastParts.filter((p) => !p.ready).map((p) => `${p.part}: ${p.why.join(', ')}`);
    return new ScorecastError('SC_ERR_NOT_READY', [why, ...problems]);
  }

  /** @param {string} why */
  function cancelHere(why) {
    if (!waiter) return;
    const w = waiter;
    waiter = null;
    clearTimeout(w.timer);
    w.reject(notReadyError(why));
  }

  /** Every part ready across the cluster? Resolves the wait, and takes its name from the hash. */
  async function check() {
    const asked = waiter;
    const { shares, waiting, partial } = await read();
    const { parts } = mergeShares(shares);
    lastParts = parts;
    // Redis did not answer: neither cancelled nor ready as far as this node can tell. A wait
    // begun during the read is not in what it read: its own check decides it.
    if (!waiter || waiter !== asked || partial) return;
    if (waiting?.id !== waiter.id) {
      cancelHere('cancelled on another node (a play, pause or stop, or another play when ready)');
      return;
    }
    if (parts.every((p) => p.ready)) {
      const w = waiter;
      waiter = null;
      clearTimeout(w.timer);
      await redis.hdel(key, WAITING).catch(() => {});
      w.resolve();
    }
  }

  /** One round: write this node's share while the roster is wanted, check a wait; idle after. */
  async function tick() {
    // A wait may outlast a look (play when ready waits up to 120 s): while it is open the nodes
    // keep sharing, or a part on another node that gets ready late is never seen.
    if (waiter) want();
    const t = now();
    if (wantedUntil > t) {
      const text = packShare({ ...local.share(), t });
      bytesOut += text.length;
      await redis.hset(key, node, text);
    }
    if (waiter) await check();
    if (timer !== undefined && !(wantedUntil > now()) && !waiter) {
      clearInterval(timer);
      timer = undefined;
    }
  }

  /** @param {object} message */
  const send = (message) =>
    redis.publish(channel, seal_(purpose.message, { ...message, from: node, t: now() })).catch(() => 0);

  /** @param {string} text */
  function onMessage(text) {
    const m = open(purpose.message, text);
    if (!m || m.from === node) return;
    const mark = `${m.op} ${m.id} ${m.from}`;
    if (!(Math.abs(now() - m.t) < MESSAGE_FRESH_MS) || typeof m.id !== 'string' || seen.has(mark)) {
      refused++;
      return;
    }
    seen.add(mark);
    if (seen.size > SEEN_MAX) seen.delete(/** @type {string} */ (seen.values().next().value));
    if (m.op === 'want') wantedBy(m.until);
    else if (m.op === 'act' && typeof m.device === 'string' && typeof m.action === 'string') {
      const r = local.act(m.device, m.action);
      void send({ op: 'done', id: m.id, to: m.from, ok: r.ok, sent: r.ok ? r.sent : 0 });
    } else if (m.op === 'done' && m.to === node) {
      const p = pending.get(m.id);
      if (!p) return;
      p.answers.push({ from: m.from, ok: m.ok === true, sent: Number(m.sent) || 0 });
      if (p.answers.length >= p.expect || (m.ok === true && p.expect > 0 && !p.all)) p.done();
    }
  }

  return {
    /** Listen, and write at once if someone looked before this node started. */
    async start() {
      await listen(onMessage);
      const [wanted] = await redis.hmget(key, WANTED).catch(() => [null]);
      wantedBy(open(purpose.wanted, wanted)?.until);
    },

    /** One round now (tests drive it on their own time). */
    tick,

    /** `GET /api/roster` on a cluster: this node's view with every node's devices merged in. */
    async view() {
      want();
      const base = local.view();
      const { shares, waiting, partial } = await read();
      const merged = mergeShares(shares);
      lastParts = merged.parts;
      return {
        ...base,
        ...merged,
        nodes: shares.map((s) => ({ node: s.node, ageMs: Math.max(0, Math.round(now() - s.share.t)) })),
        waiting: waiting ? { since: waiting.since, until: waiting.until, node: waiting.node } : null,
        // Redis did not answer: this node's devices alone
        ...(partial ? { partial: true } : {}),
      };
    },

    /**
     * An action on one device wherever it is connected, or on every device of every node.
     * @param {string} id @param {string} action
     * @returns {Promise<{ ok: true, sent: number, node?: string } | { ok: false, error: import('../../core/errors.js').ErrorValue, status: number }>}
     */
    async act(id, action) {
      const here = local.act(id, action);
      if (!DEVICE_ACTIONS.includes(action) || (here.ok && id !== 'all')) return here;
      const mid = newId();
      /** @type {{ from: string, ok: boolean, sent: number }[]} */
      const answers = await new Promise((resolve) => {
        const entry = {
          expect: Number.POSITIVE_INFINITY,
          all: id === 'all',
          /** @type {{ from: string, ok: boolean, sent: number }[]} */
          answers: [],
          done: () => {
            clearTimeout(wait);
            pending.delete(mid);
            resolve(entry.answers);
          },
        };
        const wait = setTimeout(entry.done, actWaitMs);
        pending.set(mid, entry);
        void send({ op: 'act', id: mid, device: id, action }).then((heard) => {
          // Every node's roster subscription hears it, this one's too.
          entry.expect = Math.max(0, heard - 1);
          if (entry.answers.length >= entry.expect) entry.done();
        });
      });
      if (id === 'all') return { ok: true, sent: (here.ok ? here.sent : 0) + answers.reduce((s, a) => s + a.sent, 0) };
      const found = answers.find((a) => a.ok);
      if (found) return { ok: true, sent: found.sent, node: found.from };
      return here.ok ? here : { ok: false, status: 404, error: errorValue('SC_ERR_NO_DEVICE', id.slice(0, 64)) };
    },

    /**
     * Resolve when every part is ready on the nodes together; reject with SC_ERR_NOT_READY after
     * `ms`, or when cancelled here or on another node.
     * @param {number} ms
     * @returns {Promise<void>}
     */
    async waitReady(ms) {
      cancelHere('another play when ready replaced this one');
      want();
      const id = newId();
      const since = now();
      // Not awaited: the read in check() follows it on the same connection.
      void redis.hset(key, WAITING, seal_(purpose.waiting, { node, id, since, until: since + ms })).catch(() => {});
      const done = new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          if (waiter?.id !== id) return;
          waiter = null;
          void redis.hdel(key, WAITING).catch(() => {});
          reject(notReadyError(`not every part ready within ${ms} ms`));
        }, ms);
        timer.unref?.();
        waiter = { id, resolve: () => resolve(undefined), reject, timer };
      });
      await check();
      return /** @type {Promise<void>} */ (done);
    },

    /**
     * A play, pause or stop: the wait here ends, and so does one on another node.
     * @param {string} why
     */
    cancelWait(why) {
      cancelHere(why);
      void redis.hdel(key, WAITING).catch(() => {});
    },

    /** Messages and shares refused (no valid MAC, too old, seen before). */
    get refused() {
      return refused;
    },
    /** Bytes of shares this node wrote since start. */
    get bytesOut() {
      return bytesOut;
    },

    async close() {
      closed = true;
      clearInterval(timer);
      cancelHere('this node is closing');
      for (const p of pending.values()) p.done();
      await redis.hdel(key, node).catch(() => {});
    },
  };
}

/** @typedef {ReturnType<typeof createClusterRoster>} ClusterRoster */

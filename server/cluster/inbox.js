// What nodes send the active conductor: votes (taps), client reports and control requests, on
// one Redis Stream. A stream, not pub/sub: what was sent while no conductor was active (a
// failover) waits for the next one. The conductor saves how far it has read together with the
// performance (votes included), so after a failover every request is taken up exactly once: a
// vote counted before the save is not read again, one read after it is counted by the successor.
// Answers go back on the asking node's own channel.
//
// Every request and every answer carries a MAC under the cluster's key (seal.js): a Redis client
// without the conductor token can neither add a vote or a control request nor answer one. Each
// request also carries its sender's session (random, one per process) and a number that grows
// with every request of that session, so one read from the stream and added again (its MAC is
// still good) is refused: the conductor keeps the highest number taken up per session, in the
// record with the cursor, and refuses requests older than FRESH_MS.

import { randomBytes } from 'node:crypto';
import { connectRedis } from './redis.js';
import { sealed, unseal } from './seal.js';

/** Requests kept in the stream, about. */
const INBOX_MAX_LEN = 100_000;
/** Reports are sent in batches, one every this many ms per node. */
const REPORT_BATCH_MS = 500;
/**
 * Thumbs too, more often: the meter is published at most every 250 ms, and a batch every 100 ms
 * adds at most that to a thumb's way to it. A batch holds each device's latest thumb only.
 */
const THUMB_BATCH_MS = 100;
/** Devices in one batch of thumbs, at most (1,500 phones at 2 a second are 300 a batch). */
const MAX_THUMBS_BATCH = 20_000;
/**
 * A request written longer ago than this (ms, by the sender's clock) is refused: far beyond a
 * failover's wait (5 s), and it bounds the sessions a conductor has to remember.
 */
export const FRESH_MS = 120_000;

/**
 * @typedef {object} InboxRequest
 * @property {string} [id]     set when the sender waits for an answer
 * @property {string} from     the sending node
 * @property {string} kind     'tap' | 'http' | 'reports' | 'thumbs'
 * @property {any} body
 * @property {string} s        the sender's session
 * @property {number} n        the request's number in its session (1, 2, ...)
 * @property {number} t        when it was sent (ms since the Unix epoch, the sender's clock)
 */

/** @typedef {Record<string, [number, number]>} SessionMarks  session -> [highest number taken up, its t] */

/** @param {import('./redis.js').ClusterKeys} keys */
const requestPurpose = (keys) => keys.inbox;
/** @param {import('./redis.js').ClusterKeys} keys @param {string} node */
const answerPurpose = (keys, node) => keys.replies(node);

/**
 * The sending side, on every node.
 * @param {{ url: import('./redis.js').RedisTarget | string, keys: import('./redis.js').ClusterKeys, node: string,
 *   redis: import('./redis.js').RedisConnection, seal: import('./seal.js').Seal, timeoutMs?: number,
 *   log?: { warn: (o: object, msg: string) => void } }} options
 */
export async function createInboxClient({ url, keys, node, redis, seal, timeoutMs = 5000, log = { warn: () => {} } }) {
  const sub = connectRedis(url, `scorecast-${node}-replies`);
  sub.on('error', () => {});
  /** @type {Map<string, (answer: any) => void>} */
  const pending = new Map();
  const session = randomBytes(12).toString('base64url');
  let counter = 0;
  let rejected = 0;
  sub.on('message', (_channel, text) => {
    const list = unseal(seal, answerPurpose(keys, node), text);
    if (list === null) {
      if (rejected++ % 1000 === 0)
        log.warn(
          { code: 'SC_ERR_CLUSTER_UNSIGNED', rejected },
          "refused an answer without a valid MAC on this node's channel",
        );
      return;
    }
    for (const { id, answer } of JSON.parse(list)) {
      const resolve = pending.get(id);
      if (resolve) {
        pending.delete(id);
        resolve(answer);
      }
    }
  });
  await sub.subscribe(keys.replies(node));
  // Each batch is sent by a timer armed by its first item, not by a timer running all along: a
  // node with nothing to send (an edge between votes) is not woken 12 times a second for nothing.
  /** @type {[string, unknown, { address: string, client: string }][]} */
  let reports = [];
  /** @type {ReturnType<typeof setTimeout> | null} */
  let flush = null;
  const flushReports = () => {
    flush = null;
    const body = reports;
    reports = [];
    send({ from: node, kind: 'reports', body }).catch(() => {});
  };
  /** credential -> its latest thumb in this batch: one device, one voice. @type {Map<string, string>} */
  let thumbs = new Map();
  /** @type {ReturnType<typeof setTimeout> | null} */
  let flushThumbs = null;
  const sendThumbs = () => {
    flushThumbs = null;
    const body = [...thumbs];
    thumbs = new Map();
    send({ from: node, kind: 'thumbs', body }).catch(() => {});
  };

  // Numbered as they are given to the one command connection, which keeps their order (also
  // across a reconnect): the stream holds a session's requests in increasing order.
  /** @param {Omit<InboxRequest, 's' | 'n' | 't'>} req */
  const send = (req) => {
    const text = JSON.stringify({ ...req, s: session, n: ++counter, t: Date.now() });
    return redis.xadd(
      keys.inbox,
      'MAXLEN',
      '~',
      INBOX_MAX_LEN,
      '*',
      'r',
      text,
      'm',
      seal.sign(requestPurpose(keys), text),
    );
  };

  return {
    /**
     * Ask the active conductor; resolves with its answer, or `{ timeout: true }` when none came
     * within the timeout (no conductor active: a failover that did not finish, or none running).
     * @param {string} kind @param {unknown} body
     * @returns {Promise<any>}
     */
    ask(kind, body) {
      // The session in the id: an answer to an earlier process of this node never matches.
      const id = `${session}:${counter + 1}`;
      return new Promise((resolve) => {
        const timer = setTimeout(() => {
          pending.delete(id);
          resolve({ timeout: true });
        }, timeoutMs);
        pending.set(id, (answer) => {
          clearTimeout(timer);
          resolve(answer);
        });
        send({ id, from: node, kind, body }).catch(() => {});
      });
    },
    /**
     * A client's report (batched), with who sent it (its address, and a name for its connection).
     * @param {string} kind @param {unknown} report @param {{ address: string, client: string }} from
     */
    report(kind, report, from) {
      if (reports.length < 10_000) reports.push([kind, report, from]);
      if (flush === null) {
        flush = setTimeout(flushReports, REPORT_BATCH_MS);
        flush.unref();
      }
    },
    /**
     * A phone's thumb for the audience meter (batched: each device's latest in a batch), with its
     * credential: the conductor checks it again.
     * @param {string} credential @param {string} value  "up" or "down"
     */
    thumb(credential, value) {
      if (thumbs.size < MAX_THUMBS_BATCH || thumbs.has(credential)) thumbs.set(credential, value);
      if (flushThumbs === null) {
        flushThumbs = setTimeout(sendThumbs, THUMB_BATCH_MS);
        flushThumbs.unref();
      }
    },
    /** Answers refused since start (no valid MAC). */
    get rejected() {
      return rejected;
    },
    async close() {
      if (flush !== null) clearTimeout(flush);
      if (flushThumbs !== null) clearTimeout(flushThumbs);
      for (const resolve of pending.values()) resolve({ timeout: true });
      pending.clear();
      sub.disconnect();
    },
  };
}

/** The id of the newest request (read on from there), or '0-0'. */
/** @param {import('./redis.js').RedisConnection} redis @param {string} key */
export async function inboxEnd(redis, key) {
  const last = /** @type {[string, string[]][]} */ (await redis.xrevrange(key, '+', '-', 'COUNT', 1));
  return last.length > 0 ? last[0][0] : '0-0';
}

/**
 * The serving side, on the active conductor: reads requests from `from` on, one at a time, in
 * order. `cursor` is set to a request's id before it is handled, so a save made while handling it
 * (a state change it caused) counts it as done. After each batch, `save` stores the record with
 * the cursor; only then are the answers sent (an answer means it is in Redis). A request without
 * a valid MAC, or one taken up before (by number in its session), is dropped unanswered.
 * @param {{ url: import('./redis.js').RedisTarget | string, keys: import('./redis.js').ClusterKeys, node: string,
 *   redis: import('./redis.js').RedisConnection, seal: import('./seal.js').Seal, from: string, marks?: SessionMarks,
 *   handle: (req: InboxRequest) => Promise<unknown>, save: () => Promise<boolean>, setCursor: (id: string) => void,
 *   log: { warn: (o: object, msg: string) => void }, now?: () => number }} options
 */
export function serveInbox({
  url,
  keys,
  node,
  redis,
  seal,
  from,
  marks = {},
  handle,
  save,
  setCursor,
  log,
  now = Date.now,
}) {
  const reader = connectRedis(url, `scorecast-${node}-inbox`);
  reader.on('error', () => {});
  let stopped = false;
  let cursor = from;
  /** @type {Map<string, [number, number]>} */
  const sessions = new Map(
    Object.entries(marks).filter(
      ([, m]) => Array.isArray(m) && Number.isSafeInteger(m[0]) && typeof m[1] === 'number' && m[1] > now() - FRESH_MS,
    ),
  );
  let rejected = 0;
  let warnedAt = -Infinity;

  /** @param {string} why */
  function refuse(why) {
    rejected++;
    if (now() - warnedAt < 10_000) return;
    warnedAt = now();
    log.warn({ code: 'SC_ERR_CLUSTER_UNSIGNED', why, rejected }, 'refused a request in the inbox');
  }

  /**
   * The request of a stream entry, or null (refused).
   * @param {string[]} fields r: the request; m: its MAC
   * @returns {InboxRequest | null}
   */
  function accept(fields) {
    const text = fields[fields.indexOf('r') + 1];
    if (!seal.verify(requestPurpose(keys), text, fields[fields.indexOf('m') + 1])) {
      refuse('no valid MAC: not sent by a node of this cluster');
      return null;
    }
    /** @type {InboxRequest} */
    const req = JSON.parse(text);
    const t = now();
    if (!(Math.abs(t - req.t) < FRESH_MS)) {
      refuse('sent too long ago (or by a clock far off)');
      return null;
    }
    const seen = sessions.get(req.s);
    if (seen && !(req.n > seen[0])) {
      refuse('taken up before: a request added to the stream again');
      return null;
    }
    sessions.set(req.s, [req.n, req.t]);
    return req;
  }

  async function loop() {
    while (!stopped) {
      try {
        const res = /** @type {[string, [string, string[]][]][] | null} */ (
          await reader.xread('COUNT', 500, 'BLOCK', 2000, 'STREAMS', keys.inbox, cursor)
        );
        if (!res || stopped) continue;
        /** @type {Map<string, { id: string, answer: unknown }[]>} */
        const answers = new Map();
        for (const [id, fields] of res[0][1]) {
          cursor = id;
          setCursor(id);
          const req = accept(fields);
          if (!req) continue;
          let answer;
          try {
            answer = await handle(req);
          } catch (err) {
            log.warn({ err: /** @type {Error} */ (err).message, kind: req.kind }, 'a request from another node failed');
            continue;
          }
          if (req.id && typeof req.from === 'string') {
            const list = answers.get(req.from) ?? [];
            list.push({ id: req.id, answer });
            answers.set(req.from, list);
          }
        }
        if (stopped || !(await save())) break;
        if (answers.size > 0) {
          const p = redis.pipeline();
          for (const [to, list] of answers)
            p.publish(keys.replies(to), sealed(seal, answerPurpose(keys, to), JSON.stringify(list)));
          await p.exec();
        }
      } catch (err) {
        if (stopped) break;
        log.warn({ err: /** @type {Error} */ (err).message }, 'reading the inbox failed; retrying');
        await new Promise((r) => setTimeout(r, 200));
      }
    }
  }
  const running = loop();

  return {
    /** The highest request number taken up per session, for the record (recent sessions only). */
    marks() {
      /** @type {SessionMarks} */
      const out = {};
      const since = now() - FRESH_MS;
      for (const [s, m] of sessions) {
        if (m[1] > since) out[s] = m;
        else sessions.delete(s);
      }
      return out;
    },
    /** Requests refused since this conductor took over. */
    get rejected() {
      return rejected;
    },
    async stop() {
      stopped = true;
      reader.disconnect();
      await Promise.race([running, new Promise((r) => setTimeout(r, 1000))]);
    },
  };
}

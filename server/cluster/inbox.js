// What nodes send the active conductor: votes (taps), client reports and control requests, on
// one Redis Stream. A stream, not pub/sub: what was sent while no conductor was active (a
// failover) waits for the next one. The conductor saves how far it has read together with the
// performance (votes included), so after a failover every request is taken up exactly once: a
// vote counted before the save is not read again, one read after it is counted by the successor.
// Answers go back on the asking node's own channel.

import { connectRedis } from './redis.js';

/** Requests kept in the stream, about. */
const INBOX_MAX_LEN = 100_000;
/** Reports are sent in batches, one every this many ms per node. */
const REPORT_BATCH_MS = 500;

/**
 * @typedef {object} InboxRequest
 * @property {string} [id]     set when the sender waits for an answer
 * @property {string} from     the sending node
 * @property {string} kind     'tap' | 'http' | 'reports'
 * @property {any} body
 */

/**
 * The sending side, on every node.
 * @param {{ url: string, keys: import('./redis.js').ClusterKeys, node: string, redis: import('./redis.js').RedisConnection, timeoutMs?: number }} options
 */
export async function createInboxClient({ url, keys, node, redis, timeoutMs = 5000 }) {
  const sub = connectRedis(url, `scorecast-${node}-replies`);
  sub.on('error', () => {});
  /** @type {Map<string, (answer: any) => void>} */
  const pending = new Map();
  let counter = 0;
  sub.on('message', (_channel, text) => {
    for (const { id, answer } of JSON.parse(text)) {
      const resolve = pending.get(id);
      if (resolve) {
        pending.delete(id);
        resolve(answer);
      }
    }
  });
  await sub.subscribe(keys.replies(node));
  /** @type {[string, unknown, { address: string, client: string }][]} */
  let reports = [];
  const flush = setInterval(() => {
    if (reports.length === 0) return;
    const body = reports;
    reports = [];
    send({ from: node, kind: 'reports', body }).catch(() => {});
  }, REPORT_BATCH_MS);
  flush.unref();

  /** @param {InboxRequest} req */
  const send = (req) => redis.xadd(keys.inbox, 'MAXLEN', '~', INBOX_MAX_LEN, '*', 'r', JSON.stringify(req));

  return {
    /**
     * Ask the active conductor; resolves with its answer, or `{ timeout: true }` when none came
     * within the timeout (no conductor active: a failover that did not finish, or none running).
     * @param {string} kind @param {unknown} body
     * @returns {Promise<any>}
     */
    ask(kind, body) {
      const id = `${node}:${++counter}`;
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
    },
    async close() {
      clearInterval(flush);
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
 * the cursor; only then are the answers sent (an answer means it is in Redis).
 * @param {{ url: string, keys: import('./redis.js').ClusterKeys, node: string, redis: import('./redis.js').RedisConnection, from: string,
 *   handle: (req: InboxRequest) => Promise<unknown>, save: () => Promise<boolean>, setCursor: (id: string) => void,
 *   log: { warn: (o: object, msg: string) => void } }} options
 */
export function serveInbox({ url, keys, node, redis, from, handle, save, setCursor, log }) {
  const reader = connectRedis(url, `scorecast-${node}-inbox`);
  reader.on('error', () => {});
  let stopped = false;
  let cursor = from;

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
          /** @type {InboxRequest} */
          let req;
          try {
            req = JSON.parse(fields[1]);
          } catch {
            continue;
          }
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
          for (const [to, list] of answers) p.publish(keys.replies(to), JSON.stringify(list));
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
    async stop() {
      stopped = true;
      reader.disconnect();
      await Promise.race([running, new Promise((r) => setTimeout(r, 1000))]);
    },
  };
}

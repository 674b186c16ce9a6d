// Request logging sized for a hall of phones: Fastify's own logs two info lines per request, about
// 700 lines a second for 1,000 phones polling, which buries what an operator needs in the journal.
// Each request is logged at debug (one line, after the answer), and one info line a minute says
// how many requests were answered, by status class, and how long the slowest took.

/** Log levels at which each request is written. */
const VERBOSE = new Set(['debug', 'trace']);

/** How often the summary line is written (ms). */
export const SUMMARY_EVERY_MS = 60_000;

/**
 * @typedef {object} RequestSummary
 * @property {number} requests
 * @property {Record<string, number>} byStatus   '2xx', '3xx', '4xx', '5xx'
 * @property {number} slowestMs
 */

/**
 * Counts answers between two summaries.
 * @returns {{ count: (status: number, ms: number) => void, take: () => RequestSummary | null }}
 */
export function createRequestCounter() {
  /** @type {Record<string, number>} */
  let byStatus = {};
  let requests = 0;
  let slowestMs = 0;
  return {
    count(status, ms) {
      requests++;
      const cls = `${Math.floor(status / 100)}xx`;
      byStatus[cls] = (byStatus[cls] ?? 0) + 1;
      if (ms > slowestMs) slowestMs = ms;
    },
    take() {
      if (requests === 0) return null;
      const summary = { requests, byStatus, slowestMs: Math.round(slowestMs * 10) / 10 };
      byStatus = {};
      requests = 0;
      slowestMs = 0;
      return summary;
    },
  };
}

/**
 * Logs each request at debug and a summary at info every `every` ms. Give the app
 * `logController: new LogController({ disableRequestLogging: true })` so Fastify does not log them too.
 * @param {import('fastify').FastifyInstance} app
 * @param {{ every?: number, setInterval?: typeof globalThis.setInterval, clearInterval?: typeof globalThis.clearInterval }} [options]
 */
export function requestLog(
  app,
  { every = SUMMARY_EVERY_MS, setInterval = globalThis.setInterval, clearInterval = globalThis.clearInterval } = {},
) {
  const counter = createRequestCounter();
  app.addHook('onResponse', async (req, reply) => {
    const ms = reply.elapsedTime;
    counter.count(reply.statusCode, ms);
    if (VERBOSE.has(req.log.level))
      req.log.debug(
        { method: req.method, url: req.url, statusCode: reply.statusCode, ms: Math.round(ms * 10) / 10 },
        'request',
      );
  });
  const timer = setInterval(() => {
    const summary = counter.take();
    if (summary) app.log.info(summary, 'requests answered in the last minute');
  }, every);
  timer.unref?.();
  app.addHook('onClose', async () => clearInterval(timer));
}

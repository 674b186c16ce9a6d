// The audience as the conductor sees it: who is connected (by transport and view) and how late
// their updates arrive, as the clients themselves measured it (push latency: receipt on the
// synced clock minus the envelope's `t`; display lag: when a beat was shown minus its server
// time). Clients send a few samples every few seconds (doc/protocol.md, "Client reports").

import { CLIENT_RATE } from '../core/constants.js';
import { ScorecastError, errorValue } from '../core/errors.js';
import { decodeClientMessage } from '../core/protocol.js';
import { createAddressLimiter } from './address-limit.js';
import { requireToken } from './control.js';

/** Samples kept per transport and kind: the newest win (bounded memory). */
const MAX_SAMPLES = 4096;
/** The console shows the last minute. */
export const REPORT_WINDOW_MS = 60_000;
const VIEW_RE = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * @typedef {{ n: number, p50: number | null, p95: number | null, max: number | null }} Summary
 */

/**
 * @param {{ now: () => number }} options
 */
export function createClientStats({ now }) {
  /** @type {Map<string, { at: Float64Array, v: Float64Array, next: number, size: number }>} */
  const series = new Map();

  /** @param {string} key @param {number[]} values */
  function add(key, values) {
    let s = series.get(key);
    if (!s) series.set(key, (s = { at: new Float64Array(MAX_SAMPLES), v: new Float64Array(MAX_SAMPLES), next: 0, size: 0 }));
    const t = now();
    for (const v of values) {
      s.at[s.next] = t;
      s.v[s.next] = v;
      s.next = (s.next + 1) % MAX_SAMPLES;
      s.size = Math.min(s.size + 1, MAX_SAMPLES);
    }
  }

  /** @param {string} key @returns {Summary} */
  function summary(key) {
    const s = series.get(key);
    const since = now() - REPORT_WINDOW_MS;
    /** @type {number[]} */
    const xs = [];
    if (s) for (let i = 0; i < s.size; i++) if (s.at[i] >= since) xs.push(s.v[i]);
    if (xs.length === 0) return { n: 0, p50: null, p95: null, max: null };
    xs.sort((a, b) => a - b);
    const q = (/** @type {number} */ p) => xs[Math.min(xs.length - 1, Math.floor(p * xs.length))];
    return { n: xs.length, p50: q(0.5), p95: q(0.95), max: xs[xs.length - 1] };
  }

  return {
    /**
     * @param {string} kind transport
     * @param {import('../core/protocol.js').ReportMessage} report
     */
    add(kind, report) {
      add(`${kind}:push`, report.push);
      add(`${kind}:display`, report.display);
    },
    /** @returns {Record<string, { push: Summary, display: Summary }>} by transport, last minute */
    summary() {
      /** @type {Record<string, { push: Summary, display: Summary }>} */
      const out = {};
      const kinds = new Set([...series.keys()].map((k) => k.split(':')[0]));
      for (const kind of kinds) {
        const push = summary(`${kind}:push`);
        const display = summary(`${kind}:display`);
        if (push.n + display.n > 0) out[kind] = { push, display };
      }
      return out;
    },
  };
}

/**
 * `GET /api/clients` (token): connections by transport and view, and the clients' own latency
 * figures. `POST /api/report`: a report from a client without a WebSocket (same body as the
 * WebSocket `report` message, plus `transport` and `view`).
 * @param {import('fastify').FastifyInstance} app
 * @param {{ hub: import('./hub.js').Hub, stats: ReturnType<typeof createClientStats>, token: string, now: () => number, auth?: import('./control.js').SignInLimiter }} options
 */
export function audienceRoutes(app, { hub, stats, token, now, auth }) {
  app.get('/api/clients', { onRequest: requireToken(token, auth) }, async () => ({
    ...hub.audience(), latency: stats.summary(), windowMs: REPORT_WINDOW_MS,
  }));

  const limiter = createAddressLimiter(CLIENT_RATE, now);
  app.post('/api/report', { bodyLimit: 4096 }, async (req, reply) => {
    if (!limiter.take(req.ip)) throw new ScorecastError('SC_ERR_RATE_LIMITED');
    const body = /** @type {Record<string, unknown>} */ (req.body ?? {});
    if (body === null || typeof body !== 'object' || Array.isArray(body)) return reply.code(400).send(errorValue('SC_ERR_BAD_MESSAGE', 'expected a JSON object'));
    const transport = body.transport === 'sse' || body.transport === 'poll' ? body.transport : null;
    if (!transport) return reply.code(400).send(errorValue('SC_ERR_BAD_MESSAGE', 'report.transport must be "sse" or "poll" (WebSocket clients report on their socket)'));
    const view = typeof body.view === 'string' && VIEW_RE.test(body.view) ? body.view : 'unknown';
    const decoded = decodeClientMessage(JSON.stringify({ type: 'report', push: body.push, display: body.display }));
    if (!decoded.ok) return reply.code(400).send(decoded.error);
    if (decoded.value.type !== 'report') return reply.code(400).send(errorValue('SC_ERR_BAD_MESSAGE'));
    hub.report(transport, view, decoded.value);
    return reply.code(204).send();
  });
}

// The audience as the conductor sees it: who is connected (by transport and view) and how late
// their updates arrive, as the clients themselves measured it (push latency: receipt on the
// synced clock minus the envelope's `t`; display lag: when a beat was shown minus its server
// time). Clients send a few samples every few seconds (doc/protocol.md, "Client reports").

import fp from 'fastify-plugin';
import { ERRORS, errorValue } from '../../core/errors.js';
import { decodeClientMessage } from '../../core/protocol.js';
import { audienceRate, createAddressLimiter, refuseOverRate } from '../http/address-limit.js';
import { addressKey } from '../http/address-key.js';
import { requireToken } from '../http/auth.js';
import { quantileSorted } from '../../core/stats.js';
import { isId } from '../../core/values.js';

/**
 * Samples one client weighs in the figures, per kind: its newest ones, as many as an honest page
 * sends in a minute (16 every 10 s). A client that reports more often, or with more samples, only
 * replaces its own (one connection set the console's p50 to 600 s).
 */
export const MAX_SAMPLES_PER_CLIENT = 96;
/**
 * A client's reports count at most once per this long (pages report every 10 s): a burst of
 * reports weighs what one does.
 */
export const MIN_REPORT_INTERVAL_MS = 5000;
/** Reporting clients remembered at most (bounded memory; the longest silent are forgotten). */
export const MAX_REPORTERS = 4096;
/** The console shows the last minute. */
export const REPORT_WINDOW_MS = 60_000;

/**
 * @typedef {{ n: number, p50: number | null, p95: number | null, max: number | null }} Summary
 * @typedef {{ at: number[], v: number[] }} Samples
 * @typedef {{ kind: string, address: string, at: number, counted: number, push: Samples, display: Samples }} Reporter
 *   at: its last report; counted: its last report that counted
 */

/**
 * The clients' own latency figures, each client's weight bounded: a client (a WebSocket
 * connection, or a page posting reports) counts one report per MIN_REPORT_INTERVAL_MS and its
 * newest MAX_SAMPLES_PER_CLIENT samples of each kind, and an address has at most
 * `reportersPerAddress` clients reporting at once.
 * @param {{ now: () => number, reportersPerAddress?: number }} options  0: no limit
 */
export function createClientStats({ now, reportersPerAddress = 0 }) {
  /** In order of last report: the longest silent first. */
  /** @type {Map<unknown, Reporter>} */
  const reporters = new Map();
  /** @type {Map<string, number>} */
  const perAddress = new Map();

  /** @param {unknown} key */
  function forget(key) {
    const r = reporters.get(key);
    if (!r) return;
    reporters.delete(key);
    const n = (perAddress.get(r.address) ?? 1) - 1;
    if (n > 0) perAddress.set(r.address, n);
    else perAddress.delete(r.address);
  }

  function expire() {
    const since = now() - REPORT_WINDOW_MS;
    for (const [key, r] of reporters) {
      if (r.at >= since) break;
      forget(key);
    }
  }

  /** @param {Samples} s @param {number[]} values @param {number} t */
  function keep(s, values, t) {
    for (const v of values) {
      s.at.push(t);
      s.v.push(v);
    }
    const over = s.v.length - MAX_SAMPLES_PER_CLIENT;
    if (over > 0) {
      s.at.splice(0, over);
      s.v.splice(0, over);
    }
  }

  /** @param {string} kind @param {'push' | 'display'} which @returns {Summary} */
  function summary(kind, which) {
    const since = now() - REPORT_WINDOW_MS;
    /** @type {number[]} */
    const xs = [];
    for (const r of reporters.values()) {
      if (r.kind !== kind) continue;
      const s = r[which];
      for (let i = 0; i < s.v.length; i++) if (s.at[i] >= since) xs.push(s.v[i]);
    }
    if (xs.length === 0) return { n: 0, p50: null, p95: null, max: null };
    xs.sort((a, b) => a - b);
    return { n: xs.length, p50: quantileSorted(xs, 0.5), p95: quantileSorted(xs, 0.95), max: xs[xs.length - 1] };
  }

  return {
    /**
     * @param {string} kind transport
     * @param {import('../../core/protocol.js').ReportMessage} report
     * @param {{ address: string, client: unknown }} from  `client`: what tells this client apart
     *   (its WebSocket session, or its address and page id)
     * @returns {import('../../core/errors.js').ErrorValue | null} why the report was not counted, or null
     */
    add(kind, report, from) {
      expire();
      const t = now();
      let r = reporters.get(from.client);
      if (r) {
        if (t - r.counted < MIN_REPORT_INTERVAL_MS)
          return errorValue('SC_ERR_RATE_LIMITED', `one report per ${MIN_REPORT_INTERVAL_MS / 1000} s counts`);
        reporters.delete(from.client);
      } else {
        const address = addressKey(from.address);
        if (reportersPerAddress > 0 && (perAddress.get(address) ?? 0) >= reportersPerAddress) {
          return errorValue('SC_ERR_ADDRESS_LIMIT', `${reportersPerAddress} reporting clients from this address`);
        }
        if (reporters.size >= MAX_REPORTERS) forget(reporters.keys().next().value);
        r = { kind, address, at: t, counted: t, push: { at: [], v: [] }, display: { at: [], v: [] } };
        perAddress.set(address, (perAddress.get(address) ?? 0) + 1);
      }
      r.at = t;
      r.counted = t;
      r.kind = kind;
      keep(r.push, report.push, t);
      keep(r.display, report.display, t);
      reporters.set(from.client, r);
      return null;
    },
    /** @returns {Record<string, { push: Summary, display: Summary }>} by transport, last minute */
    summary() {
      expire();
      /** @type {Record<string, { push: Summary, display: Summary }>} */
      const out = {};
      const kinds = new Set([...reporters.values()].map((r) => r.kind));
      for (const kind of kinds) {
        const push = summary(kind, 'push');
        const display = summary(kind, 'display');
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
 * The answer to a report is 204, or 200 with `{commands: ["reload", ...]}`: the console's actions
 * on this page (server/live/roster.js), which a polling page holds no connection to receive.
 * @param {import('fastify').FastifyInstance} app
 * @param {{ hub: import('./hub.js').Hub, stats: ReturnType<typeof createClientStats>, token: string, now: () => number, auth?: import('../http/auth.js').SignInLimiter, phonesPerAddress: number, commands?: (connection: string) => string[] }} options
 *   phonesPerAddress sets the address's request rate (audienceRate; 0: no limit)
 */
async function routes(app, { hub, stats, token, now, auth, phonesPerAddress, commands }) {
  app.get('/api/clients', { onRequest: requireToken(token, auth) }, async () => ({
    ...hub.audience(),
    latency: stats.summary(),
    windowMs: REPORT_WINDOW_MS,
  }));

  const rate = audienceRate(phonesPerAddress);
  const limiter = rate ? createAddressLimiter(rate, now) : null;
  app.post('/api/report', { bodyLimit: 4096, onRequest: refuseOverRate(limiter) }, async (req, reply) => {
    const body = /** @type {Record<string, unknown>} */ (req.body ?? {});
    if (body === null || typeof body !== 'object' || Array.isArray(body))
      return reply.code(400).send(errorValue('SC_ERR_BAD_MESSAGE', 'expected a JSON object'));
    const transport = body.transport === 'sse' || body.transport === 'poll' ? body.transport : null;
    if (!transport)
      return reply
        .code(400)
        .send(
          errorValue(
            'SC_ERR_BAD_MESSAGE',
            'report.transport must be "sse" or "poll" (WebSocket clients report on their socket)',
          ),
        );
    const view = isId(body.view) ? body.view : 'unknown';
    const client = body.client === undefined ? '' : isId(body.client) ? body.client : null;
    if (client === null)
      return reply
        .code(400)
        .send(errorValue('SC_ERR_BAD_MESSAGE', 'report.client must be the page id, 1-64 of [A-Za-z0-9_-]'));
    const decoded = decodeClientMessage(
      JSON.stringify({ type: 'report', push: body.push, display: body.display, device: body.device }),
    );
    if (!decoded.ok) return reply.code(400).send(decoded.error);
    if (decoded.value.type !== 'report') return reply.code(400).send(errorValue('SC_ERR_BAD_MESSAGE'));
    // A page is its address and its id: pages behind one NAT are told apart by their ids, and
    // an address has at most reportersPerAddress of them. A page whose IPv6 privacy address
    // changed is still the same page (addressKey).
    const connection = `${addressKey(req.ip)} ${client}`;
    const refused = hub.report(transport, view, decoded.value, { address: req.ip, connection });
    if (refused) return reply.code(ERRORS[refused.code]?.status ?? 429).send(refused);
    const queued = commands?.(connection) ?? [];
    if (queued.length > 0) return reply.code(200).send({ commands: queued });
    return reply.code(204).send();
  });
}

/** The routes as a Fastify plugin: `await app.register(audienceRoutes, options)`. */
export const audienceRoutes = fp(routes, { name: 'audience-routes', fastify: '5.x' });

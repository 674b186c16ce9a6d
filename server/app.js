// Builds the Fastify application and wires the modules together. Never listens: start.js does,
// and tests use app.inject() or listen on port 0.

import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import Fastify, { LogController } from 'fastify';
import { ERRORS, ScorecastError, errorValue } from '../core/errors.js';
import { createMemoryBus } from './live/bus.js';
import { createConductor, systemClock } from './performance/conductor.js';
import { createHub } from './live/hub.js';
import { createMetrics } from './http/metrics.js';
import { controlRoutes } from './performance/control.js';
import { createSignInLimiter, requireToken } from './http/auth.js';
import { audienceRoutes, createClientStats } from './live/client-reports.js';
import { createRoster } from './live/roster.js';
import { rosterRoutes } from './live/roster-routes.js';
import { libraryRoutes } from './package/library.js';
import { tapRoutes } from './performance/taps.js';
import { openFormRoutes } from './performance/open-form-routes.js';
import { scoreRoutes } from './package/routes.js';
import { beatMapRoutes } from './package/beatmap-routes.js';
import { clientFileRoutes } from './http/client-files.js';
import { securityHeaders } from './http/security-headers.js';
import { loadPackage } from './package/load.js';
import { watchPackage } from './package/watch.js';
import { attachPersistence } from './performance/save/persist.js';
import { attachWebSocket } from './live/transports/websocket.js';
import { createDeviceCredentials, secretFromToken } from './performance/device-credential.js';
import { conductorRound, createVoteGuard } from './performance/vote-guard.js';
import { createThumbGuard } from './performance/thumb-guard.js';
import { CONNECTIONS_PER_ADDRESS, HTTP_TIMEOUTS, limitConnections } from './http/connection-limit.js';
import { PHONES_PER_ADDRESS } from './http/address-limit.js';
import { createClientAddress } from './http/client-address.js';
import { clientErrorHandler, frameworkErrors, methodNotAllowed } from './http/errors.js';
import { sseRoutes } from './live/transports/sse.js';
import { pollRoutes } from './live/transports/poll.js';
import { captivePortalRoutes, createAcceptedAddresses } from './http/captive-portal.js';
import { buildRedirectApp } from './http/redirect.js';
import { requestLog } from './http/request-log.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const CLIENT_DIR = path.join(ROOT, 'dist', 'client');
export const CACHE_DIR = path.join(ROOT, '.cache', 'engrave');

/**
 * @typedef {object} AppOptions
 * @property {import('./package/load.js').ScorePackage} score  the loaded package
 * @property {string} token                conductor token
 * @property {string} [cacheDir]           engraving cache (reloads use it)
 * @property {boolean} [watch]             reload the package when its files change
 * @property {boolean} [autoplay]          play at once and loop (the demo)
 * @property {boolean} [loop]
 * @property {import('./performance/conductor.js').Clock} [clock]
 * @property {import('./live/bus.js').Bus} [bus]
 * @property {boolean | object} [logger]   Fastify logger options
 * @property {string} [clientDir]          built client (dist/client)
 * @property {Partial<import('./live/hub.js').HubOptions>} [hubOptions]
 * @property {{ cert: string | Buffer, key: string | Buffer }} [https]  serve HTTPS (PEM contents)
 * @property {import('./performance/save/persist.js').PersistenceOptions | null} [persist]  save the performance to
 *   this file as it changes and resume it at start (default: not saved)
 * @property {string} [scoresDir]          the folder of scores the conductor may load (default: the
 *   folder that holds `score`'s package)
 * @property {number} [phonesPerAddress]   phones one address may stand for: device credentials an
 *   hour, votes per window, polling ids and reporting clients counted (0: no limit; doc/security.md)
 * @property {number} [connectionsPerAddress]  connections one address may hold open (0: no limit)
 * @property {Partial<typeof HTTP_TIMEOUTS>} [httpTimeouts]  default HTTP_TIMEOUTS (tests shorten them)
 * @property {string[]} [trustProxy]     addresses of proxies (nginx) whose X-Forwarded-For names
 *   the client: per-address limits then apply per client, not to the proxy
 * @property {import('./performance/osc-out.js').OscOut | null} [osc]  sends the score's OSC cues on their beats (--osc)
 * @property {{ origin: string }} [httpRedirect]  also build the plain-HTTP listener that sends every
 *   request to this HTTPS origin (the venue name, `--public-url`) and answers the phones'
 *   connectivity checks (returned as `redirect`; start.js listens on `--http-port`)
 * @property {ClusterHooks} [cluster]      a node of a cluster (server/cluster/node.js): votes and
 *   client reports go to the active conductor, wherever it runs
 */

/**
 * @typedef {object} ClusterHooks
 * @property {(tap: { tile: string | number, window?: string, device: string, credential: string }) => Promise<{ ok: true, id: string } | { ok: false, error: import('../core/errors.js').ErrorValue }>} vote
 *   counts a tap the vote guard let through, on the active conductor
 * @property {(kind: string, report: import('../core/protocol.js').ReportMessage, from: { address: string, client: string }) => void} report
 *   a report this node's own limits let through, for the active conductor's figures
 * @property {() => string | null} round  the vote round open as this node sees the performance
 *   (a window opened again is a new round)
 * @property {(credential: string, value: string) => boolean} [thumb]  a thumb the thumb guard let
 *   through, sent on to the active conductor (batched); false: this node conducts, count it here
 * @property {(local: import('./live/roster.js').Roster) => import('./cluster/cluster-roster.js').ClusterRoster} [roster]
 *   the roster across the cluster, around this node's own
 * @property {(form: import('../core/open-form.js').OpenForm, req: import('fastify').FastifyRequest) => Promise<object> | object | undefined} [section]
 *   GET /api/section's answer while this node does not conduct (undefined: it conducts)
 */

/**
 * @param {AppOptions} options
 */
export async function buildApp({
  score,
  token,
  autoplay = false,
  loop = autoplay,
  clock = systemClock,
  bus = createMemoryBus(),
  logger = false,
  clientDir = CLIENT_DIR,
  hubOptions = {},
  cacheDir = CACHE_DIR,
  watch = false,
  https,
  persist = null,
  scoresDir = path.dirname(score.dir),
  phonesPerAddress = PHONES_PER_ADDRESS,
  connectionsPerAddress = CONNECTIONS_PER_ADDRESS,
  httpTimeouts = {},
  cluster,
  trustProxy,
  osc = null,
  httpRedirect,
}) {
  const { keepAliveTimeout, requestTimeout, ...serverTimeouts } = { ...HTTP_TIMEOUTS, ...httpTimeouts };
  // One notion of the client for every limit: req.ip, WebSocket upgrades and connection caps all
  // read X-Forwarded-For by this one trust list, or none of them does.
  const clients = createClientAddress(trustProxy);
  const app = /** @type {import('fastify').FastifyInstance} */ (
    /** @type {unknown} */ (
      Fastify({
        logger,
        // Requests are logged at debug and summed up once a minute (http/request-log.js).
        logController: new LogController({ disableRequestLogging: true }),
        bodyLimit: 64 * 1024,
        // A plugin's start may take more than Fastify's default 10 s on a starved machine (CI, a
        // test server in a low-weight cpu group at load 11): a slow start should start, not fail.
        pluginTimeout: 60_000,
        return503OnClosing: true,
        keepAliveTimeout,
        requestTimeout,
        ...(https ? { https: { ...https, ...serverTimeouts } } : { http: serverTimeouts }),
        frameworkErrors,
        clientErrorHandler,
        ...(clients.trust ? { trustProxy: clients.trust } : {}),
      })
    )
  );
  securityHeaders(app);
  requestLog(app);
  const connections = limitConnections(app.server, { perAddress: connectionsPerAddress, plain: !https, clients });
  // Before every other hook: a request over its client's connections costs nothing more.
  if (clients.trust) app.addHook('onRequest', connections.onRequest);
  const metrics = createMetrics();
  const conductor = createConductor({
    model: score.model,
    bus,
    clock,
    loop,
    onBeat: (beat, due) => {
      metrics.beatLate(clock.now() - due);
      osc?.beat(conductor.model, beat, (slot) => conductor.chosenPage(slot));
    },
    onStart: (beat) => osc?.start(conductor.model, beat, (slot) => conductor.chosenPage(slot)),
    onVote: (outcome) => app.log.info({ vote: outcome }, 'vote closed'),
    onVoteCast: () => persistence?.changed(),
    onJump: () => persistence?.changed(),
  });
  const clientStats = createClientStats({ now: clock.wall, reportersPerAddress: phonesPerAddress });
  const credentials = createDeviceCredentials({ secret: secretFromToken(token) });
  /** @type {import('./live/hub.js').Hub} */
  let hub;
  // In a cluster the vote guard runs where the tap arrives (credential, one vote per connection
  // and window, votes per address), and the active conductor counts it; the open window is the
  // one in the performance's state as this node has it.
  const votes = createVoteGuard({
    vote: cluster ? cluster.vote : (tap) => conductor.vote(tap),
    round: cluster ? cluster.round : conductorRound(conductor),
    credentials,
    votesPerAddress: phonesPerAddress,
  });
  const thumbs = thumbGuard({ conductor, credentials, phonesPerAddress, clock, cluster, state: () => hub?.state });
  // Every device as it reports itself, for the console (server/live/roster.js); this node's own.
  const roster = createRoster({
    now: clock.wall,
    stream: () => ({ epoch: hub.epoch, seq: hub.seq }),
    parts: () => conductor.model.parts.map((p) => p.id),
    tell: (connection, envelope) => hub.tell(connection, envelope),
    tellAll: (envelope) => hub.tellAll(envelope),
    devicesPerAddress: phonesPerAddress,
  });
  hub = createHub({
    bus,
    now: clock.wall,
    metrics: metrics.hooks,
    onTap: (tap, from) => votes.cast(tap, from),
    onReport: reportsTo({ roster, clientStats, cluster }),
    onClose: (from) => roster.closed(from),
    onThumb: thumbs?.cast,
    pollersPerAddress: phonesPerAddress,
    ...hubOptions,
  });
  metrics.observeHistory(() => hub.history);
  // One budget of failed sign-ins per address, across every route that needs the token.
  const auth = createSignInLimiter({ now: clock.now });
  const ws = attachWebSocket(app.server, hub, {
    log: app.log,
    clientAddress: clients.of,
    admit: connections.admitUpgrade,
  });

  errorReplies(app);

  app.get('/healthz', async () => ({
    // The hub's state: on a cluster's edge, the performance's (its own conductor is idle).
    status: 'ok',
    epoch: hub.epoch,
    seq: hub.seq,
    transport: (hub.state ?? conductor.state).transport,
    clients: hub.size,
  }));
  // Clock sync for clients without a WebSocket (ping/pong does it there): one round trip each.
  app.get('/api/time', async (_req, reply) => {
    reply.header('cache-control', 'no-store');
    return { t: clock.wall() };
  });
  app.get('/metrics', async (_req, reply) => {
    reply.header('content-type', metrics.registry.contentType);
    return metrics.registry.metrics();
  });

  let current = score;
  /** @type {{ problems: string[], at: number | null }} */
  const lastReload = { problems: [], at: null };
  /** @type {import('./performance/save/persist.js').Persistence | null} */
  const persistence = persist
    ? await attachPersistence({
        ...persist,
        conductor,
        bus,
        clock,
        log: app.log,
        scoreDir: () => current.dir,
      })
    : null;
  /**
   * Load the package again. A broken package never replaces a working one: the server keeps
   * playing what it has and the problems are kept for the conductor.
   */
  async function reload() {
    try {
      const next = await loadPackage(current.dir, { cacheDir, deferLayouts: true });
      current = next;
      lastReload.problems = [];
      conductor.load(next.model, { keepPosition: true });
      app.log.info({ score: next.model.id, epoch: conductor.epoch }, 'score reloaded');
    } catch (err) {
      const e = /** @type {Error & { code?: string, problems?: string[] }} */ (err);
      lastReload.problems = e.problems?.length ? e.problems : [e.message];
      app.log.warn(
        { code: e.code, problems: lastReload.problems },
        'score reload refused; still playing the previous version',
      );
      throw err;
    } finally {
      lastReload.at = clock.wall();
    }
  }
  await app.register(scoreRoutes, { current: () => current });
  await app.register(beatMapRoutes, { current: () => current, token, auth });
  app.get('/api/status', { onRequest: requireToken(token, auth) }, async () => ({
    score: current.model.id,
    dir: current.dir,
    epoch: hub.epoch,
    seq: hub.seq,
    clients: hub.size,
    warnings: current.warnings,
    reload: lastReload,
    resume: persistence
      ? persistence.status()
      : { resumed: false, note: 'the performance is not saved (no state file, or the autoplay demo)' },
  }));
  app.post('/api/reload', { onRequest: requireToken(token, auth) }, async () => {
    await reload();
    return { epoch: conductor.epoch, seq: conductor.seq, score: current.model.id, warnings: current.warnings };
  });
  let watcher = watch ? watchPackage(score.dir, () => reload().catch(() => {}), app.log) : null;

  /**
   * Play another package from the scores folder, from its start (a new epoch). A package that
   * does not load leaves the current one playing; the error lists its problems.
   * @param {string} dir
   */
  async function switchTo(dir) {
    const next = await loadPackage(dir, { cacheDir, deferLayouts: true });
    current = next;
    lastReload.problems = [];
    conductor.load(next.model);
    if (watcher) {
      watcher.close();
      watcher = watchPackage(next.dir, () => reload().catch(() => {}), app.log);
    }
    app.log.info({ score: next.model.id, epoch: conductor.epoch }, 'score loaded');
    return { epoch: conductor.epoch, seq: conductor.seq, score: next.model.id, warnings: next.warnings };
  }
  await app.register(libraryRoutes, { scoresDir, token, auth, currentDir: () => current.dir, switchTo });

  // In a cluster each node's roster holds its own devices; the console's roster and play when
  // ready see every node's (server/cluster/cluster-roster.js).
  const rosters = cluster?.roster ? cluster.roster(roster) : roster;
  await app.register(controlRoutes, { conductor, token, auth, roster: rosters });
  // Always mounted: the package playing may be switched to one with sections (openForm).
  await app.register(openFormRoutes, {
    conductor,
    token,
    auth,
    thumbs,
    ...(cluster?.section ? { elsewhere: cluster.section } : {}),
  });
  await app.register(audienceRoutes, {
    hub,
    stats: clientStats,
    token,
    now: clock.wall,
    auth,
    phonesPerAddress,
    commands: (connection) => roster.take(connection),
  });
  await app.register(rosterRoutes, { roster: rosters, token, auth });
  await app.register(tapRoutes, {
    guard: votes,
    credentials,
    devicesPerAddress: phonesPerAddress,
    now: clock.wall,
    clients,
  });
  await app.register(sseRoutes, { hub });
  await app.register(pollRoutes, { hub, metrics: metrics.hooks });
  // One set for both listeners: the check arrives over plain HTTP, the page is loaded over HTTPS.
  const accepted = createAcceptedAddresses({ now: clock.wall });
  await app.register(captivePortalRoutes, { accepted });
  const redirect = httpRedirect
    ? buildRedirectApp({
        origin: httpRedirect.origin,
        accepted,
        connectionsPerAddress,
        ...(trustProxy ? { trustProxy } : {}),
      })
    : null;

  // index.html at / and every view, the hashed /assets/ (precompressed), the worker at /sw.js.
  await app.register(clientFileRoutes, { clientDir, hasView: (view) => current.model.views.includes(view) });

  // preClose, not onClose: open WebSocket and SSE connections would keep server.close() waiting.
  app.addHook('preClose', async () => {
    watcher?.close();
    conductor.dispose();
    await persistence?.close();
    ws.close();
    hub.close();
  });
  app.addHook('onClose', async () => {
    await redirect?.close();
    await bus.close();
  });

  if (autoplay) conductor.play();
  // What became of the save at start (null: not saved), for the start banner.
  const resume = persistence ? persistence.status() : null;
  return {
    app,
    redirect,
    conductor,
    hub,
    reload,
    resume,
    clientStats,
    roster,
    auth,
    switchTo,
    currentDir: () => current.dir,
    scoresDir,
  };
}

/**
 * Every error answer worded from the catalogue: a ScorecastError as it is, anything else by its
 * status; every HTTP error body is {code, message, problems} (problems lists what was wrong, one
 * entry each, e.g. a refused package's every problem; empty where the message says it all).
 * @param {import('fastify').FastifyInstance} app
 */
function errorReplies(app) {
  app.setErrorHandler((err, req, reply) => {
    if (err instanceof ScorecastError) {
      return reply.code(err.statusCode).send({ code: err.code, message: err.message, problems: err.problems });
    }
    const e = /** @type {Error & { statusCode?: number }} */ (err);
    const status = e.statusCode ?? 500;
    if (status >= 500) req.log.error({ err: e }, 'request failed');
    const code = status === 413 ? 'SC_ERR_TOO_BIG' : status < 500 ? 'SC_ERR_BAD_REQUEST' : 'SC_ERR_INTERNAL';
    return reply.code(status).send({ code, message: status < 500 ? e.message : ERRORS.SC_ERR_INTERNAL.message });
  });
  app.addHook('preSerialization', async (_req, reply, payload) => {
    const body = /** @type {any} */ (payload);
    if (reply.statusCode >= 400 && typeof body?.code === 'string' && !Array.isArray(body.problems))
      return { ...body, problems: [] };
    return payload;
  });
  app.setNotFoundHandler(
    (req, reply) =>
      methodNotAllowed(app, req, reply) ??
      reply.code(404).send({ code: 'SC_ERR_NOT_FOUND', message: ERRORS.SC_ERR_NOT_FOUND.message }),
  );
}

/**
 * Where a client's report goes: its device status to the roster, its latency samples to this
 * node's figures and, in a cluster, to the active conductor's. Each has its own rate (a part page
 * sends its status twice a second, samples every 10 s).
 * @param {{ roster: import('./live/roster.js').Roster, clientStats: ReturnType<typeof createClientStats>, cluster?: ClusterHooks }} o
 * @returns {NonNullable<import('./live/hub.js').HubOptions['onReport']>}
 */
function reportsTo({ roster, clientStats, cluster }) {
  /** A string that names a reporting connection in the conductor's figures, for a cluster. */
  /** @type {WeakMap<object, string>} */
  const clientKeys = new WeakMap();
  let nextClientKey = 0;
  const keyPrefix = randomUUID().slice(0, 8);
  const clientKey = (/** @type {unknown} */ connection) => {
    const c = /** @type {object} */ (connection);
    let key = clientKeys.get(c);
    if (key === undefined) {
      key = `${keyPrefix}.${++nextClientKey}`;
      clientKeys.set(c, key);
    }
    return key;
  };
  return (kind, view, report, from) => {
    const refusedStatus = report.device ? roster.note(kind, view, report.device, from) : null;
    if (report.push.length + report.display.length === 0 && report.device) return refusedStatus;
    // This node's own figures hold its limits (one report per interval per client, clients per
    // address); what passes goes to the active conductor in a cluster.
    const refused = clientStats.add(kind, report, { address: from.address, client: from.connection });
    if (!refused && cluster)
      cluster.report(
        kind,
        { type: 'report', push: report.push, display: report.display },
        { address: from.address, client: clientKey(from.connection) },
      );
    return refusedStatus ?? refused;
  };
}

/** A thumb a cluster's node sent on while its copy of the state shows no thumbs. */
const THUMBS_OFF_HERE = Object.freeze(errorValue('SC_ERR_THUMBS_CLOSED', 'this section shows no thumbs'));

/**
 * The guard of the audience meter's thumbs. On a cluster's node that does not conduct, a thumb it
 * let through (credential, address budget) goes on to the active conductor in a batch
 * (server/cluster/node.js), which checks the credential again and counts it (the device's budget,
 * one voice per device across the nodes); this node answers from its own copy of the state
 * whether the section takes thumbs.
 * @param {{ conductor: import('./performance/conductor.js').Conductor,
 *   credentials: import('./performance/device-credential.js').DeviceCredentials, phonesPerAddress: number,
 *   clock: import('./performance/beat-grid.js').Clock, cluster?: ClusterHooks, state: () => unknown }} o
 */
function thumbGuard({ conductor, credentials, phonesPerAddress, clock, cluster, state }) {
  const forward = cluster?.thumb;
  /** @type {(device: string, value: unknown, credential: string) => import('../core/errors.js').ErrorValue | null} */
  const thumb = forward
    ? (device, value, credential) => {
        if (/** @type {any} */ (state())?.section?.audience?.thumbs !== true) return THUMBS_OFF_HERE;
        return forward(credential, String(value)) ? null : conductor.thumb(device, value);
      }
    : (device, value) => conductor.thumb(device, value);
  return createThumbGuard({ thumb, credentials, phonesPerAddress, now: clock.wall });
}

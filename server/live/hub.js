// The hub: takes state changes from the bus, serializes each one once, keeps a bounded history
// for resync, and fans the same bytes out to every connection. It knows transports only through
// the Link interface (session.js); polling uses resync() and waitForChange() and holds no
// connection. Its parts: message.js (a message and its framings), history.js (state, epoch,
// seq, the deltas kept for resync), fan-out.js (broadcast, the behind rule, heartbeats),
// session.js (one connection and what it asks for), pollers.js (polling clients counted).

import { CLOSE, DEAD_LINK_MS, HEARTBEAT_MS, MAX_CLIENT_MESSAGE_BYTES, PROTOCOL_VERSION } from '../../core/constants.js';
import { createFanOut } from './fan-out.js';
import { createHistory } from './history.js';
import { createFramers } from './message.js';
import { createPollers } from './pollers.js';
import { Session } from './session.js';

export { POLLER_TTL_MS } from './pollers.js';

/** @typedef {import('./session.js').Link} Link */
/** @typedef {import('./session.js').TapSource} TapSource */
/** @typedef {import('./session.js').Source} Source */
/** @typedef {import('./session.js').TapResult} TapResult */
/** @typedef {import('./message.js').Message} Message */
/** @typedef {import('./message.js').Framer} Framer */
/** @typedef {import('../http/metrics.js').HubMetrics} HubMetrics */

/**
 * @typedef {object} HubOptions
 * @property {import('./bus.js').Bus} bus
 * @property {() => number} [now]        wall clock (ms since the Unix epoch)
 * @property {number} [historySize]      deltas kept for resync
 * @property {number} [replayBytes]      a resync whose deltas are larger than this and than the
 *   state is a snapshot instead (default 16 KiB)
 * @property {number} [historyBytes]     and at most this many bytes of them
 * @property {number} [behindBytes]      a connection with more unsent bytes stops getting deltas
 * @property {number} [dropBytes]        ... and is closed past this many
 * @property {number} [behindMs]         ... or after being behind this long
 * @property {HubMetrics} [metrics]
 * @property {(tap: import('../../core/protocol.js').TapMessage, from: TapSource) => TapResult | Promise<TapResult>} [onTap]
 *   counts a valid tap as a vote (the sender gets `voted` or an error); a cluster node answers
 *   when the active conductor has
 * @property {(kind: string, view: string, report: import('../../core/protocol.js').ReportMessage, from: Source) => import('../../core/errors.js').ErrorValue | null | void} [onReport]
 *   what a client measured (push latency, display lag), for the conductor's console; an error
 *   when the report was not counted (the client reports too often, its address has too many
 *   reporting clients)
 * @property {(from: Source) => void} [onClose]  a connection closed (the roster marks its device gone)
 * @property {((thumb: import('../../core/protocol.js').ThumbMessage, from: Source) => import('../../core/errors.js').ErrorValue | null) | undefined} [onThumb]
 *   a thumb for the audience meter; why it was not counted, or null (the sender gets no answer)
 * @property {number} [pollersPerAddress]  polling client ids counted per address (0: no limit):
 *   invented ids cannot inflate the audience figure beyond it
 */

/**
 * @param {HubOptions} options
 */
export function createHub({
  bus,
  now = () => performance.timeOrigin + performance.now(),
  historySize = 512,
  historyBytes = 16 * 1024 * 1024,
  behindBytes = 512 * 1024,
  dropBytes = 8 * 1024 * 1024,
  behindMs = 10_000,
  replayBytes = 16 * 1024,
  metrics = {},
  onTap,
  onReport,
  onClose,
  onThumb,
  pollersPerAddress = 0,
}) {
  const framers = createFramers();
  const history = createHistory({ now, historySize, historyBytes, replayBytes });
  const pollers = createPollers({ now, perAddress: pollersPerAddress });
  /** @type {import('./session.js').SessionContext} */
  const context = {
    sessions: new Set(),
    now,
    behindBytes,
    metrics,
    framed: framers.framed,
    history,
    onTap,
    onReport,
    onClose,
    onThumb,
  };
  const { sessions } = context;
  const fanOut = createFanOut({ hub: context, dropBytes, behindMs });
  /** Long polls waiting for the next change. */
  /** @type {Set<() => void>} */
  const waiters = new Set();

  /** @param {import('./bus.js').StateChange} change */
  function onChange(change) {
    fanOut.broadcast(history.apply(change), true);
    metrics.pushLag?.((now() - change.t) / 1000);
    for (const wake of waiters) wake();
    waiters.clear();
  }

  const latest = bus.latest();
  if (latest) onChange({ ...latest, patch: null });
  const unsubscribe = bus.subscribe(onChange);

  return {
    get epoch() {
      return history.epoch;
    },
    get seq() {
      return history.seq;
    },
    get state() {
      return history.state;
    },
    get size() {
      return sessions.size;
    },
    /** The resync history: deltas held and their JSON bytes (bounded by historySize/historyBytes). */
    get history() {
      return history.held;
    },

    /**
     * Register how a transport frames messages (SSE adds `id:` and `data:` lines).
     * @param {string} kind
     * @param {Framer} framer
     */
    setFramer(kind, framer) {
      framers.set(kind, framer);
    },

    /**
     * How many are connected, as audience().total counts them, without a pass over every
     * connection: a cluster node reports it every 2 s, and at thousands of connections an edge
     * paid a loop over them each time that the one process does not.
     */
    get clients() {
      return sessions.size + pollers.count();
    },

    /**
     * Who is connected: by transport and by view. Polling clients count when they polled within
     * POLLER_TTL_MS with a `client` id (clients without one cannot be told apart).
     * @returns {{ total: number, byTransport: Record<string, number>, byView: Record<string, number> }}
     */
    audience() {
      /** @type {Record<string, number>} */
      const byTransport = {};
      /** @type {Record<string, number>} */
      const byView = {};
      const add = (/** @type {string} */ kind, /** @type {string} */ view) => {
        byTransport[kind] = (byTransport[kind] ?? 0) + 1;
        byView[view] = (byView[view] ?? 0) + 1;
      };
      for (const s of sessions) add(s.link.kind, s.view);
      pollers.each((view) => add('poll', view));
      return { total: Object.values(byTransport).reduce((a, b) => a + b, 0), byTransport, byView };
    },

    /**
     * A poll from client `id` showing `view`, from `address` (bounded: the oldest are forgotten
     * first). An address counts at most pollersPerAddress ids at once; an id that comes from
     * another address (a phone that roamed) counts there.
     * @param {string} id @param {string} view @param {string} [from]  the peer's address
     * @returns {boolean} false when the id was not counted (the address is over its cap)
     */
    notePoller(id, view, from = '') {
      return pollers.note(id, view, from);
    },

    /**
     * A report from a client that cannot send on its stream (SSE, polling): POST /api/report.
     * @param {string} kind @param {string} view @param {import('../../core/protocol.js').ReportMessage} report
     * @param {Source} from
     * @returns {import('../../core/errors.js').ErrorValue | null} why it was not counted, or null
     */
    report(kind, view, report, from) {
      return onReport?.(kind, view, report, from) ?? null;
    },

    /**
     * A new connection: it gets a welcome, then what it needs to be live.
     * @param {Link} link
     * @param {{ epoch: string | null, seq: number, view?: string }} holds
     */
    attach(link, holds) {
      const session = new Session(context, link, holds.view ?? 'unknown');
      sessions.add(session);
      metrics.clients?.(link.kind, 1);
      session.send(
        history.message({
          type: 'welcome',
          epoch: history.epoch,
          seq: history.seq,
          t: now(),
          protocol: PROTOCOL_VERSION,
          transport: link.kind,
          heartbeatMs: HEARTBEAT_MS,
          deadLinkMs: DEAD_LINK_MS,
          maxMessageBytes: MAX_CLIENT_MESSAGE_BYTES,
        }),
      );
      session.resync(holds.epoch, holds.seq);
      return session;
    },

    resync: history.resync,

    /**
     * A message for one connection alone (the console's action on one device): it obeys the
     * behind rule like any direct answer.
     * @param {unknown} connection  a Source's `connection`
     * @param {{ type: string } & Record<string, unknown>} envelope  without `t` (added here)
     * @returns {boolean} false when that connection is not open here, or is behind
     */
    tell(connection, envelope) {
      const session = /** @type {Session} */ (connection);
      if (!(session instanceof Session) || !sessions.has(session)) return false;
      return session.reply(history.message({ ...envelope, t: now() }));
    },

    /**
     * A message for every connection (the console's action on all devices), framed once per
     * transport kind; connections that are behind skip it.
     * @param {{ type: string } & Record<string, unknown>} envelope  without `t` (added here)
     * @returns {number} connections it was written to
     */
    tellAll(envelope) {
      let n = 0;
      const msg = history.message({ ...envelope, t: now() });
      for (const session of sessions) if (session.reply(msg)) n++;
      return n;
    },

    /** A heartbeat message for the current seq (polling answers it to a live client). */
    heartbeat: fanOut.heartbeat,

    /**
     * Resolve at the next change or after `ms`, whichever is first.
     * @param {number} ms
     * @returns {Promise<void>}
     */
    waitForChange(ms) {
      return new Promise((resolve) => {
        const timer = setTimeout(done, ms);
        function done() {
          clearTimeout(timer);
          waiters.delete(done);
          resolve();
        }
        waiters.add(done);
      });
    },

    /** Close every connection (server shutdown) and stop listening to the bus. */
    close() {
      fanOut.stop();
      unsubscribe();
      for (const wake of waiters) wake();
      for (const s of [...sessions]) s.close(CLOSE.GOING_AWAY, 'server shutting down');
    },
  };
}

/** @typedef {ReturnType<typeof createHub>} Hub */
/** @typedef {ReturnType<Hub['attach']>} HubSession */

// The hub: takes state changes from the bus, serializes each one once, keeps a bounded history
// for resync, and fans the same bytes out to every connection. It knows transports only through
// the Link interface below; polling uses resync() and waitForChange() and holds no connection.

import { addressKey } from '../http/address-key.js';
import { encode, decodeClientMessage } from '../../core/protocol.js';
import { errorValue } from '../../core/errors.js';
import { applyPatch } from '../../core/merge-patch.js';
import { createTokenBucket } from '../../core/token-bucket.js';
import {
  CLIENT_RATE,
  CLOSE,
  DEAD_LINK_MS,
  FLOOD_CLOSE_AFTER,
  HEARTBEAT_MS,
  MAX_CLIENT_MESSAGE_BYTES,
  PROTOCOL_VERSION,
} from '../../core/constants.js';
import { isId } from '../../core/values.js';

/**
 * What a transport provides for one connection.
 * @typedef {object} Link
 * @property {string} kind                           transport name: 'ws' | 'sse'
 * @property {(bytes: Buffer) => void} send         write one message in this kind's framing
 * @property {() => number} buffered                bytes accepted but not yet on the network
 * @property {(code: number, reason: string) => void} close
 * @property {string} [address]                     the peer's network address (per-address caps)
 */

/**
 * One serialized server message. `bytes` caches its framing per transport kind, so a change is
 * serialized once and framed once per kind, whatever the number of connections.
 * @typedef {object} Message
 * @property {string} type    the envelope's type
 * @property {number} seq
 * @property {string} id      `epoch:seq` for snapshot and delta, '' for messages without state
 * @property {string} text    the JSON envelope
 * @property {Map<string, Buffer>} bytes
 */

/** @typedef {import('../http/metrics.js').HubMetrics} HubMetrics */

/**
 * @typedef {object} TapSource  where a tap came from
 * @property {string} address   the peer's network address
 * @property {object | string} connection  the connection it came on (a WebSocket session, an HTTP
 *   socket), or for an HTTP tap through a trusted proxy, whose sockets carry many phones' requests,
 *   a string naming its client and device
 */

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
 * @property {number} [pollersPerAddress]  polling client ids counted per address (0: no limit):
 *   invented ids cannot inflate the audience figure beyond it
 */

/**
 * Who sent a client message: the peer's address, and what tells its sender apart (the
 * connection's session, or for HTTP reports the address and page id).
 * @typedef {{ address: string, connection: unknown }} Source
 */

/** @typedef {{ ok: true, id: string, tile?: string | null } | { ok: false, error: import('../../core/errors.js').ErrorValue }} TapResult */

/**
 * Frames a message for one transport kind.
 * @typedef {(msg: Message) => Buffer} Framer
 */

/** @type {Framer} */
const frameText = (msg) => Buffer.from(msg.text);

/** A polling client counts as connected this long after its last poll. */
export const POLLER_TTL_MS = 30_000;
/** Polling clients remembered at most (bounded memory whatever the ids sent). */
const MAX_POLLERS = 100_000;

/**
 * @param {HubOptions} options
 */
// biome-ignore lint/complexity/noExcessiveLinesPerFunction: to be split: history, fan-out and the link registry
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
  pollersPerAddress = 0,
}) {
  /** @type {Map<string, Framer>} */
  const framers = new Map([['ws', frameText]]);
  /** @type {Set<Session>} */
  const sessions = new Set();
  /** @type {Message[]} the history, oldest first, contiguous seqs */
  let ring = [];
  let ringBytes = 0;
  let epoch = '';
  let seq = -1;
  /** @type {any} */
  let state = null;
  /** @type {Message | null} */
  let snapshotCache = null;
  /** Long polls waiting for the next change. */
  /** @type {Set<() => void>} */
  const waiters = new Set();
  /** Polling clients (stateless on the wire) by their id: view and last poll time. */
  /** @type {Map<string, { view: string, at: number, address: string }>} */
  const pollers = new Map();
  /** Polling client ids per address, for pollersPerAddress. */
  /** @type {Map<string, number>} */
  const pollersAt = new Map();
  /** @param {string} id */
  function forgetPoller(id) {
    const p = pollers.get(id);
    if (!p) return;
    pollers.delete(id);
    const n = (pollersAt.get(p.address) ?? 1) - 1;
    if (n > 0) pollersAt.set(p.address, n);
    else pollersAt.delete(p.address);
  }

  /**
   * @param {Record<string, unknown> & { type: string }} envelope
   * @param {boolean} [withId] a state message: carries `epoch:seq` as its id
   * @returns {Message}
   */
  const message = (envelope, withId = false) => ({
    type: envelope.type,
    seq,
    id: withId ? `${epoch}:${seq}` : '',
    text: encode(envelope),
    bytes: new Map(),
  });

  /**
   * This kind's framing of a message, built once.
   * @param {Message} msg
   * @param {string} kind
   */
  function framed(msg, kind) {
    let b = msg.bytes.get(kind);
    if (!b) {
      const framer = framers.get(kind) ?? frameText;
      b = framer(msg);
      msg.bytes.set(kind, b);
    }
    return b;
  }

  function snapshot() {
    if (!snapshotCache || snapshotCache.id !== `${epoch}:${seq}`) {
      snapshotCache = message({ type: 'snapshot', epoch, seq, t: now(), state }, true);
    }
    return snapshotCache;
  }

  /**
   * Messages that bring a client holding (e, s) up to date (doc/protocol.md, "Resync").
   * @param {string | null} e
   * @param {number} s
   * @returns {Message[]}
   */
  function resync(e, s) {
    if (e === epoch) {
      if (s === seq) return [];
      const oldest = ring.length > 0 ? ring[0].seq : seq + 1;
      if (s < seq && s + 1 >= oldest) {
        const missed = ring.slice(s + 1 - oldest);
        // A client away long enough to miss more bytes than the whole state (a phone back from a
        // roaming cut or a sleep, on the congested link that cut it) gets the state instead: fewer
        // bytes to wait for, and no past beats replayed one by one before the present one. In the
        // venue lab, 10 pages back from a 7 s cut waited behind ~100 KB of page changes each and
        // then drew live beats 600 ms late for seconds.
        let bytes = 0;
        for (const m of missed) bytes += m.text.length;
        if (bytes > replayBytes && bytes > snapshot().text.length) return [snapshot()];
        return missed;
      }
    }
    return [snapshot()];
  }

  /** @param {Message} msg */
  function remember(msg) {
    ring.push(msg);
    ringBytes += msg.text.length;
    let drop = 0;
    while (ring.length - drop > historySize || (ringBytes > historyBytes && ring.length - drop > 1)) {
      ringBytes -= ring[drop].text.length;
      drop++;
    }
    if (drop > 0) ring = ring.slice(drop);
  }

  /**
   * Send one message to every connection that keeps up; manage those that do not.
   * @param {Message} msg
   * @param {boolean} isState  a snapshot or delta (behind connections recover on these)
   */
  function broadcast(msg, isState) {
    const t = now();
    // Any message is a heartbeat: the next one is due HEARTBEAT_MS after this.
    heartbeatTimer.refresh();
    /** @type {Map<string, {n: number, bytes: number}>} */
    const counts = new Map();
    for (const session of sessions) {
      const { link } = session;
      const queued = link.buffered();
      let out = msg;
      if (session.behind) {
        if (queued > dropBytes || t - session.behindSince > behindMs) {
          session.drop();
          continue;
        }
        if (!isState || queued > behindBytes / 2) continue;
        // Latest state wins: the connection drained, it gets the newest state whole.
        session.behind = false;
        out = snapshot();
      } else if (queued > behindBytes) {
        session.behind = true;
        session.behindSince = t;
        continue;
      }
      const bytes = framed(out, link.kind);
      link.send(bytes);
      const c = counts.get(link.kind);
      if (c) {
        c.n++;
        c.bytes += bytes.length;
      } else counts.set(link.kind, { n: 1, bytes: bytes.length });
    }
    for (const [kind, c] of counts) metrics.sent?.(kind, c.n, c.bytes);
  }

  /** @param {import('./bus.js').StateChange} change */
  function onChange(change) {
    const fresh = change.epoch !== epoch || change.seq !== seq + 1 || change.patch === null;
    epoch = change.epoch;
    seq = change.seq;
    state = change.state ?? applyPatch(state, change.patch);
    if (fresh) {
      // A new epoch, or a gap the bus could not fill: history restarts here.
      ring = [];
      ringBytes = 0;
      broadcast(snapshot(), true);
    } else {
      const msg = message({ type: 'delta', epoch, seq, t: change.t, patch: change.patch }, true);
      remember(msg);
      broadcast(msg, true);
    }
    metrics.pushLag?.((now() - change.t) / 1000);
    for (const wake of waiters) wake();
    waiters.clear();
  }

  // A heartbeat goes out only when nothing else has for HEARTBEAT_MS: a busy stream is its own
  // heartbeat (at 1,500 clients the idle heartbeats cost as much CPU as the music). Every
  // broadcast pushes this timer back, so while the music plays it never wakes the server (each
  // wakeup costs about 0.08 ms of CPU on these machines: bench/RESULTS.md, "Idle cost"), and a
  // connection that keeps up never waits longer than HEARTBEAT_MS for a message.
  const heartbeatTimer = setInterval(() => {
    broadcast(message({ type: 'heartbeat', epoch, seq, t: now() }), false);
  }, HEARTBEAT_MS);
  heartbeatTimer.unref?.();

  const latest = bus.latest();
  if (latest) onChange({ ...latest, patch: null });
  const unsubscribe = bus.subscribe(onChange);

  /** One connection's bookkeeping. */
  class Session {
    /** @param {Link} link @param {string} view */
    constructor(link, view) {
      this.link = link;
      this.view = view;
      this.behind = false;
      this.behindSince = 0;
      this.bucket = createTokenBucket(CLIENT_RATE, now());
      this.rejected = 0;
      this.closed = false;
      /** Who sent what this connection receives: its address, and itself as the connection. */
      this.source = { address: link.address ?? '', connection: this };
    }

    /** @param {Message} msg */
    send(msg) {
      if (!this.closed) this.link.send(framed(msg, this.link.kind));
    }

    /**
     * A direct answer to this client (pong, voted, error, a hello's resync). It obeys the
     * "behind" rule like a broadcast (doc/protocol.md, "Backpressure"): a connection that is
     * behind, or whose unsent bytes pass behindBytes, gets nothing more until it drains, and
     * then the newest state whole; a client that never reads cannot grow our buffers by asking.
     * @param {Message} msg
     * @returns {boolean} whether it was sent
     */
    reply(msg) {
      if (this.closed || this.behind) return false;
      if (this.link.buffered() > behindBytes) {
        this.behind = true;
        this.behindSince = now();
        return false;
      }
      this.send(msg);
      return true;
    }

    /** @param {import('../../core/errors.js').ErrorValue} error */
    sendError(error) {
      this.reply(message({ type: 'error', t: now(), ...error }));
    }

    /**
     * Bring this connection up to date from what it holds.
     * @param {string | null} e
     * @param {number} s
     */
    resync(e, s) {
      for (const msg of resync(e, s)) if (!this.reply(msg)) return;
    }

    /**
     * A message from the client (WebSocket). Never throws; every refusal is an error envelope.
     * @param {string | Buffer | ArrayBuffer | Buffer[]} raw
     * @param {boolean} isBinary
     */
    receive(raw, isBinary) {
      if (this.closed) return;
      if (!this.bucket.take(now())) {
        this.rejected++;
        if (this.rejected >= FLOOD_CLOSE_AFTER) {
          this.close(CLOSE.FLOOD, 'SC_ERR_FLOOD');
          return;
        }
        // Answer only the first refusals of a burst: a flood must not make us flood back.
        if (this.rejected <= CLIENT_RATE.burst) this.sendError(errorValue('SC_ERR_RATE_LIMITED'));
        return;
      }
      const data = Array.isArray(raw) ? Buffer.concat(raw) : raw;
      const size = typeof data === 'string' ? Buffer.byteLength(data) : data.byteLength;
      if (size > MAX_CLIENT_MESSAGE_BYTES) {
        this.sendError(errorValue('SC_ERR_TOO_BIG'));
        return;
      }
      const decoded = decodeClientMessage(typeof data === 'string' ? data : new Uint8Array(data), isBinary);
      if (!decoded.ok) {
        this.sendError(decoded.error);
        return;
      }
      const msg = decoded.value;
      switch (msg.type) {
        case 'hello':
          if (isId(msg.view)) this.view = msg.view;
          this.resync(msg.epoch, msg.seq);
          break;
        case 'report': {
          const refused = onReport?.(this.link.kind, this.view, msg, this.source);
          if (refused) this.sendError(refused);
          break;
        }
        case 'ping':
          this.reply(message({ type: 'pong', id: msg.id, t0: msg.t0, t: now() }));
          break;
        case 'tap': {
          const answer = (/** @type {TapResult} */ result) => {
            if (result.ok)
              this.reply(
                message({
                  type: 'voted',
                  t: now(),
                  window: result.id,
                  tile: result.tile !== undefined ? result.tile : String(msg.tile),
                }),
              );
            else this.sendError(result.error);
          };
          const result = onTap
            ? onTap(msg, this.source)
            : { ok: /** @type {const} */ (false), error: errorValue('SC_ERR_NO_VOTE_WINDOW') };
          if (result instanceof Promise)
            result.then(answer, () => answer({ ok: false, error: errorValue('SC_ERR_INTERNAL') }));
          else answer(result);
          break;
        }
      }
    }

    /**
     * @param {number} code
     * @param {string} reason
     */
    close(code, reason) {
      if (this.closed) return;
      this.detach();
      this.link.close(code, reason);
    }

    drop() {
      metrics.dropped?.(this.link.kind, 'too_slow');
      this.close(CLOSE.TOO_SLOW, 'SC_ERR_TOO_SLOW');
    }

    detach() {
      if (this.closed) return;
      this.closed = true;
      sessions.delete(this);
      metrics.clients?.(this.link.kind, -1);
      onClose?.(this.source);
    }
  }

  return {
    get epoch() {
      return epoch;
    },
    get seq() {
      return seq;
    },
    get state() {
      return state;
    },
    get size() {
      return sessions.size;
    },
    /** The resync history: deltas held and their JSON bytes (bounded by historySize/historyBytes). */
    get history() {
      return { deltas: ring.length, bytes: ringBytes };
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
      const since = now() - POLLER_TTL_MS;
      for (const [id, p] of pollers) {
        if (p.at < since) forgetPoller(id);
        else add('poll', p.view);
      }
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
      // A phone's IPv6 privacy addresses are all in its /64: it counts there, and does not move.
      const address = addressKey(from);
      // The map is in order of last poll (a poll moves its id to the end): ids that stopped
      // polling are at the front, and go first, at a cost of one step per id forgotten.
      const since = now() - POLLER_TTL_MS;
      for (const [other, p] of pollers) {
        if (p.at >= since) break;
        forgetPoller(other);
      }
      const moved = pollers.get(id)?.address !== address;
      if (moved && pollersPerAddress > 0 && (pollersAt.get(address) ?? 0) >= pollersPerAddress) return false;
      forgetPoller(id);
      if (pollers.size >= MAX_POLLERS) forgetPoller(/** @type {string} */ (pollers.keys().next().value));
      pollers.set(id, { view, at: now(), address });
      pollersAt.set(address, (pollersAt.get(address) ?? 0) + 1);
      return true;
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
      const session = new Session(link, holds.view ?? 'unknown');
      sessions.add(session);
      metrics.clients?.(link.kind, 1);
      session.send(
        message({
          type: 'welcome',
          epoch,
          seq,
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

    resync,

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
      return session.reply(message({ ...envelope, t: now() }));
    },

    /**
     * A message for every connection (the console's action on all devices), framed once per
     * transport kind; connections that are behind skip it.
     * @param {{ type: string } & Record<string, unknown>} envelope  without `t` (added here)
     * @returns {number} connections it was written to
     */
    tellAll(envelope) {
      let n = 0;
      const msg = message({ ...envelope, t: now() });
      for (const session of sessions) if (session.reply(msg)) n++;
      return n;
    },

    /** A heartbeat message for the current seq (polling answers it to a live client). */
    heartbeat: () => message({ type: 'heartbeat', epoch, seq, t: now() }),

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
      clearInterval(heartbeatTimer);
      unsubscribe();
      for (const wake of waiters) wake();
      for (const s of [...sessions]) s.close(CLOSE.GOING_AWAY, 'server shutting down');
    },
  };
}

/** @typedef {ReturnType<typeof createHub>} Hub */
/** @typedef {ReturnType<Hub['attach']>} HubSession */

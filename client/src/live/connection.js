// The connection manager: picks a transport, keeps the state stream in order, notices dead links
// and reconnects. Everything platform-specific is injected, so vitest drives it
// in Node with fake sockets and a hand-turned clock.

import { DEAD_LINK_MS, HEARTBEAT_MS } from '../../../core/constants.js';
import { BACKOFF, backoffDelay } from './backoff.js';
import { StreamState } from './stream-state.js';
import { LinkProbe, PROBE_AFTER_MS, PROBE_BEAT_MARGIN_MS } from './link-probe.js';
import { TRANSPORT_ORDER, createTransport, isTransportName, nextTransportName } from './transports/index.js';

/** Attempts in a row that end before delivering any message, after which the next transport is tried. */
export const FAILURES_BEFORE_FALLBACK = 2;

/**
 * Failed attempts in a row of a transport that has worked before, after which the connection
 * asks whether plain HTTP gets through: if it does, this transport is blocked where the page is
 * now (a phone that roamed onto a network whose firewall refuses WebSockets), and the next one
 * is tried; if not, the network is down and the transport is kept.
 */
export const FAILURES_BEFORE_BLOCK_CHECK = 3;

/** A block check that has no answer within this long decides nothing (ms); the next streak asks again. */
export const BLOCK_CHECK_TIMEOUT_MS = 3000;

/**
 * A page back from being hidden or frozen whose link was silent longer than it normally is
 * (#probeAfterMs) gives the messages the browser held for it this long (ms) to arrive; if none
 * does, the socket died while the page was away (a locked phone whose access point dropped it,
 * a link cut while frozen) and it reconnects at once, instead of waiting for the dead-link timer
 * (DEAD_LINK_MS after the last message it heard: up to 5 s after the return). A live socket's
 * held messages arrive within a few ms of the return, on loopback and on WiFi alike.
 */
export const RETURN_CHECK_MS = 250;

/** Length of the log of applied changes kept for tests and debugging. */
export const EVENT_LOG_SIZE = 500;

/**
 * After asking for a resync, further gaps are expected until the answer arrives; ask again only
 * if nothing was applied for this long (one heartbeat period: the next heartbeat shows the gap).
 */
export const RESYNC_RETRY_MS = HEARTBEAT_MS;

/** @typedef {'connecting' | 'live' | 'reconnecting' | 'offline'} LinkState */

/**
 * @typedef {object} AppliedEvent one applied snapshot or delta
 * @property {string} epoch
 * @property {number} seq
 * @property {'snapshot' | 'delta'} type
 */

/**
 * @typedef {object} EventTargetLike the page's `window`, for online/offline/visibilitychange/pageshow
 * @property {(type: string, listener: () => void) => void} addEventListener
 * @property {(type: string, listener: () => void) => void} removeEventListener
 */

/**
 * Everything platform-specific the connection uses.
 * @typedef {object} ConnectionEnv
 * @property {import('./transports/index.js').WebSocketCtor} [WebSocket] missing: that transport is skipped
 * @property {import('./transports/index.js').EventSourceCtor} [EventSource]
 * @property {import('./transports/index.js').FetchFn} [fetch]
 * @property {import('./transports/index.js').Timers} timers
 * @property {() => number} now milliseconds, monotonic (performance.now in a browser)
 * @property {() => number} random uniform in [0, 1)
 * @property {EventTargetLike} window
 * @property {{ readonly visibilityState: string } & Partial<EventTargetLike>} document  its
 *   `freeze` and `resume` events (Page Lifecycle) are listened to where it has addEventListener
 * @property {import('./transports/index.js').Log} [log] default: silent
 */

/**
 * @typedef {object} ConnectionOptions
 * @property {string} baseUrl http(s) origin of the server, e.g. `location.origin`
 * @property {ConnectionEnv} env
 * @property {string} [transport] transport to start with (`?transport=` in the page URL); fallback
 *   still applies if it does not work. Unknown names are ignored.
 * @property {string} [view] the view this client shows, sent in live URLs and hellos
 * @property {string} [clientId] this page's id, sent by polling (the server counts pollers by it)
 * @property {number} [deadLinkMs] silence after which the link is dead; default DEAD_LINK_MS
 * @property {{ baseMs: number, capMs: number }} [backoff] default BACKOFF
 * @property {boolean} [probe] while a live link is silent, ask over HTTP whether the network is
 *   back and reconnect as soon as it is (link-probe.js: a roaming phone); needs env.fetch; default false
 */

/**
 * What listeners receive: `state` and `link` pass the connection, `pong` the server's answer to
 * a ping (for clock sync, later).
 * @typedef {{ state: Connection, link: Connection, pong: import('../../../core/protocol.js').Envelope, message: import('../../../core/protocol.js').Envelope, command: import('../../../core/protocol.js').Envelope }} ConnectionEvents
 *   command: the console's action on this device (resync, reload, attention: server/live/roster.js)
 */

/** A live connection to the scorecast server. Construct, subscribe with on(), then start(). */
export class Connection {
  #env;
  /** A block check is under way (#checkBlocked). */
  #checking = false;
  #baseUrl;
  #view;
  #clientId;
  #deadLinkMs;
  #backoff;
  #log;
  #stream = new StreamState();
  /** @type {import('./transports/index.js').Position} */
  #position;
  /** @type {AppliedEvent[]} */
  #events = [];
  /** @type {Map<keyof ConnectionEvents, Set<(detail: any) => void>>} */
  #listeners = new Map();

  /** @type {LinkState} */
  #link = 'connecting';
  /** Name of the transport in use, or about to be tried. */
  #name;
  /**
   * The first transport that delivered a message. From then on it is kept for the page's
   * lifetime: its later failures are the network's, not the transport's.
   * @type {string | null}
   */
  #working = null;
  /** @type {import('./transports/index.js').Transport | null} */
  #transport = null;
  /** Whether the current transport has delivered a message since it was opened. */
  #delivered = false;
  #everLive = false;
  #failures = 0;
  #attempt = 0;
  #offline = false;
  #started = false;
  #lastMessageAt = -Infinity;
  /** @type {number | null} when the pending resync was asked for */
  #resyncAt = null;
  /** @type {any} */
  #retryTimer = null;
  /** @type {any} */
  #deadTimer = null;
  /** @type {Array<[string, () => void]>} */
  #windowListeners;
  /** @type {LinkProbe | null} */
  #probe = null;
  /** @type {any} */
  #probeTimer = null;
  /** When the page was last hidden or frozen (env.now), until it is back. @type {number | null} */
  #awayAt = null;
  /** @type {any} */
  #returnTimer = null;
  /** @type {Array<[string, () => void]>} */
  #documentListeners;

  /** @param {ConnectionOptions} options */
  constructor(options) {
    if (!options || typeof options.baseUrl !== 'string' || !options.env) {
      throw new TypeError('Connection: pass { baseUrl, env }; see ConnectionOptions in client/src/live/connection.js');
    }
    this.#env = options.env;
    this.#baseUrl = options.baseUrl;
    this.#view = options.view;
    this.#clientId = options.clientId;
    this.#deadLinkMs = options.deadLinkMs ?? DEAD_LINK_MS;
    this.#backoff = options.backoff ?? BACKOFF;
    this.#log = options.env.log ?? (() => {});
    if (options.probe && this.#env.fetch) {
      this.#probe = new LinkProbe({
        fetch: this.#env.fetch,
        url: new URL('/api/time', this.#baseUrl).href,
        timers: this.#env.timers,
        now: this.#env.now,
        random: this.#env.random,
        onBack: () => this.#networkBack(),
        onGiveUp: () => {
          if (this.#started && !this.#transport) this.#connect();
        },
      });
    }
    const forced = options.transport;
    if (forced !== undefined && !isTransportName(forced)) {
      this.#log(`unknown transport "${forced}" ignored; use one of ${TRANSPORT_ORDER.join(', ')}`);
    }
    this.#name = isTransportName(forced) ? forced : TRANSPORT_ORDER[0];
    const stream = this.#stream;
    // A live view: polling reads it before each request, so it always resumes from what we hold.
    this.#position = Object.freeze({
      get epoch() {
        return stream.epoch;
      },
      get seq() {
        return stream.seq;
      },
    });
    this.#windowListeners = [
      // Back on a network, perhaps another one: the failures before say nothing about it, so the
      // backoff starts over (a phone that roamed tries again within seconds, not tens of them).
      [
        'online',
        () => {
          this.#offline = false;
          this.#attempt = 0;
          this.#wake('online');
        },
      ],
      [
        'offline',
        () => {
          this.#offline = true;
          this.#setLink('offline');
        },
      ],
      [
        'visibilitychange',
        () => {
          if (this.#env.document.visibilityState === 'visible') this.#back('visible');
          else this.#away();
        },
      ],
      ['pageshow', () => this.#back('pageshow')],
    ];
    // A page frozen while in front (Page Lifecycle) is away too, with no visibilitychange.
    this.#documentListeners = [
      ['freeze', () => this.#away()],
      ['resume', () => this.#back('resume')],
    ];
  }

  /** The held state, or null before the first snapshot. Do not mutate it. */
  get state() {
    return this.#stream.state;
  }
  /** @returns {string | null} */
  get epoch() {
    return this.#stream.epoch;
  }
  get seq() {
    return this.#stream.seq;
  }
  /** Name of the transport in use (or being tried). */
  get transport() {
    return this.#name;
  }
  /** @returns {LinkState} */
  get linkState() {
    return this.#link;
  }
  /** The last EVENT_LOG_SIZE applied changes, oldest first (a copy). */
  get events() {
    return this.#events.slice();
  }

  /**
   * Subscribe to changes.
   * @template {keyof ConnectionEvents} K
   * @param {K} type
   * @param {(detail: ConnectionEvents[K]) => void} listener
   * @returns {() => void} unsubscribe
   */
  on(type, listener) {
    let set = this.#listeners.get(type);
    if (!set) this.#listeners.set(type, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
    };
  }

  /** Connect and listen to the page's network and visibility events. Idempotent. */
  start() {
    if (this.#started) return;
    this.#started = true;
    for (const [type, fn] of this.#windowListeners) this.#env.window.addEventListener(type, fn);
    for (const [type, fn] of this.#documentListeners) this.#env.document.addEventListener?.(type, fn);
    this.#connect();
  }

  /** Close the link and stop reconnecting. */
  stop() {
    if (!this.#started) return;
    this.#started = false;
    for (const [type, fn] of this.#windowListeners) this.#env.window.removeEventListener(type, fn);
    for (const [type, fn] of this.#documentListeners) this.#env.document.removeEventListener?.(type, fn);
    this.#clearReturnCheck();
    this.#clearRetry();
    this.#probe?.stop();
    this.#dropTransport();
  }

  /**
   * Send a client message (ping, tap) on the current transport.
   * @param {import('../../../core/protocol.js').ClientMessage} message
   * @returns {boolean} false when the transport cannot send (not WebSocket, or not open)
   */
  send(message) {
    const t = this.#transport;
    return t?.send ? t.send(message) : false;
  }

  /**
   * Forget the held position and take the whole state again (the console's resync): the next
   * snapshot replaces the state, whatever its seq.
   */
  refresh() {
    this.#stream.forget();
    this.#resyncAt = null;
    this.#resync(/** @type {any} */ ({ type: 'command', epoch: null, seq: 0 }));
  }

  /**
   * The page noticed it had been suspended for `awayMs` with no event to say so (a timer that
   * fired that late, client/src/time/wake-watch.js): check the link as on a return.
   * @param {number} awayMs
   */
  resumed(awayMs) {
    this.#awayAt ??= this.#env.now() - Math.max(0, awayMs);
    this.#back('resume');
  }

  /** The page is hidden or frozen: its link may die unnoticed meanwhile (#back checks it). */
  #away() {
    this.#awayAt ??= this.#env.now();
    this.#clearReturnCheck();
  }

  /**
   * The page is in front again (shown, restored from the back/forward cache, or unfrozen).
   * @param {'visible' | 'pageshow' | 'resume'} why
   */
  #back(why) {
    const wasAway = this.#awayAt !== null;
    this.#awayAt = null;
    this.#wake(why);
    if (!wasAway || !this.#started || !this.#transport || !this.#delivered || this.#transport.holdMs !== 0) return;
    // #wake kept a link that looks live: if it was silent longer than it should be, check it soon.
    if (this.#env.now() - this.#lastMessageAt <= this.#probeAfterMs()) return;
    const returnedAt = this.#env.now();
    const t = this.#transport;
    this.#clearReturnCheck();
    this.#returnTimer = this.#env.timers.setTimeout(() => {
      this.#returnTimer = null;
      if (!this.#started || this.#transport !== t || this.#lastMessageAt >= returnedAt) return;
      this.#log(`${this.#name} silent since the page came back (${why}): reconnecting at once`);
      this.#dropTransport();
      this.#attempt = 0;
      this.#setLink(this.#waitingState());
      this.#connect();
    }, RETURN_CHECK_MS);
  }

  #clearReturnCheck() {
    if (this.#returnTimer !== null) this.#env.timers.clearTimeout(this.#returnTimer);
    this.#returnTimer = null;
  }

  /**
   * Reconnect now, skipping any pending backoff. Does nothing while the link
   * is live and was heard from within the dead-link time. An attempt already under way is let run
   * (its dead-link timer bounds it: `pageshow` also fires on every first load), except on `online`:
   * that attempt may have been made on the network that just went away.
   * @param {'online' | 'visible' | 'pageshow' | 'resume'} why
   */
  #wake(why) {
    if (!this.#started) return;
    if (this.#transport && (this.#delivered ? this.#isLive() : why !== 'online')) return;
    this.#log(`reconnecting at once (${why})`);
    this.#dropTransport();
    this.#setLink(this.#waitingState());
    this.#connect();
  }

  #connect() {
    // Whatever made us connect now, a pending backoff retry is superseded.
    this.#clearRetry();
    const t = createTransport(this.#name, {
      baseUrl: this.#baseUrl,
      view: this.#view,
      clientId: this.#clientId,
      WebSocket: this.#env.WebSocket,
      EventSource: this.#env.EventSource,
      fetch: this.#env.fetch,
      timers: this.#env.timers,
      now: this.#env.now,
      log: this.#log,
    });
    this.#transport = t;
    this.#delivered = false;
    this.#resyncAt = null;
    // Callbacks of a transport we have let go of are ignored: only the current one counts.
    t.onopen = () => {};
    t.onmessage = (envelope) => {
      if (this.#transport === t) this.#onMessage(envelope);
    };
    t.onclose = (info) => {
      if (this.#transport === t) this.#onClose(info);
    };
    // Armed before the first message too: a connection attempt that hangs (a blocked WebSocket
    // that never opens nor fails) is a failure after the same time.
    this.#armDeadLink();
    this.#emit('link', this);
    t.open(this.#position);
  }

  /** @param {import('../../../core/protocol.js').Envelope} envelope */
  #onMessage(envelope) {
    this.#probe?.stop();
    this.#lastMessageAt = this.#env.now();
    this.#armDeadLink();
    if (!this.#delivered) {
      this.#delivered = true;
      this.#everLive = true;
      this.#attempt = 0;
      this.#failures = 0;
      if (this.#working === null) this.#working = this.#name;
    }
    this.#armProbe();
    // A message is proof the link works, whatever the browser's online flag says.
    this.#offline = false;
    this.#setLink('live');
    this.#emit('message', envelope);
    if (envelope.type === 'pong') {
      this.#emit('pong', envelope);
      return;
    }
    if (envelope.type === 'error') {
      this.#log('the server refused a message', envelope);
      return;
    }
    if (envelope.type === 'command') {
      this.#emit('command', envelope);
      return;
    }
    const verdict = this.#stream.receive(envelope);
    if (verdict === 'applied') {
      this.#resyncAt = null;
      this.#events.push({
        epoch: /** @type {string} */ (this.#stream.epoch),
        seq: this.#stream.seq,
        type: /** @type {'snapshot' | 'delta'} */ (envelope.type),
      });
      if (this.#events.length > EVENT_LOG_SIZE) this.#events.shift();
      // Again, now that the state says whether a beat is due (#probeAfterMs).
      this.#armProbe();
      this.#emit('state', this);
    } else if (verdict === 'resync') {
      this.#resync(envelope);
    }
  }

  /** @param {import('../../../core/protocol.js').Envelope} cause */
  #resync(cause) {
    const now = this.#env.now();
    if (this.#resyncAt !== null && now - this.#resyncAt < RESYNC_RETRY_MS) return;
    this.#resyncAt = now;
    const t = this.#transport;
    if (!t) return;
    this.#log(`resync: hold ${this.#stream.epoch}:${this.#stream.seq}, got ${cause.type} ${cause.epoch}:${cause.seq}`);
    if (!t.resync(this.#position)) {
      // The transport could not ask (socket closing): a new connection carries the resume point.
      this.#dropTransport();
      this.#connect();
    }
  }

  /** @param {import('./transports/index.js').CloseInfo} info */
  #onClose(info) {
    const delivered = this.#delivered;
    // A live link that the other side closed: the network works, the backoff decides.
    if (delivered) this.#probe?.stop();
    this.#log(`${this.#name} closed: ${info.reason}`);
    this.#dropTransport();
    if (info.fatal) {
      this.#fallBack();
    } else if (!delivered && this.#working === null && !this.#offline) {
      // While searching for a transport that works. Failures while the browser says it is
      // offline say nothing about the transport.
      this.#failures += 1;
      if (this.#failures >= FAILURES_BEFORE_FALLBACK) this.#fallBack();
    } else if (!delivered && !this.#offline) {
      // A transport that has worked: its failures are usually the network's (a lost access
      // point), and it is kept, unless plain HTTP gets through while it does not.
      this.#failures += 1;
      if (this.#failures % FAILURES_BEFORE_BLOCK_CHECK === 0) this.#checkBlocked();
    }
    this.#setLink(this.#waitingState());
    this.#scheduleRetry();
  }

  /** Does plain HTTP reach the server while the current transport does not? Then move on. */
  #checkBlocked() {
    const fetch = this.#env.fetch;
    const name = this.#name;
    if (!fetch || name === TRANSPORT_ORDER[TRANSPORT_ORDER.length - 1]) return;
    // One at a time, every FAILURES_BEFORE_BLOCK_CHECK failures. A check that hangs (a
    // blackholed network, or a pooled connection of the network the phone left) is given up
    // after BLOCK_CHECK_TIMEOUT_MS and decides nothing; the next streak asks again.
    if (this.#checking) return;
    this.#checking = true;
    const abort = new AbortController();
    const timers = this.#env.timers;
    const timer = timers.setTimeout(() => abort.abort(), BLOCK_CHECK_TIMEOUT_MS);
    const done = () => {
      this.#checking = false;
      timers.clearTimeout(timer);
    };
    fetch(new URL('/api/time', this.#baseUrl).href, { signal: abort.signal, headers: {} }).then(
      (res) => {
        done();
        const reached = res.status >= 200 && res.status < 300;
        if (!reached || !this.#started || this.#name !== name || this.#delivered) return;
        this.#log(`HTTP reaches the server but ${name} does not: it is blocked here`);
        this.#working = null;
        this.#fallBack();
      },
      () => {
        done(); /* the network is down, or no answer in time: keep the transport */
      },
    );
  }

  #fallBack() {
    const next = nextTransportName(this.#name);
    this.#log(`falling back from ${this.#name} to ${next}`);
    this.#name = next;
    this.#failures = 0;
  }

  #onDeadLink() {
    this.#deadTimer = null;
    if (!this.#transport) return;
    if (!this.#delivered) {
      this.#onClose({ reason: 'no message in time', fatal: false });
      return;
    }
    // An open socket that went silent (a phone that lost its access point): reconnect at once.
    this.#log(`${this.#name} silent for ${this.#silenceMs()} ms: dead link`);
    this.#dropTransport();
    this.#setLink(this.#waitingState());
    // While the probe asks, an attempt of ours would lose its SYN and hold the browser's one
    // connecting WebSocket per host: the probe's answer (or its giving up) reconnects.
    if (this.#probe?.active) return;
    this.#connect();
  }

  /** The probe got an answer: the network is back. Reconnect now, from the held position. */
  #networkBack() {
    if (!this.#started) return;
    this.#log('the server answers over HTTP again: reconnecting at once');
    this.#dropTransport();
    this.#attempt = 0;
    this.#setLink(this.#waitingState());
    this.#connect();
  }

  /** After a message on a link that holds no silence on purpose (not a long poll): probe if it goes quiet. */
  #armProbe() {
    if (!this.#probe || this.#transport?.holdMs !== 0) return;
    if (this.#probeTimer !== null) this.#env.timers.clearTimeout(this.#probeTimer);
    this.#probeTimer = this.#env.timers.setTimeout(() => {
      this.#probeTimer = null;
      this.#probe?.start();
    }, this.#probeAfterMs());
  }

  /**
   * Silence after which the probe starts: PROBE_AFTER_MS, or a beat and PROBE_BEAT_MARGIN_MS while
   * the held state plays (the next beat's message is due within a beat of any message).
   */
  #probeAfterMs() {
    const s = /** @type {any} */ (this.#stream.state);
    const beatMs = s?.playback === 'playing' ? s.next?.t - s.beatT : Number.NaN;
    return Number.isFinite(beatMs) && beatMs > 0
      ? Math.min(PROBE_AFTER_MS, beatMs + PROBE_BEAT_MARGIN_MS)
      : PROBE_AFTER_MS;
  }

  #scheduleRetry() {
    this.#clearRetry();
    const delay = backoffDelay(this.#attempt, this.#env.random, this.#backoff);
    this.#attempt += 1;
    this.#retryTimer = this.#env.timers.setTimeout(() => {
      this.#retryTimer = null;
      if (this.#started) this.#connect();
    }, delay);
  }

  #clearRetry() {
    if (this.#retryTimer !== null) this.#env.timers.clearTimeout(this.#retryTimer);
    this.#retryTimer = null;
  }

  #armDeadLink() {
    if (this.#deadTimer !== null) this.#env.timers.clearTimeout(this.#deadTimer);
    this.#deadTimer = this.#env.timers.setTimeout(() => this.#onDeadLink(), this.#silenceMs());
  }

  /** Longest normal silence on the current transport. */
  #silenceMs() {
    return this.#deadLinkMs + (this.#transport?.holdMs ?? 0);
  }

  /**
   * Live and heard from lately. The time is checked too: in a background tab timers are throttled,
   * so the dead-link timer of a link that died meanwhile may not have fired yet.
   */
  #isLive() {
    return (
      this.#transport !== null && this.#link === 'live' && this.#env.now() - this.#lastMessageAt < this.#silenceMs()
    );
  }

  /** Close the current transport, if any, without counting it as a failure. */
  #dropTransport() {
    if (this.#deadTimer !== null) this.#env.timers.clearTimeout(this.#deadTimer);
    this.#deadTimer = null;
    if (this.#probeTimer !== null) this.#env.timers.clearTimeout(this.#probeTimer);
    this.#probeTimer = null;
    const t = this.#transport;
    this.#transport = null;
    if (t) t.close();
  }

  /** @returns {LinkState} */
  #waitingState() {
    if (this.#offline) return 'offline';
    return this.#everLive ? 'reconnecting' : 'connecting';
  }

  /** @param {LinkState} state */
  #setLink(state) {
    if (this.#link === state) return;
    this.#link = state;
    this.#emit('link', this);
  }

  /**
   * @template {keyof ConnectionEvents} K
   * @param {K} type
   * @param {ConnectionEvents[K]} detail
   */
  #emit(type, detail) {
    for (const listener of this.#listeners.get(type) ?? []) {
      // A failing view must not break the link.
      try {
        listener(detail);
      } catch (err) {
        this.#log(`a ${type} listener threw`, err);
      }
    }
  }
}

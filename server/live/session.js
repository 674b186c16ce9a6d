// One connection as the hub sees it: its Link, its view, whether it keeps up (the "behind" rule,
// doc/protocol.md "Backpressure"), its message rate, and what it asks for (hello, report, ping,
// tap). Every session of a hub shares one SessionContext: no closures per connection.

import { isUtf8 } from 'node:buffer';
import { errorValue } from '../../core/errors.js';
import { decodeClientMessage } from '../../core/protocol.js';
import { createTokenBucket } from '../../core/token-bucket.js';
import { wrapMs } from '../../core/wrapped-ms.js';
import {
  CLIENT_RATE,
  CLOSE,
  FLOOD_CLOSE_AFTER,
  FLOOD_QUIET_MS,
  MAX_CLIENT_MESSAGE_BYTES,
} from '../../core/constants.js';
import { isId } from '../../core/values.js';

/** @typedef {import('./message.js').Message} Message */

/**
 * What a transport provides for one connection.
 * @typedef {object} Link
 * @property {string} kind                           transport name: 'ws' | 'sse'
 * @property {(bytes: Buffer) => void} send         write one message in this kind's framing
 * @property {() => number} buffered                bytes accepted but not yet on the network
 * @property {(code: number, reason: string) => void} close
 * @property {string} [address]                     the peer's network address (per-address caps)
 * @property {() => number} [offerProof]             a token for a clock-sync pong that proves reading when echoed (WebSocket)
 * @property {(token: number) => void} [proofEchoed] a clock-sync ping echoed a token
 */

/**
 * @typedef {object} TapSource  where a tap came from
 * @property {string} address   the peer's network address
 * @property {object | string} connection  the connection it came on (a WebSocket session, an HTTP
 *   socket), or for an HTTP tap through a trusted proxy, whose sockets carry many phones' requests,
 *   a string naming its client and device
 */

/**
 * Who sent a client message: the peer's address, and what tells its sender apart (the
 * connection's session, or for HTTP reports the address and page id).
 * @typedef {{ address: string, connection: unknown }} Source
 */

/** @typedef {{ ok: true, id: string, tile?: string | null } | { ok: false, error: import('../../core/errors.js').ErrorValue }} TapResult */

/**
 * What every session of one hub shares.
 * @typedef {object} SessionContext
 * @property {Set<Session>} sessions     the hub's connections
 * @property {() => number} now
 * @property {number} behindBytes        a connection with more unsent bytes stops getting messages
 * @property {import('../http/metrics.js').HubMetrics} metrics
 * @property {(msg: Message, kind: string) => Buffer} framed
 * @property {import('./history.js').History} history
 * @property {((tap: import('../../core/protocol.js').TapMessage, from: TapSource) => TapResult | Promise<TapResult>) | undefined} onTap
 * @property {((kind: string, view: string, report: import('../../core/protocol.js').ReportMessage, from: Source) => import('../../core/errors.js').ErrorValue | null | void) | undefined} onReport
 * @property {((from: Source) => void) | undefined} onClose  a connection closed (the roster marks its device gone)
 * @property {((thumb: import('../../core/protocol.js').ThumbMessage, from: Source) => import('../../core/errors.js').ErrorValue | null) | undefined} onThumb
 *   a thumb for the audience meter: why it was not counted, or null (no answer then)
 */

/**
 * The text of UTF-8 bytes: Buffer's decoder, for a Buffer (what ws hands over) or a view on it.
 * @param {Uint8Array} bytes
 */
const textOf = (bytes) =>
  (Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)).toString('utf8');

/** A thumb on a hub that takes none (a cluster's node, a test's hub). */
const NO_THUMBS = Object.freeze(errorValue('SC_ERR_THUMBS_CLOSED', 'this server takes no thumbs'));

/** One connection's bookkeeping. */
export class Session {
  /** @param {SessionContext} hub @param {Link} link @param {string} view */
  constructor(hub, link, view) {
    this.hub = hub;
    this.link = link;
    this.view = view;
    this.behind = false;
    /** When it fell behind: whole ms modulo 2^30 (core/wrapped-ms.js), a small integer. */
    this.behindSince = 0;
    this.bucket = createTokenBucket(CLIENT_RATE, hub.now());
    this.rejected = 0;
    /** When the last message was rejected (the hub's clock). */
    this.rejectedAt = 0;
    this.closed = false;
  }

  /**
   * Who sent what this connection receives (a Source): the session itself, with its address and
   * itself as the connection; no object of its own per connection.
   */
  get source() {
    return this;
  }

  /** The peer's network address ('' when the transport has none). */
  get address() {
    return this.link.address ?? '';
  }

  /** This session, as the connection a message came on. */
  get connection() {
    return this;
  }

  /** @param {Message} msg */
  send(msg) {
    if (!this.closed) this.link.send(this.hub.framed(msg, this.link.kind));
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
    if (this.link.buffered() > this.hub.behindBytes) {
      this.behind = true;
      this.behindSince = wrapMs(this.hub.now());
      return false;
    }
    this.send(msg);
    return true;
  }

  /** @param {import('../../core/errors.js').ErrorValue} error */
  sendError(error) {
    this.reply(this.hub.history.message({ type: 'error', t: this.hub.now(), ...error }));
  }

  /**
   * Bring this connection up to date from what it holds.
   * @param {string | null} e
   * @param {number} s
   */
  resync(e, s) {
    for (const msg of this.hub.history.resync(e, s)) if (!this.reply(msg)) return;
  }

  /**
   * A message from the client (WebSocket). Never throws; every refusal is an error envelope.
   * @param {string | Buffer | ArrayBuffer | Buffer[]} raw
   * @param {boolean} isBinary
   */
  receive(raw, isBinary) {
    if (this.closed) return;
    const { now, history, onReport, onTap, onThumb } = this.hub;
    const t = now();
    if (!this.bucket.take(t)) {
      // A refusal after a quiet spell starts a new burst: the count, and its first answers, anew.
      if (t - this.rejectedAt > FLOOD_QUIET_MS) this.rejected = 0;
      this.rejectedAt = t;
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
    // A text frame of valid UTF-8 goes to the decoder as a string (Node's own check and decoding,
    // without copying the bytes); anything else as bytes, which the decoder refuses as before.
    const bytes = typeof data === 'string' ? null : data instanceof Uint8Array ? data : new Uint8Array(data);
    const decoded = decodeClientMessage(
      bytes === null ? /** @type {string} */ (data) : !isBinary && isUtf8(bytes) ? textOf(bytes) : bytes,
      isBinary,
    );
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
      case 'ping': {
        // The echo of the last pong's token proves reading (websocket.js, PROOF_TOKEN_MAX); the
        // answer offers the next one, on transports that prove reading.
        const { link } = this;
        if (msg.proof !== undefined) link.proofEchoed?.(msg.proof);
        const pong = { type: 'pong', id: msg.id, t0: msg.t0, t: now() };
        this.reply(history.message(link.offerProof ? { ...pong, proof: link.offerProof() } : pong));
        break;
      }
      case 'thumb': {
        // Counted without an answer (thousands a second must not make as many replies); a
        // refusal is an error envelope like any other.
        const refused = onThumb ? onThumb(msg, this.source) : NO_THUMBS;
        if (refused) this.sendError(refused);
        break;
      }
      case 'tap': {
        const answer = (/** @type {TapResult} */ result) => {
          if (result.ok)
            this.reply(
              history.message({
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
    this.hub.metrics.dropped?.(this.link.kind, 'too_slow');
    this.close(CLOSE.TOO_SLOW, 'SC_ERR_TOO_SLOW');
  }

  detach() {
    if (this.closed) return;
    this.closed = true;
    this.hub.sessions.delete(this);
    this.hub.metrics.clients?.(this.link.kind, -1);
    this.hub.onClose?.(this.source);
  }
}

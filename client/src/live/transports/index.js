// The transport registry: the only place that knows which transports exist and in which order
// the client falls back through them. The order itself is core's TRANSPORTS, shared with the server.

import { TRANSPORTS } from '../../../../core/constants.js';
import { WsTransport } from './ws.js';
import { SseTransport } from './sse.js';
import { PollTransport } from './poll.js';

/**
 * The resume point a transport sends to the server: the state the client holds.
 * The connection passes a live view, so a transport that makes many requests (polling) reads
 * the current values each time.
 * @typedef {object} Position
 * @property {string | null} epoch null for a client that holds nothing yet
 * @property {number} seq
 */

/**
 * @typedef {object} CloseInfo
 * @property {string} reason for logs
 * @property {boolean} fatal true when this transport cannot work in this browser at all
 *   (API missing or refused): the connection moves to the next one without retrying it
 */

/**
 * One way of carrying the live stream. Every transport has the same shape;
 * the connection sets the three callbacks before calling open(). After close(), no callback fires.
 * @typedef {object} Transport
 * @property {string} name
 * @property {number} holdMs how long the server may keep this transport silent on purpose, on
 *   top of the heartbeat rule (a long poll is held up to its wait); added to the dead-link time
 * @property {(from: Position) => void} open
 * @property {() => void} close
 * @property {(from: Position) => boolean} resync ask the server again for what follows `from`;
 *   false when this transport cannot (the connection then reconnects)
 * @property {(message: import('../../../../core/protocol.js').ClientMessage) => boolean} [send]
 *   client messages (hello, ping, tap); WebSocket only
 * @property {() => void} onopen
 * @property {(envelope: import('../../../../core/protocol.js').Envelope) => void} onmessage only valid envelopes
 * @property {(info: CloseInfo) => void} onclose the transport ended without close() being called
 */

/**
 * The parts of a WebSocket a transport uses; the browser's WebSocket has them, test fakes imitate them.
 * @typedef {Pick<WebSocket, 'readyState' | 'send' | 'close' | 'onopen' | 'onmessage' | 'onclose' | 'onerror'>} WebSocketLike
 */

/**
 * The parts of an EventSource a transport uses.
 * @typedef {Pick<EventSource, 'close' | 'onopen' | 'onmessage' | 'onerror'>} EventSourceLike
 */

/** @typedef {new (url: string) => WebSocketLike} WebSocketCtor */
/** @typedef {new (url: string) => EventSourceLike} EventSourceCtor */

/**
 * @typedef {(url: string, init: { signal: AbortSignal, headers: Record<string, string>, credentials?: RequestCredentials, cache?: RequestCache }) =>
 *   Promise<{ status: number, json(): Promise<unknown> }>} FetchFn
 */

/**
 * Timer functions. Method syntax on purpose: handles are opaque (number in browsers, objects in Node).
 * @typedef {object} Timers
 * @property {(fn: () => void, ms: number) => any} setTimeout
 * @property {(handle: any) => void} clearTimeout
 */

/** @typedef {(message: string, detail?: unknown) => void} Log */

/**
 * What a transport may use: everything platform-specific is injected.
 * @typedef {object} TransportDeps
 * @property {string} baseUrl http(s) origin of the server, e.g. `location.origin`
 * @property {string} [view] which view the page shows: in live URLs and WebSocket hellos
 * @property {string} [clientId] this page's id, sent by polling (so the server can count pollers)
 * @property {WebSocketCtor} [WebSocket]
 * @property {EventSourceCtor} [EventSource]
 * @property {FetchFn} [fetch]
 * @property {Timers} timers
 * @property {() => number} now milliseconds, monotonic
 * @property {Log} log
 */

/** @type {Readonly<Record<string, new (deps: TransportDeps) => Transport>>} */
const CLASSES = Object.freeze({ ws: WsTransport, sse: SseTransport, poll: PollTransport });

/** Transport names in fallback order: WebSocket, then Server-Sent Events, then long polling. */
export const TRANSPORT_ORDER = TRANSPORTS;

/**
 * @param {unknown} name
 * @returns {name is string}
 */
export function isTransportName(name) {
  return typeof name === 'string' && TRANSPORT_ORDER.includes(name);
}

/**
 * The transport to try after `name` has shown it cannot be used. Wraps around after the last,
 * so a client that found nothing working (server down at page load) keeps searching.
 * @param {string} name
 * @returns {string}
 */
export function nextTransportName(name) {
  const i = TRANSPORT_ORDER.indexOf(name);
  return TRANSPORT_ORDER[(i + 1) % TRANSPORT_ORDER.length];
}

/**
 * Build a transport by name.
 * @param {string} name one of TRANSPORT_ORDER
 * @param {TransportDeps} deps
 * @returns {Transport}
 */
export function createTransport(name, deps) {
  const Class = CLASSES[name];
  if (!Class) throw new Error(`createTransport: unknown transport "${name}"; use one of ${TRANSPORT_ORDER.join(', ')}`);
  return new Class(deps);
}

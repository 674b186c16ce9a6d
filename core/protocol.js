// Encode and decode the live protocol (doc/protocol.md). Decoders take untrusted input and
// return a result value; they never throw.

import { MAX_CLIENT_MESSAGE_BYTES } from './constants.js';
import { errorValue } from './errors.js';
import { isId } from './values.js';
import { decodeDeviceStatus } from './roster.js';

/**
 * @template T
 * @typedef {{ ok: true, value: T } | { ok: false, error: import('./errors.js').ErrorValue }} Result
 */

/**
 * @typedef {{ type: 'hello', epoch: string | null, seq: number, view?: string }} HelloMessage
 * @typedef {{ type: 'ping', id: number, t0: number, proof?: number }} PingMessage  `proof`: the token of
 *   the last `pong`, echoed (proof of reading on a WebSocket)
 * @typedef {{ type: 'tap', tile: string | number, window?: string, device?: string }} TapMessage
 * @typedef {{ type: 'report', push: number[], display: number[], device?: import('./roster.js').DeviceStatus }} ReportMessage
 *   what a client measured lately (ms): push latency (receipt on the synced clock minus the
 *   envelope's `t`) and display lag (when it showed a beat minus the beat's server time); and,
 *   for the conductor's roster, the device's status (core/roster.js)
 * @typedef {{ type: 'thumb', value: 'up' | 'down', device: string }} ThumbMessage  a phone's opinion
 *   for the audience meter (core/audience-meter.js); no answer but an error
 * @typedef {HelloMessage | PingMessage | TapMessage | ThumbMessage | ReportMessage} ClientMessage
 */

/**
 * @typedef {object} Envelope
 * @property {'welcome'|'snapshot'|'delta'|'heartbeat'|'pong'|'error'|'voted'|'command'} type
 * @property {string} [epoch]
 * @property {number} [seq]
 * @property {number} t
 * @property {any} [state]   snapshot only
 * @property {any} [patch]   delta only
 */

const MAX_ID_LEN = 64;
/** The largest proof token a `pong` carries (30 bits: server/live/transports/websocket.js). */
export const PROOF_TOKEN_MAX = 2 ** 30 - 1;
/** Samples of each kind in one report, and the range a sample may take (ms). */
export const REPORT_MAX_SAMPLES = 32;
const REPORT_RANGE = [-60_000, 600_000];
/** Throws on bytes that are not UTF-8 (RFC 6455 requires it of text frames). */
const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * @template T
 * @param {T} value
 * @returns {Result<T>}
 */
const ok = (value) => ({ ok: true, value });

/**
 * @param {keyof typeof import('./errors.js').ERRORS} code
 * @param {string} [detail]
 * @returns {{ ok: false, error: import('./errors.js').ErrorValue }}
 */
const fail = (code, detail) => ({ ok: false, error: errorValue(code, detail) });

/**
 * @param {unknown} v
 * @returns {v is number}
 */
const isSeq = (v) => Number.isSafeInteger(v) && /** @type {number} */ (v) >= 0;

/**
 * @param {unknown} v
 * @returns {v is string}
 */
export const isEpoch = isId;

/**
 * Decode one message a client sent (a WebSocket text frame).
 * @param {string | ArrayBuffer | Uint8Array} raw
 * @param {boolean} [isBinary] a binary frame is refused: the protocol is text JSON
 * @returns {Result<ClientMessage>}
 */
export function decodeClientMessage(raw, isBinary = false) {
  if (isBinary) return fail('SC_ERR_BAD_MESSAGE', 'binary frames are not accepted');
  let text;
  try {
    text = typeof raw === 'string' ? raw : utf8.decode(raw);
  } catch {
    return fail('SC_ERR_BAD_MESSAGE', 'text frames must be UTF-8');
  }
  if (text.length > MAX_CLIENT_MESSAGE_BYTES) return fail('SC_ERR_TOO_BIG');
  let msg;
  try {
    msg = JSON.parse(text);
  } catch {
    return fail('SC_ERR_BAD_JSON');
  }
  if (msg === null || typeof msg !== 'object' || Array.isArray(msg)) {
    return fail('SC_ERR_BAD_MESSAGE', 'expected a JSON object');
  }
  switch (msg.type) {
    case 'hello': {
      const epoch = msg.epoch ?? null;
      const seq = msg.seq ?? 0;
      if (epoch !== null && !isEpoch(epoch))
        return fail('SC_ERR_BAD_MESSAGE', 'hello.epoch must be a string of [A-Za-z0-9_-] or null');
      if (!isSeq(seq)) return fail('SC_ERR_BAD_MESSAGE', 'hello.seq must be an integer >= 0');
      if (msg.view !== undefined && !(typeof msg.view === 'string' && msg.view.length <= MAX_ID_LEN)) {
        return fail('SC_ERR_BAD_MESSAGE', 'hello.view must be a short string');
      }
      /** @type {HelloMessage} */
      const hello = { type: 'hello', epoch, seq };
      if (msg.view !== undefined) hello.view = msg.view;
      return ok(hello);
    }
    case 'ping':
      if (!isSeq(msg.id)) return fail('SC_ERR_BAD_MESSAGE', 'ping.id must be an integer >= 0');
      if (typeof msg.t0 !== 'number' || !Number.isFinite(msg.t0))
        return fail('SC_ERR_BAD_MESSAGE', 'ping.t0 must be a number');
      if (msg.proof === undefined) return ok({ type: 'ping', id: msg.id, t0: msg.t0 });
      if (!isSeq(msg.proof) || msg.proof > PROOF_TOKEN_MAX)
        return fail('SC_ERR_BAD_MESSAGE', `ping.proof must be an integer from 0 to ${PROOF_TOKEN_MAX}`);
      return ok({ type: 'ping', id: msg.id, t0: msg.t0, proof: msg.proof });
    case 'tap': {
      const tile = msg.tile;
      const tileOk = (typeof tile === 'string' && tile.length > 0 && tile.length <= MAX_ID_LEN) || isSeq(tile);
      if (!tileOk) return fail('SC_ERR_BAD_MESSAGE', 'tap.tile must be a tile id (string or integer)');
      if (msg.window !== undefined && !(typeof msg.window === 'string' && msg.window.length <= MAX_ID_LEN)) {
        return fail('SC_ERR_BAD_MESSAGE', 'tap.window must be a short string');
      }
      if (msg.device !== undefined && !(typeof msg.device === 'string' && msg.device.length <= MAX_ID_LEN)) {
        return fail('SC_ERR_BAD_MESSAGE', 'tap.device must be a short string');
      }
      /** @type {TapMessage} */
      const tap = { type: 'tap', tile };
      if (msg.window !== undefined) tap.window = msg.window;
      if (msg.device !== undefined) tap.device = msg.device;
      return ok(tap);
    }
    case 'thumb':
      if (msg.value !== 'up' && msg.value !== 'down')
        return fail('SC_ERR_BAD_MESSAGE', 'thumb.value must be "up" or "down"');
      if (!(typeof msg.device === 'string' && msg.device.length > 0 && msg.device.length <= MAX_ID_LEN))
        return fail('SC_ERR_BAD_MESSAGE', 'thumb.device must be the device credential from POST /api/device');
      return ok({ type: 'thumb', value: msg.value, device: msg.device });
    case 'report': {
      /** @type {number[][]} */
      const lists = [];
      for (const key of ['push', 'display']) {
        const list = msg[key] ?? [];
        const fine =
          Array.isArray(list) &&
          list.length <= REPORT_MAX_SAMPLES &&
          list.every(
            (x) => typeof x === 'number' && Number.isFinite(x) && x >= REPORT_RANGE[0] && x <= REPORT_RANGE[1],
          );
        if (!fine)
          return fail(
            'SC_ERR_BAD_MESSAGE',
            `report.${key} must be at most ${REPORT_MAX_SAMPLES} numbers (ms) in ${REPORT_RANGE[0]}..${REPORT_RANGE[1]}`,
          );
        lists.push(list);
      }
      /** @type {ReportMessage} */
      const report = { type: 'report', push: lists[0], display: lists[1] };
      if (msg.device !== undefined) {
        const device = decodeDeviceStatus(msg.device);
        if (!device.ok) return device;
        report.device = device.value;
      }
      return ok(report);
    }
    case undefined:
      return fail('SC_ERR_BAD_MESSAGE', 'missing type');
    default:
      return fail(
        'SC_ERR_UNKNOWN_TYPE',
        typeof msg.type === 'string' ? msg.type.slice(0, MAX_ID_LEN) : 'type is not a string',
      );
  }
}

/**
 * Decode one message the server sent (used by the client; the text comes from the network).
 * @param {string} text
 * @returns {Result<Envelope>}
 */
export function decodeServerMessage(text) {
  let msg;
  try {
    msg = JSON.parse(text);
  } catch {
    return fail('SC_ERR_BAD_JSON');
  }
  return checkEnvelope(msg);
}

/**
 * Check the shape of an already parsed server envelope (polling returns an array of them).
 * @param {any} msg
 * @returns {Result<Envelope>}
 */
export function checkEnvelope(msg) {
  if (msg === null || typeof msg !== 'object' || Array.isArray(msg))
    return fail('SC_ERR_BAD_MESSAGE', 'expected an object');
  if (typeof msg.t !== 'number') return fail('SC_ERR_BAD_MESSAGE', 't must be a number');
  switch (msg.type) {
    case 'snapshot':
    case 'delta':
    case 'heartbeat':
    case 'welcome':
      if (!isEpoch(msg.epoch) || !isSeq(msg.seq)) return fail('SC_ERR_BAD_MESSAGE', `${msg.type} needs epoch and seq`);
      if (msg.type === 'snapshot' && (msg.state === null || typeof msg.state !== 'object'))
        return fail('SC_ERR_BAD_MESSAGE', 'snapshot.state must be an object');
      if (msg.type === 'delta' && !('patch' in msg)) return fail('SC_ERR_BAD_MESSAGE', 'delta.patch is missing');
      return ok(msg);
    case 'pong':
    case 'error':
    case 'voted':
      return ok(msg);
    case 'command':
      // From the console, for this device alone or for all (core/roster.js DEVICE_ACTIONS).
      if (typeof msg.do !== 'string') return fail('SC_ERR_BAD_MESSAGE', 'command.do must be a string');
      return ok(msg);
    default:
      return fail('SC_ERR_UNKNOWN_TYPE', String(msg.type).slice(0, MAX_ID_LEN));
  }
}

/**
 * Encode a server envelope. Called once per state change; the same string goes to every client.
 * @param {Envelope | Record<string, unknown>} envelope
 * @returns {string}
 */
export function encode(envelope) {
  return JSON.stringify(envelope);
}

/**
 * Parse an SSE `Last-Event-ID` of the form `epoch:seq`.
 * @param {unknown} id
 * @returns {{ epoch: string, seq: number } | null} null when absent or malformed (treated as a fresh client)
 */
export function parseEventId(id) {
  if (typeof id !== 'string') return null;
  const i = id.lastIndexOf(':');
  if (i <= 0) return null;
  const epoch = id.slice(0, i);
  const seqText = id.slice(i + 1);
  if (!isEpoch(epoch) || !/^\d{1,15}$/.test(seqText)) return null;
  return { epoch, seq: Number(seqText) };
}

/**
 * Format an SSE event id.
 * @param {string} epoch
 * @param {number} seq
 */
export function formatEventId(epoch, seq) {
  return `${epoch}:${seq}`;
}

/**
 * Validate the query of a polling or resync request: `epoch`, `since` (or `seq`), `wait`.
 * @param {Record<string, unknown>} query
 * @param {number} maxWaitMs
 * @returns {Result<{ epoch: string | null, since: number, wait: number, view?: string, client?: string }>} `view`: which view the client shows; `client`: a polling client's id (to count polling clients)
 */
export function decodeResyncQuery(query, maxWaitMs) {
  const epochRaw = query.epoch;
  const sinceRaw = query.since ?? query.seq;
  const waitRaw = query.wait;
  const viewRaw = query.view;
  const clientRaw = query.client;
  let epoch = null;
  if (epochRaw !== undefined && epochRaw !== '') {
    if (!isEpoch(epochRaw)) return fail('SC_ERR_BAD_QUERY', 'epoch');
    epoch = epochRaw;
  }
  let since = 0;
  if (sinceRaw !== undefined && sinceRaw !== '') {
    if (typeof sinceRaw !== 'string' || !/^\d{1,15}$/.test(sinceRaw)) return fail('SC_ERR_BAD_QUERY', 'since');
    since = Number(sinceRaw);
  }
  let wait = 0;
  if (waitRaw !== undefined && waitRaw !== '') {
    if (typeof waitRaw !== 'string' || !/^\d{1,9}$/.test(waitRaw)) return fail('SC_ERR_BAD_QUERY', 'wait');
    wait = Math.min(Number(waitRaw), maxWaitMs);
  }
  /** @type {{ epoch: string | null, since: number, wait: number, view?: string, client?: string }} */
  const value = { epoch, since, wait };
  if (viewRaw !== undefined && viewRaw !== '') {
    if (!isId(viewRaw)) return fail('SC_ERR_BAD_QUERY', 'view');
    value.view = viewRaw;
  }
  if (clientRaw !== undefined && clientRaw !== '') {
    if (!isId(clientRaw)) return fail('SC_ERR_BAD_QUERY', 'client');
    value.client = clientRaw;
  }
  return ok(value);
}

// What a device tells the conductor's roster about itself (doc/protocol.md, "Client reports",
// the `device` object), checked the same way on the server and on the part page: the device's
// id, the name its player gave it, its link, what it holds of the stream, its clock, and whether
// it could play now (audio unlocked, screen kept awake, score assets cached). Pure: no I/O.

import { errorValue } from './errors.js';
import { isId } from './values.js';

/** A device name is at most this many characters (code points, after NFC). */
export const DEVICE_NAME_MAX = 40;
/** Part pages (and the score view) send their device status this often (ms). */
export const PART_STATUS_EVERY_MS = 500;
/** Audience phones send theirs with their latency samples, this often (ms). */
export const AUDIENCE_STATUS_EVERY_MS = 10_000;
/** A device's status counts at most once per this long (ms): faster ones are refused. */
export const STATUS_MIN_INTERVAL_MS = 400;
/** A part device unheard for this long is shown silent (three missed statuses, ms). */
export const PART_SILENT_AFTER_MS = 1500;
/** An audience phone unheard for this long is shown silent (ms). */
export const AUDIENCE_SILENT_AFTER_MS = 25_000;
/** A part is ready only when its device's clock error bound is at most this (ms: one frame at 60 Hz). */
export const READY_CLOCK_ERROR_MS = 17;
/** The actions the console may send a device. */
export const DEVICE_ACTIONS = Object.freeze(['resync', 'reload', 'attention']);

/** Short words and versions: links, playback, awake methods, app versions. */
const WORD = /^[A-Za-z0-9._+-]{1,40}$/;
/** Characters a name may not hold: control characters, and the bidirectional overrides and isolates. */
const FORBIDDEN = /[\p{Cc}\u200e\u200f\u202a-\u202e\u2066-\u2069]/u;
/**
 * A sound output this slow (ms) is flagged, to the player and on the roster: wired outputs report
 * 10-50 ms, Bluetooth headsets 100-300.
 */
export const SLOW_OUTPUT_MS = 100;

/** A clock figure (ms) a device may report. */
const MAX_MS = 600_000;

/**
 * @typedef {object} DeviceStatus
 * @property {string} id          the device's own id (kept across reloads of the page)
 * @property {string} name        the name its player gave it ('' when none)
 * @property {string} link        its connection's link state as it sees it ('live', 'connecting', ...)
 * @property {string} playback    the performance's playback state as the device holds it
 * @property {string | null} epoch the stream it holds
 * @property {number} seq         the seq it holds
 * @property {number | null} clockError  its clock estimate's error bound (ms), null before a round trip
 * @property {number | null} rtt  its last clock round trip (ms)
 * @property {boolean} audio      its audio is unlocked (a tap happened)
 * @property {number | null} outputMs  its sound's delay from the context to the speaker as it
 *   compensates it (ms: what the browser reports or the fallback, plus the device's calibration
 *   offset); null before its audio runs, or from a page that does not say
 * @property {string} awake       how its screen is kept on: 'wake-lock', 'video' or 'none'
 * @property {boolean} assets     the score's assets are in its cache
 * @property {string} app         the build of the page it runs
 */

/**
 * A device name as the roster keeps it: NFC, trimmed, inner runs of spaces made one.
 * @param {unknown} raw
 * @returns {{ ok: true, value: string } | { ok: false, error: import('./errors.js').ErrorValue }}
 */
export function checkDeviceName(raw) {
  if (typeof raw !== 'string') return { ok: false, error: errorValue('SC_ERR_BAD_NAME', 'the name must be a string') };
  if (FORBIDDEN.test(raw))
    return {
      ok: false,
      error: errorValue('SC_ERR_BAD_NAME', 'it holds a control character (a line break, a tab, a direction override)'),
    };
  const name = raw.normalize('NFC').trim().replace(/\s+/gu, ' ');
  const length = [...name].length;
  if (length > DEVICE_NAME_MAX)
    return {
      ok: false,
      error: errorValue('SC_ERR_BAD_NAME', `it has ${length} characters, more than ${DEVICE_NAME_MAX}`),
    };
  return { ok: true, value: name };
}

/** @param {unknown} v */
const isMs = (v) => v === null || (typeof v === 'number' && Number.isFinite(v) && v >= 0 && v <= MAX_MS);
/** @param {unknown} v */
const isWord = (v) => typeof v === 'string' && WORD.test(v);

/**
 * Check a device status from the network (a report's `device`). Never throws.
 * @param {unknown} raw
 * @returns {{ ok: true, value: DeviceStatus } | { ok: false, error: import('./errors.js').ErrorValue }}
 */
export function decodeDeviceStatus(raw) {
  const bad = (/** @type {string} */ what) => ({
    ok: /** @type {const} */ (false),
    error: errorValue('SC_ERR_BAD_MESSAGE', `report.device.${what}`),
  });
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return bad('must be an object');
  const d = /** @type {Record<string, unknown>} */ (raw);
  if (!isId(d.id) || d.id === 'all') return bad('id must be 1-64 of [A-Za-z0-9_-], not "all"');
  const name = checkDeviceName(d.name ?? '');
  if (!name.ok) return name;
  if (!isWord(d.link)) return bad('link must be a short word');
  if (!isWord(d.playback)) return bad('playback must be a short word');
  if (d.epoch !== null && d.epoch !== undefined && !isId(d.epoch)) return bad('epoch must be an epoch or null');
  if (!Number.isInteger(d.seq) || /** @type {number} */ (d.seq) < 0) return bad('seq must be an integer >= 0');
  if (!isMs(d.clockError ?? null)) return bad(`clockError must be null or ms in 0..${MAX_MS}`);
  if (!isMs(d.rtt ?? null)) return bad(`rtt must be null or ms in 0..${MAX_MS}`);
  if (typeof d.audio !== 'boolean') return bad('audio must be true or false');
  if (!isMs(d.outputMs ?? null)) return bad(`outputMs must be null or ms in 0..${MAX_MS}`);
  if (!isWord(d.awake)) return bad('awake must be a short word');
  if (typeof d.assets !== 'boolean') return bad('assets must be true or false');
  if (!isWord(d.app)) return bad('app must be a short version string');
  return {
    ok: true,
    value: {
      id: d.id,
      name: name.value,
      link: /** @type {string} */ (d.link),
      playback: /** @type {string} */ (d.playback),
      epoch: /** @type {string | null} */ (d.epoch ?? null),
      seq: /** @type {number} */ (d.seq),
      clockError: /** @type {number | null} */ (d.clockError ?? null),
      rtt: /** @type {number | null} */ (d.rtt ?? null),
      audio: d.audio,
      outputMs: /** @type {number | null} */ (d.outputMs ?? null),
      awake: /** @type {string} */ (d.awake),
      assets: d.assets,
      app: /** @type {string} */ (d.app),
    },
  };
}

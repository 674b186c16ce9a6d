// The save file's format (server/performance/save/persist.js saves and resumes with it): a format name and
// version, the sha256 of the payload's JSON, and the payload. Encoding, decoding and the check
// that a save fits a score; no file access here (server/performance/save/file.js reads and writes).

import { createHash } from 'node:crypto';
import { isObject } from '../../../core/values.js';

export const SAVE_FORMAT = 'scorecast-performance';
export const SAVE_VERSION = 1;

/**
 * @typedef {object} SavePayload
 * @property {number} savedAt   server wall time of the write (ms since the Unix epoch)
 * @property {string} epoch     the epoch that was playing
 * @property {number} seq
 * @property {{ id: string, title: string, dir: string | null, fingerprint: string }} score
 * @property {import('../conductor.js').PerformanceRecord} performance
 * @property {string | null} [start]  the resolved `--score` of the server that saved: the start
 *   the save belongs to (null or absent: not known, as in saves written before saves named their start, which
 *   are taken to belong to the score they hold)
 */

/**
 * @typedef {{ ok: true, payload: SavePayload }
 *   | { ok: false, missing: true }
 *   | { ok: false, missing: false, code: 'SC_ERR_SAVE_UNREADABLE', problem: string }} ReadResult
 */

/**
 * Every write names the score's version: computed once per model.
 * @type {WeakMap<import('../../../core/manifest.js').ScoreModel, string>}
 */
const fingerprints = new WeakMap();

/** @param {string} text */
const sha256 = (text) => createHash('sha256').update(text).digest('hex');

/**
 * Names one version of a score as far as a saved position is concerned: its beats in
 * performance order, its tempo and its vote windows. Cue contents are left out on purpose:
 * a typo fixed in a cue's text between a crash and the restart must not lose the place.
 * @param {import('../../../core/manifest.js').ScoreModel} model
 */
export function scoreFingerprint(model) {
  const known = fingerprints.get(model);
  if (known !== undefined) return known;
  const { map } = model;
  const structure = {
    bars: map.bars.map((b) => [b.bar, b.beats, b.firstBeatInBar, b.time]),
    tempo: map.segments.map((s) => [s.beat, s.bpm]),
    votes: model.votes.map((v) => [v.id, v.tiles, v.open, v.close, v.decides]),
  };
  const fingerprint = `${map.totalBeats}:${sha256(JSON.stringify(structure)).slice(0, 16)}`;
  fingerprints.set(model, fingerprint);
  return fingerprint;
}

/**
 * The file's text: a format name and version, the sha256 of the payload's JSON, the payload.
 * @param {SavePayload} payload
 */
export function encodeSave(payload) {
  const body = JSON.stringify(payload);
  return `{"format":"${SAVE_FORMAT}","version":${SAVE_VERSION},"sha256":"${sha256(body)}","payload":${body}}\n`;
}

/**
 * Read a save's text. Never throws: a file that cannot be trusted is an error value with the
 * reason.
 * @param {string} text
 * @returns {ReadResult}
 */
export function decodeSave(text) {
  /** @param {string} problem @returns {ReadResult} */
  const bad = (problem) => ({ ok: false, missing: false, code: 'SC_ERR_SAVE_UNREADABLE', problem });
  /** @type {unknown} */
  let file;
  try {
    file = JSON.parse(text);
  } catch {
    return bad(
      text.trim() === ''
        ? 'the file is empty (a write cut short?)'
        : 'the file is not valid JSON (truncated or partly written?)',
    );
  }
  if (!isObject(file) || file.format !== SAVE_FORMAT)
    return bad(`not a scorecast performance save (no "format": "${SAVE_FORMAT}")`);
  if (!Number.isInteger(file.version) || file.version < 1)
    return bad(`unknown format version ${JSON.stringify(file.version)}`);
  if (file.version > SAVE_VERSION)
    return bad(
      `format version ${file.version} is newer than this server reads (${SAVE_VERSION}); a newer scorecast wrote it`,
    );
  if (!isObject(file.payload) || typeof file.sha256 !== 'string') return bad('the file has no payload or no sha256');
  // Re-serializing gives back the exact text that was hashed: JSON.stringify wrote it, and a
  // parse/stringify round trip of JSON.stringify's output is the identity.
  if (sha256(JSON.stringify(file.payload)) !== file.sha256)
    return bad('the sha256 does not match the payload: the file was edited or partly written');
  const p = file.payload;
  if (
    !(
      typeof p.savedAt === 'number' &&
      typeof p.epoch === 'string' &&
      Number.isInteger(p.seq) &&
      isObject(p.score) &&
      typeof p.score.id === 'string' &&
      typeof p.score.fingerprint === 'string' &&
      isObject(p.performance)
    )
  ) {
    return bad('the payload lacks savedAt, epoch, seq, score {id, fingerprint} or performance');
  }
  return { ok: true, payload: /** @type {SavePayload} */ (p) };
}

/**
 * Why a valid save cannot be resumed with `model`, or null when it can.
 * @param {SavePayload} payload
 * @param {import('../../../core/manifest.js').ScoreModel} model
 */
export function saveMismatch(payload, model) {
  const { score } = payload;
  const where = typeof score.dir === 'string' ? ` (${score.dir})` : '';
  if (score.id !== model.id) return `the save is for score "${score.id}"${where}; this server plays "${model.id}"`;
  if (score.fingerprint !== scoreFingerprint(model)) {
    return `the save is for another version of "${model.id}": its bars, tempo or vote windows have changed since it was saved`;
  }
  return null;
}

// The score manifest (scores/<id>/score.yaml, parsed): validation and the score model the
// conductor plays. Pure: the server reads and parses the file; this checks the parsed value.
// Every problem names the field, what is wrong and what to do.

import { createTempoMap } from './tempo-map.js';

/**
 * @typedef {object} CueSpec
 * @property {number} [at]    global beat index (0-based); or bar + beat
 * @property {number} [bar]
 * @property {number} [beat]  beat in bar, from 1 (default 1)
 * @property {string} [view]  view the cue is for (default "audience")
 * @property {Record<string, unknown>} set  merge patch applied to the view's cue state
 */

/**
 * @typedef {object} Cue
 * @property {number} beat   global beat index
 * @property {string} view
 * @property {Record<string, unknown>} set
 */

/**
 * @typedef {object} Asset
 * @property {string} path     relative to the package folder
 * @property {boolean} preload the page fetches it on load
 */

/**
 * @typedef {object} ScoreModel
 * @property {string} id
 * @property {string} title
 * @property {string} composer
 * @property {{id: string, name: string}[]} parts
 * @property {string[]} views
 * @property {import('./tempo-map.js').TempoMap} map
 * @property {Cue[]} cues          sorted by beat, stable within a beat
 * @property {Asset[]} assets
 */

/**
 * @typedef {object} Problem
 * @property {string} field  e.g. "cues[3].bar"
 * @property {string} message
 */

const ID_RE = /^[a-z0-9][a-z0-9_-]{0,63}$/;
const TIME_RE = /^(\d{1,2})\/(\d{1,2})$/;

/**
 * @param {unknown} v
 * @returns {v is Record<string, any>}
 */
const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * Parse a time signature written "3/4" or [3, 4].
 * @param {unknown} v
 * @returns {[number, number] | null}
 */
function parseTime(v) {
  if (typeof v === 'string') {
    const m = TIME_RE.exec(v.trim());
    return m ? [Number(m[1]), Number(m[2])] : null;
  }
  if (Array.isArray(v) && v.length === 2 && v.every((n) => Number.isInteger(n) && n > 0)) return [v[0], v[1]];
  return null;
}

/**
 * A safe relative path inside a package: no absolute paths, no "..", no backslashes.
 * @param {unknown} p
 * @returns {p is string}
 */
export function isSafeRelativePath(p) {
  if (typeof p !== 'string' || p.length === 0 || p.length > 256) return false;
  if (p.startsWith('/') || p.includes('\\') || p.includes('\0')) return false;
  return p.split('/').every((seg) => seg !== '' && seg !== '.' && seg !== '..');
}

/**
 * Validate a parsed manifest and build the score model.
 * @param {unknown} raw
 * @returns {{ ok: true, value: ScoreModel } | { ok: false, problems: Problem[] }}
 */
export function buildScoreModel(raw) {
  /** @type {Problem[]} */
  const problems = [];
  /** @param {string} field @param {string} message */
  const problem = (field, message) => { problems.push({ field, message }); };
  if (!isObject(raw)) return { ok: false, problems: [{ field: '(file)', message: 'the manifest must be a YAML mapping (key: value lines); start from scores/demo/score.yaml' }] };

  if (typeof raw.id !== 'string' || !ID_RE.test(raw.id)) problem('id', 'must be lower-case letters, digits, "-" or "_" (at most 64), e.g. "my-piece"');
  if (typeof raw.title !== 'string' || raw.title.trim() === '') problem('title', 'is missing; give the piece a title');
  if (raw.composer !== undefined && typeof raw.composer !== 'string') problem('composer', 'must be text');

  /** @type {{id: string, name: string}[]} */
  const parts = [];
  if (raw.parts !== undefined) {
    if (!Array.isArray(raw.parts)) problem('parts', 'must be a list of {id, name}');
    else raw.parts.forEach((p, i) => {
      if (!isObject(p) || typeof p.id !== 'string' || !ID_RE.test(p.id)) problem(`parts[${i}].id`, 'must be an id of lower-case letters, digits, "-" or "_"');
      else if (p.id === 'audience' || p.id === 'score') problem(`parts[${i}].id`, `"${p.id}" is a reserved view name; choose another part id`);
      else parts.push({ id: p.id, name: typeof p.name === 'string' ? p.name : p.id });
    });
  }
  const views = ['audience', 'score', ...parts.map((p) => p.id)];
  if (new Set(views).size !== views.length) problem('parts', 'part ids must be unique');

  if (!Number.isInteger(raw.bars) || raw.bars < 1) problem('bars', 'must be the number of bars, an integer >= 1');
  if (raw.pickup !== undefined && !(Number.isInteger(raw.pickup) && raw.pickup >= 0)) problem('pickup', 'must be the number of beats in the pickup bar (0 for none)');

  /** @type {import('./tempo-map.js').MeterChange[]} */
  const changes = [];
  if (!Array.isArray(raw.meter) || raw.meter.length === 0) {
    problem('meter', 'is missing; list at least one entry like {bar: 1, time: 4/4, tempo: 96}');
  } else {
    raw.meter.forEach((m, i) => {
      if (!isObject(m)) { problem(`meter[${i}]`, 'must be a mapping like {bar: 9, tempo: 120}'); return; }
      if (!Number.isInteger(m.bar)) { problem(`meter[${i}].bar`, 'must be a bar number'); return; }
      /** @type {import('./tempo-map.js').MeterChange} */
      const c = { bar: m.bar };
      if (m.beat !== undefined) {
        if (!(Number.isInteger(m.beat) && m.beat >= 1)) problem(`meter[${i}].beat`, 'must be a beat in the bar, from 1');
        else c.beat = m.beat;
      }
      if (m.time !== undefined) {
        const t = parseTime(m.time);
        if (!t) problem(`meter[${i}].time`, 'must be a time signature like 3/4');
        else c.time = t;
      }
      if (m.tempo !== undefined) {
        if (!(typeof m.tempo === 'number' && m.tempo > 0 && m.tempo <= 1000)) problem(`meter[${i}].tempo`, 'must be beats per minute, a number in (0, 1000]');
        else c.tempo = m.tempo;
      }
      if (c.time === undefined && c.tempo === undefined) problem(`meter[${i}]`, 'changes nothing; give time, tempo or both');
      changes.push(c);
    });
  }

  /** @type {import('./tempo-map.js').TempoMap | null} */
  let map = null;
  if (problems.length === 0) {
    try {
      map = createTempoMap({ bars: raw.bars, pickup: raw.pickup ?? 0, changes });
    } catch (err) {
      problem('meter', `${/** @type {Error} */ (err).message.replace(/^tempo map: /, '')}`);
    }
  }

  /** @type {Cue[]} */
  const cues = [];
  if (raw.cues !== undefined && !Array.isArray(raw.cues)) problem('cues', 'must be a list of cues');
  else if (map) {
    const m = map;
    (raw.cues ?? []).forEach((/** @type {unknown} */ c, /** @type {number} */ i) => {
      const f = `cues[${i}]`;
      if (!isObject(c)) { problem(f, 'must be a mapping like {bar: 1, view: audience, set: {text: Hello}}'); return; }
      const view = c.view ?? 'audience';
      if (!views.includes(view)) { problem(`${f}.view`, `"${view}" is not a view of this score (${views.join(', ')})`); return; }
      if (!isObject(c.set)) { problem(`${f}.set`, 'must be a mapping of what the view shows, e.g. {text: Hello}'); return; }
      let beat;
      if (c.at !== undefined) {
        if (!(Number.isInteger(c.at) && c.at >= 0)) { problem(`${f}.at`, 'must be a beat index >= 0'); return; }
        beat = c.at;
      } else if (Number.isInteger(c.bar)) {
        try {
          beat = m.beatOf(c.bar, c.beat ?? m.barInfo(c.bar)?.firstBeatInBar ?? 1);
        } catch (err) {
          problem(f, `${/** @type {Error} */ (err).message.replace(/^tempo map: /, '')}; the score has bars ${m.firstBar}..${m.lastBar}`);
          return;
        }
      } else { problem(f, 'needs a position: bar (and beat) or at'); return; }
      if (beat >= m.totalBeats) { problem(f, `is at beat ${beat}, after the last beat (${m.totalBeats - 1}); move it or extend the score`); return; }
      cues.push({ beat, view, set: c.set });
    });
  }
  cues.sort((a, b) => a.beat - b.beat);

  /** @type {Asset[]} */
  const assets = [];
  if (raw.assets !== undefined && !Array.isArray(raw.assets)) problem('assets', 'must be a list of {path, preload}');
  else (raw.assets ?? []).forEach((/** @type {unknown} */ a, /** @type {number} */ i) => {
    if (!isObject(a) || !isSafeRelativePath(a.path)) problem(`assets[${i}].path`, 'must be a relative path inside the package folder (no "..", no leading "/")');
    else assets.push({ path: a.path, preload: a.preload === true });
  });

  if (problems.length > 0 || !map) return { ok: false, problems };
  return {
    ok: true,
    value: {
      id: raw.id, title: raw.title, composer: raw.composer ?? '', parts, views, map, cues, assets,
    },
  };
}

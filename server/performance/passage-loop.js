// A passage loop (POST /api/control/loop): where it starts and ends in the score, asked by bar or
// by rehearsal mark; its count-in; its record in the save file. The conductor plays it
// (conductor.js): after the loop's last beat comes its first again, each time round after the
// count-in's clicks, until it is turned off.

import { ScorecastError } from '../../core/errors.js';
import { MARK_NAME_MAX, markBeat } from '../../core/marks.js';

/** @typedef {import('./turns.js').Turns} Turns */

/** The longest count-in before each time round, in beats (four bars of 4/4). */
export const MAX_LOOP_COUNT_IN = 16;

/**
 * A loop the conductor plays.
 * @typedef {object} PassageLoop
 * @property {number} start     its first beat (global beat index)
 * @property {number} end       its last beat, included
 * @property {number} countIn   clicks (beats) before each time round
 * @property {number} round     the time round being played, from 1
 * @property {string} [fromMark]
 * @property {string} [toMark]
 */

/**
 * One end of a loop as asked: {bar} or {mark}. The loop's first beat is the first beat of the
 * bar (the beat of the mark); its last beat is the last beat of the bar `to` names, or the beat
 * before the mark `to` names ("from C to D" plays C up to D, not D's first beat).
 * @param {import('../../core/manifest.js').ScoreModel} model
 * @param {unknown} end
 * @param {'from' | 'to'} which
 * @returns {{ beat: number, mark?: string }}
 */
function endOf(model, end, which) {
  const map = model.map;
  if (!end || typeof end !== 'object' || Array.isArray(end))
    throw new ScorecastError('SC_ERR_BAD_CONTROL', `loop needs ${which}: {bar} or {mark}`);
  const e = /** @type {Record<string, unknown>} */ (end);
  if ((e.bar === undefined) === (e.mark === undefined))
    throw new ScorecastError('SC_ERR_BAD_CONTROL', `loop ${which} takes {bar} or {mark}, one of them`);
  if (e.mark !== undefined) {
    if (typeof e.mark !== 'string')
      throw new ScorecastError('SC_ERR_BAD_CONTROL', `loop ${which}.mark must be a mark's name`);
    const marks = model.marks ?? [];
    const beat = markBeat(marks, e.mark);
    if (beat === null) {
      const names = [...new Set(marks.map((m) => m.name))];
      throw new ScorecastError(
        'SC_ERR_NO_MARK',
        `loop ${which}: the score has no mark "${e.mark.slice(0, MARK_NAME_MAX)}"; ${names.length ? `its marks: ${names.slice(0, 40).join(', ')}${names.length > 40 ? ', …' : ''}` : 'it has no marks'}`,
      );
    }
    if (which === 'from') return { beat, mark: e.mark };
    if (beat === 0)
      throw new ScorecastError(
        'SC_ERR_BAD_LOOP',
        `loop to: mark "${e.mark}" is on the first beat; nothing comes before it`,
      );
    return { beat: beat - 1, mark: e.mark };
  }
  if (!Number.isInteger(e.bar)) throw new ScorecastError('SC_ERR_BAD_CONTROL', `loop ${which}.bar must be an integer`);
  const info = map.barInfo(/** @type {number} */ (e.bar));
  if (!info)
    throw new ScorecastError(
      'SC_ERR_BAD_LOOP',
      `loop ${which}: bar ${e.bar} is not in the piece (bars ${map.firstBar}..${map.lastBar})`,
    );
  return { beat: which === 'from' ? info.startBeat : info.startBeat + info.beats - 1 };
}

/**
 * The loop `body` asks for: `{from: {bar} | {mark}, to: {bar} | {mark}, countIn?: beats}`.
 * Throws SC_ERR_BAD_CONTROL (the request's shape), SC_ERR_NO_MARK (a mark the score does not
 * have) or SC_ERR_BAD_LOOP (a loop that does not run forward within the piece).
 * @param {import('../../core/manifest.js').ScoreModel} model
 * @param {Record<string, unknown>} body
 * @param {boolean} openForm  the piece is in open form: its sections' choices decide what follows
 * @returns {PassageLoop}
 */
export function loopOf(model, body, openForm) {
  const extra = Object.keys(body).filter((k) => !['from', 'to', 'countIn'].includes(k));
  if (extra.length > 0)
    throw new ScorecastError('SC_ERR_BAD_CONTROL', `loop takes {from, to, countIn?} or {off: true}, not ${extra[0]}`);
  const countIn = body.countIn ?? 0;
  if (!(Number.isInteger(countIn) && Number(countIn) >= 0 && Number(countIn) <= MAX_LOOP_COUNT_IN))
    throw new ScorecastError(
      'SC_ERR_BAD_CONTROL',
      `loop countIn must be a whole number of beats in 0..${MAX_LOOP_COUNT_IN}`,
    );
  if (openForm)
    throw new ScorecastError(
      'SC_ERR_BAD_LOOP',
      "this piece is in open form: what follows a section is chosen as it plays, so a passage can't be looped",
    );
  const from = endOf(model, body.from, 'from');
  const to = endOf(model, body.to, 'to');
  if (from.beat > to.beat) {
    const at = (/** @type {number} */ b) => model.map.positionOf(b);
    throw new ScorecastError(
      'SC_ERR_BAD_LOOP',
      `the loop runs backwards: from bar ${at(from.beat).bar} (beat ${from.beat}) to bar ${at(to.beat).bar} (beat ${to.beat}); from must come before to`,
    );
  }
  return {
    start: from.beat,
    end: to.beat,
    countIn: /** @type {number} */ (countIn),
    round: 1,
    ...(from.mark === undefined ? {} : { fromMark: from.mark }),
    ...(to.mark === undefined ? {} : { toMark: to.mark }),
  };
}

/**
 * The state's `loop` field (core/loop.js) for the loop `loop`.
 * @param {import('../../core/tempo-map.js').TempoMap} map
 * @param {PassageLoop} loop
 * @returns {import('../../core/loop.js').LoopField}
 */
export function loopField(map, loop) {
  return {
    from: map.positionOf(loop.start).bar,
    to: map.positionOf(loop.end).bar,
    start: loop.start,
    end: loop.end,
    round: loop.round,
    countIn: loop.countIn,
    ...(loop.fromMark === undefined ? {} : { fromMark: loop.fromMark }),
    ...(loop.toMark === undefined ? {} : { toMark: loop.toMark }),
  };
}

/**
 * Why a saved loop does not fit the score `model`, or null.
 * @param {unknown} loop
 * @param {import('../../core/manifest.js').ScoreModel} model
 */
export function loopRecordProblem(loop, model) {
  if (loop === undefined) return null;
  if (!loop || typeof loop !== 'object') return 'loop must be an object';
  // As `POST /api/control/loop` refuses one there: an open form's sections decide what follows.
  if (model.openForm) return 'an open-form piece has no loop (its sections decide what follows)';
  const l = /** @type {Record<string, unknown>} */ (loop);
  const total = model.map.totalBeats;
  const whole = (/** @type {unknown} */ x) => Number.isInteger(x);
  if (
    !whole(l.start) ||
    !whole(l.end) ||
    Number(l.start) < 0 ||
    Number(l.end) >= total ||
    Number(l.start) > Number(l.end)
  )
    return `loop must run from a beat to a later one in 0..${total - 1}`;
  if (!whole(l.countIn) || Number(l.countIn) < 0 || Number(l.countIn) > MAX_LOOP_COUNT_IN)
    return `loop countIn must be in 0..${MAX_LOOP_COUNT_IN}`;
  if (!whole(l.round) || Number(l.round) < 1) return 'loop round must be a whole number from 1';
  for (const k of ['fromMark', 'toMark'])
    if (l[k] !== undefined && (typeof l[k] !== 'string' || /** @type {string} */ (l[k]).length > MARK_NAME_MAX))
      return `loop ${k} must be a mark's name`;
  return null;
}

/**
 * A saved loop, as the conductor plays it (after loopRecordProblem said it fits).
 * @param {any} loop
 * @returns {PassageLoop}
 */
export function loopFromRecord(loop) {
  return {
    start: loop.start,
    end: loop.end,
    countIn: loop.countIn,
    round: loop.round,
    ...(loop.fromMark === undefined ? {} : { fromMark: loop.fromMark }),
    ...(loop.toMark === undefined ? {} : { toMark: loop.toMark }),
  };
}

/**
 * `POST /api/control/loop` on the conductor's turns: `{from: {bar} | {mark}, to: {bar} | {mark},
 * countIn?: beats}`, or `{off: true}`. A loop set replaces the one before. The performance inside
 * it goes on where it is, its first time round; outside it, it goes to the loop's first beat (a
 * seek: while playing, on the beat grid). Turned off, the performance goes on past the loop's
 * end. Returns what the conductor does then: 'seek' (to the loop's first beat), 'announce' (say
 * again what follows the beat sounding) or 'none'. Throws (changing nothing) SC_ERR_BAD_CONTROL,
 * SC_ERR_NO_MARK or SC_ERR_BAD_LOOP.
 * @param {Turns} loops
 * @param {Record<string, unknown>} body
 * @param {{ model: import('../../core/manifest.js').ScoreModel, openForm: boolean, at: number }} performance
 *   openForm: the piece is in open form; at: the beat the performance is at (sounding, or held)
 * @returns {'seek' | 'announce' | 'none'}
 */
export function setLoop(loops, body, { model, openForm, at }) {
  if (body.off !== undefined) {
    if (body.off !== true || Object.keys(body).length > 1)
      throw new ScorecastError('SC_ERR_BAD_CONTROL', 'loop takes {from, to, countIn?} or {off: true}');
    if (loops.passage === null) return 'none';
    loops.set(null);
    return 'announce';
  }
  const next = loopOf(model, body, openForm);
  loops.set(next);
  return loops.inside(at) ? 'announce' : 'seek';
}

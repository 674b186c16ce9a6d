// Going on with a saved performance after a restart: whether a record fits the score, and where
// a performance that was playing has got to since, exactly as the timers would have taken it
// (pure: the conductor gives it the time now).

import { MAX_RATE, MIN_RATE } from './beat-grid.js';
import { loopRecordProblem } from './passage-loop.js';

/**
 * A performance as plain JSON, to go on from after a restart (server/performance/save/persist.js saves it).
 * @typedef {object} PerformanceRecord
 * @property {import('../../core/performance.js').Playback} transport  the playback state: the
 *   save file keeps its field name (server/performance/save/format.js versions the file)
 * @property {import('../../core/performance.js').Playback} [playback]  read as well, for a save
 *   written once the file names it so
 * @property {number} beat    the position: the beat sounding (playing), or where the performance
 *   holds (fractional when paused mid-beat)
 * @property {number} [beatT] playing: server wall time (ms since the Unix epoch) at which `beat`
 *   sounded (or sounds, after a count-in); the beat grid follows from it, the tempo map and `rate`
 * @property {number} rate
 * @property {boolean} [ended] stopped by reaching the end (play starts over)
 * @property {import('../../core/votes.js').BallotRecord} ballot
 * @property {import('../../core/page-choice.js').Decision[]} [pages] the page choices made so far
 * @property {{ slot: number, tiles: string[] }} [forced] tiles the conductor forced for a page
 *   choice not yet decided (POST /api/control/next)
 * @property {unknown} [sections] an open-form piece's sections (sections.js): the section playing,
 *   the choice made, the order taken; checked against the score by sections.js
 * @property {import('./passage-loop.js').PassageLoop} [loop] the passage looped and its time
 *   round (absent: none); a save from before loops has none
 */

const PLAYBACKS = ['playing', 'paused', 'stopped'];

/**
 * A record's playback state, whichever name it has it under.
 * @param {PerformanceRecord} record
 * @returns {import('../../core/performance.js').Playback}
 */
export const playbackOf = (record) => record.playback ?? record.transport;

/**
 * Why `record` cannot be resumed with the score `model`, or null.
 * @param {unknown} record
 * @param {import('../../core/manifest.js').ScoreModel} model
 */
export function recordProblem(record, model) {
  const map = model.map;
  if (record === null || typeof record !== 'object') return 'expected an object';
  const r = /** @type {Record<string, unknown>} */ (record);
  // A save of the version before names the playback `transport`: the problem names it so.
  const field = r.playback === undefined && r.transport !== undefined ? 'transport' : 'playback';
  const playback = r[field];
  if (!PLAYBACKS.includes(/** @type {string} */ (playback))) return `${field} must be one of ${PLAYBACKS.join(', ')}`;
  const beat = /** @type {number} */ (r.beat);
  if (!(typeof beat === 'number' && beat >= 0 && beat < map.totalBeats))
    return `beat must be in 0..${map.totalBeats - 1}`;
  if (playback === 'playing' && !(Number.isInteger(beat) && Number.isFinite(r.beatT)))
    return 'a playing record needs a whole beat and its time beatT';
  if (!(typeof r.rate === 'number' && r.rate >= MIN_RATE && r.rate <= MAX_RATE))
    return `rate must be in ${MIN_RATE}..${MAX_RATE}`;
  if (r.ended !== undefined && typeof r.ended !== 'boolean') return 'ended must be true or false';
  const loopProblem = loopRecordProblem(r.loop, model);
  if (loopProblem !== null) return loopProblem;
  if (r.forced !== undefined) {
    const f = /** @type {{ slot?: unknown, tiles?: unknown }} */ (r.forced);
    const choice = model.pageChoices.find((c) => c.slot === f?.slot);
    if (!choice || !Array.isArray(f.tiles) || f.tiles.length > choice.groups.length)
      return 'forced must name a page choice of this score and at most as many tiles as it has groups';
    const stray = f.tiles.find((t) => typeof t !== 'string' || choice.tiles[t] === undefined);
    if (stray !== undefined)
      return `forced tile ${JSON.stringify(stray)} is not a tile of the choice of page ${choice.slot}`;
  }
  return null;
}

/**
 * The record of a performance: where it is and, while playing, when its beat sounded.
 * @param {object} performance
 * @param {import('../../core/performance.js').PerformanceState} performance.state
 * @param {number} performance.pos  the position while not playing
 * @param {number | null} performance.beatT  playing: the wall time the beat sounding sounded
 * @param {boolean} performance.ended  stopped by reaching the end
 * @param {import('./vote-state.js').VotesRecord} performance.votes
 * @param {unknown} [performance.sections]  an open-form piece's sections' record
 * @param {import('./passage-loop.js').PassageLoop | null} [performance.loop]  the passage looped
 * @returns {PerformanceRecord}
 */
export function toRecord({ state, pos, beatT, ended, votes, sections, loop }) {
  const playing = state.playback === 'playing';
  const { ballot, ...choices } = votes;
  return {
    transport: state.playback,
    beat: playing ? state.beat : pos,
    ...(playing && beatT !== null ? { beatT } : {}),
    rate: state.rate,
    ...(ended ? { ended } : {}),
    ballot,
    ...choices,
    ...(sections !== undefined ? { sections } : {}),
    ...(loop ? { loop: { ...loop } } : {}),
  };
}

/**
 * @typedef {object} PlayOnOptions
 * @property {import('../../core/manifest.js').ScoreModel} model
 * @property {boolean} loop    the end starts over (else the performance stops there)
 * @property {number} rate
 * @property {number} from     the beat that sounded at `beatT`
 * @property {number} beatT    wall time
 * @property {number} nowWall  wall time now
 * @property {(beat: number) => number | null} voteAt  the ballot reaches `beat` by playing on:
 *   the beat a closing window's tally sends the performance to, or null (vote-state.js)
 * @property {Pick<import('./sections.js').SectionState, 'ends' | 'endsSection' | 'next'> | null} [sections]
 *   an open-form piece's sections: at a section's end its choice decides where playing on goes
 * @property {import('./passage-loop.js').PassageLoop | null} [passage]  the passage looped: after
 *   its last beat comes its first, after its count-in
 * @property {(start: number, after: number) => void} [round]  a loop comes round to `start` from
 *   its end (`after`, the beat after its last): the window closing there closes, the one at
 *   `start` restarts (vote-state.js, restartAt)
 */

/**
 * Play on from a performance at `from`, which sounded at wall time `beatT`, through the time that
 * has passed since, exactly as the timers would have: vote windows open and close on the way (a
 * recorded tally decides its jump), open-form sections end and their choice (or default) decides
 * where it goes, the end loops or stops. Returns `ended` (and, when a section's choice ended it,
 * the beat it ended `at`) when the piece ended meanwhile, else the beat reached by now and the
 * grid to go on with: position `at` sounded at wall time `t`.
 * With a passage looped, also the time round reached (`round`) and, when the performance is
 * counting in to a new time round now, the wall time its clicks started (`countInT`; `beat` is
 * then the loop's first beat, which sounds at `t`, still to come).
 * @param {PlayOnOptions} options
 * @returns {{ ended: true, at?: number } | { ended: false, at: number, t: number, beat: number, round?: number, countInT?: number }}
 */
export function playOn({ model, loop, rate, from, beatT, nowWall, voteAt, sections = null, passage = null, round }) {
  const map = model.map;
  const span = (/** @type {number} */ a, /** @type {number} */ b) => (map.timeAt(b) - map.timeAt(a)) / rate;
  let at = from;
  // Restarted before the beat was due (during a count-in): it sounds now.
  let t = Math.min(beatT, nowWall);
  let wrapped = false;
  const edges = [...model.votes.flatMap((v) => [v.open, v.close]), ...(sections?.ends() ?? [])];
  let rounds = passage?.round ?? 0;
  let looped = false;
  let edge = map.totalBeats;
  for (;;) {
    edge = Math.min(map.totalBeats, ...edges.filter((b) => b > at));
    if (passage && at <= passage.end) edge = Math.min(edge, passage.end + 1);
    if (t + span(at, edge) > nowWall) break;
    t += span(at, edge);
    if (passage && edge === passage.end + 1) {
      // The loop comes round, as it would have: the window closing there closes, the loop's
      // first beat sounds after its count-in.
      round?.(passage.start, edge);
      rounds += 1;
      at = passage.start;
      const countInMs = passage.countIn * span(at, at + 1);
      if (t + countInMs > nowWall) return { ended: false, at, t: t + countInMs, beat: at, round: rounds, countInT: t };
      t += countInMs;
      // From the second time round, a loop with no vote window inside is the same every time:
      // skip whole rounds.
      if (looped && !edges.some((b) => b > passage.start && b <= passage.end)) {
        const whole = span(passage.start, passage.end + 1) + countInMs;
        const n = Math.floor((nowWall - t) / whole);
        t += n * whole;
        rounds += n;
      }
      looped = true;
      continue;
    }
    if (sections?.endsSection(edge - 1)) {
      // A section ended while the server was down: its choice decides, as it would have.
      const to = sections.next();
      if (to === null) return { ended: true, at: edge - 1 };
      at = to;
      continue;
    }
    if (edge < map.totalBeats) {
      at = voteAt(edge) ?? edge;
      continue;
    }
    if (!loop) return { ended: true };
    if (wrapped) {
      // From the second time round nobody has voted: every round is the same, skip them.
      const round = span(0, map.totalBeats);
      t += Math.floor((nowWall - t) / round) * round;
    }
    wrapped = true;
    at = voteAt(0) ?? 0;
  }
  const p = map.beatAt(map.timeAt(at) + (nowWall - t) * rate);
  // 1e-9: a beat due exactly now has sounded, whatever the rounding of timeAt and beatAt.
  const beat = Math.max(at, Math.min(Math.floor(p + 1e-9), edge - 1));
  return passage ? { ended: false, at, t, beat, round: rounds } : { ended: false, at, t, beat };
}

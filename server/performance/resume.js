// Going on with a saved performance after a restart: whether a record fits the score, and where
// a performance that was playing has got to since, exactly as the timers would have taken it
// (pure: the conductor gives it the time now).

import { MAX_RATE, MIN_RATE } from './beat-grid.js';
import { MAX_LOOP_COUNT_IN, loopRecordProblem } from './passage-loop.js';

/** @param {unknown} x @returns {x is number} */
const whole = (x) => Number.isInteger(x);

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
 * @property {number} [countIn] playing: the clicks of a count-in under way before `beat` (which
 *   sounds after them, at `beatT`); absent: none (a save from before it was recorded: the beat
 *   sounds at once on resume)
 * @property {SavedJump} [jump] playing: a jump asked for and not yet landed (absent: none)
 */

/**
 * A jump while playing not yet landed: `to` sounds at the first beat of the grid due at or after
 * wall time `t` (after `countIn` clicks from there).
 * @typedef {{ to: number, t: number, countIn: number }} SavedJump
 */

/** The most clicks a recorded count-in may have: four bars of 32 beats. */
const MAX_RECORD_COUNT_IN = 128;

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
  if (
    r.countIn !== undefined &&
    !(playback === 'playing' && whole(r.countIn) && r.countIn >= 1 && r.countIn <= MAX_RECORD_COUNT_IN)
  )
    return `countIn must be a whole number of clicks in 1..${MAX_RECORD_COUNT_IN}, and only while playing`;
  if (r.jump !== undefined) {
    const j = /** @type {Record<string, unknown>} */ (r.jump);
    if (
      playback !== 'playing' ||
      !j ||
      typeof j !== 'object' ||
      !(whole(j.to) && j.to >= 0 && j.to < map.totalBeats) ||
      !Number.isFinite(j.t) ||
      !(whole(j.countIn) && j.countIn >= 0 && j.countIn <= MAX_LOOP_COUNT_IN)
    )
      return `jump must be {to: a beat in 0..${map.totalBeats - 1}, t: a wall time, countIn: 0..${MAX_LOOP_COUNT_IN}}, and only while playing`;
  }
  if (r.forced !== undefined) {
    const f = /** @type {{ slot?: unknown, tiles?: unknown }} */ (r.forced);
    const choice = model.pageChoices.find((c) => c.slot === f?.slot);
    if (!choice || !Array.isArray(f.tiles) || f.tiles.length > choice.groups.length)
      return 'forced must name a page choice of this score and at most as many tiles as it has groups';
    const stray = f.tiles.find((t) => typeof t !== 'string' || !Object.hasOwn(choice.tiles, t));
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
 * @param {number} [performance.countIn]  playing: the clicks of a count-in under way (0: none)
 * @param {SavedJump | null} [performance.jump]  playing: a jump not yet landed
 * @returns {PerformanceRecord}
 */
export function toRecord({ state, pos, beatT, ended, votes, sections, loop, countIn = 0, jump = null }) {
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
    ...(playing && countIn > 0 ? { countIn } : {}),
    ...(playing && jump ? { jump: { ...jump } } : {}),
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
 * @property {Pick<import('./sections.js').SectionState, 'ends' | 'endsSection' | 'next' | 'reset'> | null} [sections]
 *   an open-form piece's sections: at a section's end its choice decides where playing on goes
 * @property {import('./passage-loop.js').PassageLoop | null} [passage]  the passage looped: after
 *   its last beat comes its first, after its count-in
 * @property {(start: number, after: number) => void} [round]  a loop comes round to `start` from
 *   its end (`after`, the beat after its last): the window closing there closes, the one at
 *   `start` restarts (vote-state.js, restartAt)
 * @property {number} [countIn]  `from` comes after this many clicks, under way when the record
 *   was made (`beatT`, still to come then, is when `from` was to sound after them)
 * @property {SavedJump | null} [jump]  a jump not yet landed when the record was made
 * @property {(to: number) => void} [jumped]  the jump lands: the votes and sections follow it
 */

/**
 * Where playing on through a restart got to.
 * @typedef {{ ended: true, at?: number }
 *   | { ended: false, at: number, t: number, beat: number, round?: number, countInT?: number, countIn?: number, jump?: SavedJump }} Reached
 */

/**
 * Play on from a performance at `from`, which sounded at wall time `beatT`, through the time that
 * has passed since, exactly as the timers would have: vote windows open and close on the way (a
 * recorded tally decides its jump), open-form sections end and their choice (or default) decides
 * where it goes, a jump asked for lands where it was to, the end loops or stops. Returns `ended`
 * (and, when a section's choice ended it, the beat it ended `at`) when the piece ended meanwhile,
 * else the beat reached by now and the grid to go on with: position `at` sounded at wall time `t`.
 * With a passage looped, also the time round reached (`round`). A jump still to land is returned
 * (`jump`), to land on the grid where it was to.
 * A count-in under way now (one recorded under way, or one the timers would have started while the
 * server was down: a loop's time round, a jump's) starts over in full now: players who lost its
 * clicks wait for a whole count. Then `countInT` is now, `countIn` the clicks, `beat` (and `at`)
 * the beat counted in to, which sounds at `t`; everything after it moves as much later (a jump
 * still to land too).
 * @param {PlayOnOptions} options
 * @returns {Reached}
 */
export function playOn({
  model,
  loop,
  rate,
  from,
  beatT,
  nowWall,
  voteAt,
  sections = null,
  passage = null,
  round,
  countIn = 0,
  jump = null,
  jumped,
}) {
  const map = model.map;
  const span = (/** @type {number} */ a, /** @type {number} */ b) => (map.timeAt(b) - map.timeAt(a)) / rate;
  let rounds = passage?.round ?? 0;
  /** @type {SavedJump | null} */
  let pending = jump;
  /**
   * Counting in to `to` now, its clicks due to end at `end` had nobody stopped: they start over.
   * @param {number} to
   * @param {number} clicks
   * @param {number} end
   * @returns {Reached}
   */
  const countingIn = (to, clicks, end) => {
    const t = nowWall + clicks * span(to, to + 1);
    const shift = t - end;
    return {
      ended: false,
      at: to,
      t,
      beat: to,
      countInT: nowWall,
      countIn: clicks,
      ...(passage ? { round: rounds } : {}),
      ...(pending ? { jump: { ...pending, t: pending.t + shift } } : {}),
    };
  };
  // Restarted during a count-in: it starts over. (A record from before count-ins were recorded:
  // the beat sounds now.)
  if (beatT > nowWall && countIn > 0) return countingIn(from, countIn, beatT);
  let at = from;
  let t = Math.min(beatT, nowWall);
  let wrapped = false;
  const edges = [...model.votes.flatMap((v) => [v.open, v.close]), ...(sections?.ends() ?? [])];
  let looped = false;
  let edge = map.totalBeats;
  for (;;) {
    edge = Math.min(map.totalBeats, ...edges.filter((b) => b > at));
    if (passage && at <= passage.end) edge = Math.min(edge, passage.end + 1);
    if (pending && pending.t <= nowWall && pending.t <= t + span(at, edge) + 1) {
      // The jump lands on the first beat of the grid due at or after its time, before whatever
      // the edge does (as turns.js takes it first).
      let landing = at;
      while (landing < edge && t + span(at, landing) < pending.t - 1) landing += 1;
      t += span(at, landing);
      at = pending.to;
      const clicks = pending.countIn;
      pending = null;
      jumped?.(at);
      const countInMs = clicks * span(at, at + 1);
      if (t + countInMs > nowWall) return countingIn(at, clicks, t + countInMs);
      t += countInMs;
      continue;
    }
    if (t + span(at, edge) > nowWall) break;
    t += span(at, edge);
    if (passage && edge === passage.end + 1) {
      // The loop comes round, as it would have: the window closing there closes, the loop's
      // first beat sounds after its count-in.
      round?.(passage.start, edge);
      rounds += 1;
      at = passage.start;
      const countInMs = passage.countIn * span(at, at + 1);
      if (t + countInMs > nowWall) return countingIn(at, passage.countIn, t + countInMs);
      t += countInMs;
      // From the second time round, a loop with no vote window inside is the same every time:
      // skip whole rounds (none while a jump is still to land).
      if (looped && !pending && !edges.some((b) => b > passage.start && b <= passage.end)) {
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
      if (to !== null) at = to;
      else if (!loop) return { ended: true, at: edge - 1 };
      else {
        // Looping, the end chosen starts the piece over from its first section, as it would have.
        sections.reset();
        at = voteAt(0) ?? 0;
      }
      continue;
    }
    if (edge < map.totalBeats) {
      at = voteAt(edge) ?? edge;
      continue;
    }
    if (!loop) return { ended: true };
    if (wrapped && !pending) {
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
  const still = pending ? { jump: pending } : {};
  return passage ? { ended: false, at, t, beat, round: rounds, ...still } : { ended: false, at, t, beat, ...still };
}

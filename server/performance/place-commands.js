// Where the conductor sends the performance: stop (back to the top, or to the loop's first beat),
// seek (a beat, a bar, a mark) and loop (passage-loop.js). While playing, a seek is a jump on the
// beat grid (turns.js): it lands on the first beat due at least JUMP_LEAD_MS from now, announced
// as the beat that follows, so every page shows it at the same time and nothing scheduled for the
// beats it replaces sounds. Counting in, a seek that lands where the clicks end takes the place of
// the beat they count in to: the clicks go on and count in to it, which the state says at once, so
// that no page counts in to the beat replaced or shows it at the downbeat. The conductor
// (conductor.js) gives them its state, its way of publishing a change and its beat grid.

import { atBeat, withNext, withPlayback } from '../../core/performance.js';
import { ScorecastError } from '../../core/errors.js';
import { setLoop } from './passage-loop.js';

/** @typedef {import('../../core/performance.js').PerformanceState} PerformanceState */

/**
 * How far ahead a jump while playing lands, at least (ms): time for its announcement to reach
 * every page on a venue's network before the beat (a beat's own announcement has a beat).
 */
export const JUMP_LEAD_MS = 300;

/**
 * @typedef {object} PlaceContext
 * @property {() => { state: PerformanceState, model: import('../../core/manifest.js').ScoreModel, voting: import('./vote-state.js').VoteState, sections: import('./sections.js').SectionState | null, pos: number }} now
 *   the performance as it is (pos: where it holds while not playing)
 * @property {import('./turns.js').Turns} loops
 * @property {(beat: number) => void} hold  forget a vote's pending jump and the end reached: the
 *   performance holds (or plays on) from `beat`
 * @property {() => void} cancel  the beat grid's timer
 * @property {(next: PerformanceState) => void} commit  publish a change
 * @property {() => void} reannounce  say again what follows the beat sounding (while playing)
 * @property {(beat: number) => number} due  when beat `beat` is due on the grid (monotonic ms)
 * @property {() => number} nowMono  the monotonic time now (ms)
 * @property {() => void} [jumped]  a jump while playing was scheduled (not yet in the state)
 * @property {(beat: number, mono: number) => void} countInTo  the clicks under way count in to
 *   `beat`, due at monotonic `mono`: the grid anchored there, playing starts there, its timer armed
 */

/**
 * @param {PlaceContext} context
 */
export function placeCommands({ now, loops, hold, cancel, commit, reannounce, due, nowMono, jumped, countInTo }) {
  const commands = {
    /** Stop and go back to the first beat; with a loop set, to the loop's first beat, its first time round. */
    stop() {
      const { state, model, voting, sections } = now();
      cancel();
      loops.cancelJump();
      const home = loops.home();
      hold(home);
      voting.voteAt(home, false);
      sections?.reset();
      commit(atBeat(model, withPlayback(state, 'stopped', null), home, null));
      return now().state;
    },

    /**
     * Go to `beat`: while playing, on the beat grid (a jump: the beats before it play on until it
     * lands; to the loop's first beat, after the loop's count-in). Into the loop set, the loop
     * goes on (the same time round); out of it, the loop is turned off.
     * @param {number} beat global beat index
     */
    seek(beat) {
      const { state, model, voting, sections } = now();
      checkBeat(model.map, beat);
      hold(beat);
      loops.goesTo(beat);
      if (state.playback === 'playing') {
        const at = landing(state, model.map.totalBeats, loops.passage?.end);
        if (state.countIn !== undefined && state.beatT === undefined && state.next && due(state.beat) >= at - 1) {
          recount(beat);
        } else {
          loops.jumpTo(beat, at, loops.countInAt(beat));
          reannounce();
        }
        jumped?.();
        return now().state;
      }
      voting.voteAt(beat, false);
      sections?.seek(beat);
      commit(atBeat(model, state, beat, null));
      return now().state;
    },

    /**
     * Loop a passage, or turn the loop off (passage-loop.js, setLoop).
     * @param {Record<string, unknown>} body
     */
    setLoop(body) {
      const { state, model, sections, pos } = now();
      const at = state.playback === 'playing' ? state.beat : Math.floor(pos);
      const then = setLoop(loops, body, { model, openForm: sections !== null, at });
      if (then === 'seek') return commands.seek(/** @type {number} */ (loops.passage?.start));
      if (then === 'announce') reannounce();
      return now().state;
    },
  };
  /**
   * Counting in (the clicks under way, the beat they count in to still to come), a jump landing
   * where the clicks end: they count in to `beat` instead, at the same times, the grid anchored on
   * it there. Their count-in stands for the jump's own (a loop's first beat), as when play counts
   * in to it.
   * @param {number} beat
   */
  function recount(beat) {
    const { state, model, voting, sections } = now();
    const end = due(state.beat);
    cancel();
    loops.cancelJump();
    voting.voteAt(beat, false);
    sections?.seek(beat);
    countInTo(beat, end);
    const counting = {
      ...atBeat(model, state, beat, null),
      countIn: /** @type {import('../../core/performance.js').CountIn} */ (state.countIn),
    };
    commit(withNext(model, counting, beat, /** @type {{ t: number }} */ (state.next).t));
  }

  /**
   * When a jump asked for now lands: the first beat of the grid due at least JUMP_LEAD_MS from
   * now (counting in, the beat counted in to is the first), or the end of the piece or of the
   * loop if that comes first.
   * @param {PerformanceState} state
   * @param {number} totalBeats
   * @param {number} [loopEnd]
   */
  function landing(state, totalBeats, loopEnd) {
    const limit = Math.min(totalBeats, loopEnd === undefined ? totalBeats : loopEnd + 1);
    let beat = state.beatT === undefined ? state.beat : state.beat + 1;
    const soonest = nowMono() + JUMP_LEAD_MS;
    while (beat < limit && due(beat) < soonest) beat += 1;
    return due(beat);
  }

  return commands;
}

/**
 * @param {import('../../core/tempo-map.js').TempoMap} map
 * @param {number} beat
 */
function checkBeat(map, beat) {
  if (!(Number.isInteger(beat) && beat >= 0 && beat < map.totalBeats)) {
    throw new ScorecastError('SC_ERR_BAD_CONTROL', `beat must be an integer in 0..${map.totalBeats - 1}`);
  }
}

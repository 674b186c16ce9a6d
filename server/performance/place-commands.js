// Where the conductor sends the performance: stop (back to the top, or to the loop's first beat),
// seek (a beat, a bar, a mark) and loop (passage-loop.js). The conductor (conductor.js) gives them
// its state, its way of publishing a change and of playing on from a beat.

import { atBeat, withPlayback } from '../../core/performance.js';
import { ScorecastError } from '../../core/errors.js';
import { setLoop } from './passage-loop.js';

/** @typedef {import('../../core/performance.js').PerformanceState} PerformanceState */

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
 * @property {(state: PerformanceState, beat: number) => void} startAt  play `beat` now
 */

/**
 * @param {PlaceContext} context
 */
export function placeCommands({ now, loops, hold, cancel, commit, reannounce, startAt }) {
  const commands = {
    /** Stop and go back to the first beat; with a loop set, to the loop's first beat, its first time round. */
    stop() {
      const { state, model, voting, sections } = now();
      cancel();
      const home = loops.home();
      hold(home);
      voting.voteAt(home, false);
      sections?.reset();
      commit(atBeat(model, withPlayback(state, 'stopped', null), home, null));
      return now().state;
    },

    /**
     * Go to `beat`. Into the loop set, the loop goes on (the same time round); out of it, the
     * loop is turned off.
     * @param {number} beat global beat index
     */
    seek(beat) {
      const { state, model, voting, sections } = now();
      checkBeat(model.map, beat);
      hold(beat);
      loops.goesTo(beat);
      voting.voteAt(beat, false);
      sections?.seek(beat);
      if (state.playback === 'playing') {
        cancel();
        startAt(state, beat);
      } else commit(atBeat(model, state, beat, null));
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

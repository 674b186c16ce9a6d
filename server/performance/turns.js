// Where a playing performance turns instead of going on to the next beat: after a loop's last
// beat, its first again (passage-loop.js), each time round after the loop's count-in. The
// conductor (conductor.js) asks at each beat; the turn is taken on the beat grid, where the next
// beat would have sounded, and announced with the beat before it, as a beat is.

import { loopField } from './passage-loop.js';

/** @typedef {import('./passage-loop.js').PassageLoop} PassageLoop */

/**
 * A turn: `to` sounds where the next beat would have, or after `countIn` clicks from there.
 * @typedef {{ to: number, countIn: number }} Turn
 */

export function createTurns() {
  /** @type {PassageLoop | null} */
  let passage = null;
  /** @param {number} beat */
  const inside = (beat) => passage !== null && beat >= passage.start && beat <= passage.end;
  return {
    /** The passage looped, or null. */
    get passage() {
      return passage;
    },
    inside,
    /** @param {PassageLoop | null} next */
    set(next) {
      passage = next;
    },
    /**
     * The state's `loop` field, or null.
     * @param {import('../../core/tempo-map.js').TempoMap} map
     */
    field: (map) => (passage === null ? null : loopField(map, passage)),
    /**
     * The performance goes to `beat` (a seek, a vote's jump): out of the loop, the loop is off.
     * @param {number} beat
     */
    goesTo(beat) {
      if (passage !== null && !inside(beat)) passage = null;
    },
    /** Where a stop goes back to: the loop's first beat (its first time round again), or the top. */
    home() {
      if (passage === null) return 0;
      passage = { ...passage, round: 1 };
      return passage.start;
    },
    /**
     * The loop's count-in when playing starts at `beat` without one asked for: its first beat's.
     * @param {number} beat
     */
    countInAt: (beat) => (passage !== null && beat === passage.start ? passage.countIn : 0),
    /**
     * Where the performance turns after `beat` instead of going on, or null.
     * @param {number} beat
     * @returns {Turn | null}
     */
    after(beat) {
      if (passage === null || beat !== passage.end) return null;
      return { to: passage.start, countIn: passage.countIn };
    },
    /**
     * The beat `scheduled` is due: the turn taken there instead (the loop's next time round, its
     * vote windows restarted), or null.
     * @param {number} scheduled
     * @param {import('./vote-state.js').VoteState} voting
     * @returns {Turn | null}
     */
    take(scheduled, voting) {
      if (passage === null || scheduled !== passage.end + 1) return null;
      passage = { ...passage, round: passage.round + 1 };
      loopRound(voting, passage.start, scheduled);
      return { to: passage.start, countIn: passage.countIn };
    },
    /** @param {number} round */
    setRound(round) {
      if (passage !== null) passage = { ...passage, round };
    },
  };
}

/**
 * A loop comes round to `start` from `after`, the beat after its end: a window that closes there
 * closes as written (its jump not taken); the window at `start` opens afresh (vote-state.js).
 * @param {import('./vote-state.js').VoteState} voting
 * @param {number} start
 * @param {number} after
 */
export function loopRound(voting, start, after) {
  voting.voteAt(after, false);
  voting.restartAt(start);
}

/** @typedef {ReturnType<typeof createTurns>} Turns */

// Where a playing performance turns instead of going on to the next beat: a jump the conductor
// asked for (a seek, a mark, the loop set from elsewhere), landing on a beat of the grid far
// enough ahead for every page to hear of it first; after a loop's last beat, its first again
// (passage-loop.js), each time round after the loop's count-in. The conductor (conductor.js)
// asks at each beat; the turn is taken on the beat grid, where the next beat would have sounded,
// and announced with the beat before it, as a beat is: every part and phone shows the target's
// first beat at the same server time.

import { loopField } from './passage-loop.js';

/** @typedef {import('./passage-loop.js').PassageLoop} PassageLoop */

/**
 * A turn: `to` sounds where the next beat would have, or after `countIn` clicks from there.
 * @typedef {{ to: number, countIn: number }} Turn
 */

export function createTurns() {
  /** @type {PassageLoop | null} */
  let passage = null;
  /**
   * A jump while playing: `to` sounds at the first beat of the grid due at or after `atMono`.
   * @type {{ to: number, atMono: number, countIn: number } | null}
   */
  let jump = null;
  /** @param {number} due  a beat's due time on the grid (monotonic ms) */
  const lands = (due) => jump !== null && due >= jump.atMono - 1;
  /** @param {number} beat */
  const inside = (beat) => passage !== null && beat >= passage.start && beat <= passage.end;
  return {
    /** The passage looped, or null. */
    get passage() {
      return passage;
    },
    inside,
    /** A jump not yet landed, or null. */
    get jump() {
      return jump;
    },
    /** @param {PassageLoop | null} next */
    set(next) {
      passage = next;
    },
    /** No loop, no jump (a new score, a resume). */
    reset() {
      passage = null;
      jump = null;
    },
    /**
     * Jump to `to` at the first beat due at or after `atMono`, after `countIn` clicks from there.
     * @param {number} to
     * @param {number} atMono
     * @param {number} countIn
     */
    jumpTo(to, atMono, countIn) {
      jump = { to, atMono, countIn };
    },
    /** Forget a jump not yet landed (a pause, a stop). */
    cancelJump() {
      jump = null;
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
     * @param {number} dueNext  when the beat after it is due on the grid
     * @returns {Turn | null}
     */
    after(beat, dueNext) {
      if (jump !== null && lands(dueNext)) return { to: jump.to, countIn: jump.countIn };
      if (passage === null || beat !== passage.end) return null;
      return { to: passage.start, countIn: passage.countIn };
    },
    /**
     * The beat `scheduled` is due at `due`: the turn taken there instead (a jump landing, the
     * votes and sections following it there; the loop's next time round, its vote windows
     * restarted), or null.
     * @param {number} scheduled
     * @param {number} due
     * @param {import('./vote-state.js').VoteState} voting
     * @param {import('./sections.js').SectionState | null} sections
     * @returns {Turn | null}
     */
    take(scheduled, due, voting, sections) {
      if (jump !== null && lands(due)) {
        const { to, countIn } = jump;
        jump = null;
        voting.voteAt(to, false);
        sections?.seek(to);
        return { to, countIn };
      }
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

// The conductor's vote handling: what the console and the phones ask of the votes (open or close
// a window, count a tap, force the next page choice's tiles) and when the counts go out. The
// conductor (conductor.js) gives them its state and its way of publishing a change.

/** @typedef {import('../../core/performance.js').PerformanceState} PerformanceState */

/** How often the open window's vote counts go out while the performance is not playing (ms). */
export const COUNTS_EVERY_MS = 250;

/**
 * @typedef {object} VoteContext
 * @property {() => PerformanceState} state  the performance as it is
 * @property {() => import('./vote-state.js').VoteState} voting  the votes of the score playing
 * @property {(next: PerformanceState) => void} commit  publish a change
 * @property {(beat: number) => void} jumpNext  a closed window's winner sends the performance
 *   playing to `beat`, on the next beat of the grid
 * @property {(beat: number) => void} seek
 * @property {Pick<import('./beat-grid.js').Clock, 'setTimer'>} clock
 * @property {() => void} [onVoteCast] a vote was counted, or the conductor forced a next tile
 */

/**
 * @param {VoteContext} context
 */
export function voteCommands({ state, voting, commit, jumpNext, seek, clock, onVoteCast }) {
  /** Publishes the vote counts while not playing (null: none pending). @type {unknown} */
  let countsTimer = null;

  return {
    /**
     * The next page choice still to be decided, for the console: its slot, beat, tiles (tile ->
     * page), groups, the score's own next tiles and the tiles the conductor forced for it.
     */
    nextChoice: () => voting().nextChoice(state().beat),

    /**
     * The page the first group plays in `slot`, once decided (null before).
     * @param {number} slot
     */
    chosenPage: (/** @type {number} */ slot) => voting().chosenPage(slot),

    /**
     * Force the pages of the next page choice still to be decided: the pages `tiles` stand for
     * are played there, before the votes (ZScore's composer sets its playing-next tiles). The
     * phones show the tiles as `next`; tiles forced before and no longer are lit again. An empty
     * list gives the choice back to the score and the votes.
     * @param {string[]} tiles
     */
    forceNext(tiles) {
      const { slot, tiles: forced, before } = voting().force(tiles, state().beat);
      commit(voting().showForced(state(), before));
      // Not a beat: the save must hear of it, or a restart before the decision loses it.
      onVoteCast?.();
      return { slot, tiles: forced };
    },

    /**
     * Open the score's vote window `id` now, whatever the beat; it stays open until closeVote().
     * @param {string} id
     */
    openVote(id) {
      voting().open(id);
      commit(state());
      onVoteCast?.();
      return state();
    },

    /**
     * Close the open vote window now. What the winner decides happens as the tally would at
     * the window's close: playing, on the next beat of the grid; otherwise at once.
     */
    closeVote() {
      const to = voting().close();
      const s = state();
      if (to !== null && s.playback === 'playing' && s.countIn === undefined) jumpNext(to);
      else if (to !== null) seek(to);
      else commit(s);
      onVoteCast?.();
      return state();
    },

    /**
     * Count a tap as a vote in the open window.
     * @param {{ tile: string | number, window?: string, device?: string }} tap
     */
    vote(tap) {
      const result = voting().ballot.cast(tap);
      if (result.ok) {
        onVoteCast?.();
        // Playing, the counts go out with the next beat; otherwise a little later, once for
        // every vote cast meanwhile (a thousand votes are not a thousand changes).
        if (state().playback !== 'playing' && countsTimer === null) {
          countsTimer = clock.setTimer(() => {
            countsTimer = null;
            commit(state());
          }, COUNTS_EVERY_MS);
        }
      }
      return result;
    },

    /** Tallies of the open vote window and outcomes of the closed ones. */
    votes: () => voting().ballot.report(),
  };
}

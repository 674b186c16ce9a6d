// What the audience's votes decide, and what the phones see of it: the ballot of the score's
// vote windows, the page choices made so far (an imported ZScore piece's rose) and the tiles the
// conductor forced for the next one. The conductor (conductor.js) dresses every state it
// publishes with it; a new score or a resume gets a new one.

import { applyPatch } from '../../core/merge-patch.js';
import { ScorecastError } from '../../core/errors.js';
import { createBallot } from '../../core/votes.js';
import { decidePageChoice } from '../../core/page-choice.js';

/** @typedef {import('../../core/performance.js').PerformanceState} PerformanceState */
/** @typedef {import('../../core/page-choice.js').Decision} Decision */

/**
 * A ScorecastError carrying an error value's code and message.
 * @param {import('../../core/errors.js').ErrorValue} e
 */
function scorecastError(e) {
  const err = new ScorecastError(/** @type {keyof typeof import('../../core/errors.js').ERRORS} */ (e.code));
  err.message = e.message;
  return err;
}

/**
 * What a vote record saves of the votes: the ballot, the page choices made and the tiles forced.
 * @typedef {object} VotesRecord
 * @property {import('../../core/votes.js').BallotRecord} ballot
 * @property {Decision[]} [pages]
 * @property {{ slot: number, tiles: string[] }} [forced]
 */

/**
 * @param {import('../../core/manifest.js').ScoreModel} model
 * @param {{ onVote?: (outcome: import('../../core/votes.js').Outcome) => void }} [hooks]  onVote: a
 *   vote window closed
 */
export function createVoteState(model, { onVote } = {}) {
  const ballot = createBallot(model.votes);
  /**
   * Page choices made (slot -> decision): made when the performance reaches a choice's beat,
   * forgotten when it goes back before it (so it is decided again on the way, with the votes
   * then), kept in the record for a resume.
   * @type {Map<number, Decision>}
   */
  const decided = new Map();
  /** Tiles the conductor forces for a choice still to come (ZScore's playing-next tiles). */
  /** @type {{ slot: number, tiles: string[] } | null} */
  let forcedNext = null;

  /**
   * The next page choice still to be decided at or after `beat`, or undefined.
   * @param {number} beat
   */
  const upcomingChoice = (beat) => model.pageChoices.find((c) => !decided.has(c.slot) && c.at >= beat);

  /**
   * The audience sees a vote window exactly while the ballot has it open: the score's own cues
   * open and close it on their beats, and the conductor may open one at another time or close
   * it early (both outside the cue timeline).
   * @param {PerformanceState} s
   */
  function mirrorVotes(s) {
    const openId = ballot.openId;
    let cues = s.cues;
    for (const [view, cue] of Object.entries(cues)) {
      const v = /** @type {{ id?: unknown } | undefined} */ (cue.vote);
      if (v && v.id !== openId) {
        const { vote: _, ...rest } = cue;
        cues = { ...cues, [view]: rest };
      }
    }
    if (
      openId !== null &&
      ballot.manual &&
      !Object.values(cues).some((c) => /** @type {{ id?: unknown } | undefined} */ (c.vote)?.id === openId)
    ) {
      const vote = model.votes.find((x) => x.id === openId);
      if (vote) cues = { ...cues, audience: { ...(cues.audience ?? {}), vote: { id: vote.id, tiles: vote.tiles } } };
    }
    // The open window's votes per tile, as of this change (a beat at most behind): the phones
    // darken the tiles with them. Only tiles with votes: one vote changes one small number.
    const shown = /** @type {{ id?: unknown, counts?: unknown } | undefined} */ (cues.audience?.vote);
    if (openId !== null && shown?.id === openId) {
      const counts = ballot.openTally ?? {};
      if (Object.keys(counts).length > 0)
        cues = { ...cues, audience: { ...cues.audience, vote: { ...shown, counts } } };
    }
    return cues === s.cues ? s : { ...s, cues };
  }

  /**
   * The state with the parts' chosen pages, `pages: {part: {slot: page}}`, after deciding the
   * choices up to its beat. Scores without page choices have no `pages`.
   * @param {PerformanceState} s
   */
  function withPages(s) {
    if (model.pageChoices.length === 0) return s;
    for (const c of model.pageChoices) {
      if (c.at > s.beat) decided.delete(c.slot);
      else if (!decided.has(c.slot)) {
        const record = ballot.record();
        const outcome =
          c.vote === null
            ? null
            : record.open?.id === c.vote
              ? { tally: record.open.tally }
              : ([...record.closed].reverse().find((o) => o.id === c.vote) ?? null);
        const played = new Set([...decided.values()].flatMap((d) => d.tiles));
        decided.set(
          c.slot,
          decidePageChoice(c, {
            scoreId: model.id,
            parts: model.parts.map((p) => p.id),
            tally: outcome?.tally ?? null,
            played,
            forced: forcedNext?.slot === c.slot ? forcedNext.tiles : null,
          }),
        );
      }
    }
    /** @type {Record<string, Record<string, number>>} */
    const pages = {};
    for (const d of [...decided.values()].sort((a, b) => a.slot - b.slot)) {
      for (const [part, page] of Object.entries(d.parts)) (pages[part] ??= {})[String(d.slot)] = page;
    }
    return /** @type {PerformanceState} */ ({ ...s, pages });
  }

  /**
   * The state with the tiles the conductor forced shown as `next` to the phones, while their
   * choice is still to be decided (a seek or a resume rebuilds the tiles from the cues).
   * @param {PerformanceState} s
   * @param {string[]} [before] tiles forced until now and no longer: lit again
   */
  function showForced(s, before = []) {
    const tiles = forcedNext && !decided.has(forcedNext.slot) ? forcedNext.tiles : [];
    const shown = s.cues.audience?.tiles;
    if (!shown || typeof shown !== 'object' || Array.isArray(shown)) return s;
    /** @type {Record<string, unknown>} */
    const patch = {};
    for (const t of before) if (!tiles.includes(t) && t in shown) patch[t] = { state: 'lit' };
    for (const t of tiles) if (t in shown) patch[t] = { state: 'next' };
    if (Object.keys(patch).length === 0) return s;
    const audience = /** @type {Record<string, unknown>} */ (applyPatch(s.cues.audience ?? {}, { tiles: patch }));
    return { ...s, cues: { ...s.cues, audience } };
  }

  return {
    /** The ballot of the score's vote windows (core/votes.js). */
    ballot,
    withPages,
    showForced,

    /**
     * The state as the phones see it: the open vote window and its counts, the chosen pages,
     * the forced tiles.
     * @param {PerformanceState} s
     */
    dress(s) {
      return showForced(withPages(mirrorVotes(s)));
    },

    /**
     * The ballot follows the performance to `beat`. When a window closes there, the tally may
     * send the performance elsewhere: returns the beat to play instead, or null.
     * @param {number} beat
     * @param {boolean} natural reached by playing on (a conductor's seek overrides the vote)
     */
    voteAt(beat, natural) {
      const outcome = ballot.at(beat);
      if (!outcome) return null;
      onVote?.(outcome);
      if (!natural || outcome.seek === null || outcome.seek === beat) return null;
      ballot.at(outcome.seek);
      return outcome.seek;
    },

    /**
     * A loop comes round to `beat`: the window still open (one the loop's end cut short) closes
     * with its tally as at its close, a jump it decides not taken, and the window the score has
     * at `beat`, if any, opens afresh: each time round votes as written. A window the conductor
     * opened by hand stays open.
     * @param {number} beat
     */
    restartAt(beat) {
      const closed = ballot.at(-1);
      if (closed) onVote?.(closed);
      ballot.at(beat);
    },

    /**
     * Open the score's vote window `id` now, whatever the beat.
     * @param {string} id
     */
    open(id) {
      const r = ballot.openNow(id);
      if (!r.ok) throw scorecastError(r.error);
      if (r.closed) onVote?.(r.closed);
    },

    /** Close the open vote window now: the beat its winner sends the performance to, or null. */
    close() {
      const r = ballot.closeNow();
      if (!r.ok) throw scorecastError(r.error);
      onVote?.(r.outcome);
      return r.outcome.seek;
    },

    /**
     * The next page choice still to be decided at or after `beat`, for the console.
     * @param {number} beat
     * @returns {{ slot: number, at: number, tiles: Record<string, number>, groups: number[], next: string[], forced: string[] } | null}
     */
    nextChoice(beat) {
      const c = upcomingChoice(beat);
      if (!c) return null;
      const forced = forcedNext?.slot === c.slot ? [...forcedNext.tiles] : [];
      return { slot: c.slot, at: c.at, tiles: { ...c.tiles }, groups: [...c.groups], next: [...c.next], forced };
    },

    /**
     * The page the first group plays in `slot`, once decided (null before).
     * @param {number} slot
     */
    chosenPage(slot) {
      return decided.get(slot)?.pages[0] ?? null;
    },

    /**
     * Force the pages of the next page choice still to be decided at or after `beat`. Returns
     * the choice's slot, the tiles and the tiles forced before (to be lit again).
     * @param {string[]} tiles
     * @param {number} beat
     */
    force(tiles, beat) {
      const choice = upcomingChoice(beat);
      if (!choice)
        throw new ScorecastError('SC_ERR_BAD_CONTROL', 'no page choice of this score is still to be decided');
      // Own keys only: a name every object inherits (constructor, toString) is no tile.
      const stray = tiles.find((t) => !Object.hasOwn(choice.tiles, t));
      if (stray !== undefined || tiles.length > choice.groups.length)
        throw new ScorecastError(
          'SC_ERR_BAD_CONTROL',
          `the choice of page ${choice.slot} takes at most ${choice.groups.length} of its tiles (${Object.keys(choice.tiles).join(', ')})`,
        );
      const before = forcedNext?.slot === choice.slot ? forcedNext.tiles : [];
      forcedNext = tiles.length ? { slot: choice.slot, tiles: [...tiles] } : null;
      return { slot: choice.slot, tiles: [...tiles], before };
    },

    /** @returns {VotesRecord} */
    record() {
      return {
        ballot: ballot.record(),
        ...(decided.size > 0 ? { pages: [...decided.values()] } : {}),
        ...(forcedNext && !decided.has(forcedNext.slot)
          ? { forced: { slot: forcedNext.slot, tiles: [...forcedNext.tiles] } }
          : {}),
      };
    },

    /**
     * Take up a recorded performance's votes (checked by resume.js, recordProblem): its ballot,
     * the page choices it made and the tiles it forced. Returns why the ballot does not fit this
     * score, or null.
     * @param {VotesRecord} record
     */
    restore(record) {
      const restored = ballot.restore(record.ballot);
      if (!restored.ok) return restored.problem;
      forcedNext = record.forced ? { slot: record.forced.slot, tiles: [...record.forced.tiles] } : null;
      for (const d of Array.isArray(record.pages) ? record.pages : []) {
        if (model.pageChoices.some((c) => c.slot === d?.slot) && d.parts !== null && typeof d.parts === 'object')
          decided.set(d.slot, d);
      }
      return null;
    },
  };
}

/** @typedef {ReturnType<typeof createVoteState>} VoteState */

// The conductor plays a score against a monotonic clock and publishes every state change to the
// bus: play, pause, stop, seek, tempo, a new score. The beat grid and its timer are beat-grid.js,
// what the votes decide is vote-state.js, an open-form piece's sections are sections.js, the way
// back after a restart is resume.js.

import { applyPatch, diffPatch } from '../../core/merge-patch.js';
import { atBeat, initialState, withNext, withRate, withPlayback } from '../../core/performance.js';
import { ScorecastError } from '../../core/errors.js';
import { MAX_RATE, MIN_RATE, createBeatGrid, systemClock } from './beat-grid.js';
import { createVoteState } from './vote-state.js';
import { createSectionState, sectionCommands } from './sections.js';
import { createMeterState, meterCommands } from './meter-state.js';
import { playOn, playbackOf, recordProblem, toRecord } from './resume.js';
import { COUNTS_EVERY_MS, voteCommands } from './vote-commands.js';
import { loopFromRecord } from './passage-loop.js';
import { placeCommands } from './place-commands.js';
import { createTurns, loopRound } from './turns.js';

export { systemClock };
/** @typedef {import('./beat-grid.js').Clock} Clock */
/** @typedef {import('./resume.js').PerformanceRecord} PerformanceRecord */
/** @typedef {import('../../core/performance.js').PerformanceState} PerformanceState */

/** Longest count-in, in bars. */
export const MAX_COUNT_IN_BARS = 4;

/** A new epoch name: time-ordered, unique across restarts. */
export function newEpoch() {
  return Date.now().toString(36) + Math.random().toString(36).slice(2, 6);
}

/**
 * @typedef {object} ConductorOptions
 * @property {import('../../core/manifest.js').ScoreModel} model
 * @property {import('../live/bus.js').Bus} bus
 * @property {Clock} [clock]
 * @property {boolean} [loop]  start over at the end (the demo's autoplay)
 * @property {string} [epoch]
 * @property {(beat: number, dueMono: number) => void} [onBeat] observer, for tests and metrics
 * @property {(beat: number) => void} [onStart] the performance starts playing at `beat` (a play,
 *   a loop's new round, a resume after a restart) or is moved there while playing (a seek); called
 *   before that beat's onBeat
 * @property {(outcome: import('../../core/votes.js').Outcome) => void} [onVote] a vote window closed
 * @property {() => void} [onVoteCast] a vote was counted, or the conductor forced a next tile
 *   (neither is all in the state: the save must hear of it)
 * @property {() => void} [onJump] a jump while playing was asked for: the state shows it only from
 *   the beat before it lands, and the save must hear of it before then
 */

export { COUNTS_EVERY_MS };

/**
 * @param {ConductorOptions} options
 */
export function createConductor({
  model: firstModel,
  bus,
  clock = systemClock,
  loop = false,
  epoch: firstEpoch = newEpoch(),
  onBeat,
  onStart,
  onVote,
  onVoteCast,
  onJump,
}) {
  let model = firstModel;
  let map = model.map;
  let voting = createVoteState(model, { onVote });
  let sections = createSectionState(model);
  const grid = createBeatGrid(clock);
  /** @type {number | null} A closed vote's jump, taken at the next beat (null: none). */
  let pendingJump = null;
  /** Where the performance turns instead of going on: the passage looped (turns.js). */
  const loops = createTurns();
  let epoch = firstEpoch;
  const meter = createMeterState({ clock, publish: () => commit(state), switches: () => sections?.audience() ?? null });
  const dress = meter.dresser((s) => withLoop(dressed(s, voting, sections), loops.field(map)));
  let state = dress(voting.withPages(initialState(model)));
  let seq = 0;
  /** Fractional beat position while not playing. */
  let pos = 0;
  let ended = false;

  bus.publish({ epoch, seq, t: clock.wall(), patch: null, state });

  /** @param {PerformanceState} next */
  function commit(next) {
    next = dress(next);
    const patch = diffPatch(state, next);
    state = next;
    if (patch === undefined) return;
    seq += 1;
    bus.publish({ epoch, seq, t: clock.wall(), patch, state });
  }

  /**
   * @param {number} beat a beat index, or totalBeats for the end of the piece
   * @param {number} [rate] default: the state's
   */
  const dueMono = (beat, rate = state.rate) => grid.dueMono(map, beat, rate);
  const wallOf = grid.wallOf;

  /**
   * Announce what follows `beat` while playing: the next beat in performance order (after a vote
   * window's close, the jump the tally so far decides; after the end, the loop's first beat).
   * @param {PerformanceState} s
   * @param {number} beat the beat sounding (or about to, after a count-in)
   */
  function announce(s, beat) {
    const sounding = s.countIn !== undefined && s.beatT !== undefined ? withoutCountIn(s) : s;
    const turn = turnAfter(beat);
    if (turn !== null) return withTurn(model, sounding, turn, wallOf(dueMono(beat + 1, s.rate)));
    const { to, dueAt } = following(beat, { pendingJump, loop, totalBeats: map.totalBeats, voting, sections });
    return withNext(model, sounding, to, wallOf(dueMono(dueAt, s.rate)));
  }

  /** Where the performance turns after `beat` instead of going on (turns.js), or null. */
  const turnAfter = (/** @type {number} */ b) => (pendingJump === null ? loops.after(b, dueMono(b + 1)) : null);

  /**
   * Play `beat` after `clicks` clicks, the first at monotonic time `mono` and wall time `wall`:
   * the grid anchored on `beat` after them.
   * @param {PerformanceState} playing
   * @param {number} beat
   * @param {number} clicks
   * @param {number} mono
   * @param {number} wall
   */
  function countInTo(playing, beat, clicks, mono, wall) {
    const beatMs = beatMsAt(map, beat, playing.rate);
    grid.anchorAt(beat, mono + clicks * beatMs, wall + clicks * beatMs);
    onStart?.(beat);
    commit(withTurn(model, atBeat(model, playing, beat, null), { to: beat, countIn: clicks }, wall));
    arm(beat);
  }

  /** The position now: playing, within the beat sounding. */
  const currentPos = () => (state.playback === 'playing' ? grid.positionWithin(map, state.rate, state.beat) : pos);

  /** @param {number} beat next beat due (totalBeats: the end, or the loop from its ideal time) */
  function arm(beat) {
    grid.arm(
      () => dueMono(beat),
      () => (goesOn(beat, map, sections, turnAfter(beat - 1)) ? fire(beat) : endOrLoop(dueMono(map.totalBeats))),
    );
  }

  /** @param {number} scheduled */
  function fire(scheduled) {
    const due = dueMono(scheduled);
    // A turn (the loop's next time round) or what the votes and sections decide.
    const { decided, turn } = turnOrDecide(scheduled, due, { voting, sections, pendingJump, loops });
    pendingJump = null;
    if (decided === false) return endOrLoop(due);
    if (turn && turn.countIn > 0) return countInTo(state, turn.to, turn.countIn, due, wallOf(due));
    if (turn) onStart?.(turn.to);
    const beat = decided ?? scheduled;
    // The decided beat sounds when the scheduled one would have: the grid goes on.
    if (decided !== null) grid.anchorAt(decided, due);
    onBeat?.(beat, due);
    const cues = meterCues(sections, beat, meter.value()); // a choice they make is announced now
    commit(announce(withCues(atBeat(model, state, beat, wallOf(due)), cues), beat));
    arm(beat + 1);
  }

  /** The end at `due`; looping, the piece (an open form's too) starts over there. @param {number} due */
  function endOrLoop(due) {
    if (!loop) return stopAtEnd();
    sections?.reset();
    grid.anchorAt(0, due);
    onStart?.(0);
    fire(0);
  }

  /** The piece has ended: stopped on its last beat played. */
  function stopAtEnd() {
    [ended, pos] = [true, state.beat];
    commit(withPlayback(state, 'stopped', null));
  }

  /**
   * Play on from a performance at `from`, which sounded at wall time `beatT`, to now (resume.js):
   * the beat reached sounds on the same grid.
   * A count-in under way then, or now, starts over in full; a jump not landed by now lands on the
   * same grid.
   * @param {number} from
   * @param {number} beatT
   * @param {{ countIn?: number, jump?: import('./resume.js').SavedJump }} pending  the record's
   */
  function playOnFrom(from, beatT, { countIn, jump }) {
    const [nowMono, nowWall] = [clock.now(), clock.wall()];
    const rules = playOnRules(voting, sections, loops);
    const reached = playOn({ model, loop, rate: state.rate, from, beatT, nowWall, countIn, jump, ...rules });
    const placed = reachedState(model, state, reached, loops);
    state = placed.state;
    if (reached.ended) {
      ended = true;
      pos = placed.beat;
      return;
    }
    grid.anchorAt(reached.at, nowMono - (nowWall - reached.t), reached.t);
    if (reached.jump) loops.jumpTo(reached.jump.to, nowMono - (nowWall - reached.jump.t), reached.jump.countIn);
    if (!placed.countingIn)
      state = announce(atBeat(model, state, placed.beat, wallOf(dueMono(placed.beat))), placed.beat);
    arm(placed.countingIn ? placed.beat : placed.beat + 1);
  }

  /**
   * Start playing at `beat` now: it sounds at once (one published change, not two).
   * @param {PerformanceState} playing
   * @param {number} beat
   */
  function startAt(playing, beat) {
    grid.anchor(beat);
    onStart?.(beat);
    onBeat?.(beat, grid.mono);
    commit(announce(withCues(atBeat(model, playing, beat, grid.wall), meterCues(sections, beat, meter.value())), beat));
    arm(beat + 1);
  }

  /**
   * Play on now from position `p`, within beat `beat` (which sounded a little before), at the
   * rate of `s`.
   * @param {PerformanceState} s
   * @param {number} p
   * @param {number} beat
   */
  function playFrom(s, p, beat) {
    grid.anchor(p);
    const beatStartMono = grid.mono - (map.timeAt(p) - map.timeAt(beat)) / s.rate;
    commit(announce({ ...s, beatT: wallOf(beatStartMono) }, beat));
    arm(beat + 1);
  }

  /**
   * A new epoch from a new beginning: the score `next`, its vote state, at its first beat,
   * stopped; nothing is published yet.
   * @param {import('../../core/manifest.js').ScoreModel} next
   * @param {import('./vote-state.js').VoteState} nextVoting
   * @param {string} nextEpoch
   */
  function restart(next, nextVoting, nextEpoch, nextSections = createSectionState(next)) {
    grid.cancel();
    model = next;
    map = next.map;
    voting = nextVoting;
    sections = nextSections;
    pendingJump = null;
    loops.reset();
    epoch = nextEpoch;
    seq = 0;
    ended = false;
    pos = 0;
    state = initialState(next);
  }

  const conductor = {
    get epoch() {
      return epoch;
    },
    get seq() {
      return seq;
    },
    get state() {
      return state;
    },
    get model() {
      return model;
    },

    /**
     * Play another score, or a new version of this one: a new epoch (clients resync by snapshot).
     * With keepPosition, the performance goes on from the same beat (clamped to the new score)
     * in the same transport state: a composer's edit must not lose their place.
     * @param {import('../../core/manifest.js').ScoreModel} next
     * @param {{ keepPosition?: boolean, epoch?: string }} [options]
     */
    load(next, { keepPosition = false, epoch: nextEpoch = newEpoch() } = {}) {
      const was = { playback: state.playback, rate: state.rate };
      const at = Math.min(Math.floor(currentPos()), next.map.totalBeats - 1);
      restart(next, createVoteState(next, { onVote }), nextEpoch);
      if (keepPosition) {
        pos = at;
        state = keptPlace(model, state, at, was, { voting, sections });
      }
      state = dress(voting.withPages(state));
      bus.publish({ epoch, seq, t: clock.wall(), patch: null, state });
      if (keepPosition && was.playback === 'playing') conductor.play();
      return state;
    },

    /**
     * Play from where the performance is. With a count-in (bars, when starting on a beat), the
     * clicks come first, one per beat at the tempo of that beat, and the beat sounds after them.
     * @param {{ countIn?: number }} [options]
     */
    play({ countIn = 0 } = {}) {
      checkCountIn(countIn);
      if (state.playback === 'playing') return state;
      if (ended) {
        pos = 0;
        ended = false;
        sections?.reset();
      }
      const playing = withPlayback(state, 'playing', null);
      // From the loop's first beat, the loop's own count-in (beats) unless play asks for one.
      const clicks = countIn > 0 ? countIn * map.positionOf(Math.floor(pos)).time[0] : loops.countInAt(pos);
      if (Number.isInteger(pos) && clicks > 0) {
        voting.voteAt(pos, false);
        countInTo(playing, pos, clicks, clock.now(), clock.wall());
      } else if (Number.isInteger(pos)) {
        voting.voteAt(pos, false);
        startAt(playing, pos);
      } else {
        onStart?.(Math.floor(pos));
        playFrom(playing, pos, Math.floor(pos));
      }
      return state;
    },

    pause() {
      if (state.playback !== 'playing') return state;
      pos = currentPos();
      grid.cancel();
      loops.cancelJump();
      commit(withPlayback(state, 'paused', null));
      return state;
    },

    /**
     * Counting in, the clicks go on as announced and the beat counted in to plays at the new rate.
     * @param {number} rate tempo factor, 1 = as written
     */
    setRate(rate) {
      checkRate(rate);
      if (state.playback === 'playing' && state.beatT !== undefined) {
        const p = currentPos();
        grid.cancel();
        playFrom(withRate(model, state, rate), p, state.beat);
      } else {
        commit(withRate(model, state, rate));
      }
      return state;
    },

    /**
     * Global beat index of bar `bar`, beat `beatInBar` (default: the bar's first beat).
     * @param {number} bar
     * @param {number} [beatInBar]
     */
    beatOf: (bar, beatInBar) => beatOfBar(map, bar, beatInBar),

    /**
     * Fire the score's preset `id` now (ZScore's operator could run a web-score preset at any
     * moment): its patch is merged into the audience view's cue state, and lasts until a cue
     * changes what it set or a seek rebuilds the state from the cues.
     * @param {string} id
     */
    firePreset(id) {
      commit(withPreset(model, state, id));
      return state;
    },

    /**
     * The performance as plain JSON, for resume(): where it is and, while playing, when its
     * beat sounded, so that the position after a restart follows from the time gone by.
     * @returns {PerformanceRecord}
     */
    record: () => performanceRecord(state, { pos, ended, voting, sections, loops, pendingJump, wallOf, dueMono }),

    /**
     * Go on with a recorded performance of this score, in a new epoch (clients resync by
     * snapshot). Playing: at the beat the performance has reached by now (the time since the
     * record's beat sounded, through the tempo map at its rate, following vote windows, the
     * loop or the end), on the same beat grid; paused or stopped: where it was. The vote window
     * that was open keeps its tally and its voters. Throws SC_ERR_SAVE_MISMATCH, changing
     * nothing, when the record does not fit this score.
     * @param {PerformanceRecord} record
     * @param {{ epoch?: string }} [options]
     */
    resume(record, { epoch: nextEpoch = newEpoch() } = {}) {
      restart(model, restoredVotes(record, model, onVote), nextEpoch, restoredSections(record, model));
      loops.set(record.loop === undefined ? null : loopFromRecord(record.loop));
      const playback = playbackOf(record);
      ended = playback !== 'playing' && record.ended === true;
      pos = record.beat;
      state = withRate(model, state, record.rate);
      if (playback === 'playing') {
        playOnFrom(record.beat, /** @type {number} */ (record.beatT), record);
        onStart?.(state.beat);
      } else {
        state = withPlayback(atBeat(model, state, Math.floor(pos), null), playback, null);
      }
      // The cues the section's meter rules fired before the restart, over the beat's own.
      state = dress(withCues(state, sections?.firedCues() ?? []));
      bus.publish({ epoch, seq, t: clock.wall(), patch: null, state });
      return state;
    },

    ...voteCommands({
      state: () => state,
      voting: () => voting,
      commit,
      // A closed window's jump while playing, on the next beat: it replaces a seek not landed.
      jumpNext(beat) {
        [pendingJump] = [beat, loops.cancelJump()];
        commit(announce(state, state.beat));
      },
      seek: (beat) => conductor.seek(beat),
      clock,
      onVoteCast,
    }),

    // Thumbs for the audience meter, and `dispose()`: stop the timers (the beat's and the
    // meter's); the conductor publishes nothing more.
    ...meterCommands({ sections: () => sections, meter, grid }),

    // Stop, seek, loop: where the performance goes (place-commands.js).
    ...placeCommands({
      now: () => ({ state, model, voting, sections, pos }),
      loops,
      hold: (beat) => ([pendingJump, ended, pos] = [null, false, beat]),
      ...gridHooks(grid, arm, onStart),
      commit,
      reannounce: () => commit(state.beatT !== undefined && state.next ? announce(state, state.beat) : state),
      due: (beat) => dueMono(beat),
      nowMono: clock.now,
      jumped: () => onJump?.(),
    }),

    // A choice on a section's last beat changes the beat announced next (counting in, the beat
    // counted in to stays announced).
    ...sectionCommands({
      sections: () => sections,
      commit: () => commit(state.beatT !== undefined && state.next ? announce(state, state.beat) : state),
    }),
  };
  return conductor;
}

/**
 * The performance as plain JSON (resume.js, toRecord): while playing, when its beat sounded (or
 * sounds, counting in), the count-in under way and a jump not yet landed.
 * @param {PerformanceState} state
 * @param {{ pos: number, ended: boolean, voting: import('./vote-state.js').VoteState,
 *   sections: import('./sections.js').SectionState | null, loops: import('./turns.js').Turns,
 *   pendingJump: number | null, wallOf: (mono: number) => number, dueMono: (beat: number) => number }} performance
 *   pendingJump: a closed vote's jump, taken on the next beat
 * @returns {PerformanceRecord}
 */
function performanceRecord(state, { pos, ended, voting, sections, loops, pendingJump, wallOf, dueMono }) {
  const playing = state.playback === 'playing';
  // A closed vote's jump, due on the next beat of the grid, is a jump like a seek's: a restart
  // before it landed must still take it (it lands first, as it does while playing).
  const voted =
    playing && pendingJump !== null ? { to: pendingJump, atMono: dueMono(state.beat + 1), countIn: 0 } : null;
  const jump = playing ? (voted ?? loops.jump) : null;
  return toRecord({
    state,
    pos,
    beatT: playing ? wallOf(dueMono(state.beat)) : null,
    ended,
    votes: voting.record(),
    sections: sections?.record(),
    loop: loops.passage,
    // Counting in: the beat counted in to has not sounded yet.
    countIn: playing && state.beatT === undefined ? (state.countIn?.beats ?? 0) : 0,
    jump: jump && { to: jump.to, t: wallOf(jump.atMono), countIn: jump.countIn },
  });
}

/**
 * The votes of a recorded performance of the score `model`. Throws SC_ERR_SAVE_MISMATCH when the
 * record does not fit the score.
 * @param {PerformanceRecord} record
 * @param {import('../../core/manifest.js').ScoreModel} model
 * @param {(outcome: import('../../core/votes.js').Outcome) => void} [onVote]
 */
function restoredVotes(record, model, onVote) {
  const voting = createVoteState(model, { onVote });
  const problem = recordProblem(record, model) ?? voting.restore(record);
  if (problem !== null) throw new ScorecastError('SC_ERR_SAVE_MISMATCH', problem);
  return voting;
}

/**
 * Whether the performance goes on to `beat` (else it has reached the end): a beat of the piece,
 * the choice at an open-form section's end, or a turn after the beat before (turns.js).
 * @param {number} beat
 * @param {import('../../core/tempo-map.js').TempoMap} map
 * @param {import('./sections.js').SectionState | null} sections
 * @param {import('./turns.js').Turn | null} turn
 */
function goesOn(beat, map, sections, turn) {
  return beat < map.totalBeats || sections?.endsSection(beat - 1) || turn !== null;
}

/**
 * The beat `scheduled` comes, due at `due`: a turn taken there (a jump landing, the loop's next
 * time round, when no vote's jump is pending), or what the votes and sections decide (decideAt). A jump out of the loop ends the
 * loop, as a seek out of it does.
 * @param {number} scheduled
 * @param {number} due
 * @param {{ voting: import('./vote-state.js').VoteState, sections: import('./sections.js').SectionState | null, pendingJump: number | null, loops: import('./turns.js').Turns }} at
 * @returns {{ decided: number | null | false, turn: import('./turns.js').Turn | null }}
 */
function turnOrDecide(scheduled, due, { voting, sections, pendingJump, loops }) {
  const turn = pendingJump === null ? loops.take(scheduled, due, voting, sections) : null;
  if (turn) return { decided: turn.to, turn };
  const decided = decideAt(scheduled, { voting, sections, pendingJump });
  if (typeof decided === 'number') loops.goesTo(decided);
  return { decided, turn: null };
}

/**
 * Where the performance goes as the beat `scheduled` comes: the beat decided instead (a vote the
 * conductor closed, a vote window closing there, the choice at an open-form section's end), null
 * (`scheduled` sounds), or false (a section's choice ends the piece).
 * @param {number} scheduled
 * @param {{ voting: import('./vote-state.js').VoteState, sections: import('./sections.js').SectionState | null, pendingJump: number | null }} at
 * @returns {number | null | false}
 */
function decideAt(scheduled, { voting, sections, pendingJump }) {
  const decided = voting.voteAt(scheduled, true);
  if (pendingJump !== null) {
    // A vote the conductor closed decides the beat after the one that was sounding.
    voting.ballot.at(pendingJump);
    return pendingJump;
  }
  // An open-form section ends: the section chosen next starts on the grid, or the piece ends.
  if (sections?.endsSection(scheduled - 1)) return sections.next() ?? false;
  return decided;
}

/**
 * The state as the pages see it: the votes, the pages chosen, the open form's section.
 * @param {PerformanceState} s
 * @param {import('./vote-state.js').VoteState} voting
 * @param {import('./sections.js').SectionState | null} sections
 */
function dressed(s, voting, sections) {
  const d = voting.dress(s);
  return sections ? sections.dress(d) : d;
}

/**
 * A recorded performance's open-form sections, for the score `model` (null: it has none). A
 * record from before the score had them goes on in the section that holds its beat. Throws
 * SC_ERR_SAVE_MISMATCH when the record does not fit the score.
 * @param {PerformanceRecord} record
 * @param {import('../../core/manifest.js').ScoreModel} model
 */
function restoredSections(record, model) {
  const sections = createSectionState(model);
  if (!sections) return null;
  if (record.sections === undefined) sections.seek(Math.floor(record.beat));
  else {
    const problem = sections.restore(record.sections);
    if (problem !== null) throw new ScorecastError('SC_ERR_SAVE_MISMATCH', problem);
  }
  return sections;
}

/**
 * What follows `beat` in performance order: the beat announced as next (after a vote window's
 * close, the jump the tally so far decides; at an open-form section's end, the first beat of the
 * section chosen so far; after the end, the loop's first beat or none), and the position whose
 * due time it takes.
 * @param {number} beat
 * @param {{ pendingJump: number | null, loop: boolean, totalBeats: number, voting: import('./vote-state.js').VoteState, sections: import('./sections.js').SectionState | null }} options
 * @returns {{ to: number | null, dueAt: number }}
 */
function following(beat, { pendingJump, loop, totalBeats, voting, sections }) {
  const ballot = voting.ballot;
  const after = beat + 1;
  if (pendingJump !== null) return { to: pendingJump, dueAt: after };
  if (sections?.endsSection(beat)) return { to: sections.after(beat) ?? (loop ? 0 : null), dueAt: after };
  if (after >= totalBeats) return { to: loop ? 0 : null, dueAt: totalBeats };
  const outcome = ballot.preview(after);
  return { to: outcome && outcome.seek !== null ? outcome.seek : after, dueAt: after };
}

/**
 * A new score's state at the place the performance had reached in the previous one: `at`, at the
 * same rate, paused if it was (a composer's edit must not lose their place); its votes and
 * sections follow it there.
 * @param {import('../../core/manifest.js').ScoreModel} model
 * @param {PerformanceState} s  the new score's initial state
 * @param {number} at
 * @param {{ playback: string, rate: number }} was
 * @param {{ voting: import('./vote-state.js').VoteState, sections: import('./sections.js').SectionState | null }} follow
 */
function keptPlace(model, s, at, was, { voting, sections }) {
  voting.voteAt(at, false);
  sections?.seek(at);
  const placed = atBeat(model, withRate(model, s, was.rate), at, null);
  return was.playback === 'paused' ? withPlayback(placed, 'paused', null) : placed;
}

/**
 * How playing on through the time a restart took follows the votes, the open form's sections and
 * the loop (resume.js, playOn).
 * @param {import('./vote-state.js').VoteState} voting
 * @param {import('./sections.js').SectionState | null} sections
 * @param {import('./turns.js').Turns} loops
 */
function playOnRules(voting, sections, loops) {
  return {
    voteAt: (/** @type {number} */ b) => voting.voteAt(b, true),
    sections,
    passage: loops.passage,
    round: (/** @type {number} */ start, /** @type {number} */ after) => loopRound(voting, start, after),
    jumped: (/** @type {number} */ to) => {
      voting.voteAt(to, false);
      sections?.seek(to);
    },
  };
}

/**
 * Where playing on through a restart got to (resume.js, playOn), as the state: ended (stopped on
 * its last beat played), counting in to the loop's next time round (the clicks where they had got
 * to), or at the beat reached (its state is announced once the grid is anchored). The loop's time
 * round is updated.
 * @param {import('../../core/manifest.js').ScoreModel} model
 * @param {PerformanceState} state
 * @param {ReturnType<typeof playOn>} reached
 * @param {import('./turns.js').Turns} loops
 * @returns {{ state: PerformanceState, beat: number, countingIn: boolean }}
 */
function reachedState(model, state, reached, loops) {
  if (reached.ended) {
    const beat = reached.at ?? model.map.totalBeats - 1;
    return { state: withPlayback(atBeat(model, state, beat, null), 'stopped', null), beat, countingIn: false };
  }
  if (reached.round !== undefined) loops.setRound(reached.round);
  const playing = withPlayback(state, 'playing', null);
  if (reached.countInT === undefined) return { state: playing, beat: reached.beat, countingIn: false };
  const turn = { to: reached.beat, countIn: reached.countIn ?? 0 };
  const counting = withTurn(model, atBeat(model, playing, reached.beat, null), turn, reached.countInT);
  return { state: counting, beat: reached.beat, countingIn: true };
}

/** @param {unknown} countIn */
function checkCountIn(countIn) {
  if (!(Number.isInteger(countIn) && Number(countIn) >= 0 && Number(countIn) <= MAX_COUNT_IN_BARS))
    throw new ScorecastError('SC_ERR_BAD_CONTROL', `countIn must be a whole number of bars in 0..${MAX_COUNT_IN_BARS}`);
}

/** @param {unknown} rate */
function checkRate(rate) {
  if (!(typeof rate === 'number' && rate >= MIN_RATE && rate <= MAX_RATE))
    throw new ScorecastError('SC_ERR_BAD_CONTROL', `rate must be a number in ${MIN_RATE}..${MAX_RATE}`);
}

/**
 * Global beat index of bar `bar`, beat `beatInBar` (default: the bar's first beat).
 * @param {import('../../core/tempo-map.js').TempoMap} map
 * @param {number} bar
 * @param {number} [beatInBar]
 */
function beatOfBar(map, bar, beatInBar) {
  const info = map.barInfo(bar);
  if (!info) throw new ScorecastError('SC_ERR_BAD_CONTROL', `bar must be in ${map.firstBar}..${map.lastBar}`);
  try {
    return map.beatOf(bar, beatInBar ?? info.firstBeatInBar);
  } catch (err) {
    throw new ScorecastError('SC_ERR_BAD_CONTROL', /** @type {Error} */ (err).message.replace(/^tempo map: /, ''));
  }
}

/**
 * The state with the score's preset `id` merged into the audience view's cue state.
 * @param {import('../../core/manifest.js').ScoreModel} model
 * @param {PerformanceState} state
 * @param {string} id
 */
function withPreset(model, state, id) {
  const preset = model.presets?.find((p) => p.id === id);
  if (!preset)
    throw new ScorecastError(
      'SC_ERR_BAD_CONTROL',
      `preset "${String(id).slice(0, 64)}" is not in this score (presets: ${model.presets?.map((p) => p.id).join(', ') || 'none'})`,
    );
  const audience = /** @type {Record<string, unknown>} */ (applyPatch(state.cues.audience ?? {}, preset.set));
  return { ...state, cues: { ...state.cues, audience } };
}

/**
 * Beat `beat` sounds with the audience meter at `meter` (the value the pages have): the section's
 * meter rules step on (core/meter-rules.js); the cues of those that fired, in order.
 * @param {import('./sections.js').SectionState | null} sections
 * @param {number} beat
 * @param {number} meter
 */
function meterCues(sections, beat, meter) {
  return (sections?.meterBeat(beat, meter) ?? []).flatMap((r) => (r.cue ? [r.cue] : []));
}

/**
 * The state with cues fired by the audience meter (core/meter-rules.js) merged into their views'
 * cue state, as a preset is: they last until a cue changes what they set, or a jump or a seek
 * rebuilds the cue state from the score.
 * @param {PerformanceState} state
 * @param {{ view: string, set: Record<string, unknown> }[]} fired
 */
function withCues(state, fired) {
  let cues = state.cues;
  for (const { view, set } of fired)
    cues = { ...cues, [view]: /** @type {Record<string, unknown>} */ (applyPatch(cues[view] ?? {}, set)) };
  return cues === state.cues ? state : { ...state, cues };
}

/**
 * The state with its `loop` field (null: none).
 * @param {PerformanceState} s
 * @param {import('../../core/loop.js').LoopField | null} field
 * @returns {PerformanceState}
 */
function withLoop(s, field) {
  if (field === null) {
    if (s.loop === undefined) return s;
    const { loop: _, ...rest } = s;
    return rest;
  }
  return { ...s, loop: field };
}

/**
 * The state announcing a turn: `turn.to` follows at wall time `t`, or after `turn.countIn` clicks
 * from `t`. The clicks are announced with the beat before them, as a beat is: every page counts
 * in together, whenever its message arrives.
 * @param {import('../../core/manifest.js').ScoreModel} model
 * @param {PerformanceState} s
 * @param {{ to: number, countIn: number }} turn
 * @param {number} t
 */
function withTurn(model, s, turn, t) {
  if (turn.countIn === 0) return withNext(model, s, turn.to, t);
  const beatMs = beatMsAt(model.map, turn.to, s.rate);
  return withNext(model, { ...s, countIn: { t, beats: turn.countIn, beatMs } }, turn.to, t + turn.countIn * beatMs);
}

/**
 * What place-commands.js does on the beat grid: cancel its timer; count the clicks under way in
 * to `beat`, due at monotonic `mono` (a seek while counting in): the grid anchored there, playing
 * starting there, its timer armed.
 * @param {import('./beat-grid.js').BeatGrid} grid
 * @param {(beat: number) => void} arm
 * @param {((beat: number) => void) | undefined} onStart
 */
function gridHooks(grid, arm, onStart) {
  return {
    cancel: () => grid.cancel(),
    /** @param {number} beat @param {number} mono */
    countInTo(beat, mono) {
      grid.anchorAt(beat, mono);
      onStart?.(beat);
      arm(beat);
    },
  };
}

/**
 * A sounding beat's state without the count-in announced with it (a loop turned off meanwhile).
 * @param {PerformanceState} s
 * @returns {PerformanceState}
 */
function withoutCountIn(s) {
  const { countIn: _, ...rest } = s;
  return rest;
}

/**
 * The length of beat `beat` at `rate` (ms): a count-in's clicks before it are this far apart.
 * @param {import('../../core/tempo-map.js').TempoMap} map
 * @param {number} beat
 * @param {number} rate
 */
function beatMsAt(map, beat, rate) {
  return (map.timeAt(beat + 1) - map.timeAt(beat)) / rate;
}

/** @typedef {ReturnType<typeof createConductor>} Conductor */

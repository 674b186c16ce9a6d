// The conductor plays a score against a monotonic clock and publishes every state change to the
// bus. Beat N is due at anchor + (timeAt(N) - timeAt(anchorBeat)) / rate, computed from the
// anchor each time, so timer lateness never accumulates (setInterval would drift).

import { applyPatch, diffPatch } from '../../core/merge-patch.js';
import { atBeat, initialState, withCountIn, withNext, withRate, withTransport } from '../../core/performance.js';
import { ScorecastError } from '../../core/errors.js';
import { createBallot } from '../../core/votes.js';
import { decidePageChoice } from '../../core/page-choice.js';

/**
 * A performance as plain JSON, to go on from after a restart (server/performance/save/persist.js saves it).
 * @typedef {object} PerformanceRecord
 * @property {import('../../core/performance.js').Transport} transport
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
 */

const TRANSPORTS = ['playing', 'paused', 'stopped'];

/**
 * Time and timers, injected so tests drive them by hand.
 * @typedef {object} Clock
 * @property {() => number} now   monotonic milliseconds
 * @property {() => number} wall  milliseconds since the Unix epoch
 * @property {(fn: () => void, ms: number) => unknown} setTimer
 * @property {(handle: unknown) => void} clearTimer
 */

/** @type {Clock} */
export const systemClock = {
  now: () => performance.now(),
  wall: () => performance.timeOrigin + performance.now(),
  setTimer: (fn, ms) => setTimeout(fn, ms),
  clearTimer: (h) => clearTimeout(/** @type {NodeJS.Timeout} */ (h)),
};

/** Timers may fire up to this early (ms); earlier than that, the conductor waits again. */
const EARLY_TOLERANCE_MS = 1;
const MIN_RATE = 0.25;
const MAX_RATE = 4;
/** Longest count-in, in bars. */
export const MAX_COUNT_IN_BARS = 4;

/**
 * A ScorecastError carrying an error value's code and message.
 * @param {import('../../core/errors.js').ErrorValue} e
 */
function scorecastError(e) {
  const err = new ScorecastError(/** @type {keyof typeof import('../../core/errors.js').ERRORS} */ (e.code));
  err.message = e.message;
  return err;
}

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
 */

/** How often the open window's vote counts go out while the performance is not playing (ms). */
export const COUNTS_EVERY_MS = 250;

/**
 * @param {ConductorOptions} options
 */
// biome-ignore lint/complexity/noExcessiveLinesPerFunction: to be split: beat timer (pure given a clock), cue state, commands
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
}) {
  let model = firstModel;
  let ballot = createBallot(model.votes);
  /** Publishes the vote counts while not playing (null: none pending). @type {unknown} */
  let countsTimer = null;
  /** A closed vote's jump, taken at the next beat (null: none). */
  /** @type {number | null} */
  let pendingJump = null;

  /**
   * The audience sees a vote window exactly while the ballot has it open: the score's own cues
   * open and close it on their beats, and the conductor may open one at another time or close
   * it early (both outside the cue timeline).
   * @param {import('../../core/performance.js').PerformanceState} s
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
   * Page choices made (slot -> decision): made when the performance reaches a choice's beat,
   * forgotten when it goes back before it (so it is decided again on the way, with the votes
   * then), kept in the record for a resume.
   * @type {Map<number, import('../../core/page-choice.js').Decision>}
   */
  const decided = new Map();
  /** The next page choice still to be decided, or undefined. */
  const upcomingChoice = () => model.pageChoices.find((c) => !decided.has(c.slot) && c.at >= state.beat);
  /** Tiles the conductor forces for a choice still to come (ZScore's playing-next tiles). */
  /** @type {{ slot: number, tiles: string[] } | null} */
  let forcedNext = null;

  /**
   * The state with the parts' chosen pages, `pages: {part: {slot: page}}`, after deciding the
   * choices up to its beat. Scores without page choices have no `pages`.
   * @param {import('../../core/performance.js').PerformanceState} s
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
    return /** @type {import('../../core/performance.js').PerformanceState} */ ({ ...s, pages });
  }

  let map = model.map;
  let epoch = firstEpoch;
  let state = withPages(initialState(model));
  let seq = 0;
  /** Fractional beat position while not playing. */
  let pos = 0;
  let ended = false;
  /** While playing: the monotonic time at which the piece was at `anchorPos`. */
  let anchorMono = 0;
  let anchorPos = 0;
  /** Wall time corresponding to anchorMono (sampled together). */
  let anchorWall = 0;
  /** @type {unknown} */
  let timer = null;

  bus.publish({ epoch, seq, t: clock.wall(), patch: null, state });

  /** @param {import('../../core/performance.js').PerformanceState} next */
  function commit(next) {
    next = showForced(withPages(mirrorVotes(next)));
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
  const dueMono = (beat, rate = state.rate) => anchorMono + (map.timeAt(beat) - map.timeAt(anchorPos)) / rate;
  /** @param {number} mono */
  const wallOf = (mono) => anchorWall + (mono - anchorMono);

  /**
   * @param {number} at start playing from position `at` now (or `delayMs` from now)
   * @param {number} [delayMs]
   */
  function anchor(at, delayMs = 0) {
    anchorMono = clock.now() + delayMs;
    anchorWall = clock.wall() + delayMs;
    anchorPos = at;
  }

  /**
   * Announce what follows `beat` while playing: the next beat in performance order (after a vote
   * window's close, the jump the tally so far decides; after the end, the loop's first beat).
   * @param {import('../../core/performance.js').PerformanceState} s
   * @param {number} beat the beat sounding (or about to, after a count-in)
   */
  function announce(s, beat) {
    const after = beat + 1;
    if (pendingJump !== null) return withNext(model, s, pendingJump, wallOf(dueMono(after, s.rate)));
    if (after >= map.totalBeats) return withNext(model, s, loop ? 0 : null, wallOf(dueMono(map.totalBeats, s.rate)));
    const outcome = ballot.preview(after);
    const to = outcome && outcome.seek !== null ? outcome.seek : after;
    return withNext(model, s, to, wallOf(dueMono(after, s.rate)));
  }

  function currentPos() {
    if (state.transport !== 'playing') return pos;
    const p = map.beatAt(map.timeAt(anchorPos) + (clock.now() - anchorMono) * state.rate);
    return Math.min(Math.max(p, state.beat), state.beat + 0.999999);
  }

  function cancel() {
    if (timer !== null) clock.clearTimer(timer);
    timer = null;
  }

  /** @param {number} beat next beat due (totalBeats = the end) */
  function arm(beat) {
    const wait = () => {
      const remaining = dueMono(beat) - clock.now();
      if (remaining > EARLY_TOLERANCE_MS) {
        timer = clock.setTimer(wait, remaining);
        return;
      }
      timer = null;
      if (beat < map.totalBeats) fire(beat);
      else finish();
    };
    timer = clock.setTimer(wait, Math.max(0, dueMono(beat) - clock.now()));
  }

  /**
   * The ballot follows the performance to `beat`. When a window closes there, the tally may
   * send the performance elsewhere: returns the beat to play instead, or null.
   * @param {number} beat
   * @param {boolean} natural reached by playing on (a conductor's seek overrides the vote)
   */
  function voteAt(beat, natural) {
    const outcome = ballot.at(beat);
    if (!outcome) return null;
    onVote?.(outcome);
    if (!natural || outcome.seek === null || outcome.seek === beat) return null;
    ballot.at(outcome.seek);
    return outcome.seek;
  }

  /** @param {number} scheduled */
  function fire(scheduled) {
    const due = dueMono(scheduled);
    let beat = scheduled;
    let decided = voteAt(scheduled, true);
    if (pendingJump !== null) {
      // A vote the conductor closed decides the beat after the one that was sounding.
      decided = pendingJump;
      pendingJump = null;
      ballot.at(decided);
    }
    if (decided !== null) {
      // The decided beat sounds when the scheduled one would have: the grid goes on.
      anchorWall = wallOf(due);
      anchorMono = due;
      anchorPos = decided;
      beat = decided;
    }
    onBeat?.(beat, due);
    commit(announce(atBeat(model, state, beat, wallOf(due)), beat));
    arm(beat + 1);
  }

  function finish() {
    const end = dueMono(map.totalBeats);
    if (loop) {
      // Re-anchor on the ideal end time, not on now: the loop keeps the beat grid.
      anchorWall = wallOf(end);
      anchorMono = end;
      anchorPos = 0;
      onStart?.(0);
      fire(0);
      return;
    }
    ended = true;
    pos = state.beat;
    commit(withTransport(state, 'stopped', null));
  }

  /**
   * Play on from a performance at `beat`, which sounded at wall time `beatT`, through the time
   * that has passed since, exactly as the timers would have: vote windows open and close on the
   * way (a recorded tally decides its jump), the end loops or stops. The beat reached sounds on
   * the same grid.
   * @param {number} from
   * @param {number} beatT
   */
  function playOnFrom(from, beatT) {
    const nowMono = clock.now();
    const nowWall = clock.wall();
    const rate = state.rate;
    const span = (/** @type {number} */ a, /** @type {number} */ b) => (map.timeAt(b) - map.timeAt(a)) / rate;
    let at = from;
    // Restarted before the beat was due (during a count-in): it sounds now.
    let t = Math.min(beatT, nowWall);
    let wrapped = false;
    const edges = model.votes.flatMap((v) => [v.open, v.close]);
    let edge = map.totalBeats;
    for (;;) {
      edge = Math.min(map.totalBeats, ...edges.filter((b) => b > at));
      if (t + span(at, edge) > nowWall) break;
      t += span(at, edge);
      if (edge < map.totalBeats) {
        at = voteAt(edge, true) ?? edge;
        continue;
      }
      if (!loop) {
        ended = true;
        pos = map.totalBeats - 1;
        state = withTransport(atBeat(model, state, pos, null), 'stopped', null);
        return;
      }
      if (wrapped) {
        // From the second time round nobody has voted: every round is the same, skip them.
        const round = span(0, map.totalBeats);
        t += Math.floor((nowWall - t) / round) * round;
      }
      wrapped = true;
      at = voteAt(0, true) ?? 0;
    }
    anchorPos = at;
    anchorWall = t;
    anchorMono = nowMono - (nowWall - t);
    const p = map.beatAt(map.timeAt(at) + (nowWall - t) * rate);
    // 1e-9: a beat due exactly now has sounded, whatever the rounding of timeAt and beatAt.
    const beat = Math.max(at, Math.min(Math.floor(p + 1e-9), edge - 1));
    state = announce(atBeat(model, withTransport(state, 'playing', null), beat, wallOf(dueMono(beat))), beat);
    arm(beat + 1);
  }

  /**
   * Why `record` cannot be resumed with this score, or null.
   * @param {unknown} record
   */
  function recordProblem(record) {
    if (record === null || typeof record !== 'object') return 'expected an object';
    const r = /** @type {Record<string, unknown>} */ (record);
    if (!TRANSPORTS.includes(/** @type {string} */ (r.transport)))
      return `transport must be one of ${TRANSPORTS.join(', ')}`;
    const beat = /** @type {number} */ (r.beat);
    if (!(typeof beat === 'number' && beat >= 0 && beat < map.totalBeats))
      return `beat must be in 0..${map.totalBeats - 1}`;
    if (r.transport === 'playing' && !(Number.isInteger(beat) && Number.isFinite(r.beatT)))
      return 'a playing record needs a whole beat and its time beatT';
    if (!(typeof r.rate === 'number' && r.rate >= MIN_RATE && r.rate <= MAX_RATE))
      return `rate must be in ${MIN_RATE}..${MAX_RATE}`;
    if (r.ended !== undefined && typeof r.ended !== 'boolean') return 'ended must be true or false';
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
   * The state with the tiles the conductor forced shown as `next` to the phones, while their
   * choice is still to be decided (a seek or a resume rebuilds the tiles from the cues).
   * @param {import('../../core/performance.js').PerformanceState} s
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

  /** @param {number} beat */
  function checkBeat(beat) {
    if (!(Number.isInteger(beat) && beat >= 0 && beat < map.totalBeats)) {
      throw new ScorecastError('SC_ERR_BAD_CONTROL', `beat must be an integer in 0..${map.totalBeats - 1}`);
    }
  }

  return {
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
      const wasPlaying = state.transport === 'playing';
      const at = Math.min(Math.floor(currentPos()), next.map.totalBeats - 1);
      const wasPaused = state.transport === 'paused';
      const rate = state.rate;
      cancel();
      model = next;
      map = next.map;
      ballot = createBallot(next.votes);
      pendingJump = null;
      decided.clear();
      forcedNext = null;
      epoch = nextEpoch;
      seq = 0;
      ended = false;
      pos = 0;
      state = initialState(next);
      if (keepPosition) {
        state = withRate(model, state, rate);
        pos = at;
        voteAt(at, false);
        state = atBeat(model, state, at, null);
        if (wasPaused) state = withTransport(state, 'paused', null);
      }
      state = withPages(state);
      bus.publish({ epoch, seq, t: clock.wall(), patch: null, state });
      if (keepPosition && wasPlaying) this.play();
      return state;
    },

    /**
     * Play from where the performance is. With a count-in (bars, when starting on a beat), the
     * clicks come first, one per beat at the tempo of that beat, and the beat sounds after them.
     * @param {{ countIn?: number }} [options]
     */
    play({ countIn = 0 } = {}) {
      if (!(Number.isInteger(countIn) && countIn >= 0 && countIn <= MAX_COUNT_IN_BARS)) {
        throw new ScorecastError(
          'SC_ERR_BAD_CONTROL',
          `countIn must be a whole number of bars in 0..${MAX_COUNT_IN_BARS}`,
        );
      }
      if (state.transport === 'playing') return state;
      if (ended) {
        pos = 0;
        ended = false;
      }
      const playing = withTransport(state, 'playing', null);
      if (Number.isInteger(pos) && countIn > 0) {
        const beat = pos;
        const beatMs = (map.timeAt(beat + 1) - map.timeAt(beat)) / state.rate;
        const beats = countIn * map.positionOf(beat).time[0];
        voteAt(beat, false);
        anchor(beat, beats * beatMs);
        onStart?.(beat);
        commit(
          withNext(
            model,
            withCountIn(atBeat(model, playing, beat, null), { t: anchorWall - beats * beatMs, beats, beatMs }),
            beat,
            anchorWall,
          ),
        );
        arm(beat);
      } else if (Number.isInteger(pos)) {
        // Starting on a beat: that beat sounds now (one published change, not two).
        const beat = pos;
        anchor(pos);
        voteAt(beat, false);
        onStart?.(beat);
        onBeat?.(beat, anchorMono);
        commit(announce(atBeat(model, playing, beat, anchorWall), beat));
        arm(beat + 1);
      } else {
        anchor(pos);
        onStart?.(Math.floor(pos));
        const beatStartMono = anchorMono - (map.timeAt(pos) - map.timeAt(Math.floor(pos))) / state.rate;
        commit(announce({ ...playing, beatT: wallOf(beatStartMono) }, Math.floor(pos)));
        arm(Math.floor(pos) + 1);
      }
      return state;
    },

    pause() {
      if (state.transport !== 'playing') return state;
      pos = currentPos();
      cancel();
      commit(withTransport(state, 'paused', null));
      return state;
    },

    stop() {
      cancel();
      pendingJump = null;
      pos = 0;
      ended = false;
      voteAt(0, false);
      commit(atBeat(model, withTransport(state, 'stopped', null), 0, null));
      return state;
    },

    /** @param {number} beat global beat index */
    seek(beat) {
      checkBeat(beat);
      pendingJump = null;
      ended = false;
      voteAt(beat, false);
      if (state.transport === 'playing') {
        cancel();
        anchor(beat);
        onStart?.(beat);
        onBeat?.(beat, anchorMono);
        commit(announce(atBeat(model, state, beat, anchorWall), beat));
        arm(beat + 1);
      } else {
        pos = beat;
        commit(atBeat(model, state, beat, null));
      }
      return state;
    },

    /** @param {number} rate tempo factor, 1 = as written */
    setRate(rate) {
      if (!(typeof rate === 'number' && rate >= MIN_RATE && rate <= MAX_RATE)) {
        throw new ScorecastError('SC_ERR_BAD_CONTROL', `rate must be a number in ${MIN_RATE}..${MAX_RATE}`);
      }
      if (state.transport === 'playing') {
        const p = currentPos();
        cancel();
        anchor(p);
        const beatStartMono = anchorMono - (map.timeAt(p) - map.timeAt(state.beat)) / rate;
        commit(announce({ ...withRate(model, state, rate), beatT: wallOf(beatStartMono) }, state.beat));
        arm(state.beat + 1);
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
    beatOf(bar, beatInBar) {
      const info = map.barInfo(bar);
      if (!info) throw new ScorecastError('SC_ERR_BAD_CONTROL', `bar must be in ${map.firstBar}..${map.lastBar}`);
      try {
        return map.beatOf(bar, beatInBar ?? info.firstBeatInBar);
      } catch (err) {
        throw new ScorecastError('SC_ERR_BAD_CONTROL', /** @type {Error} */ (err).message.replace(/^tempo map: /, ''));
      }
    },

    /**
     * Fire the score's preset `id` now (ZScore's operator could run a web-score preset at any
     * moment): its patch is merged into the audience view's cue state, and lasts until a cue
     * changes what it set or a seek rebuilds the state from the cues.
     * @param {string} id
     */
    firePreset(id) {
      const preset = model.presets?.find((p) => p.id === id);
      if (!preset)
        throw new ScorecastError(
          'SC_ERR_BAD_CONTROL',
          `preset "${String(id).slice(0, 64)}" is not in this score (presets: ${model.presets?.map((p) => p.id).join(', ') || 'none'})`,
        );
      const audience = /** @type {Record<string, unknown>} */ (applyPatch(state.cues.audience ?? {}, preset.set));
      commit({ ...state, cues: { ...state.cues, audience } });
      return state;
    },

    /**
     * The next page choice still to be decided, for the console: its slot, beat, tiles (tile ->
     * page), groups, the score's own next tiles and the tiles the conductor forced for it.
     * @returns {{ slot: number, at: number, tiles: Record<string, number>, groups: number[], next: string[], forced: string[] } | null}
     */
    nextChoice() {
      const c = upcomingChoice();
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
     * Force the pages of the next page choice still to be decided: the pages `tiles` stand for
     * are played there, before the votes (ZScore's composer sets its playing-next tiles). The
     * phones show the tiles as `next`; tiles forced before and no longer are lit again. An empty
     * list gives the choice back to the score and the votes.
     * @param {string[]} tiles
     */
    forceNext(tiles) {
      const choice = upcomingChoice();
      if (!choice)
        throw new ScorecastError('SC_ERR_BAD_CONTROL', 'no page choice of this score is still to be decided');
      const stray = tiles.find((t) => choice.tiles[t] === undefined);
      if (stray !== undefined || tiles.length > choice.groups.length)
        throw new ScorecastError(
          'SC_ERR_BAD_CONTROL',
          `the choice of page ${choice.slot} takes at most ${choice.groups.length} of its tiles (${Object.keys(choice.tiles).join(', ')})`,
        );
      const before = forcedNext?.slot === choice.slot ? forcedNext.tiles : [];
      forcedNext = tiles.length ? { slot: choice.slot, tiles: [...tiles] } : null;
      commit(showForced(state, before));
      // Not a beat: the save must hear of it, or a restart before the decision loses it.
      onVoteCast?.();
      return { slot: choice.slot, tiles: [...tiles] };
    },

    /**
     * Open the score's vote window `id` now, whatever the beat; it stays open until closeVote().
     * @param {string} id
     */
    openVote(id) {
      const r = ballot.openNow(id);
      if (!r.ok) throw scorecastError(r.error);
      if (r.closed) onVote?.(r.closed);
      commit(state);
      onVoteCast?.();
      return state;
    },

    /**
     * Close the open vote window now. What the winner decides happens as the tally would at
     * the window's close: playing, on the next beat of the grid; otherwise at once.
     */
    closeVote() {
      const r = ballot.closeNow();
      if (!r.ok) throw scorecastError(r.error);
      onVote?.(r.outcome);
      const seek = r.outcome.seek;
      if (seek !== null && state.transport === 'playing' && state.countIn === undefined) {
        pendingJump = seek;
        commit(announce(state, state.beat));
      } else if (seek !== null) {
        this.seek(seek);
      } else {
        commit(state);
      }
      onVoteCast?.();
      return state;
    },

    /**
     * Count a tap as a vote in the open window.
     * @param {{ tile: string | number, window?: string, device?: string }} tap
     */
    vote(tap) {
      const result = ballot.cast(tap);
      if (result.ok) {
        onVoteCast?.();
        // Playing, the counts go out with the next beat; otherwise a little later, once for
        // every vote cast meanwhile (a thousand votes are not a thousand changes).
        if (state.transport !== 'playing' && countsTimer === null) {
          countsTimer = clock.setTimer(() => {
            countsTimer = null;
            commit(state);
          }, COUNTS_EVERY_MS);
        }
      }
      return result;
    },

    /** Tallies of the open vote window and outcomes of the closed ones. */
    votes() {
      return ballot.report();
    },

    /**
     * The performance as plain JSON, for resume(): where it is and, while playing, when its
     * beat sounded, so that the position after a restart follows from the time gone by.
     * @returns {PerformanceRecord}
     */
    record() {
      const playing = state.transport === 'playing';
      return {
        transport: state.transport,
        beat: playing ? state.beat : pos,
        ...(playing ? { beatT: wallOf(dueMono(state.beat)) } : {}),
        rate: state.rate,
        ...(ended ? { ended } : {}),
        ballot: ballot.record(),
        ...(decided.size > 0 ? { pages: [...decided.values()] } : {}),
        ...(forcedNext && !decided.has(forcedNext.slot)
          ? { forced: { slot: forcedNext.slot, tiles: [...forcedNext.tiles] } }
          : {}),
      };
    },

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
      const problem = recordProblem(record);
      if (problem !== null) throw new ScorecastError('SC_ERR_SAVE_MISMATCH', problem);
      const nextBallot = createBallot(model.votes);
      const restored = nextBallot.restore(record.ballot);
      if (!restored.ok) throw new ScorecastError('SC_ERR_SAVE_MISMATCH', restored.problem);
      cancel();
      ballot = nextBallot;
      pendingJump = null;
      decided.clear();
      forcedNext = record.forced ? { slot: record.forced.slot, tiles: [...record.forced.tiles] } : null;
      for (const d of Array.isArray(record.pages) ? record.pages : []) {
        if (model.pageChoices.some((c) => c.slot === d?.slot) && d.parts !== null && typeof d.parts === 'object')
          decided.set(d.slot, d);
      }
      epoch = nextEpoch;
      seq = 0;
      ended = record.transport !== 'playing' && record.ended === true;
      pos = record.beat;
      state = withRate(model, initialState(model), record.rate);
      if (record.transport === 'playing') {
        playOnFrom(record.beat, /** @type {number} */ (record.beatT));
        onStart?.(state.beat);
      } else {
        state = withTransport(atBeat(model, state, Math.floor(pos), null), record.transport, null);
      }
      state = showForced(withPages(mirrorVotes(state)));
      bus.publish({ epoch, seq, t: clock.wall(), patch: null, state });
      return state;
    },

    /** Stop the timers; the conductor publishes nothing more. */
    dispose() {
      cancel();
    },
  };
}

/** @typedef {ReturnType<typeof createConductor>} Conductor */

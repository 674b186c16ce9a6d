// The conductor plays a score against a monotonic clock and publishes every state change to the
// bus. Beat N is due at anchor + (timeAt(N) - timeAt(anchorBeat)) / rate, computed from the
// anchor each time, so timer lateness never accumulates (setInterval would drift).

import { diffPatch } from '../core/merge-patch.js';
import { atBeat, initialState, withCountIn, withNext, withRate, withTransport } from '../core/performance.js';
import { ScorecastError } from '../core/errors.js';
import { createBallot } from '../core/votes.js';

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

/** A new epoch name: time-ordered, unique across restarts. */
export function newEpoch() {
  return Date.now().toString(36) + Math.random().toString(36).slice(2, 6);
}

/**
 * @typedef {object} ConductorOptions
 * @property {import('../core/manifest.js').ScoreModel} model
 * @property {import('./bus.js').Bus} bus
 * @property {Clock} [clock]
 * @property {boolean} [loop]  start over at the end (the demo's autoplay)
 * @property {string} [epoch]
 * @property {(beat: number, dueMono: number) => void} [onBeat] observer, for tests and metrics
 * @property {(outcome: import('../core/votes.js').Outcome) => void} [onVote] a vote window closed
 */

/**
 * @param {ConductorOptions} options
 */
export function createConductor({ model: firstModel, bus, clock = systemClock, loop = false, epoch: firstEpoch = newEpoch(), onBeat, onVote }) {
  let model = firstModel;
  let ballot = createBallot(model.votes);
  let map = model.map;
  let epoch = firstEpoch;
  let state = initialState(model);
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

  /** @param {import('../core/performance.js').PerformanceState} next */
  function commit(next) {
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
   * @param {import('../core/performance.js').PerformanceState} s
   * @param {number} beat the beat sounding (or about to, after a count-in)
   */
  function announce(s, beat) {
    const after = beat + 1;
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
      if (remaining > EARLY_TOLERANCE_MS) { timer = clock.setTimer(wait, remaining); return; }
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
    const decided = voteAt(scheduled, true);
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
      fire(0);
      return;
    }
    ended = true;
    pos = state.beat;
    commit(withTransport(state, 'stopped', null));
  }

  /** @param {number} beat */
  function checkBeat(beat) {
    if (!(Number.isInteger(beat) && beat >= 0 && beat < map.totalBeats)) {
      throw new ScorecastError('SC_ERR_BAD_CONTROL', `beat must be an integer in 0..${map.totalBeats - 1}`);
    }
  }

  return {
    get epoch() { return epoch; },
    get seq() { return seq; },
    get state() { return state; },
    get model() { return model; },

    /**
     * Play another score, or a new version of this one: a new epoch (clients resync by snapshot).
     * With keepPosition, the performance goes on from the same beat (clamped to the new score)
     * in the same transport state: a composer's edit must not lose their place.
     * @param {import('../core/manifest.js').ScoreModel} next
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
        throw new ScorecastError('SC_ERR_BAD_CONTROL', `countIn must be a whole number of bars in 0..${MAX_COUNT_IN_BARS}`);
      }
      if (state.transport === 'playing') return state;
      if (ended) { pos = 0; ended = false; }
      const playing = withTransport(state, 'playing', null);
      if (Number.isInteger(pos) && countIn > 0) {
        const beat = pos;
        const beatMs = (map.timeAt(beat + 1) - map.timeAt(beat)) / state.rate;
        const beats = countIn * map.positionOf(beat).time[0];
        voteAt(beat, false);
        anchor(beat, beats * beatMs);
        commit(withNext(model, withCountIn(atBeat(model, playing, beat, null), { t: anchorWall - beats * beatMs, beats, beatMs }), beat, anchorWall));
        arm(beat);
      } else if (Number.isInteger(pos)) {
        // Starting on a beat: that beat sounds now (one published change, not two).
        const beat = pos;
        anchor(pos);
        voteAt(beat, false);
        onBeat?.(beat, anchorMono);
        commit(announce(atBeat(model, playing, beat, anchorWall), beat));
        arm(beat + 1);
      } else {
        anchor(pos);
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
      pos = 0;
      ended = false;
      voteAt(0, false);
      commit(atBeat(model, withTransport(state, 'stopped', null), 0, null));
      return state;
    },

    /** @param {number} beat global beat index */
    seek(beat) {
      checkBeat(beat);
      ended = false;
      voteAt(beat, false);
      if (state.transport === 'playing') {
        cancel();
        anchor(beat);
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
     * Count a tap as a vote in the open window.
     * @param {{ tile: string | number, window?: string, device?: string }} tap
     */
    vote(tap) { return ballot.cast(tap); },

    /** Tallies of the open vote window and outcomes of the closed ones. */
    votes() { return ballot.report(); },

    /** Stop the timers; the conductor publishes nothing more. */
    dispose() { cancel(); },
  };
}

/** @typedef {ReturnType<typeof createConductor>} Conductor */

// The performance state (doc/protocol.md, "State") and the pure transitions the conductor makes.
// Each function returns a new state; unchanged branches are shared with the old one. The state
// never holds null: in a merge patch, null means "remove the key" (RFC 7386), so an absent
// value is written by leaving the key out.

import { markAt } from './marks.js';
import { applyPatch } from './merge-patch.js';

/** Whether the performance plays: 'transport' names the network links (ws, sse, poll). */
/** @typedef {'playing' | 'paused' | 'stopped'} Playback */
/** @deprecated the playback state's old name: Playback */
/** @typedef {Playback} Transport */

/**
 * @typedef {object} PerformanceState
 * @property {{id: string, title: string, composer: string, bars: number, beats: number, views: string[]}} score
 * @property {Playback} playback
 * @property {Playback} transport  deprecated: the same as `playback`, still sent for one protocol
 *   version (doc/protocol.md); the server sets both, clients read `playback`
 * @property {number} beat
 * @property {number} bar
 * @property {number} beatInBar
 * @property {[number, number]} time
 * @property {number} tempo
 * @property {number} rate
 * @property {number} [beatT]  server time at which `beat` sounds; absent unless playing (and
 *   during a count-in, when `beat` has not sounded yet)
 * @property {NextBeat} [next] the beat that follows and when, while playing
 * @property {CountIn} [countIn] a count-in before `next` sounds
 * @property {Record<string, Record<string, unknown>>} cues
 * @property {string} [mark]  the rehearsal mark in force at `beat` (the latest at or before it);
 *   absent before the first mark
 * @property {import('./loop.js').LoopField} [loop]  the passage looped, and which time round;
 *   absent when none is
 */

/**
 * The beat the conductor will play next, announced with the current one so that every client
 * can show it at `t` on the server's clock instead of when its message arrives, and start its
 * audio on time. It already follows repeats, a vote's jump (the tally so far) and the loop;
 * a conductor's command or a late vote can still change it, which the next change says.
 * @typedef {object} NextBeat
 * @property {number} beat
 * @property {number} bar
 * @property {number} beatInBar
 * @property {number} t          server time at which it sounds
 * @property {Record<string, string[]>} [audio]  by view, the audio clips (URLs) whose cue is on that beat
 * @property {Record<string, number>} [gains]  the volume (0..1) of those clips that have one, by URL
 * @property {string[]} [granulator]  views whose granulator starts on that beat (a cue's
 *   `granulator.play` equal to the beat), so that phones start it on the beat, not on arrival
 */

/**
 * A count-in: `beats` clicks `beatMs` apart, the first at `t`; the performance starts on the
 * beat after the last click (`next`).
 * @typedef {{ t: number, beats: number, beatMs: number }} CountIn
 */

/**
 * Cue state of every view at `beat`: all cues at or before it, applied in order.
 * @param {import('./manifest.js').ScoreModel} model
 * @param {number} beat
 * @returns {Record<string, Record<string, unknown>>}
 */
export function cuesAt(model, beat) {
  /** @type {Record<string, Record<string, unknown>>} */
  const cues = {};
  for (const cue of model.cues) {
    if (cue.beat > beat) break;
    cues[cue.view] = applyPatch(cues[cue.view] ?? {}, cue.set);
  }
  return cues;
}

/**
 * The state of a score before it plays: stopped on its first beat.
 * @param {import('./manifest.js').ScoreModel} model
 * @returns {PerformanceState}
 */
export function initialState(model) {
  const { map } = model;
  const pos = map.positionOf(0);
  return {
    score: {
      id: model.id,
      title: model.title,
      composer: model.composer,
      bars: map.lastBar,
      beats: map.totalBeats,
      views: model.views,
    },
    playback: 'stopped',
    transport: 'stopped',
    beat: 0,
    bar: pos.bar,
    beatInBar: pos.beatInBar,
    time: pos.time,
    tempo: map.tempoAt(0),
    rate: 1,
    cues: cuesAt(model, 0),
    ...(markAt(model.marks ?? [], 0) === null ? {} : { mark: /** @type {string} */ (markAt(model.marks ?? [], 0)) }),
  };
}

/**
 * Move to beat `beat`. Stepping forward by one applies only that beat's cues; any other jump
 * recomputes the cue state from the start.
 * @param {import('./manifest.js').ScoreModel} model
 * @param {PerformanceState} state
 * @param {number} beat
 * @param {number | null} beatT server time at which the beat sounds
 * @returns {PerformanceState}
 */
export function atBeat(model, state, beat, beatT) {
  const pos = model.map.positionOf(beat);
  let cues = state.cues;
  if (beat === state.beat + 1) {
    for (const cue of cuesOn(model, beat)) cues = { ...cues, [cue.view]: applyPatch(cues[cue.view] ?? {}, cue.set) };
  } else if (beat !== state.beat) {
    cues = cuesAt(model, beat);
  }
  const mark = markAt(model.marks ?? [], beat);
  const next = {
    ...state,
    beat,
    bar: pos.bar,
    beatInBar: pos.beatInBar,
    time: pos.time,
    tempo: model.map.tempoAt(beat) * state.rate,
    cues,
    ...(mark === null ? {} : { mark }),
  };
  if (mark === null) delete next.mark;
  return withBeatT(next, beatT);
}

/**
 * @param {PerformanceState} state
 * @param {number | null} beatT
 * @returns {PerformanceState}
 */
function withBeatT(state, beatT) {
  if (beatT !== null) {
    if (state.countIn === undefined) return { ...state, beatT };
    const { countIn: _, ...rest } = state;
    return { ...rest, beatT };
  }
  return without(state, ['beatT', 'next', 'countIn']);
}

/**
 * @param {PerformanceState} state
 * @param {Array<'beatT' | 'next' | 'countIn'>} keys
 * @returns {PerformanceState}
 */
function without(state, keys) {
  if (!keys.some((k) => k in state)) return state;
  const copy = { ...state };
  for (const k of keys) delete copy[k];
  return copy;
}

/**
 * Announce the next beat (null: none, the piece ends).
 * @param {import('./manifest.js').ScoreModel} model
 * @param {PerformanceState} state
 * @param {number | null} beat
 * @param {number} t server time at which it sounds
 * @returns {PerformanceState}
 */
export function withNext(model, state, beat, t) {
  if (beat === null) return without(state, ['next']);
  const pos = model.map.positionOf(beat);
  /** @type {NextBeat} */
  const next = { beat, bar: pos.bar, beatInBar: pos.beatInBar, t };
  /** @type {Record<string, string[]>} */
  const audio = {};
  /** @type {string[]} */
  const granulator = [];
  /** @type {Record<string, number>} */
  const gains = {};
  for (const c of cuesOn(model, beat)) {
    const a = /** @type {{ audio?: { src?: unknown } }} */ (c.set).audio;
    if (a && typeof a.src === 'string') (audio[c.view] ??= []).push(a.src);
    if (a && typeof a.src === 'string' && typeof (/** @type {{ gain?: unknown }} */ (a).gain) === 'number')
      gains[a.src] = /** @type {number} */ (/** @type {{ gain?: unknown }} */ (a).gain);
    const g = /** @type {{ granulator?: { play?: unknown } }} */ (c.set).granulator;
    if (g && g.play === beat && !granulator.includes(c.view)) granulator.push(c.view);
  }
  if (Object.keys(audio).length > 0) next.audio = audio;
  if (granulator.length > 0) next.granulator = granulator;
  if (Object.keys(gains).length > 0) next.gains = gains;
  return { ...state, next };
}

/**
 * Playing, but counting in before `state.beat` sounds.
 * @param {PerformanceState} state
 * @param {CountIn} countIn
 * @returns {PerformanceState}
 */
export function withCountIn(state, countIn) {
  return { ...without(state, ['beatT']), playback: 'playing', transport: 'playing', countIn };
}

/**
 * Cues that fire exactly on `beat` (binary search: scores can hold thousands of cues).
 * @param {import('./manifest.js').ScoreModel} model
 * @param {number} beat
 */
function cuesOn(model, beat) {
  const list = model.cues;
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (list[mid].beat < beat) lo = mid + 1;
    else hi = mid;
  }
  const out = [];
  for (let i = lo; i < list.length && list[i].beat === beat; i++) out.push(list[i]);
  return out;
}

/**
 * The state playing, paused or stopped (the deprecated `transport` field along).
 * @param {PerformanceState} state
 * @param {Playback} playback
 * @param {number | null} beatT
 * @returns {PerformanceState}
 */
export function withPlayback(state, playback, beatT) {
  return withBeatT({ ...state, playback, transport: playback }, beatT);
}

/**
 * @param {import('./manifest.js').ScoreModel} model
 * @param {PerformanceState} state
 * @param {number} rate
 * @returns {PerformanceState}
 */
export function withRate(model, state, rate) {
  return { ...state, rate, tempo: model.map.tempoAt(state.beat) * rate };
}

// A tempo map from tapping along to a recording (doc/score-format.md, "Tapping along to a
// recording"): in the preview's beat-map mode the composer plays a recording and taps each bar's
// downbeat (or each beat); the taps, in the recording's seconds, become the time each bar starts,
// and those times become the score's `meter` (a tempo for every bar whose tempo differs from the
// bar before it, the time signatures kept). Where bars are drawn still comes from clicks on the
// page (core/bar-lines.js); tapping gives only their times. Taps are checked as they come: a tap
// before Play is ignored, and an interval far off its neighbours' (a doubled or a missed tap) is
// flagged, never silently accepted. A seek back in the recording (a missed passage) keeps the
// taps before the point sought and replaces those after it. Pure: no I/O; runs in Node and the
// browser.

import { barRanges } from './beatmap.js';
import { isObject } from './values.js';

/** An interval under this share of its neighbours' median is flagged: a doubled tap. */
export const TAP_SHORT = 0.5;
/** An interval over this share of its neighbours' median is flagged: a missed tap (twice as long). */
export const TAP_LONG = 1.75;
/** Intervals either side of one that make its neighbours: three, so that one doubled tap (a short
 * interval and the rest of the one it split) does not move their median far. */
const NEIGHBOURS = 3;
/** Fewest neighbours an interval is judged against: with one, either of two could be the odd one. */
const MIN_NEIGHBOURS = 2;
/** The longest recording taps may come from: a day, in seconds. */
export const MAX_TAP_SECONDS = 86_400;

/** @typedef {'bar' | 'beat'} TapUnit  what one tap marks: a bar's downbeat, or every beat */

/**
 * @typedef {object} TapBar  a bar in performance order
 * @property {number} bar
 * @property {number} beats
 */

/**
 * @typedef {object} TimedBar  a bar in performance order, as the tempo map has it
 * @property {number} bar
 * @property {number} beats
 * @property {[number, number]} time
 */

/**
 * @typedef {object} TapFlag
 * @property {number} tap      index of the tap that ends the odd interval
 * @property {number} bar      the bar that tap is for
 * @property {number} [beat]   its beat in the bar, from 1 (beat taps)
 * @property {'short' | 'long'} kind  short: a doubled tap?  long: a missed tap?
 * @property {number} ratio    the interval over its neighbours' median
 */

/**
 * The bars taps count: from bar 1 (an opening pickup bar is not tapped; it is played at bar 1's
 * tempo), in performance order.
 * @template {TapBar} T
 * @param {T[]} bars
 * @returns {T[]}
 */
export function tappedBars(bars) {
  return bars.filter((b) => b.bar !== 0);
}

/**
 * What each tap marks, in order: a bar's first beat, or each beat, and how many beats lie
 * between it and the next tap. The last target is the end of the last bar (an optional tap).
 * @param {TapBar[]} bars
 * @param {TapUnit} unit
 * @returns {{ bar: number, beat: number, beats: number, end?: true }[]}
 */
export function tapTargets(bars, unit) {
  /** @type {{ bar: number, beat: number, beats: number, end?: true }[]} */
  const out = [];
  for (const b of tappedBars(bars)) {
    if (unit === 'bar') out.push({ bar: b.bar, beat: 1, beats: b.beats });
    else for (let k = 1; k <= b.beats; k++) out.push({ bar: b.bar, beat: k, beats: 1 });
  }
  const last = out[out.length - 1];
  if (last) out.push({ bar: last.bar, beat: unit === 'bar' ? last.beat : last.beat + 1, beats: 0, end: true });
  return out;
}

/**
 * One more tap, at `time` seconds of the recording. Ignored (the same array back) while the
 * recording is not playing, at or before the last tap (after a rewind: undo first), or once
 * every target has its tap.
 * @param {number[]} taps
 * @param {{ time: number, playing: boolean }} tap
 * @param {number} targets  how many taps there can be (tapTargets(...).length)
 * @returns {number[]}
 */
export function addTap(taps, { time, playing }, targets) {
  if (!playing || !Number.isFinite(time) || time < 0 || taps.length >= targets) return taps;
  if (taps.length > 0 && time <= taps[taps.length - 1]) return taps;
  return [...taps, time];
}

/**
 * The taps kept when the recording is sought back to `time` (seconds) to tap again from there:
 * those at or before it. The taps after it are the ones tapped again.
 * @param {number[]} taps  rising
 * @param {number} time
 * @returns {number[]}
 */
export function tapsUpTo(taps, time) {
  const keep = taps.findIndex((t) => t > time);
  return keep < 0 ? taps : taps.slice(0, keep);
}

/**
 * Tapping again from bar `bar`: the taps before its first beat are kept, and the recording
 * resumes at the last of them (the bar's or beat's tap before it, heard again as a lead-in), or at
 * 0 from the first bar. Null when the bar is not one that is tapped, or the taps have not reached
 * the bar before it (play on to it instead).
 * @param {number[]} taps
 * @param {TapBar[]} bars
 * @param {TapUnit} unit
 * @param {number} bar
 * @returns {{ time: number, taps: number[] } | null}
 */
export function seekToBar(taps, bars, unit, bar) {
  const at = tapTargets(bars, unit).findIndex((t) => t.bar === bar && t.beat === 1 && !t.end);
  if (at < 0 || at > taps.length) return null;
  return { time: at === 0 ? 0 : taps[at - 1], taps: taps.slice(0, at) };
}

/**
 * The taps without the last one.
 * @param {number[]} taps
 */
export function undoTap(taps) {
  return taps.slice(0, -1);
}

/** @param {number[]} xs */
function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/**
 * The taps whose interval (seconds per beat since the tap before) is under TAP_SHORT or over
 * TAP_LONG of the median of the NEIGHBOURS intervals either side of it (judged once it has two). A tempo that changes
 * gradually passes; a doubled tap (a short interval, and every later tap a bar early) or a missed
 * one (an interval twice as long) is flagged, and so is a real fermata, which the composer then
 * keeps knowingly.
 * @param {number[]} taps
 * @param {TapBar[]} bars
 * @param {TapUnit} unit
 * @returns {TapFlag[]}
 */
export function flagTaps(taps, bars, unit) {
  const targets = tapTargets(bars, unit);
  /** @type {number[]} */
  const perBeat = [];
  for (let i = 1; i < taps.length; i++) perBeat.push((taps[i] - taps[i - 1]) / Math.max(1, targets[i - 1].beats));
  /** @type {TapFlag[]} */
  const flags = [];
  perBeat.forEach((d, k) => {
    const around = [...perBeat.slice(Math.max(0, k - NEIGHBOURS), k), ...perBeat.slice(k + 1, k + 1 + NEIGHBOURS)];
    if (around.length < MIN_NEIGHBOURS) return;
    const ratio = d / median(around);
    if (ratio >= TAP_SHORT && ratio <= TAP_LONG) return;
    const t = targets[k + 1];
    flags.push({
      tap: k + 1,
      bar: t.bar,
      ...(unit === 'beat' && !t.end ? { beat: t.beat } : {}),
      kind: ratio < TAP_SHORT ? 'short' : 'long',
      ratio: Math.round(ratio * 100) / 100,
    });
  });
  return flags;
}

/**
 * A flag in words, for the preview.
 * @param {TapFlag} f
 */
export function describeFlag(f) {
  const at = `bar ${f.bar}${f.beat ? ` beat ${f.beat}` : ''}`;
  const pct = Math.round(f.ratio * 100);
  return f.kind === 'short'
    ? `${at}: tapped after ${pct}% of the time its neighbours take (a doubled tap?)`
    : `${at}: tapped after ${pct}% of the time its neighbours take (a missed tap, or a pause?)`;
}

/**
 * Bar onsets from taps: the time each tapped bar starts, and the end of the last bar when it was
 * tapped. Beat taps count from each bar's first beat.
 * @param {number[]} taps
 * @param {TapBar[]} bars
 * @param {TapUnit} unit
 * @returns {{ times: number[], end: number | null }}
 */
export function barTimesFromTaps(taps, bars, unit) {
  const targets = tapTargets(bars, unit);
  /** @type {number[]} */
  const times = [];
  let end = null;
  taps.forEach((t, i) => {
    const target = targets[i];
    if (!target) return;
    if (target.end) end = t;
    else if (target.beat === 1) times.push(t);
  });
  // Beat taps on the last bar without the end tap: its end from its own beats' pace.
  if (end === null && unit === 'beat' && times.length === tappedBars(bars).length) {
    const last = tappedBars(bars)[times.length - 1];
    const own = taps.slice(taps.length - last.beats);
    if (last.beats > 1 && own.length === last.beats && taps.length === targets.length - 1)
      end = own[own.length - 1] + (own[own.length - 1] - own[0]) / (last.beats - 1);
  }
  return { times, end };
}

const round2 = (/** @type {number} */ n) => Math.round(n * 100) / 100;

/**
 * Check bar onsets sent to be written (untrusted): one time per tapped bar, in seconds of the
 * recording, rising. Returns a clean copy or the problems (never throws).
 * @param {unknown} value  `{ times: number[], end?: number | null }`
 * @param {TapBar[]} bars
 * @returns {{ ok: true, value: { times: number[], end: number | null } } | { ok: false, problems: string[] }}
 */
export function checkBarTimes(value, bars) {
  const want = tappedBars(bars).length;
  if (!isObject(value) || !Array.isArray(value.times))
    return { ok: false, problems: ['must be {"times": [seconds of each bar\'s first beat, ...], "end": seconds}'] };
  const times = /** @type {unknown[]} */ (value.times);
  if (times.length !== want)
    return {
      ok: false,
      problems: [`lists ${times.length} bar times; the score has ${want} bars from bar 1, tap every one`],
    };
  const end = value.end ?? null;
  const all = end === null ? times : [...times, end];
  for (const [i, t] of all.entries()) {
    const at = i < times.length ? `times[${i}]` : 'end';
    if (!(typeof t === 'number' && Number.isFinite(t) && t >= 0 && t <= MAX_TAP_SECONDS))
      return { ok: false, problems: [`${at}: must be seconds of the recording, from 0 to ${MAX_TAP_SECONDS}`] };
    if (i > 0 && !(t > /** @type {number} */ (all[i - 1])))
      return { ok: false, problems: [`${at}: must come after the time before it`] };
  }
  return { ok: true, value: { times: /** @type {number[]} */ (times), end: /** @type {number | null} */ (end) } };
}

/**
 * The score's `meter` from bar onsets: every time signature of the tempo map kept where it
 * changes, and each bar's tempo (its beats over its length, to 0.01 beats a minute) where it
 * differs from the bar before. The last bar keeps the tempo before it unless its end was tapped;
 * an opening pickup bar takes bar 1's. Tempo changes inside a bar are not kept.
 * @param {{ times: number[], end: number | null }} onsets  from checkBarTimes
 * @param {TimedBar[]} bars  the tempo map's, in performance order (no repeats: a score without notation)
 * @returns {{ ok: true, meter: { bar: number, time?: string, tempo?: number }[] } | { ok: false, problems: string[] }}
 */
export function meterFromBarTimes({ times, end }, bars) {
  const tapped = tappedBars(bars);
  /** @type {{ bar: number, time?: string, tempo?: number }[]} */
  const meter = [];
  /** @type {number[]} */
  const slow = [];
  /** @type {number[]} */
  const fast = [];
  /** @type {[number, number] | null} */
  let time = null;
  /** @type {number | null} */
  let tempo = null;
  tapped.forEach((b, i) => {
    const next = i + 1 < times.length ? times[i + 1] : end;
    let bpm = next === null ? tempo : round2((b.beats * 60) / (next - times[i]));
    if (bpm === null) bpm = 60;
    if (bpm <= 0) slow.push(b.bar);
    else if (bpm > 1000) fast.push(b.bar);
    /** @type {{ bar: number, time?: string, tempo?: number }} */
    const entry = { bar: b.bar };
    if (!time || time[0] !== b.time[0] || time[1] !== b.time[1]) entry.time = `${b.time[0]}/${b.time[1]}`;
    if (bpm !== tempo) entry.tempo = bpm;
    time = b.time;
    tempo = bpm;
    if (entry.time || entry.tempo !== undefined) meter.push(entry);
  });
  /** @type {string[]} */
  const problems = [];
  if (fast.length > 0)
    problems.push(
      `bar${fast.length === 1 ? '' : 's'} ${barRanges(fast)}: faster than 1000 beats a minute; a doubled tap?`,
    );
  if (slow.length > 0) problems.push(`bar${slow.length === 1 ? '' : 's'} ${barRanges(slow)}: no length; tap again`);
  return problems.length > 0 ? { ok: false, problems } : { ok: true, meter };
}

// The timing of an imported score: the manifest's `pickup`/`bars`/`meter` from what ZScore says
// about every beat (bar, time signature, tempo), and a check that scorecast's clock puts each
// beat where ZScore's startTimeMillis does.

import { barsFromBeats } from '../../../core/beatmap.js';
import { createTempoMap } from '../../../core/tempo-map.js';

/**
 * One beat of the performance, in order.
 * @typedef {object} TimedBeat
 * @property {number} bar
 * @property {[number, number]} time
 * @property {number} bpm       beats (time[1] units) a minute
 * @property {number} startMs   ZScore's startTimeMillis
 * @property {string} source    "file line N"
 */

/**
 * @typedef {object} MeterEntry  an entry of the manifest's `meter` list
 * @property {number} bar
 * @property {number} [beat]
 * @property {string} [time]    "3/4"
 * @property {number} [tempo]
 */

/**
 * @typedef {object} Meter
 * @property {number} pickup
 * @property {number} bars
 * @property {MeterEntry[]} meter
 * @property {string[]} sources   where each meter entry comes from
 * @property {import('../../../core/tempo-map.js').TempoMap} map
 */

/**
 * @param {TimedBeat[]} beats  at least one
 * @returns {{ ok: true, value: Meter } | { ok: false, problems: { source: string, message: string }[] }}
 */
export function meterFromBeats(beats) {
  /** @type {{ source: string, message: string }[]} */
  const problems = [];
  /** @param {string} source @param {string} message */
  const problem = (source, message) => {
    problems.push({ source, message });
  };
  const tempoOk = (/** @type {number} */ bpm) => bpm > 0 && bpm <= 1000;

  /** @type {{ first: number, count: number }[]} */
  const groups = [];
  beats.forEach((b, i) => {
    const prev = beats[i - 1];
    if (prev && prev.bar === b.bar) {
      groups[groups.length - 1].count++;
      if (prev.time[0] !== b.time[0] || prev.time[1] !== b.time[1]) {
        problem(
          b.source,
          `the time signature changes inside bar ${b.bar} (${prev.time.join('/')} to ${b.time.join('/')}); it may change only where a bar starts`,
        );
      }
    } else groups.push({ first: i, count: 1 });
    if (!tempoOk(b.bpm))
      problem(
        b.source,
        `a tempo of ${round(b.bpm)} ${b.time[1]}ths a minute is outside what scorecast plays (up to 1000)`,
      );
  });
  const firstBar = beats[0].bar;
  if (firstBar !== 0 && firstBar !== 1)
    problem(beats[0].source, `the score starts at bar ${firstBar}; scorecast numbers bars from 1 (0 for a pickup)`);
  groups.forEach((g, k) => {
    const b = beats[g.first];
    const expected = firstBar + k;
    if (k > 0 && b.bar !== expected) {
      problem(
        b.source,
        `bar ${b.bar} follows bar ${beats[groups[k - 1].first].bar}; scorecast numbers bars one after another (bar ${expected} expected)`,
      );
    } else if (b.bar === 0 && g.count >= b.time[0]) {
      problem(
        b.source,
        `bar 0 has ${g.count} beats, a full ${b.time.join('/')} bar; bar 0 is a pickup, shorter than a bar (number full bars from 1)`,
      );
    } else if (b.bar > 0 && g.count !== b.time[0]) {
      problem(
        b.source,
        `bar ${b.bar} has ${g.count} beat${g.count === 1 ? '' : 's'} but its time signature ${b.time.join('/')} has ${b.time[0]}; scorecast's meter needs full bars`,
      );
    }
  });
  if (problems.length > 0) return { ok: false, problems };

  const specs = barsFromBeats(beats);
  const pickup = firstBar === 0 ? groups[0].count : 0;
  /** @type {MeterEntry[]} */
  const meter = [];
  /** @type {string[]} */
  const sources = [];
  /** @param {MeterEntry} e @param {number} beatIndex */
  const add = (e, beatIndex) => {
    meter.push(e);
    sources.push(beats[beatIndex].source);
  };
  /** @type {[number, number] | null} */
  let time = null;
  for (const [k, spec] of specs.entries()) {
    const start = groups[k].first;
    const fbb = spec.firstBeatInBar ?? 1;
    const changes = (spec.tempo ?? []).map((t) => ({ ...t, index: start + t.beat - fbb }));
    if (spec.bar === 0) {
      // The first meter entry (at bar 1) gives the pickup its time and tempo; the manifest's
      // meter cannot change tempo inside the pickup.
      if (changes.length > 1)
        return {
          ok: false,
          problems: [
            {
              source: beats[changes[1].index].source,
              message:
                "the tempo changes inside the pickup bar; scorecast's meter starts the first tempo at bar 1 (move the change to bar 1)",
            },
          ],
        };
      continue;
    }
    const timeText = `${spec.time[0]}/${spec.time[1]}`;
    if (!time) {
      // The first full bar: its time, and the tempo of the very first beat (pickup included).
      add({ bar: spec.bar, time: timeText, tempo: round(beats[0].bpm) }, start);
      for (const t of changes)
        if (!(k === 0 && t.beat === 1))
          add({ bar: spec.bar, ...(t.beat !== 1 ? { beat: t.beat } : {}), tempo: round(t.bpm) }, t.index);
    } else {
      const newTime = time[0] !== spec.time[0] || time[1] !== spec.time[1];
      const atOne = changes.find((t) => t.beat === 1);
      if (newTime || atOne)
        add(
          { bar: spec.bar, ...(newTime ? { time: timeText } : {}), ...(atOne ? { tempo: round(atOne.bpm) } : {}) },
          start,
        );
      for (const t of changes) if (t.beat !== 1) add({ bar: spec.bar, beat: t.beat, tempo: round(t.bpm) }, t.index);
    }
    time = spec.time;
  }

  const fullBars = groups.length - (pickup > 0 ? 1 : 0);
  let map;
  try {
    map = createTempoMap({
      bars: fullBars,
      pickup,
      changes: meter.map((e) => ({
        bar: e.bar,
        ...(e.beat ? { beat: e.beat } : {}),
        ...(e.tempo !== undefined ? { tempo: e.tempo } : {}),
        ...(e.time ? { time: /** @type {[number, number]} */ (e.time.split('/').map(Number)) } : {}),
      })),
    });
  } catch (err) {
    return {
      ok: false,
      problems: [
        {
          source: beats[0].source,
          message: `the metre cannot be played: ${/** @type {Error} */ (err).message.replace(/^tempo map: /, '')}`,
        },
      ],
    };
  }
  return { ok: true, value: { pickup, bars: fullBars, meter, sources, map } };
}

/**
 * @typedef {object} TimeMismatch
 * @property {number} beat
 * @property {string} source
 * @property {number} zscoreMs
 * @property {number} ourMs
 */

/**
 * Beats whose time in scorecast's tempo map differs from ZScore's startTimeMillis by more than
 * `toleranceMs`.
 * @param {import('../../../core/tempo-map.js').TempoMap} map
 * @param {TimedBeat[]} beats
 * @param {number} [toleranceMs]
 * @returns {TimeMismatch[]}
 */
export function compareBeatTimes(map, beats, toleranceMs = 1) {
  /** @type {TimeMismatch[]} */
  const out = [];
  beats.forEach((b, i) => {
    const ours = map.timeAt(i);
    if (Math.abs(ours - b.startMs) > toleranceMs + 1e-9)
      out.push({ beat: i, source: b.source, zscoreMs: b.startMs, ourMs: round(ours) });
  });
  return out;
}

/**
 * Round to 3 decimals: tempi like 90 * 8 / 4 stay whole, others stay readable.
 * @param {number} n
 */
function round(n) {
  return Math.round(n * 1000) / 1000;
}

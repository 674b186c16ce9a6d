// Onsets in a recording: where scorecast's click (client/src/sound/audio.js) starts in one channel
// of a recording, to a fraction of a sample. A threshold finds each click roughly (the first sample
// above a tenth of the channel's loudest click); cross-correlation with the click itself, computed
// here as the AudioContext renders it, places it: the lag whose window best matches the known
// waveform, refined by a parabola through the peak and its neighbours. Pure: no I/O, no clock.

import { CLICK_ACCENT_HZ, CLICK_HZ } from '../../client/src/sound/audio.js';
import { quantileSorted } from '../../core/stats.js';

/** The click's envelope (audio.js): from 0.0001 to its peak in 2 ms, back to 0.0001 at 50 ms. */
const FLOOR = 0.0001;
const ATTACK_S = 0.002;
const DECAY_END_S = 0.05;
const STOP_S = 0.06;
/** How much of the click is compared: its attack and the loud start of its decay. */
const TEMPLATE_S = 0.02;
/** Two clicks of one channel are at least this far apart (beats are 250 ms or more apart). */
const REFRACTORY_S = 0.15;
/** Lags searched around the threshold crossing: it is 1.4 ms after the onset for a clean click. */
const SEARCH_BEFORE_S = 0.006;
const SEARCH_AFTER_S = 0.002;

/**
 * The click as the AudioContext renders it, from its onset: a sine from phase 0 under the gain
 * envelope of audio.js (exponential ramps).
 * @param {number} rate samples per second
 * @param {{ hz?: number, peak?: number, seconds?: number }} [o]
 * @returns {Float32Array}
 */
export function clickWave(rate, { hz = CLICK_HZ, peak = 0.4, seconds = STOP_S } = {}) {
  const n = Math.round(seconds * rate);
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    const t = i / rate;
    let g;
    if (t < ATTACK_S) g = FLOOR * (peak / FLOOR) ** (t / ATTACK_S);
    else if (t < DECAY_END_S) g = peak * (FLOOR / peak) ** ((t - ATTACK_S) / (DECAY_END_S - ATTACK_S));
    else g = FLOOR;
    out[i] = g * Math.sin(2 * Math.PI * hz * t);
  }
  return out;
}

/**
 * One channel of interleaved 16-bit little-endian samples, as floats in -1..1.
 * @param {Buffer} raw
 * @param {number} channels
 * @param {number} channel
 */
export function channelOf(raw, channels, channel) {
  const frames = Math.floor(raw.length / 2 / channels);
  const out = new Float32Array(frames);
  // A view of the samples where the buffer allows one (little-endian machines, even offset).
  const view =
    raw.byteOffset % 2 === 0 && new Uint8Array(new Uint16Array([1]).buffer)[0] === 1
      ? new Int16Array(raw.buffer, raw.byteOffset, frames * channels)
      : null;
  if (view) for (let i = 0, j = channel; i < frames; i++, j += channels) out[i] = view[j] / 32768;
  else for (let i = 0; i < frames; i++) out[i] = raw.readInt16LE((i * channels + channel) * 2) / 32768;
  return out;
}

/**
 * Normalised cross-correlation of `x` at `lag` with `t` (samples past the end of `x` count as 0).
 * @param {Float32Array} x @param {Float32Array} t @param {number} tt  the sum of t's squares
 * @param {Float64Array} energy  energy[i]: the sum of x's squares before sample i
 * @param {number} lag
 */
function correlate(x, t, tt, energy, lag) {
  const n = Math.min(t.length, x.length - lag);
  let xy = 0;
  for (let i = 0; i < n; i++) xy += x[lag + i] * t[i];
  const xx = energy[lag + n] - energy[lag];
  return xx > 0 && tt > 0 ? xy / Math.sqrt(xx * tt) : 0;
}

/**
 * @typedef {object} Onset
 * @property {number} at      sample index (fractional) where the click starts
 * @property {number} hz      which click matched best (CLICK_HZ, or CLICK_ACCENT_HZ on a bar's first beat)
 * @property {number} score   its normalised correlation (1: the same waveform)
 */

/**
 * The clicks in one channel, in order.
 * @param {Float32Array} x
 * @param {number} rate
 * @param {{ threshold?: number, minScore?: number, pitches?: number[] }} [o]
 *   threshold: the level that finds a click (default a tenth of the channel's peak, at least 0.005);
 *   minScore: a match below this is not a click (another sound: a cue clip, a glitch)
 * @returns {Onset[]}
 */
export function findOnsets(x, rate, { threshold, minScore = 0.8, pitches = [CLICK_HZ, CLICK_ACCENT_HZ] } = {}) {
  let peak = 0;
  for (let i = 0; i < x.length; i++) peak = Math.max(peak, Math.abs(x[i]));
  const level = threshold ?? Math.max(0.005, peak / 10);
  const templates = pitches.map((hz) => {
    const wave = clickWave(rate, { hz, seconds: TEMPLATE_S });
    let tt = 0;
    for (const v of wave) tt += v * v;
    return { hz, wave, tt };
  });
  // Running sums of squares: a window's energy in two reads.
  const energy = new Float64Array(x.length + 1);
  for (let i = 0; i < x.length; i++) energy[i + 1] = energy[i] + x[i] * x[i];
  const before = Math.round(SEARCH_BEFORE_S * rate);
  const after = Math.round(SEARCH_AFTER_S * rate);
  const refractory = Math.round(REFRACTORY_S * rate);
  /** @type {Onset[]} */
  const found = [];
  for (let i = 0; i < x.length; i++) {
    if (Math.abs(x[i]) < level) continue;
    /** @type {Onset | null} */
    let best = null;
    for (const { hz, wave, tt } of templates) {
      let bestLag = -1;
      let bestScore = -Infinity;
      /** @type {number[]} */
      const scores = [];
      const from = Math.max(0, i - before);
      for (let lag = from; lag <= i + after; lag++) {
        const s = correlate(x, wave, tt, energy, lag);
        scores.push(s);
        if (s > bestScore) {
          bestScore = s;
          bestLag = lag;
        }
      }
      // A parabola through the peak and its neighbours: the onset between two samples.
      const k = bestLag - from;
      let frac = 0;
      if (k > 0 && k < scores.length - 1) {
        const [a, b, c] = [scores[k - 1], scores[k], scores[k + 1]];
        const d = a - 2 * b + c;
        if (d < 0) frac = (0.5 * (a - c)) / d;
      }
      if (!best || bestScore > best.score) best = { at: bestLag + frac, hz, score: bestScore };
    }
    if (best && best.score >= minScore) found.push(best);
    i += refractory;
  }
  return found;
}

/**
 * A straight line through points (least squares): y = a + b x.
 * @param {number[]} xs @param {number[]} ys
 */
export function fitLine(xs, ys) {
  const n = xs.length;
  const mx = xs.reduce((s, v) => s + v, 0) / n;
  const my = ys.reduce((s, v) => s + v, 0) / n;
  let sxy = 0;
  let sxx = 0;
  for (let i = 0; i < n; i++) {
    sxy += (xs[i] - mx) * (ys[i] - my);
    sxx += (xs[i] - mx) ** 2;
  }
  const b = sxx > 0 ? sxy / sxx : 0;
  return { a: my - b * mx, b };
}

/**
 * p50, p99 and max of a list, rounded to 0.01.
 * @param {number[]} values
 */
export function summary(values) {
  const s = [...values].sort((a, b) => a - b);
  const r = (/** @type {number} */ v) => (Number.isFinite(v) ? Math.round(v * 100) / 100 : null);
  return {
    n: s.length,
    p50: r(quantileSorted(s, 0.5)),
    p99: r(quantileSorted(s, 0.99)),
    max: r(s[s.length - 1] ?? Number.NaN),
  };
}

/**
 * Onsets of each page matched to the beats the server scheduled, and the figures of the issue:
 * for each beat heard on two pages or more, the spread (latest onset minus earliest); for each
 * onset, its offset from the beat's server time (positive: late).
 * @param {object} o
 * @param {number[]} o.beats              server times (ms) of the beats scheduled
 * @param {number[][]} o.pages            each page's onsets, as server times (ms)
 * @param {number} [o.matchMs]            an onset further than this from every beat is not one of them
 */
export function compare({ beats, pages, matchMs = 100 }) {
  const sorted = [...beats].sort((a, b) => a - b);
  /** @type {Map<number, number[]>} */
  const byBeat = new Map();
  /** @type {number[]} */
  const offsets = [];
  /** @type {Array<{ page: number, beat: number, offset: number }>} */
  const rows = [];
  let unmatched = 0;
  pages.forEach((onsets, page) => {
    for (const t of onsets) {
      const beat = nearest(sorted, t);
      if (beat === null || Math.abs(t - beat) > matchMs) {
        unmatched += 1;
        continue;
      }
      const list = byBeat.get(beat) ?? [];
      list.push(t);
      byBeat.set(beat, list);
      offsets.push(t - beat);
      rows.push({ page, beat, offset: t - beat });
    }
  });
  /** @type {number[]} */
  const spreads = [];
  for (const list of byBeat.values()) if (list.length >= 2) spreads.push(Math.max(...list) - Math.min(...list));
  const abs = offsets.map(Math.abs);
  const signed = [...offsets].sort((a, b) => a - b);
  return {
    beats: spreads.length,
    onsets: offsets.length,
    unmatched,
    onsetSpreadMs: summary(spreads),
    offsetMs: summary(abs),
    // Signed: positive when the sound comes late. p1 and p99 bound it both ways.
    signedOffsetMs: {
      p1: Math.round(quantileSorted(signed, 0.01) * 100) / 100,
      p50: Math.round(quantileSorted(signed, 0.5) * 100) / 100,
      p99: Math.round(quantileSorted(signed, 0.99) * 100) / 100,
    },
    rows,
  };
}

/**
 * The element of a sorted list nearest to v.
 * @param {number[]} sorted @param {number} v
 * @returns {number | null}
 */
function nearest(sorted, v) {
  if (sorted.length === 0) return null;
  let lo = 0;
  let hi = sorted.length - 1;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid] <= v) lo = mid;
    else hi = mid;
  }
  return Math.abs(sorted[lo] - v) <= Math.abs(sorted[hi] - v) ? sorted[lo] : sorted[hi];
}

/**
 * The gap after the k-th click of a reference track: everyMs plus 0-100 ms in steps of 10, in a
 * pseudo-random order that does not repeat (an integer hash of k), so that the gaps between
 * a few clicks in a row occur once in the track.
 * @param {number} k @param {number} everyMs
 */
export function referenceGapMs(k, everyMs) {
  let h = Math.imul((k + 1) ^ ((k + 1) >>> 16), 0x45d9f3b);
  h = Math.imul(h ^ (h >>> 16), 0x45d9f3b);
  h = (h ^ (h >>> 16)) >>> 0;
  return everyMs + (h % 11) * 10;
}

/**
 * Which clicks of a track the clicks found in a recording are: the offset k0 such that found[i]
 * is positions[k0 + i], chosen where the gaps between the first few found clicks best match the
 * track's (its gaps vary in a pattern). Returns the shift from track to recording (samples: the
 * median of found[i] - positions[k0 + i]) and the largest departure from it.
 * @param {number[]} found      recording sample of each click found, in order, none missed
 * @param {number[]} positions  track sample of each click written
 * @returns {{ k0: number, shift: number, residual: number }}
 */
export function matchReference(found, positions) {
  const n = Math.min(8, found.length);
  let best = { k0: -1, cost: Infinity };
  for (let k0 = 0; k0 + found.length <= positions.length; k0++) {
    let cost = 0;
    for (let i = 1; i < n; i++) cost += Math.abs(found[i] - found[0] - (positions[k0 + i] - positions[k0]));
    if (cost < best.cost) best = { k0, cost };
  }
  if (best.k0 < 0) throw new Error(`${found.length} reference clicks found, more than the track's ${positions.length}`);
  const shifts = found.map((f, i) => f - positions[best.k0 + i]).sort((a, b) => a - b);
  const shift = quantileSorted(shifts, 0.5);
  return { k0: best.k0, shift, residual: Math.max(...shifts.map((s) => Math.abs(s - shift))) };
}

/**
 * The lab-clock time at which each position of a track was heard, from a player's reports of its
 * position (`streamMs`, stamped on arrival `at`). A report can only arrive late, so near each
 * position the earliest arrivals (a low quantile of at - streamMs, over reports within
 * ±windowMs) count. Local, not one constant: a starved virtual sink falls behind the wall clock
 * (seen here at load 65: 70 ms over two minutes), and its positions with it.
 * @param {Array<{ streamMs: number, at: number }>} reports
 * @param {{ windowMs?: number, stepMs?: number, q?: number }} [o]
 * @returns {{ at: (streamMs: number) => number, lagMs: number, anchors: number }}
 */
export function trackClock(reports, { windowMs = 1500, stepMs = 1000, q = 0.1 } = {}) {
  const sorted = [...reports].sort((a, b) => a.streamMs - b.streamMs);
  if (sorted.length < 20) throw new Error(`only ${sorted.length} playback reports`);
  const first = sorted[0].streamMs;
  const last = sorted[sorted.length - 1].streamMs;
  /** @type {Array<{ t: number, z: number }>} */
  const anchors = [];
  let lo = 0;
  for (let t = first; t <= last; t += stepMs) {
    while (lo < sorted.length && sorted[lo].streamMs < t - windowMs) lo++;
    /** @type {number[]} */
    const zs = [];
    for (let i = lo; i < sorted.length && sorted[i].streamMs <= t + windowMs; i++)
      zs.push(sorted[i].at - sorted[i].streamMs);
    if (zs.length >= 5)
      anchors.push({
        t,
        z: quantileSorted(
          zs.sort((a, b) => a - b),
          q,
        ),
      });
  }
  if (anchors.length === 0) throw new Error('no stretch of the track with enough reports');
  const at = (/** @type {number} */ ms) => {
    if (ms <= anchors[0].t) return ms + anchors[0].z;
    for (let i = 1; i < anchors.length; i++) {
      const b = anchors[i];
      if (ms <= b.t) {
        const a = anchors[i - 1];
        return ms + a.z + ((b.z - a.z) * (ms - a.t)) / (b.t - a.t);
      }
    }
    return ms + anchors[anchors.length - 1].z;
  };
  const zs = anchors.map((a) => a.z);
  return { at, lagMs: Math.max(...zs) - Math.min(...zs), anchors: anchors.length };
}

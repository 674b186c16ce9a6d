// The audio onset lab's analysis (infra/audio-lab/onsets.js) on synthetic recordings: clicks at
// known fractional sample positions, the accent among them, a quieter channel, noise.

import { describe, expect, it } from 'vitest';
import { CLICK_ACCENT_HZ, CLICK_HZ } from '../../client/src/sound/audio.js';
import {
  clickWave,
  compare,
  findOnsets,
  matchReference,
  referenceGapMs,
  trackClock,
} from '../../infra/audio-lab/onsets.js';

const RATE = 48_000;

/**
 * A recording of `seconds` with a click of `hz` starting at each (fractional) sample of `at`.
 * @param {number} seconds
 * @param {Array<{ at: number, hz: number }>} clicks
 * @param {{ gain?: number, noise?: number }} [o]
 */
function recording(seconds, clicks, { gain = 1, noise = 0 } = {}) {
  const x = new Float32Array(Math.round(seconds * RATE));
  let seed = 1;
  const random = () => {
    seed = (seed * 16807) % 2147483647;
    return seed / 2147483647 - 0.5;
  };
  for (const { at, hz } of clicks) {
    // The click as rendered from a start between two samples: its waveform at t - at.
    const start = Math.ceil(at);
    const wave = clickWave(RATE * 1, { hz });
    for (let i = start; i < Math.min(x.length, start + wave.length); i++) {
      const t = (i - at) / RATE;
      const k = t * RATE;
      const k0 = Math.floor(k);
      const frac = k - k0;
      const v = (wave[k0] ?? 0) * (1 - frac) + (wave[k0 + 1] ?? 0) * frac;
      x[i] += gain * v;
    }
  }
  if (noise > 0) for (let i = 0; i < x.length; i++) x[i] += noise * random();
  return x;
}

describe('findOnsets', () => {
  it('places clicks to a tenth of a sample, tells the accent from the click, and misses none', () => {
    const clicks = [
      { at: 4800.0, hz: CLICK_HZ },
      { at: 35_000.37, hz: CLICK_ACCENT_HZ },
      { at: 65_123.8, hz: CLICK_HZ },
      { at: 95_000.5, hz: CLICK_HZ },
    ];
    const found = findOnsets(recording(2.5, clicks), RATE);
    expect(found).toHaveLength(clicks.length);
    found.forEach((f, i) => {
      expect(Math.abs(f.at - clicks[i].at)).toBeLessThan(0.1);
      expect(f.hz).toBe(clicks[i].hz);
      expect(f.score).toBeGreaterThan(0.99);
    });
  });

  it('finds quiet clicks under noise within a sample', () => {
    const clicks = [
      { at: 10_000.25, hz: CLICK_HZ },
      { at: 40_000.75, hz: CLICK_HZ },
    ];
    const found = findOnsets(recording(1.2, clicks, { gain: 0.1, noise: 0.002 }), RATE);
    expect(found.map((f) => Math.round(f.at))).toEqual([10_000, 40_001]);
    for (const [i, f] of found.entries()) expect(Math.abs(f.at - clicks[i].at)).toBeLessThan(1);
  });

  it('takes another sound for no click', () => {
    const x = new Float32Array(RATE);
    for (let i = 10_000; i < 20_000; i++) x[i] = 0.3 * Math.sin((2 * Math.PI * 300 * i) / RATE);
    expect(findOnsets(x, RATE)).toEqual([]);
  });
});

describe('matchReference', () => {
  it('finds which clicks of the track a recording holds from the pattern of their gaps', () => {
    /** @type {number[]} */
    const positions = [];
    for (let k = 0, p = 48_000; k < 40; k++) {
      positions.push(p);
      p += Math.round((referenceGapMs(k, 500) / 1000) * RATE);
    }
    // The recording starts somewhere in the track: its first click is the track's 13th.
    const shift = -positions[12] + 1234.5;
    const found = positions.slice(12, 30).map((p) => p + shift);
    const m = matchReference(found, positions);
    expect(m.k0).toBe(12);
    // Every start gives another pattern of gaps (none repeats within the track).
    const patterns = positions.slice(0, 33).map((p, k) =>
      positions
        .slice(k, k + 8)
        .map((q) => q - p)
        .join(),
    );
    expect(new Set(patterns).size).toBe(patterns.length);
    expect(m.shift).toBeCloseTo(shift, 6);
    expect(m.residual).toBeCloseTo(0, 6);
  });
});

describe('trackClock', () => {
  it('follows a track that falls behind the wall clock, from reports that arrive late by up to 30 ms', () => {
    // Heard at wall time 1000 + streamMs + lag, the lag growing 0.5 ms per s after 20 s.
    const lag = (/** @type {number} */ ms) => (ms < 20_000 ? 0 : (ms - 20_000) * 0.0005);
    let seed = 7;
    const random = () => {
      seed = (seed * 16807) % 2147483647;
      return seed / 2147483647;
    };
    const reports = [];
    for (let ms = 0; ms < 60_000; ms += 50)
      reports.push({ streamMs: ms, at: 1000 + ms + lag(ms) + 30 * random() ** 3 });
    const track = trackClock(reports);
    for (const ms of [5000, 20_000, 30_000, 45_000, 59_000])
      expect(Math.abs(track.at(ms) - (1000 + ms + lag(ms)))).toBeLessThan(0.5);
    expect(track.lagMs).toBeGreaterThan(19);
    expect(track.lagMs).toBeLessThan(21);
  });
});

describe('compare', () => {
  it('measures the spread of each beat across pages and each onset against its beat', () => {
    const beats = [1000, 1625, 2250];
    const r = compare({
      beats,
      pages: [
        [1001, 1625, 2249],
        [1003, 1624.5, 2250],
        [999, 5000], // 5000: far from every beat
      ],
    });
    expect(r.beats).toBe(3);
    expect(r.unmatched).toBe(1);
    expect(r.onsetSpreadMs.max).toBe(4);
    expect(r.onsetSpreadMs.n).toBe(3);
    expect(r.offsetMs.max).toBe(3);
    expect(r.signedOffsetMs.p50).toBe(0);
  });
});

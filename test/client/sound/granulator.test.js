// The phone's granulator (ZScore's zsGranulator, rebuilt): grains on the Web Audio clock with the
// preset's parameters, bounded whatever the network sends.

import { describe, expect, it } from 'vitest';
import {
  createGranulator,
  envelopePoints,
  grainAt,
  granulatorConfig,
  triangle,
  LOOKAHEAD_S,
  DEFAULTS,
} from '../../../client/src/sound/granulator.js';

/** A fake AudioContext that records every grain and gain ramp. */
function fakeContext() {
  /** @type {{ when: number, offset: number, duration: number, rate: number }[]} */
  const grains = [];
  /** @type {[string, number, number][]} */
  const master = [];
  const param = (/** @type {[string, number, number][] | null} */ log) => ({
    value: 1,
    setValueAtTime(/** @type {number} */ v, /** @type {number} */ t) {
      log?.push(['set', v, t]);
    },
    linearRampToValueAtTime(/** @type {number} */ v, /** @type {number} */ t) {
      log?.push(['ramp', v, t]);
    },
    cancelScheduledValues() {},
  });
  let gains = 0;
  const ctx = {
    currentTime: 10,
    destination: {},
    createGain() {
      gains++;
      return { gain: param(gains === 1 ? master : null), connect() {} };
    },
    createBufferSource() {
      const s = {
        buffer: null,
        playbackRate: { value: 1 },
        connect() {},
        start(/** @type {number} */ when, /** @type {number} */ offset, /** @type {number} */ duration) {
          grains.push({ when, offset, duration, rate: s.playbackRate.value });
        },
      };
      return s;
    },
  };
  return { ctx, grains, master };
}

const timers = { setInterval: () => /** @type {any} */ (1), clearInterval: () => {} };

describe('granulator', () => {
  it("reads ZScore's preset, bounding what the network sends and keeping defaults for the rest", () => {
    const c = granulatorConfig({
      masterGainVal: 0.1,
      maxGrains: 10_000,
      grain: { sizeMs: 'big', pitchRate: 2 },
      envelope: { attackTime: 0.3 },
    });
    expect(c.masterGainVal).toBe(0.1);
    expect(c.maxGrains).toBe(DEFAULTS.maxGrains); // out of range: the default
    expect(c.grain).toMatchObject({ sizeMs: 100, pitchRate: 2 });
    expect(c.envelope).toMatchObject({ attackTime: 0.3, releaseTime: 0.5 });
  });

  it("moves the read position with a triangle between the oscillator's ends, and keeps grains inside the file", () => {
    expect(triangle(0, 500, 4500)).toBe(500);
    expect(triangle(0.5, 500, 4500)).toBe(4500);
    expect(triangle(1.25, 0, 10)).toBe(5);
    const c = granulatorConfig({
      isUsePositionFrequencyMod: false,
      isUsePositionRangeMod: false,
      isUseSizeOscillator: false,
      positionOscillator: { minValue: 500, maxValue: 4500, frequency: 0.2 },
    });
    expect(grainAt(c, 0, 10)).toEqual({ position: 0.5, size: 0.1 });
    expect(grainAt(c, 2.5, 10).position).toBeCloseTo(4.5); // half a period at 0.2 Hz
    expect(grainAt(c, 2.5, 3).position).toBeCloseTo(2.9); // a short file: the grain still fits
  });

  it('shapes each grain with the envelope, scaled to the grain', () => {
    expect(
      envelopePoints({ attackTime: 0.5, decayTime: 0, sustainTime: 0, releaseTime: 0.5, sustainLevel: 1 }, 0.1),
    ).toEqual([
      [0, 0],
      [0.05, 1],
      [0.05, 1],
      [0.1, 0],
    ]);
    const p = envelopePoints({ attackTime: 1, decayTime: 0, sustainTime: 0, releaseTime: 1, sustainLevel: 1 }, 0.2);
    expect(p.at(-1)).toEqual([0.2, 0]);
    expect(Math.max(...p.map(([t]) => t))).toBeLessThanOrEqual(0.2);
  });

  it('starts grains at the given context time, about maxGrains per grain length, and only within the look-ahead', () => {
    const { ctx, grains } = fakeContext();
    const g = createGranulator({ context: ctx, buffer: { duration: 10 }, timers, random: () => 0.5 });
    g.configure(
      granulatorConfig({ maxGrains: 10, isUseSizeOscillator: false, grain: { sizeMs: 100, maxPitchRateRange: 0 } }),
    );
    g.play(10.05);
    expect(grains[0].when).toBeCloseTo(10.05);
    expect(grains.every((x) => x.when <= 10 + LOOKAHEAD_S)).toBe(true);
    // 100 ms grains, 10 at a time: one every 10 ms
    expect(grains).toHaveLength(Math.floor((LOOKAHEAD_S - 0.05) / 0.01 + 1e-9) + 1);
    expect(grains[1].when - grains[0].when).toBeCloseTo(0.01);
    ctx.currentTime = 10.5;
    g.tick();
    expect(grains.at(-1)?.when).toBeLessThanOrEqual(10.5 + LOOKAHEAD_S);
    expect(new Set(grains.map((x) => x.rate))).toEqual(new Set([1]));
  });

  it("stops after the preset's play duration, and on stop", () => {
    const { ctx, grains } = fakeContext();
    const g = createGranulator({ context: ctx, buffer: { duration: 10 }, timers });
    g.configure(granulatorConfig({ playDurationSec: 0.1 }));
    g.play(10);
    ctx.currentTime = 10.2;
    g.tick();
    expect(g.playing).toBe(false);
    expect(grains.every((x) => x.when < 10.1)).toBe(true);
    g.play(11);
    g.stop();
    const n = grains.length;
    ctx.currentTime = 11.5;
    g.tick();
    expect(grains).toHaveLength(n);
  });

  it("ramps the master gain linearly (ZScore's setGranulatorVolume and granulatorRampLinear)", () => {
    const { ctx, master } = fakeContext();
    const g = createGranulator({ context: ctx, buffer: { duration: 10 }, timers });
    g.gain(0.5, 8);
    expect(master.at(-1)).toEqual(['ramp', 0.5, 18]);
    g.gain(7, 0);
    expect(master.at(-1)?.[1]).toBe(1);
  });
});

describe('the granulator: a note', () => {
  it('is a burst of grains at the note rate times the pitch rate, from its start time on, bounded', () => {
    const { ctx, grains } = fakeContext();
    const g = createGranulator({
      context: /** @type {any} */ (ctx),
      buffer: { duration: 5 },
      timers: /** @type {any} */ ({}),
      random: () => 0.5,
    });
    g.configure(granulatorConfig({ grain: { pitchRate: 1 } }));
    const n = g.note(10.5, 2, 0.4);
    expect(n).toBe(grains.length);
    expect(n).toBeGreaterThan(10);
    expect(grains[0]).toMatchObject({ when: 10.5, rate: 2 });
    expect(grains.every((x) => x.when >= 10.5 && x.when < 10.9 && x.rate === 2)).toBe(true);
    expect(g.grains).toBe(n);
    grains.length = 0;
    g.note(11, 100, 0.1);
    expect(grains.every((x) => x.rate === 4)).toBe(true);
  });
});

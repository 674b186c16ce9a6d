import { describe, it, expect } from 'vitest';
import { withTempoRamps } from '../../../../server/import/zscore/tempo.js';

/** 2 bars of 4/4 at 80, then a bar written at 120. */
const BEATS = [
  ...Array(8)
    .fill(null)
    .map((_, i) => ({ bar: 1 + Math.floor(i / 4), bpm: 80, time: /** @type {[number, number]} */ ([4, 4]) })),
  ...Array(4)
    .fill(null)
    .map(() => ({ bar: 3, bpm: 120, time: /** @type {[number, number]} */ ([4, 4]) })),
];
const METER = [
  { bar: 1, time: '4/4', tempo: 80 },
  { bar: 3, tempo: 120 },
];
/** @param {unknown[]} args @param {number} at */
const call = (args, at) => ({
  at,
  kind: /** @type {const} */ ('sce'),
  method: 'timedAction',
  args,
  text: `sce.timedAction(${args.join(',')})`,
  source: 'x.csv line 2',
});

describe("scripted tempo ramps (sce.timedAction('tempo', bpm, beats))", () => {
  it("steps from the tempo before to the end tempo, one meter entry a beat, and holds it until the score's next tempo", () => {
    const r = withTempoRamps([call(['tempo', 40, 4], 2)], BEATS, METER);
    expect(r.meter).toEqual([
      { bar: 1, time: '4/4', tempo: 80 },
      { bar: 1, beat: 3, tempo: 70 },
      { bar: 1, beat: 4, tempo: 60 },
      { bar: 2, tempo: 50 },
      { bar: 2, beat: 2, tempo: 40 },
      { bar: 3, tempo: 120 },
    ]);
    expect(r.ramps).toBe(1);
  });
  it('leaves the metre alone without ramps, and ignores other timed actions and bad values', () => {
    expect(
      withTempoRamps([call(['volume', 40, 4], 2), call(['tempo', -1, 4], 2), call(['tempo', 40, 0], 2)], BEATS, METER),
    ).toEqual({ meter: METER, converted: [], consumed: [], ramps: 0 });
  });
});

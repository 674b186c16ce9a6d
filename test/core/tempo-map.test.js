import { describe, it, expect } from 'vitest';
import { createTempoMap, createTempoMapFromBars } from '../../core/tempo-map.js';

describe('tempo map', () => {
  it('converts beats to time at a single tempo', () => {
    const map = createTempoMap({ bars: 4, changes: [{ bar: 1, time: [4, 4], tempo: 120 }] });
    expect(map.totalBeats).toBe(16);
    expect(map.timeAt(0)).toBe(0);
    expect(map.timeAt(1)).toBe(500);
    expect(map.timeAt(16)).toBe(8000);
    expect(map.durationMs).toBe(8000);
    expect(map.beatAt(1250)).toBe(2.5);
  });

  it('handles tempo and time-signature changes, hand-computed', () => {
    // bars 1-2: 4/4 at 60 (1000 ms a beat); bar 3: 3/4 at 120 (500 ms); bar 4 beat 2: 90 bpm
    const map = createTempoMap({
      bars: 4,
      changes: [
        { bar: 1, time: [4, 4], tempo: 60 },
        { bar: 3, time: [3, 4], tempo: 120 },
        { bar: 4, beat: 2, tempo: 90 },
      ],
    });
    expect(map.totalBeats).toBe(8 + 3 + 3);
    expect(map.timeAt(8)).toBe(8000); // bar 3 beat 1
    expect(map.timeAt(11)).toBe(9500); // bar 4 beat 1
    expect(map.timeAt(12)).toBe(10000); // bar 4 beat 2, tempo 90 from here
    expect(map.timeAt(14)).toBeCloseTo(10000 + (2 * 60000) / 90, 9);
    expect(map.positionOf(11)).toEqual({ beat: 11, bar: 4, beatInBar: 1, time: [3, 4] });
    expect(map.positionOf(7)).toEqual({ beat: 7, bar: 2, beatInBar: 4, time: [4, 4] });
    expect(map.tempoAt(11)).toBe(120);
    expect(map.tempoAt(12.5)).toBe(90);
    for (const b of [0, 3.3, 8, 11.9, 12, 13.7]) expect(map.beatAt(map.timeAt(b))).toBeCloseTo(b, 9);
  });

  it('numbers a pickup bar as bar 0 ending on the last beats of its signature', () => {
    const map = createTempoMap({ bars: 2, pickup: 1, changes: [{ bar: 1, time: [3, 4], tempo: 60 }] });
    expect(map.totalBeats).toBe(1 + 6);
    expect(map.positionOf(0)).toMatchObject({ bar: 0, beatInBar: 3 });
    expect(map.positionOf(1)).toMatchObject({ bar: 1, beatInBar: 1 });
    expect(map.beatOf(2, 1)).toBe(4);
    expect(map.timeAt(1)).toBe(1000); // the first tempo holds in the pickup too
  });

  it('counts beats in the unit of the time signature (6/8 at 120 = 120 eighths a minute)', () => {
    const map = createTempoMap({ bars: 1, changes: [{ bar: 1, time: [6, 8], tempo: 120 }] });
    expect(map.totalBeats).toBe(6);
    expect(map.durationMs).toBe(3000);
  });

  it('refuses inconsistent maps with a clear message', () => {
    expect(() => createTempoMap({ bars: 4, changes: [] })).toThrow(/first change must be at bar 1/);
    expect(() =>
      createTempoMap({
        bars: 4,
        changes: [
          { bar: 1, time: [4, 4], tempo: 60 },
          { bar: 9, tempo: 80 },
        ],
      }),
    ).toThrow(/bar 9 is outside/);
    expect(() => createTempoMap({ bars: 4, changes: [{ bar: 1, time: [4, 4], tempo: 0 }] })).toThrow(/tempo must be/);
    expect(() =>
      createTempoMap({
        bars: 4,
        changes: [
          { bar: 1, time: [4, 4], tempo: 60 },
          { bar: 2, beat: 3, time: [3, 4] },
        ],
      }),
    ).toThrow(/only at beat 1/);
    expect(() => createTempoMap({ bars: 4, pickup: 4, changes: [{ bar: 1, time: [4, 4], tempo: 60 }] })).toThrow(
      /pickup must be shorter/,
    );
    const map = createTempoMap({ bars: 2, changes: [{ bar: 1, time: [4, 4], tempo: 60 }] });
    expect(() => map.beatOf(2, 5)).toThrow(/bar 2 has no beat 5/);
    expect(() => map.positionOf(8)).toThrow(/outside 0..7/);
  });

  it('stays exact over a long piece: no accumulated rounding', () => {
    const map = createTempoMap({
      bars: 400,
      changes: [
        { bar: 1, time: [4, 4], tempo: 97 },
        { bar: 200, tempo: 131 },
      ],
    });
    const b = map.totalBeats;
    const expected = (199 * 4 * 60000) / 97 + ((b - 199 * 4) * 60000) / 131;
    expect(Math.abs(map.timeAt(b) - expected)).toBeLessThan(1e-6);
  });

  it('plays bars in performance order: a repeat reuses written bar numbers', () => {
    // |: 1 2 :| 3, with a tempo change on beat 3 of bar 3 (hand-computed times)
    const map = createTempoMapFromBars([
      { bar: 1, time: [2, 4], tempo: [{ beat: 1, bpm: 60 }] },
      { bar: 2, time: [2, 4] },
      { bar: 1, time: [2, 4] },
      { bar: 2, time: [2, 4] },
      { bar: 3, time: [4, 4], tempo: [{ beat: 3, bpm: 120 }] },
    ]);
    expect(map.totalBeats).toBe(12);
    expect(map.positionOf(4)).toMatchObject({ bar: 1, beatInBar: 1 });
    expect(map.positionOf(9)).toMatchObject({ bar: 3, beatInBar: 2 });
    expect(map.timeAt(10)).toBe(10_000);
    expect(map.timeAt(12)).toBe(11_000);
    expect(map.beatOf(2, 1)).toBe(2); // the first playing of bar 2
    expect(map.firstBar).toBe(1);
    expect(map.lastBar).toBe(3);
  });

  it('a short first bar is a pickup ending on the last beats of its signature', () => {
    const map = createTempoMapFromBars([
      { bar: 0, time: [4, 4], beats: 1, tempo: [{ beat: 4, bpm: 60 }] },
      { bar: 1, time: [4, 4] },
    ]);
    expect(map.positionOf(0)).toMatchObject({ bar: 0, beatInBar: 4 });
    expect(map.timeAt(5)).toBe(5000);
  });

  it('refuses a bar sequence without a starting tempo or with a misplaced change', () => {
    expect(() => createTempoMapFromBars([])).toThrow(/no bars/);
    expect(() => createTempoMapFromBars([{ bar: 1, time: [4, 4] }])).toThrow(/first bar must set the tempo/);
    expect(() => createTempoMapFromBars([{ bar: 1, time: [4, 4], tempo: [{ beat: 5, bpm: 60 }] }])).toThrow(
      /bar 1 has no beat 5/,
    );
  });
});

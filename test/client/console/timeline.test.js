import { describe, it, expect } from 'vitest';
import {
  barIndexAt,
  beatAtFraction,
  beatForKey,
  orderEnded,
  orderTaken,
  positionOf,
} from '../../../client/src/console/timeline.js';

/**
 * A pickup of one beat (bar 0, its beat 4), three bars of 4/4, two of 3/4: 19 beats.
 * @type {import('../../../client/src/console/timeline.js').Timeline}
 */
const T = {
  beats: 19,
  bars: [
    { bar: 0, beat: 0, time: '4/4', first: 4 },
    { bar: 1, beat: 1 },
    { bar: 2, beat: 5 },
    { bar: 3, beat: 9 },
    { bar: 4, beat: 13, time: '3/4' },
    { bar: 5, beat: 16 },
  ],
  tempo: [{ beat: 0, bpm: 96 }],
  cues: [],
};

describe('preview timeline', () => {
  it('finds the bar of a beat and names the beat as a player counts it', () => {
    expect(barIndexAt(T.bars, 0)).toBe(0);
    expect(barIndexAt(T.bars, 4.5)).toBe(1);
    expect(barIndexAt(T.bars, 18)).toBe(5);
    expect(positionOf(T, 0)).toEqual({ bar: 0, beatInBar: 4 });
    expect(positionOf(T, 7)).toEqual({ bar: 2, beatInBar: 3 });
    expect(positionOf(T, 17)).toEqual({ bar: 5, beatInBar: 2 });
  });

  it('snaps a click to the nearest barline, or with Shift to the beat under it', () => {
    expect(beatAtFraction(T, 6.4 / 19, false)).toBe(5);
    expect(beatAtFraction(T, 7.2 / 19, false)).toBe(9);
    expect(beatAtFraction(T, 7.2 / 19, true)).toBe(7);
    expect(beatAtFraction(T, -0.2, false)).toBe(0);
    expect(beatAtFraction(T, 1.2, true)).toBe(18);
    expect(beatAtFraction(T, 1, false)).toBe(16);
  });

  it('steps a bar with the arrows (back from inside a bar: to its barline), a beat with Shift', () => {
    expect(beatForKey(T, 5, 'ArrowRight', false)).toBe(9);
    expect(beatForKey(T, 6, 'ArrowRight', false)).toBe(9);
    expect(beatForKey(T, 16, 'ArrowRight', false)).toBe(16);
    expect(beatForKey(T, 7, 'ArrowLeft', false)).toBe(5);
    expect(beatForKey(T, 5, 'ArrowLeft', false)).toBe(1);
    expect(beatForKey(T, 0, 'ArrowLeft', false)).toBe(0);
    expect(beatForKey(T, 7, 'ArrowRight', true)).toBe(8);
    expect(beatForKey(T, 18, 'ArrowUp', true)).toBe(18);
    expect(beatForKey(T, 0, 'ArrowDown', true)).toBe(0);
    expect(beatForKey(T, 9, 'Home', false)).toBe(0);
    expect(beatForKey(T, 9, 'End', false)).toBe(16);
    expect(beatForKey(T, 9, 'a', false)).toBeNull();
  });
});

describe('timeline: an open-form piece in the order taken', () => {
  const section = {
    id: 'pitch',
    options: [
      { id: 'rhythm', name: 'Rhythm' },
      { id: 'end', name: 'End' },
    ],
    order: [
      { section: 'intro', by: 'start', name: 'Intro' },
      { section: 'rhythm', by: 'conductor', name: 'Rhythm' },
      { section: 'pitch', by: 'part:cello', name: 'Pitch' },
    ],
  };

  it('lists the sections played, the one playing and the one chosen next, not the declared order', () => {
    expect(orderTaken(section)).toEqual([
      { id: 'intro', name: 'Intro', by: 'start', at: 'played' },
      { id: 'rhythm', name: 'Rhythm', by: 'conductor', at: 'played' },
      { id: 'pitch', name: 'Pitch', by: 'part:cello', at: 'now' },
    ]);
    const chosen = orderTaken({ ...section, chosen: { section: 'end', by: 'meter' } });
    expect(chosen.at(-1)).toEqual({ id: 'end', name: 'End', by: 'meter', at: 'next' });
    // once the piece has ended: all of it played, nothing to come
    expect(orderEnded(chosen).map((x) => `${x.id}:${x.at}`)).toEqual(['intro:played', 'rhythm:played', 'pitch:played']);
    expect(orderTaken(undefined)).toEqual([]);
    expect(orderTaken({ id: 'x', options: [] })).toEqual([]);
  });
});

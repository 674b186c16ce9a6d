// The beat grid alone: due times follow from the anchor and the tempo map, and the timer waits
// again when it wakes early, so that a beat never fires before its time.

import { describe, it, expect } from 'vitest';
import { buildScoreModel } from '../../../core/manifest.js';
import { createBeatGrid } from '../../../server/performance/beat-grid.js';
import { createFakeClock } from '../../helpers/fake-clock.js';

/** 4/4 at 120: 500 ms a beat, 4 bars. */
const built = buildScoreModel({ id: 'g', title: 'G', bars: 4, meter: [{ bar: 1, time: '4/4', tempo: 120 }] });
if (!built.ok) throw new Error(JSON.stringify(built.problems));
const map = built.value.map;

describe('beat grid', () => {
  it('puts beat N at the anchor plus the tempo map time from the anchored position, divided by the rate', () => {
    const clock = createFakeClock({ start: 1000 });
    const grid = createBeatGrid(clock);
    grid.anchor(2);
    expect(grid.dueMono(map, 2, 1)).toBe(1000);
    expect(grid.dueMono(map, 5, 1)).toBe(2500);
    expect(grid.dueMono(map, 5, 2)).toBe(1750);
    expect(grid.wallOf(2500) - grid.wall).toBe(1500);
  });

  it('re-anchored on a due time, the beats go on on the same grid', () => {
    const clock = createFakeClock({ start: 0 });
    const grid = createBeatGrid(clock);
    grid.anchor(0);
    const due = grid.dueMono(map, 4, 1);
    grid.anchorAt(10, due);
    expect(grid.dueMono(map, 11, 1)).toBe(due + 500);
    expect(grid.wallOf(due)).toBe(clock.wall() + 2000);
  });

  it('keeps the position within the beat sounding, whatever the time says', () => {
    const clock = createFakeClock({ start: 0 });
    const grid = createBeatGrid(clock);
    grid.anchor(3);
    clock.advance(250);
    expect(grid.positionWithin(map, 1, 3)).toBeCloseTo(3.5);
    clock.advance(1000);
    expect(grid.positionWithin(map, 1, 3)).toBeLessThan(4);
  });

  it('fires no earlier than due when the timer wakes early, and not at all once cancelled', () => {
    // The first timer fires 100 ms early: the grid waits again for the rest.
    const lateness = [-100];
    const clock = createFakeClock({ start: 0, lateness: () => lateness.shift() ?? 0 });
    const grid = createBeatGrid(clock);
    grid.anchor(0);
    /** @type {number[]} */
    const fired = [];
    grid.arm(
      () => grid.dueMono(map, 2, 1),
      () => fired.push(clock.now()),
    );
    clock.advance(950);
    expect(fired).toEqual([]);
    clock.advance(100);
    expect(fired).toEqual([1000]);
    grid.arm(
      () => grid.dueMono(map, 3, 1),
      () => fired.push(clock.now()),
    );
    grid.cancel();
    clock.advance(2000);
    expect(fired).toHaveLength(1);
  });
});

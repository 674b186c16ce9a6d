// Drawing the audience page once a frame (client/src/page/once-per-frame.js): a burst of changes (a
// page back from a roam catching up) is drawn once, from the latest state, and later changes
// are drawn again.

import { describe, it, expect } from 'vitest';
import { oncePerFrame } from '../../../client/src/page/once-per-frame.js';

/** A frame source that runs the frames it was asked for when the test says. */
function frames() {
  /** @type {Array<(t: number) => void>} */
  let waiting = [];
  return {
    next: (/** @type {(t: number) => void} */ fn) => waiting.push(fn),
    get asked() {
      return waiting.length;
    },
    run() {
      const now = waiting;
      waiting = [];
      for (const fn of now) fn(0);
    },
  };
}

describe('once per frame', () => {
  it('draws a burst of changes once, on the next frame, from the latest state', () => {
    const f = frames();
    let state = 0;
    /** @type {number[]} */
    const drawn = [];
    const changed = oncePerFrame(f.next, () => drawn.push(state));
    for (let i = 1; i <= 11; i++) {
      state = i;
      changed();
    }
    expect(drawn).toEqual([]);
    expect(f.asked).toBe(1);
    f.run();
    expect(drawn).toEqual([11]);
  });

  it('draws again for a change after the frame, and not without one', () => {
    const f = frames();
    let state = 'a';
    /** @type {string[]} */
    const drawn = [];
    const changed = oncePerFrame(f.next, () => drawn.push(state));
    changed();
    f.run();
    f.run();
    expect(drawn).toEqual(['a']);
    state = 'b';
    changed();
    f.run();
    expect(drawn).toEqual(['a', 'b']);
  });
});

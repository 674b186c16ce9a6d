import { describe, it, expect } from 'vitest';
import {
  createRoseMotion,
  easeOut,
  landed,
  msSinceBeat,
  SPIN_MS,
  spinFrom,
  spinOf,
  stageOf,
  ZOOM_MS,
  zoomOf,
  zoomStartOf,
} from '../../../client/src/audience/rose-motion.js';

/** A clock the test moves by hand. */
function fakeClock(start = 1000) {
  let t = start;
  return { now: () => t, advance: (/** @type {number} */ ms) => (t += ms) };
}

describe("the rose's motion (zoom, the dark disc, swinging rings)", () => {
  it('reads zoom, stage and spin from the cue, nothing else', () => {
    expect(zoomOf({ rings: 8, slices: 8, zoom: 2 }, 8)).toBe(2);
    expect(zoomOf({ zoom: 12 }, 8)).toBe(8);
    expect(zoomOf({ zoom: 0 }, 8)).toBeNull();
    expect(zoomOf({ zoom: '2' }, 8)).toBeNull();
    expect(zoomOf(null, 8)).toBeNull();
    expect(stageOf({ stage: { alpha: 0, glide: 8000 } })).toEqual({ alpha: 0, glide: 8000, from: null, at: null });
    expect(stageOf({ stage: { alpha: 1 } })).toEqual({ alpha: 1, glide: 0, from: null, at: null });
    expect(stageOf({ stage: { alpha: 2 } })).toBeNull();
    expect(stageOf({})).toBeNull();
    expect(spinOf({ spin: { rings: [1, 2, 9, 'x'], at: 5 } }, 8)?.rings).toEqual([1, 2]);
    expect(spinOf({ spin: { rings: [9] } }, 8)).toBeNull();
    expect(spinOf({ spin: { rings: [1], at: 5 } }, 8)?.key).not.toBe(spinOf({ spin: { rings: [1], at: 6 } }, 8)?.key);
  });

  it('swings odd rings from a slice clockwise and even rings anticlockwise', () => {
    expect(spinFrom(1, 8)).toBe(45);
    expect(spinFrom(2, 8)).toBe(-45);
    expect(spinFrom(3, 12)).toBe(30);
  });

  it('shows where every move ends on the first drawing (a phone that joins mid-piece)', () => {
    const clock = fakeClock();
    const motion = createRoseMotion({ now: clock.now });
    const moves = motion.update({ radius: 20, alpha: 0, glide: 8000, spin: { rings: [1, 2], key: 'a' } });
    expect(moves).toEqual({ zoom: null, stage: null, spins: [] });
  });

  it('eases a zoom over 3 s, and a redraw halfway carries on from where it is', () => {
    const clock = fakeClock();
    const motion = createRoseMotion({ now: clock.now });
    motion.update({ radius: 100, alpha: null, glide: 0, spin: null });
    clock.advance(10);
    expect(motion.update({ radius: 20, alpha: null, glide: 0, spin: null }).zoom).toEqual({
      from: 100,
      to: 20,
      elapsed: 0,
      ms: ZOOM_MS,
    });
    clock.advance(1000);
    // the same target again (a vote was counted): the zoom goes on, 1 s in
    expect(motion.update({ radius: 20, alpha: null, glide: 0, spin: null }).zoom).toMatchObject({ elapsed: 1000 });
    // a new target halfway: from where the eased zoom is now
    const now = 100 + (20 - 100) * easeOut(1000 / ZOOM_MS);
    const next = motion.update({ radius: 50, alpha: null, glide: 0, spin: null }).zoom;
    expect(next?.from).toBeCloseTo(now);
    expect(next).toMatchObject({ to: 50, elapsed: 0 });
    clock.advance(ZOOM_MS);
    expect(motion.moves().zoom).toBeNull();
  });

  it('fades the disc over its glide from the opacity it has, and not without a glide', () => {
    const clock = fakeClock();
    const motion = createRoseMotion({ now: clock.now });
    motion.update({ radius: 100, alpha: 1, glide: 0, spin: null });
    expect(motion.update({ radius: 100, alpha: 0, glide: 8000, spin: null }).stage).toEqual({
      from: 1,
      to: 0,
      elapsed: 0,
      ms: 8000,
    });
    clock.advance(2000);
    expect(motion.update({ radius: 100, alpha: 1, glide: 4000, spin: null }).stage?.from).toBeCloseTo(0.75);
    expect(motion.update({ radius: 100, alpha: 0.5, glide: 0, spin: null }).stage).toBeNull();
  });

  it('swings the rings a new spin names, once, for 2 s; a tapped ring swings too', () => {
    const clock = fakeClock();
    const motion = createRoseMotion({ now: clock.now });
    motion.update({ radius: 100, alpha: null, glide: 0, spin: null });
    const spin = { rings: [1, 2], key: 'k1' };
    expect(motion.update({ radius: 100, alpha: null, glide: 0, spin }).spins.map((s) => s.ring)).toEqual([1, 2]);
    clock.advance(500);
    // the same spin in a later state does not start it again
    expect(motion.update({ radius: 100, alpha: null, glide: 0, spin }).spins).toEqual([
      { ring: 1, elapsed: 500, ms: SPIN_MS },
      { ring: 2, elapsed: 500, ms: SPIN_MS },
    ]);
    clock.advance(SPIN_MS);
    expect(motion.moves().spins).toEqual([]);
    expect(motion.poke(5).spins).toEqual([{ ring: 5, elapsed: 0, ms: SPIN_MS }]);
  });

  it('with prefers-reduced-motion, neither zooms nor swings (the fade stays: nothing moves)', () => {
    const clock = fakeClock();
    const motion = createRoseMotion({ now: clock.now, reduced: () => true });
    motion.update({ radius: 100, alpha: 1, glide: 0, spin: null });
    const moves = motion.update({ radius: 20, alpha: 0, glide: 8000, spin: { rings: [1], key: 'x' } });
    expect(moves.zoom).toBeNull();
    expect(moves.spins).toEqual([]);
    expect(moves.stage).toMatchObject({ from: 1, to: 0 });
    expect(motion.poke(1).spins).toEqual([]);
  });

  it('tells a seek, a restart and a late join (landed) from a step or an announced jump', () => {
    const at = (/** @type {number} */ beat, /** @type {number} */ next = beat + 1) => ({ beat, next: { beat: next } });
    expect(landed(null, { epoch: 'e', state: at(10) })).toBe(true);
    expect(landed({ epoch: 'e', state: at(10) }, { epoch: 'e', state: at(11) })).toBe(false);
    expect(landed({ epoch: 'e', state: at(10) }, { epoch: 'e', state: at(10) })).toBe(false);
    // a vote's jump was announced as the next beat: a step
    expect(landed({ epoch: 'e', state: at(10, 40) }, { epoch: 'e', state: at(40) })).toBe(false);
    expect(landed({ epoch: 'e', state: at(10) }, { epoch: 'e', state: at(40) })).toBe(true);
    expect(landed({ epoch: 'e', state: at(10) }, { epoch: 'f', state: at(11) })).toBe(true);
  });

  it('measures the time since a beat at the tempo played, within the beat while playing', () => {
    const state = { beat: 12, tempo: 120, playback: 'playing', beatT: 5000 };
    expect(msSinceBeat(state, 4, 5100)).toBe(8 * 500 + 100);
    expect(msSinceBeat({ ...state, playback: 'paused' }, 4, 9999)).toBe(4000);
    expect(msSinceBeat({ beat: 1 }, 0, 0)).toBeNull();
    expect(zoomStartOf({ zoom: 5, zoomFrom: 1, zoomAt: 20 }, 8)).toEqual({ from: 1, at: 20 });
    expect(zoomStartOf({ zoom: 5 }, 8)).toEqual({ from: null, at: null });
    expect(stageOf({ stage: { alpha: 0, glide: 8000, from: 1, at: 3 } })).toEqual({
      alpha: 0,
      glide: 8000,
      from: 1,
      at: 3,
    });
  });

  it('a page that lands (seek, restart) shows each move as it is at that beat, never animating through from the picture before', () => {
    const clock = fakeClock();
    const motion = createRoseMotion({ now: clock.now });
    // before the seek: the whole rose, the disc dark
    motion.update({ radius: 100, alpha: 1, glide: 0, spin: null });
    clock.advance(10);
    // a seek far past a zoom, a fade and a swing: everything where it ends, nothing moving
    const past = { zoomFrom: 100, zoomSince: 60_000, alphaFrom: 1, stageSince: 60_000, spinSince: 60_000 };
    expect(motion.update({ radius: 20, alpha: 0, glide: 8000, spin: { rings: [1], key: 'a' } }, past)).toEqual({
      zoom: null,
      stage: null,
      spins: [],
    });
    // a seek back before them: no move at all (the step logic would have zoomed and faded back)
    const none = { zoomFrom: null, zoomSince: null, alphaFrom: null, stageSince: null, spinSince: null };
    expect(motion.update({ radius: 100, alpha: 1, glide: 0, spin: null }, none)).toEqual({
      zoom: null,
      stage: null,
      spins: [],
    });
    // a seek 2 s into an 8 s fade, 1 s into a zoom and 0.5 s into a swing: each goes on from there
    const within = { zoomFrom: 100, zoomSince: 1000, alphaFrom: 1, stageSince: 2000, spinSince: 500 };
    const moves = motion.update({ radius: 20, alpha: 0, glide: 8000, spin: { rings: [1, 2], key: 'b' } }, within);
    expect(moves.zoom).toEqual({ from: 100, to: 20, elapsed: 1000, ms: ZOOM_MS });
    expect(moves.stage).toEqual({ from: 1, to: 0, elapsed: 2000, ms: 8000 });
    expect(moves.spins).toEqual([
      { ring: 1, elapsed: 500, ms: SPIN_MS },
      { ring: 2, elapsed: 500, ms: SPIN_MS },
    ]);
    // with reduced motion the landing neither zooms nor swings; the fade still goes on
    const still = createRoseMotion({ now: clock.now, reduced: () => true });
    const quiet = still.update({ radius: 20, alpha: 0, glide: 8000, spin: { rings: [1], key: 'c' } }, within);
    expect(quiet.zoom).toBeNull();
    expect(quiet.spins).toEqual([]);
    expect(quiet.stage).toMatchObject({ elapsed: 2000 });
  });
});

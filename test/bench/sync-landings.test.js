import { describe, it, expect } from 'vitest';
import { busyNear, frameOf, landingFigures, landingOn, viewPage } from '../../bench/sync-landings.js';

/** A shown change: beat (bar 25, its first beat), drawn at `at`, due at server time `due`. */
const shown = (/** @type {number} */ beat, /** @type {number} */ at, /** @type {number | null} */ due, count = 0) => ({
  beat,
  bar: 25,
  beatInBar: 1,
  count,
  at,
  due,
});

describe('bench:sync landings', () => {
  /** A jump to beat 96, due at 10_000, asked for at 9_500; the next asked for at 12_500. */
  const jump = { kind: /** @type {const} */ ('jump'), label: 'C', beat: 96, due: 10_000, from: 9_500, to: 12_500 };

  it("a page's landing: its first drawing of the beat due at the server time, not a count-in click, not before the ask", () => {
    const log = [
      shown(96, 9_000, 9_000), // before the ask: the piece passing by
      shown(12, 9_600, 9_600),
      shown(96, 9_990, 9_990, 1), // a click, not the beat
      shown(96, 10_004, 10_000),
      shown(96, 10_300, 10_000),
    ];
    expect(landingOn(jump, log)).toEqual({
      at: 10_004,
      due: 10_000,
      sameDue: true,
      predicted: false,
      key: '25.1.',
      clock: NaN,
    });
    // The page's estimate of the server's clock then, against its own: its clock error.
    expect(landingOn(jump, [{ ...shown(96, 10_004, 10_000), server: 10_001 }])?.clock).toBe(-3);
    // Drawn for another server time: found, and said so.
    expect(landingOn(jump, [shown(96, 10_630, 10_625)])).toMatchObject({ at: 10_630, sameDue: false });
    expect(landingOn(jump, [shown(96, 12_600, 12_600)])).toBeNull();
  });

  it('spread across pages, each page late against the server time, misses and other server times counted', () => {
    const round = { ...jump, label: 'B', due: 20_000, from: 19_500, to: 22_500 };
    const logs = [
      [shown(96, 9_992, 10_000), shown(96, 19_992, 20_000)],
      [shown(96, 9_992.2, 10_000), shown(96, 20_025, 20_025)],
      [shown(96, 10_008.6, 10_000)], // missed the second
    ];
    const r = landingFigures([jump, round], logs, ['phone', 'violin1', 'phone']);
    expect(r.landings).toBe(2);
    // Spreads 16.6 (under a frame) and 33.
    expect(r.spread).toEqual({ p50: 16.6, p95: 33, p99: 33, max: 33 });
    expect(r.sameFrame).toBe(1);
    expect(r.late).toEqual({ min: -8, p50: -7.8, p95: 25, p99: 25, max: 25 });
    expect(r.lateByView).toEqual({ phone: { p50: -8, max: 8.6 }, violin1: { p50: -7.8, max: 25 } });
    expect(r).toMatchObject({ missed: 1, otherDue: 1, predicted: 0 });
    expect(r.each[1]).toEqual({
      label: 'B',
      due: 20_000,
      spread: 33,
      late: [-8, 25, null],
      predicted: [false, false, null],
      clock: [null, null, null],
    });
    expect(r.drawn).toBeUndefined();
  });

  it('a landing whose server time the server did not say takes the one most pages drew', () => {
    const unknown = { ...jump, due: null };
    const logs = [[shown(96, 10_001, 10_000)], [shown(96, 10_002, 10_000)], [shown(96, 10_630, 10_625)]];
    const r = landingFigures([unknown], logs, ['phone', 'phone', 'cello']);
    expect(r.each[0]).toMatchObject({ due: 10_000, late: [1, 2, 630] });
    expect(r.otherDue).toBe(1);
  });

  it("with the bench's records, the display frame each landing was drawn in: a change written from a timer is drawn in the next frame", () => {
    const logs = [[shown(96, 9_992, 10_000)], [shown(96, 10_003, 10_000)]];
    const changes = [
      // Written in the frame that began at 9_992 (the page's wall clock is whole ms: 9_991.6).
      [
        { key: '25.1.', write: 9_000, frame: 9_000 },
        { key: '25.1.', write: 9_993.1, frame: 9_991.6 },
      ],
      // Written from a timer at 10_003, drawn in the next frame.
      [{ key: '25.1.', write: 10_003.2, frame: 10_008.3 }],
    ];
    expect(frameOf({ at: 9_992, key: '25.1.' }, changes[0])).toBe(9_991.6);
    expect(frameOf({ at: 9_992, key: '5.1.' }, changes[0])).toBeNaN();
    const r = landingFigures([jump], logs, ['phone', 'cello'], changes);
    expect(r.spread.max).toBe(11);
    expect(r.drawn).toEqual({
      spread: { p50: 16.7, p95: 16.7, p99: 16.7, max: 16.7 },
      sameFrame: 0,
      fromTimer: 1,
      unmatched: 0,
    });
    expect(r.each[0].frameLate).toEqual([-8.4, 8.3]);
  });

  it("how late a page's main thread ran the frames about a landing: the most within 50 ms", () => {
    const frames = [
      { frame: 9_900, lag: 40 },
      { frame: 9_992, lag: 9 },
      { frame: 10_008.3, lag: 21.25 },
    ];
    expect(busyNear(10_000, frames)).toBe(21.3);
    expect(busyNear(20_000, frames)).toBe(0);
    const logs = [[shown(96, 9_992, 10_000)]];
    expect(landingFigures([jump], logs, ['cello'], undefined, [frames]).each[0].busy).toEqual([21.3]);
  });

  it('phones at the audience page, parts at their views, at the tests’ sizes', () => {
    expect(viewPage('phone')).toEqual({ path: '/', viewport: { width: 390, height: 844 } });
    expect(viewPage('cello')).toEqual({ path: '/view/cello', viewport: { width: 820, height: 1180 } });
  });
});

import { describe, it, expect } from 'vitest';
import {
  barPositionsFromClicks,
  beatMapCsv,
  beatsFromBarPositions,
  checkBarPositions,
  systemsOfClicks,
  writtenBars,
} from '../../core/bar-lines.js';
import { parseBeatMapCsv } from '../../core/beatmap.js';

// Bars 1-2 repeated, then 3 (3/4): performance order as the tempo map gives it.
const PLAYED = [
  { bar: 1, startBeat: 0, beats: 4 },
  { bar: 2, startBeat: 4, beats: 4 },
  { bar: 1, startBeat: 8, beats: 4 },
  { bar: 2, startBeat: 12, beats: 4 },
  { bar: 3, startBeat: 16, beats: 3 },
];
const BARS = writtenBars(PLAYED);
const PAGES = [
  { width: 600, height: 800 },
  { width: 600, height: 800 },
];

describe('bar lines into a beat map', () => {
  it('places each written bar once, in the order first played', () => {
    expect(BARS).toEqual([
      { bar: 1, beats: 4 },
      { bar: 2, beats: 4 },
      { bar: 3, beats: 3 },
    ]);
  });

  it('groups clicks into systems: a new one on the left of the last click or on another page', () => {
    const clicks = [
      { page: 0, x: 100, y: 100 },
      { page: 0, x: 300, y: 102 },
      { page: 0, x: 50, y: 300 },
      { page: 1, x: 400, y: 100 },
    ];
    expect(systemsOfClicks(clicks).map((s) => [s.page, s.clicks.length])).toEqual([
      [0, 2],
      [0, 1],
      [1, 1],
    ]);
  });

  it('makes bar positions from clicks: bar lines left to right, each system as high as halfway to its neighbours', () => {
    const clicks = [
      { page: 0, x: 100, y: 100 },
      { page: 0, x: 300, y: 100 },
      { page: 0, x: 500, y: 100 },
      { page: 0, x: 50, y: 300 },
      { page: 0, x: 250, y: 300 },
    ];
    expect(barPositionsFromClicks(clicks, BARS, PAGES)).toEqual([
      { bar: 1, page: 0, system: 0, x0: 100, x1: 300, y0: 0, y1: 200 },
      { bar: 2, page: 0, system: 0, x0: 300, x1: 500, y0: 0, y1: 200 },
      { bar: 3, page: 0, system: 1, x0: 50, x1: 250, y0: 200, y1: 400 },
    ]);
    // Undo is the clicks without the last: bar 3 is no longer placed.
    expect(barPositionsFromClicks(clicks.slice(0, -1), BARS, PAGES)).toHaveLength(2);
    // A page's only system: 8% of the page's height either side.
    expect(barPositionsFromClicks([clicks[0], clicks[1]], BARS, PAGES)[0]).toMatchObject({ y0: 36, y1: 164 });
  });

  it('spreads each playing of a bar evenly over its position, repeats at the same place, into a CSV the loader reads', () => {
    const positions = [
      { bar: 1, page: 0, system: 0, x0: 100, x1: 300, y0: 0, y1: 200 },
      { bar: 2, page: 0, system: 0, x0: 300, x1: 500, y0: 0, y1: 200 },
      { bar: 3, page: 1, system: 0, x0: 50, x1: 200, y0: 0, y1: 200 },
    ];
    const beats = beatsFromBarPositions(positions, PLAYED);
    expect(beats).toHaveLength(19);
    expect(beats[1]).toEqual({ beat: 1, page: 0, system: 0, bar: 1, x0: 150, x1: 200, y0: 0, y1: 200 });
    expect(beats[9]).toEqual({ ...beats[1], beat: 9 });
    expect(beats[18]).toEqual({ beat: 18, page: 1, system: 0, bar: 3, x0: 150, x1: 200, y0: 0, y1: 200 });
    const parsed = parseBeatMapCsv(beatMapCsv(beats), {
      file: 'b.csv',
      totalBeats: 19,
      pageCount: 2,
      pageSizes: PAGES,
    });
    expect(parsed).toEqual({ ok: true, value: { beats } });
  });

  it('checks positions sent to be written: every bar once, on a page, inside it; never throws', () => {
    const good = [
      { bar: 1, page: 0, system: 0, x0: 100, x1: 300, y0: 0, y1: 200 },
      { bar: 2, page: 0, system: 0, x0: 300, x1: 500, y0: 0, y1: 200 },
      { bar: 3, page: 1, system: 0, x0: 50, x1: 200, y0: 0, y1: 200 },
    ];
    const score = { bars: BARS, pageSizes: PAGES };
    expect(checkBarPositions({ bars: [...good].reverse() }, score)).toEqual({ ok: true, value: good });
    /** @param {unknown} body */
    const problems = (body) => {
      const r = checkBarPositions(body, score);
      return r.ok ? [] : r.problems.join('\n');
    };
    expect(problems(null)).toMatch(/must be \{"bars"/);
    expect(problems({ bars: 'x' })).toMatch(/must be \{"bars"/);
    expect(problems({ bars: [...good, good[0]] })).toMatch(/lists 4 bars; the score has 3 written bars/);
    expect(problems({ bars: good.slice(0, 1) })).toMatch(/bars 2-3 have no position/);
    expect(problems({ bars: [good[0], good[0], good[2]] })).toMatch(/bar 1 is placed twice/);
    expect(problems({ bars: [{ ...good[0], bar: 9 }, ...good.slice(1)] })).toMatch(/bar 9 is not a bar of the score/);
    expect(problems({ bars: [{ ...good[0], page: 2 }, ...good.slice(1)] })).toMatch(/page 2 does not exist/);
    expect(problems({ bars: [{ ...good[0], x1: 601 }, ...good.slice(1)] })).toMatch(
      /is not inside page 0 \(600 x 800\)/,
    );
    expect(problems({ bars: [{ ...good[0], x1: 50 }, ...good.slice(1)] })).toMatch(/is not inside page 0/);
    expect(problems({ bars: [{ ...good[0], y0: -1 }, ...good.slice(1)] })).toMatch(/is not inside page 0/);
    expect(problems({ bars: [{ ...good[0], x0: '1' }, ...good.slice(1)] })).toMatch(
      /bars\[0\]\.x0: must be a finite number/,
    );
    expect(problems({ bars: [{ ...good[0], system: 0.5 }, ...good.slice(1)] })).toMatch(
      /system: must be a whole number/,
    );
    expect(problems({ bars: [{ ...good[0], system: 64 }, ...good.slice(1)] })).toMatch(/system: must be from 0 to 63/);
    expect(problems({ bars: [{ ...good[0], x0: Number.NaN }, ...good.slice(1)] })).toMatch(/finite/);
    expect(problems({ bars: [null, ...good.slice(1)] })).toMatch(/bars\[0\]: must be/);
  });
});

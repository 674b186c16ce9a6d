// client/src/notation/systems.js: systems, lines in performance order, crops, the cursor and the
// part view's pane plan. The real beat maps come from engraving the benchmark's generated score
// (40 bars, bars 17-32 repeated, several pages of full score), as the server does.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { buildSystems, panePlan } from '../../../client/src/notation/systems.js';
import { closeEngraver, engraveScore } from '../../../server/package/engrave/index.js';
import { makeLargeScore } from '../../../bench/make-large-score.js';

/**
 * A beat map entry.
 * @param {number} beat @param {number} page @param {number} system @param {number} bar
 * @param {number} x0 @param {number} x1 @param {number} y0 @param {number} y1
 */
const b = (beat, page, system, bar, x0, x1, y0, y1) => ({ beat, page, system, bar, x0, x1, y0, y1 });

/**
 * @param {import('../../../client/src/notation/systems.js').LayoutResult} r
 * @returns {import('../../../client/src/notation/systems.js').NotationLayout}
 */
function layoutOf(r) {
  if (!r.ok) throw new Error(r.message);
  return r.value;
}

/**
 * Two systems on one page (y 100-200 and 400-500), bars 1-2 then 3-4, with bars 1-4 repeated
 * (performance: 1 2 3 4 1 2 3 4), then bar 5 on page 2.
 */
function repeatedMap() {
  const pages = [
    { url: '/p1.svg', width: 1000, height: 1400 },
    { url: '/p2.svg', width: 1000, height: 1400 },
  ];
  /** @type {ReturnType<typeof b>[]} */
  const beats = [];
  const play = [1, 2, 3, 4, 1, 2, 3, 4, 5];
  for (const bar of play) {
    const [page, system, y0, y1] = bar === 5 ? [1, 0, 300, 380] : bar <= 2 ? [0, 0, 100, 200] : [0, 1, 400, 500];
    const left = bar === 5 ? 100 : ((bar - 1) % 2) * 400 + 100;
    for (let k = 0; k < 2; k++)
      beats.push(b(beats.length, page, system, bar, left + k * 200, left + (k + 1) * 200, y0, y1));
  }
  return { pages, beats };
}

describe('lines and crops from a hand-made map', () => {
  const layout = layoutOf(buildSystems(repeatedMap()));

  it('lists the drawn systems once each, page by page', () => {
    expect(layout.systems.map((s) => [s.page, s.system])).toEqual([
      [0, 0],
      [0, 1],
      [1, 0],
    ]);
  });

  it('plays lines in performance order: a repeat brings an earlier system back as a new line', () => {
    expect(layout.lines.map((l) => [l.page, l.system, l.firstBeat, l.lastBeat, l.firstBar, l.lastBar])).toEqual([
      [0, 0, 0, 3, 1, 2],
      [0, 1, 4, 7, 3, 4],
      [0, 0, 8, 11, 1, 2],
      [0, 1, 12, 15, 3, 4],
      [1, 0, 16, 17, 5, 5],
    ]);
    expect(layout.lines.map((l) => l.index)).toEqual([0, 1, 2, 3, 4]);
    expect([0, 3, 4, 11, 12, 17].map(layout.lineOf)).toEqual([0, 0, 1, 2, 3, 4]);
  });

  it('crops each system across the page, half-way to its neighbours, mirrored at the page edge', () => {
    // Gap 200..400: the boundary is 300; the outer edges mirror that half-gap of 100.
    expect(layout.systems[0].crop).toEqual({ x: 0, y: 0, width: 1000, height: 300 });
    expect(layout.systems[1].crop).toEqual({ x: 0, y: 300, width: 1000, height: 300 });
    // Alone on its page: a margin of 5% of the page width above and below.
    expect(layout.systems[2].crop).toEqual({ x: 0, y: 250, width: 1000, height: 180 });
    expect(layout.lines[2].crop).toBe(layout.systems[0].crop);
  });

  it('clamps crops to the page', () => {
    const r = layoutOf(
      buildSystems({ pages: [{ url: 'a.png', width: 800, height: 400 }], beats: [b(0, 0, 0, 1, 10, 20, 5, 395)] }),
    );
    expect(r.systems[0].crop).toEqual({ x: 0, y: 0, width: 800, height: 400 });
  });

  it("widens a crop to what the system draws beyond half-way (a tempo mark, a high slur), up to its neighbours' staves", () => {
    const map = repeatedMap();
    const ink = [
      { page: 0, system: 0, top: 20, bottom: 260 }, // a tempo mark above, nothing low
      { page: 0, system: 1, top: 150, bottom: 660 }, // a slur reaching into system 0's staff, a low dynamic
      { page: 1, system: 0, top: 240, bottom: 390 }, // inside the lone margin already
    ];
    const r = layoutOf(buildSystems({ ...map, ink }));
    expect(r.systems[0].crop).toEqual({ x: 0, y: 0, width: 1000, height: 300 });
    // Up to system 0's bottom line (200), not to 150; down to its ink at 660.
    expect(r.systems[1].crop).toEqual({ x: 0, y: 200, width: 1000, height: 460 });
    expect(r.systems[2].crop).toEqual({ x: 0, y: 240, width: 1000, height: 190 });
    expect(layoutOf(buildSystems({ ...map, ink: [{ page: 0, system: 0, top: 'x' }, null] })).systems).toEqual(
      layout.systems,
    );
  });

  it("measures a lone system's margin in staff heights when the staff is known (a narrow page)", () => {
    const r = layoutOf(
      buildSystems({
        pages: [{ url: 'a.svg', width: 600, height: 2970 }],
        beats: [b(0, 0, 0, 1, 50, 500, 1000, 1072)],
        staff: 72,
      }),
    );
    expect(r.systems[0].crop).toEqual({ x: 0, y: 1000 - 108, width: 600, height: 72 + 2 * 108 });
  });

  it('keeps a repeat inside one system on one line: the eyes go back along the same staff', () => {
    const beats = [
      b(0, 0, 0, 1, 100, 200, 10, 50),
      b(1, 0, 0, 2, 200, 300, 10, 50),
      b(2, 0, 0, 1, 100, 200, 10, 50),
      b(3, 0, 0, 2, 200, 300, 10, 50),
      b(4, 0, 1, 3, 100, 200, 90, 130),
    ];
    const r = layoutOf(buildSystems({ pages: [{ url: 'a.svg', width: 400, height: 200 }], beats }));
    expect(r.lines.map((l) => [l.system, l.firstBeat, l.lastBeat])).toEqual([
      [0, 0, 3],
      [1, 4, 4],
    ]);
  });
});

describe('cursorAt', () => {
  const layout = layoutOf(buildSystems(repeatedMap()));

  it("goes from x0 to x1 with the fraction, on the beat's page and system height", () => {
    expect(layout.cursorAt(5, 0)).toEqual({ beat: 5, line: 1, page: 0, x: 300, y0: 400, y1: 500, x0: 300, x1: 500 });
    expect(layout.cursorAt(5, 0.25)?.x).toBe(350);
    expect(layout.cursorAt(5, 0.999)?.x).toBeCloseTo(499.8);
    expect(layout.cursorAt(16, 0.5)).toEqual({
      beat: 16,
      line: 4,
      page: 1,
      x: 200,
      y0: 300,
      y1: 380,
      x0: 100,
      x1: 300,
    });
  });

  it('goes back in x where the repeat does', () => {
    expect(layout.cursorAt(7, 0.9)?.x).toBeGreaterThan(/** @type {number} */ (layout.cursorAt(8, 0)?.x));
    expect(layout.cursorAt(8, 0)).toMatchObject({ line: 2, x: 100, y0: 100 });
  });

  it('clamps the fraction and reads a fractional beat as its beat', () => {
    expect(layout.cursorAt(2, -1)?.x).toBe(500);
    expect(layout.cursorAt(2, 7)?.x).toBe(700);
    expect(layout.cursorAt(2, NaN)?.x).toBe(500);
    expect(layout.cursorAt(2.7)).toMatchObject({ beat: 2, x: 500 });
  });

  it('is null outside the map', () => {
    for (const beat of [-1, -0.5, 18, 1e9, NaN, Infinity]) expect(layout.cursorAt(beat, 0)).toBeNull();
    expect(layout.lineOf(-1)).toBe(-1);
    expect(layout.lineOf(18)).toBe(-1);
  });
});

describe('panePlan', () => {
  it('puts line k in pane k % 2 and the next line in the other pane', () => {
    expect(panePlan(0, 5)).toEqual({ current: 0, active: 0, lines: [0, 1], changed: [true, true] });
    expect(panePlan(3, 5)).toEqual({ current: 3, active: 1, lines: [4, 3], changed: [true, true] });
  });

  it('never changes the pane the player moves to when play goes on by one line', () => {
    const count = 9;
    let plan = panePlan(0, count);
    for (let k = 1; k < count; k++) {
      const next = panePlan(k, count, plan);
      // The pane that becomes active already showed line k, and does not change.
      expect(plan.lines[next.active]).toBe(k);
      expect(next.changed[next.active]).toBe(false);
      // Only the pane just left is refilled, with the line after next (or nothing at the end).
      expect(next.active).not.toBe(plan.active);
      expect(next.changed[plan.active]).toBe(true);
      expect(next.lines[plan.active]).toBe(k + 1 < count ? k + 1 : -1);
      plan = next;
    }
  });

  it('redraws both panes on a jump and keeps what still fits on a step back', () => {
    const at2 = panePlan(2, 9);
    expect(panePlan(6, 9, at2).changed).toEqual([true, true]);
    expect(panePlan(5, 9, at2)).toMatchObject({ lines: [6, 5], changed: [true, true] });
    // From line 2 back to 1: line 2 becomes "next" in the pane it was in.
    expect(panePlan(1, 9, at2)).toEqual({ current: 1, active: 1, lines: [2, 1], changed: [false, true] });
    expect(panePlan(2, 9, at2).changed).toEqual([false, false]);
  });

  it("prepares a jump's line in the other pane, and turns to it at the downbeat without drawing it again", () => {
    const at2 = panePlan(2, 9);
    // A jump to line 6 announced while line 2 plays: only the other pane changes, to line 6.
    const announced = panePlan(2, 9, at2, 6);
    expect(announced).toEqual({ current: 2, active: 0, lines: [2, 6], changed: [false, true] });
    // The downbeat: line 6 plays in the pane that prepared it; the pane left gets line 7.
    const landed = panePlan(6, 9, announced);
    expect(landed).toEqual({ current: 6, active: 1, lines: [7, 6], changed: [true, false] });
    // And on by one line from there, as ever.
    expect(panePlan(7, 9, landed)).toEqual({ current: 7, active: 0, lines: [7, 8], changed: [false, true] });
    // A loop back to line 1 announced on line 4 (the round's first line), then taken.
    const back = panePlan(4, 9, panePlan(4, 9), 1);
    expect(back.lines).toEqual([4, 1]);
    expect(panePlan(1, 9, back)).toMatchObject({ active: 1, changed: [true, false] });
  });

  it('ignores a following line that is the current one or not in the piece', () => {
    expect(panePlan(2, 9, null, 2).lines).toEqual([2, 3]);
    expect(panePlan(2, 9, null, 99).lines).toEqual([2, 3]);
    expect(panePlan(2, 9, null, -1).lines).toEqual([2, 3]);
    expect(panePlan(8, 9, null, 0).lines).toEqual([8, 0]);
  });

  it('leaves the other pane empty on the last line and clamps out-of-range lines', () => {
    expect(panePlan(4, 5).lines).toEqual([4, -1]);
    expect(panePlan(99, 5)).toMatchObject({ current: 4, lines: [4, -1] });
    expect(panePlan(-3, 5)).toMatchObject({ current: 0, lines: [0, 1] });
    expect(panePlan(0, 1).lines).toEqual([0, -1]);
    expect(panePlan(0, 0)).toEqual({ current: -1, active: 0, lines: [-1, -1], changed: [true, true] });
    expect(panePlan(NaN, 3).current).toBe(0);
  });
});

describe('bad input', () => {
  const page = { url: '/p.svg', width: 100, height: 100 };
  const good = b(0, 0, 0, 1, 1, 2, 3, 4);

  it.each([
    ['nothing', undefined, /expected \{ pages, beats \}/],
    ['an array', [], /expected \{ pages, beats \}/],
    ['no pages', { pages: [], beats: [] }, /"pages" must list/],
    ['a page without size', { pages: [{ url: '/p.svg', width: 0, height: 1 }], beats: [] }, /pages\[0\] must be/],
    ['a page without url', { pages: [{ width: 1, height: 1 }], beats: [] }, /pages\[0\] must be/],
    ['beats not a list', { pages: [page], beats: {} }, /"beats" must be a list/],
    ['a beat that is not an object', { pages: [page], beats: [7] }, /beats\[0\] must be/],
    [
      'a missing field',
      { pages: [page], beats: [{ ...good, x1: undefined }] },
      /beats\[0\]\.x1 must be a finite number/,
    ],
    ['a string number', { pages: [page], beats: [{ ...good, y0: '3' }] }, /beats\[0\]\.y0 must be a finite number/],
    ['NaN', { pages: [page], beats: [{ ...good, x0: NaN }] }, /beats\[0\]\.x0 must be a finite number/],
    ['beats out of order', { pages: [page], beats: [good, { ...good, beat: 2 }] }, /beats\[1\] is beat 2/],
    [
      'a page that does not exist',
      { pages: [page], beats: [{ ...good, page: 1 }] },
      /beats\[0\]\.page 1 is not one of the 1 pages/,
    ],
    ['a fractional system', { pages: [page], beats: [{ ...good, system: 0.5 }] }, /beats\[0\]\.system/],
    ['x0 right of x1', { pages: [page], beats: [{ ...good, x0: 5 }] }, /x0 > x1/],
  ])('answers %s with a message, not a throw', (_, notation, message) => {
    const r = buildSystems(notation);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.message).toMatch(message);
  });

  it('gives an empty layout for a map without beats', () => {
    const r = layoutOf(buildSystems({ pages: [page], beats: [] }));
    expect(r.lines).toEqual([]);
    expect(r.systems).toEqual([]);
    expect(r.cursorAt(0, 0)).toBeNull();
    expect(r.lineOf(0)).toBe(-1);
  });

  it('never throws on garbage', () => {
    const junk = [
      null,
      0,
      'x',
      [],
      {},
      { pages: null },
      { pages: [null] },
      { pages: [page], beats: [null, {}] },
      { pages: [page], beats: 'beats' },
    ];
    for (const j of junk) expect(() => buildSystems(j)).not.toThrow();
  });
});

describe('a real engraved beat map', () => {
  /** @type {string} */
  let tmp;
  /** @type {import('../../../server/package/engrave/index.js').EngravedScore} */
  let engraved;

  beforeAll(async () => {
    tmp = await mkdtemp(path.join(os.tmpdir(), 'scorecast-notation-'));
    const file = path.join(tmp, 'score.musicxml');
    await writeFile(file, makeLargeScore({ bars: 40 }));
    engraved = await engraveScore({ file, parts: [{ id: 'flute', source: 'P1' }], cacheDir: path.join(tmp, 'cache') });
  }, 60_000);

  afterAll(async () => {
    await closeEngraver();
    await rm(tmp, { recursive: true, force: true });
  });

  /** @param {string} view */
  const layoutOfView = (view) => {
    const { pages, beats } = engraved.views[view];
    return {
      beats,
      layout: layoutOf(
        buildSystems({ pages: pages.map((p) => ({ url: `/${p.file}`, width: p.width, height: p.height })), beats }),
      ),
    };
  };

  it.each(['score', 'flute'])('%s: lines cover every beat once, changing exactly where the system does', (view) => {
    const { beats, layout } = layoutOfView(view);
    expect(layout.lines[0].firstBeat).toBe(0);
    expect(layout.lines.at(-1)?.lastBeat).toBe(beats.length - 1);
    layout.lines.forEach((line, i) => {
      if (i > 0) expect(line.firstBeat).toBe(layout.lines[i - 1].lastBeat + 1);
      for (let beat = line.firstBeat; beat <= line.lastBeat; beat++) {
        expect([beats[beat].page, beats[beat].system]).toEqual([line.page, line.system]);
      }
      const prev = beats[line.firstBeat - 1];
      if (prev) expect([prev.page, prev.system]).not.toEqual([line.page, line.system]);
    });
  });

  it.each(['score', 'flute'])('%s: the repeat of bars 17-32 plays earlier systems again', (view) => {
    const { layout } = layoutOfView(view);
    const backs = layout.lines.filter((l, i) => {
      const prev = layout.lines[i - 1];
      return prev && (l.page < prev.page || (l.page === prev.page && l.system < prev.system));
    });
    expect(backs.length).toBe(1);
    expect(backs[0].firstBar).toBe(17);
    expect(layout.lines.length).toBeGreaterThan(layout.systems.length);
  });

  it.each(['score', 'flute'])(
    '%s: crops span the page width, hold their staves and tile each page without overlap',
    (view) => {
      const { layout } = layoutOfView(view);
      expect(layout.pages.length).toBeGreaterThan(view === 'score' ? 1 : 0);
      layout.systems.forEach((s, i) => {
        const page = layout.pages[s.page];
        expect(s.crop.x).toBe(0);
        expect(s.crop.width).toBe(page.width);
        expect(s.crop.y).toBeGreaterThanOrEqual(0);
        expect(s.crop.y + s.crop.height).toBeLessThanOrEqual(page.height);
        // Room for stems, slurs and dynamics: on A4 at 2100 units, 42 (more than half a staff).
        const room = 0.02 * page.width;
        expect(s.crop.y).toBeLessThanOrEqual(s.y0 - room);
        expect(s.crop.y + s.crop.height).toBeGreaterThanOrEqual(s.y1 + room);
        const next = layout.systems[i + 1];
        if (next?.page === s.page) expect(next.crop.y).toBeCloseTo(s.crop.y + s.crop.height, 6);
      });
    },
  );

  it("puts the cursor inside its beat's range, on its system", () => {
    const { beats, layout } = layoutOfView('flute');
    for (const beat of beats) {
      const c = layout.cursorAt(beat.beat, 0.5);
      expect(c?.x).toBeCloseTo((beat.x0 + beat.x1) / 2, 6);
      expect(c?.page).toBe(beat.page);
      const line = layout.lines[/** @type {number} */ (c?.line ?? -1)];
      expect(line.crop.y).toBeLessThanOrEqual(beat.y0);
      expect(line.crop.y + line.crop.height).toBeGreaterThanOrEqual(beat.y1);
    }
  });
});

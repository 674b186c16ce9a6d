// Engraving notation (server/package/engrave): pages, bars in performance order, tempo, beat maps, part
// views, ids and the cache. Each fixture is engraved once (beforeAll) and shared by the tests.
//
// duo.musicxml, by hand: a pickup (bar 0, one beat) at 120, bars 1-2 repeated, bar 3 at 60
// (a <sound tempo> standing alone in the measure, which Verovio by itself ignores), bar 4 in 3/4, bars 5-6 in 6/8 (quarter = 60 counts 120 eighths a minute), and in bar 6 a
// tempo change to quarter = 90 (180 eighths) on its fourth eighth.
// canon.mei: 3/4 at 90 (scoreDef@midi.bpm), bars 2-3 repeated (rptstart/rptend, no
// <expansion>), bar 4 at 60, the bassoon resting in bar 5 (mRest).

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { closeEngraver, engraveScore, engraverThreads } from '../../../../server/package/engrave/index.js';
import { scoreLayout } from '../../../../server/package/engrave/options.js';
import { createTempoMapFromBars } from '../../../../core/tempo-map.js';
import { makeMxl } from '../../../fixtures/notation/make-mxl.js';
import { makeLargeScore } from '../../../../bench/make-large-score.js';

const FIXTURES = fileURLToPath(new URL('../../../fixtures/notation/', import.meta.url));
const DUO = path.join(FIXTURES, 'duo.musicxml');
const CANON = path.join(FIXTURES, 'canon.mei');
const DUO_PARTS = [
  { id: 'violin', source: 'P1' },
  { id: 'cello', source: 'P2' },
];

/** @type {string} */
let tmp;
/** @type {import('../../../../server/package/engrave/index.js').EngravedScore} */
let duo;
/** @type {import('../../../../server/package/engrave/index.js').EngravedScore} */
let canon;
/** @type {import('../../../../server/package/engrave/index.js').EngravedScore} */
let medium;

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'scorecast-engrave-'));
  // 64 bars of the benchmark's generator: several pages per view.
  const mediumFile = path.join(tmp, 'medium.musicxml');
  await writeFile(mediumFile, makeLargeScore({ bars: 64 }));
  const cacheDir = path.join(tmp, 'cache');
  [duo, canon, medium] = await Promise.all([
    engraveScore({ file: DUO, parts: DUO_PARTS, cacheDir }),
    engraveScore({ file: CANON, parts: [{ id: 'flute' }, { id: 'bassoon' }], cacheDir }),
    engraveScore({
      file: mediumFile,
      parts: [
        { id: 'flute', source: 'P1' },
        { id: 'cello', source: 'P5' },
      ],
      cacheDir,
    }),
  ]);
}, 60_000);

afterAll(async () => {
  await closeEngraver();
  await rm(tmp, { recursive: true, force: true });
});

/**
 * @param {import('../../../../server/package/engrave/index.js').EngravedScore} engraved
 * @param {string} view
 * @param {number} [page]
 */
const svgOf = (engraved, view, page = 0) =>
  readFile(path.join(engraved.dir, engraved.views[view].pages[page].file), 'utf8');
/** @param {string} svg @param {string} cls */
const count = (svg, cls) => (svg.match(new RegExp(`class="${cls}"`, 'g')) ?? []).length;
const totalBeats = (/** @type {import('../../../../core/tempo-map.js').BarSpec[]} */ bars) =>
  bars.reduce((s, b) => s + (b.beats ?? b.time[0]), 0);

/**
 * A beat map's shape (doc/score-format.md, "Beat maps"): every beat once, in order; x0 <= x1;
 * within a system x0 never goes back, except where the performance jumps back (a repeat).
 * @param {import('../../../../server/package/engrave/index.js').EngravedScore} engraved
 */
function expectWellFormedBeatMaps(engraved) {
  const total = totalBeats(engraved.bars);
  const all = Object.entries(engraved.views).flatMap(([name, v]) => [
    [name, v],
    ...(v.layouts ?? []).map((l) => [`${name}.${l.name}`, l]),
  ]);
  for (const [
    name,
    view,
  ] of /** @type {[string, import('../../../../server/package/engrave/place-beats.js').View][]} */ (all)) {
    expect(
      view.beats.map((b) => b.beat),
      name,
    ).toEqual([...Array(total).keys()]);
    view.beats.forEach((b, i) => {
      expect(b.x1, `${name} beat ${i}`).toBeGreaterThanOrEqual(b.x0);
      expect(b.y1).toBeGreaterThan(b.y0);
      expect(b.page).toBeLessThan(view.pages.length);
      expect(b.bar).toBe(engraved.bars.findLast((_, k) => totalBeats(engraved.bars.slice(0, k)) <= i)?.bar);
      const prev = view.beats[i - 1];
      if (!prev || b.bar < prev.bar) return; // first beat, or a jump back to a repeat
      expect(b.page * 1000 + b.system, `${name} beat ${i} goes back a system`).toBeGreaterThanOrEqual(
        prev.page * 1000 + prev.system,
      );
      if (b.page === prev.page && b.system === prev.system)
        expect(b.x0, `${name} beat ${i}`).toBeGreaterThanOrEqual(prev.x0);
    });
  }
  const map = createTempoMapFromBars(engraved.bars);
  for (let b = 1; b <= total; b++) expect(map.timeAt(b)).toBeGreaterThan(map.timeAt(b - 1));
}

describe('MusicXML (duo.musicxml)', () => {
  it('gives the bars in performance order: pickup, the repeat twice, the meter changes', () => {
    expect(duo.bars.map((b) => b.bar)).toEqual([0, 1, 2, 1, 2, 3, 4, 5, 6]);
    expect(duo.bars.map((b) => b.time.join('/'))).toEqual([
      '4/4',
      '4/4',
      '4/4',
      '4/4',
      '4/4',
      '4/4',
      '3/4',
      '6/8',
      '6/8',
    ]);
    expect(duo.bars[0]).toMatchObject({ beats: 1, tempo: [{ beat: 4, bpm: 120 }] });
    expect(duo.bars[8].tempo).toEqual([{ beat: 4, bpm: 180 }]);
    expect(duo.warnings).toEqual([]);
  });

  it('times beats around the repeat and the tempo changes as computed by hand', () => {
    const map = createTempoMapFromBars(duo.bars);
    expect(map.totalBeats).toBe(36);
    /** beat -> ms: 500 ms a beat up to bar 3, then 1000; eighths at 500, then at 333.3. */
    const expected = [
      [0, 0],
      [1, 500],
      [4, 2000],
      [8, 4000],
      [9, 4500],
      [12, 6000],
      [16, 8000],
      [17, 8500],
      [18, 9500],
      [20, 11500],
      [21, 12500],
      [24, 15500],
      [25, 16000],
      [30, 18500],
      [33, 20000],
      [34, 20333.333],
      [35, 20666.667],
      [36, 21000],
    ];
    for (const [beat, ms] of expected) expect(map.timeAt(beat), `beat ${beat}`).toBeCloseTo(ms, 2);
  });

  it('engraves one A4 page per view, with precompressed copies', async () => {
    expect(Object.keys(duo.views)).toEqual(['score', 'violin', 'cello']);
    for (const [name, view] of Object.entries(duo.views)) {
      expect(view.pages.map((p) => p.file)).toEqual([`${name}-1.svg`]);
      for (const { file, width, height } of view.pages) {
        expect([width, height]).toEqual([2100, 2970]);
        const svg = await readFile(path.join(duo.dir, file));
        expect(brotliDecompressSync(await readFile(path.join(duo.dir, `${file}.br`)))).toEqual(svg);
        expect(gunzipSync(await readFile(path.join(duo.dir, `${file}.gz`)))).toEqual(svg);
      }
    }
    const files = await readdir(duo.dir);
    expect(files).toContain('engraved.json');
    const pageFiles = Object.values(duo.views)
      .flatMap((v) => [v, ...(v.layouts ?? [])])
      .flatMap((v) => v.pages.map((p) => p.file));
    expect(files.filter((f) => !f.startsWith('.')).sort()).toEqual(
      ['engraved.json', ...pageFiles.flatMap((f) => [f, `${f}.br`, `${f}.gz`])].sort(),
    );
  });

  it('has well-formed beat maps in every view', () => expectWellFormedBeatMaps(duo));

  it('draws a repeated bar where it is written, and held notes between their onsets', () => {
    for (const view of Object.values(duo.views)) {
      expect(view.beats.slice(9, 17).map((b) => b.x0)).toEqual(view.beats.slice(1, 9).map((b) => b.x0));
    }
    // The cello holds a whole note through bar 1: its four beats are spread evenly.
    const cello = duo.views.cello.beats.slice(1, 5);
    const steps = cello.map((b) => b.x1 - b.x0);
    for (const s of steps) expect(s).toBeCloseTo(steps[0], 0);
    expect(cello[3].x0).toBeGreaterThan(cello[0].x0);
  });

  it('puts each part alone on its pages', async () => {
    const [score, violin, cello] = await Promise.all([svgOf(duo, 'score'), svgOf(duo, 'violin'), svgOf(duo, 'cello')]);
    // Verovio draws a <g class="staff"> per staff in every measure.
    expect(count(score, 'staff')).toBe(2 * count(score, 'measure'));
    expect(count(violin, 'staff')).toBe(count(violin, 'measure'));
    expect(count(cello, 'staff')).toBe(count(cello, 'measure'));
    expect(violin).toContain('Violin');
    expect(violin).not.toContain('Cello');
    expect(cello).toContain('Cello');
    expect(cello).not.toContain('Violin');
  });

  it("keeps the score's element ids in the parts", async () => {
    const [score, violin] = await Promise.all([svgOf(duo, 'score'), svgOf(duo, 'violin')]);
    const noteIds = [...violin.matchAll(/<g id="([^"]+)" class="note"/g)].map((m) => m[1]);
    expect(noteIds.length).toBe(22);
    for (const id of noteIds) expect(score).toContain(`id="${id}"`);
  });
});

describe('MEI (canon.mei)', () => {
  it('expands the repeat and reads tempo from scoreDef and <tempo>', () => {
    expect(canon.bars.map((b) => b.bar)).toEqual([1, 2, 3, 2, 3, 4, 5]);
    expect(canon.bars.every((b) => b.time.join('/') === '3/4' && b.beats === 3)).toBe(true);
    const map = createTempoMapFromBars(canon.bars);
    expect(map.totalBeats).toBe(21);
    for (const [beat, ms] of [
      [3, 2000],
      [9, 6000],
      [15, 10000],
      [16, 11000],
      [18, 13000],
      [21, 16000],
    ]) {
      expect(map.timeAt(beat), `beat ${beat}`).toBeCloseTo(ms, 3);
    }
  });

  it('has well-formed beat maps, a whole-bar rest included', () => {
    expectWellFormedBeatMaps(canon);
    const rest = canon.views.bassoon.beats.slice(18);
    expect(rest[1].x0).toBeGreaterThan(rest[0].x0);
    expect(rest[2].x0).toBeGreaterThan(rest[1].x0);
  });

  it('engraves each staff alone, with the tempo marks in every part', async () => {
    const [flute, bassoon] = await Promise.all([svgOf(canon, 'flute'), svgOf(canon, 'bassoon')]);
    expect(count(flute, 'staff')).toBe(count(flute, 'measure'));
    expect(count(bassoon, 'staff')).toBe(count(bassoon, 'measure'));
    expect(flute).not.toContain('Bassoon');
    expect(bassoon).not.toContain('Flute');
    expect(bassoon).toContain('Adagio');
    expect(bassoon).toContain('class="slur"');
  });
});

describe('a score of several pages (64 generated bars)', () => {
  it('gives the expected pages and performance length', () => {
    expect(Object.fromEntries(Object.entries(medium.views).map(([k, v]) => [k, v.pages.length]))).toEqual({
      score: 9,
      flute: 2,
      cello: 2,
    });
    // Pickup 1 + bars 1-48 in 4/4 with 17-32 played twice + bars 49-64 in 3/4.
    expect(totalBeats(medium.bars)).toBe(1 + 64 * 4 + 16 * 3);
  });

  it('has well-formed beat maps across pages', () => {
    expectWellFormedBeatMaps(medium);
    for (const view of Object.values(medium.views)) {
      expect(new Set(view.beats.map((b) => b.page)).size).toBe(view.pages.length);
    }
  });
});

describe('the full score, for a conductor at a tablet', () => {
  /** CSS px a staff is tall when a page of the view is drawn `width` px wide. */
  const staffPx = (
    /** @type {import('../../../../server/package/engrave/place-beats.js').View} */ v,
    /** @type {number} */ width,
  ) => (v.staff * width) / v.pages[0].width;

  it('draws a staff of at least 28 CSS px across a tablet in portrait (736 px of page)', () => {
    for (const score of [duo, medium]) expect(staffPx(score.views.score, 736)).toBeGreaterThanOrEqual(28);
    // The A4 score at 5.4 mm it replaces: 19 px.
    expect(staffPx({ ...medium.views.score, staff: 54 }, 736)).toBeLessThan(20);
    // Five staves at that size: every system is drawn on its page.
    const { ink, pages } = medium.views.score;
    expect(ink.length).toBeGreaterThan(pages.length);
    for (const s of ink) {
      expect(s.top).toBeGreaterThanOrEqual(0);
      expect(s.bottom).toBeLessThanOrEqual(pages[s.page].height);
    }
  });

  it("shrinks a large ensemble's staff so that a system fits on a page, down to 5.4 mm", () => {
    const scales = [2, 4, 8, 11, 12, 14, 16, 20, 40].map((n) => scoreLayout(n).scale);
    expect(scales.slice(0, 4)).toEqual([120, 120, 120, 120]);
    for (let i = 1; i < scales.length; i++) expect(scales[i]).toBeLessThanOrEqual(scales[i - 1]);
    expect(scales[5]).toBeLessThan(120);
    expect(scales.at(-1)).toBe(75);
    // Every page stays A4 in the SVG's units (0.1 mm), whatever the size (to a unit's rounding).
    for (const n of [2, 14, 40]) {
      const { scale, pageWidth, pageHeight } = scoreLayout(n);
      expect(Math.abs((pageWidth * scale) / 100 - 2100)).toBeLessThanOrEqual(1);
      expect(Math.abs((pageHeight * scale) / 100 - 2970)).toBeLessThanOrEqual(1);
    }
  });
});

describe('layouts for smaller screens', () => {
  /** @param {import('../../../../server/package/engrave/place-beats.js').View} v */
  const systems = (v) => new Set(v.beats.map((b) => `${b.page}:${b.system}`)).size;

  it('lays each part out on A4, on 1200 and on 600 units, with the same 7.2 mm staff', () => {
    expect(medium.views.score.layouts).toBeUndefined();
    for (const part of ['flute', 'cello']) {
      const view = medium.views[part];
      expect(view.staff).toBe(72);
      expect(view.layouts?.map((l) => [l.name, l.pages[0].width, l.staff])).toEqual([
        ['medium', 1200, 72],
        ['narrow', 600, 72],
      ]);
      const [mid, narrow] = /** @type {import('../../../../server/package/engrave/place-beats.js').Layout[]} */ (
        view.layouts
      );
      // Fewer bars a line as the page narrows: 4/4 bars of eighths, about 3 on a phone's line.
      expect(systems(mid)).toBeGreaterThan(systems(view) * 1.4);
      expect(systems(narrow)).toBeGreaterThan(systems(mid) * 1.6);
      expect(medium.bars.length / systems(narrow)).toBeGreaterThanOrEqual(1.5);
    }
  });

  it('plays the same bars in every layout, drawn inside the page', () => {
    for (const part of ['flute', 'cello']) {
      const view = medium.views[part];
      for (const l of view.layouts ?? []) {
        expect(
          l.beats.map((b) => b.bar),
          `${part}.${l.name}`,
        ).toEqual(view.beats.map((b) => b.bar));
        for (const b of l.beats) expect(b.x1, `${part}.${l.name} beat ${b.beat}`).toBeLessThanOrEqual(l.pages[0].width);
      }
    }
  });

  it("writes each layout's pages under its own name, the part alone on them", async () => {
    const narrow = /** @type {import('../../../../server/package/engrave/place-beats.js').Layout} */ (
      duo.views.violin.layouts?.[1]
    );
    expect(narrow.pages[0].file).toBe('violin.narrow-1.svg');
    const svg = await readFile(path.join(duo.dir, narrow.pages[0].file), 'utf8');
    expect(count(svg, 'staff')).toBe(count(svg, 'measure'));
    expect(svg).not.toContain('Cello');
  });
});

describe('compressed MusicXML (.mxl)', () => {
  it('engraves like the MusicXML inside it', async () => {
    const file = path.join(tmp, 'duo.mxl');
    await writeFile(file, makeMxl(await readFile(DUO)));
    const mxl = await engraveScore({ file, parts: DUO_PARTS, cacheDir: path.join(tmp, 'cache') });
    expect(mxl.hash).not.toBe(duo.hash);
    expect(mxl.bars).toEqual(duo.bars);
    expect(mxl.views).toEqual(duo.views);
    expect(await svgOf(mxl, 'violin')).toBe(await svgOf(duo, 'violin'));
  });
});

describe('ids and the cache', () => {
  it('gives the same element ids (the same pages) on every engraving', async () => {
    const again = await engraveScore({ file: DUO, parts: DUO_PARTS, cacheDir: path.join(tmp, 'other-cache') });
    expect(again.cached).toBe(false);
    for (const view of ['score', 'violin', 'cello']) expect(await svgOf(again, view)).toBe(await svgOf(duo, view));
  });

  it('loads an unchanged score from the cache without starting Verovio', async () => {
    await closeEngraver();
    const warm = await engraveScore({ file: DUO, parts: DUO_PARTS, cacheDir: path.join(tmp, 'cache') });
    expect(warm).toEqual({ ...duo, cached: true });
    expect(engraverThreads()).toEqual([]);
  });

  it('engraves again when the parts change', async () => {
    const one = await engraveScore({
      file: DUO,
      parts: [{ id: 'cello', source: 'P2' }],
      cacheDir: path.join(tmp, 'cache'),
    });
    expect(one.cached).toBe(false);
    expect(Object.keys(one.views)).toEqual(['score', 'cello']);
    expect(one.views.cello).toEqual(duo.views.cello);
  });

  it('engraves again when an entry is damaged, and clears leftovers of dead processes', async () => {
    const cacheDir = path.join(tmp, 'damaged');
    const first = await engraveScore({ file: CANON, parts: [], cacheDir });
    await rm(path.join(first.dir, 'score-1.svg'));
    const leftover = path.join(cacheDir, `.tmp-${first.hash}-999999999-abc`);
    await writeFile(leftover, 'partial');
    const second = await engraveScore({ file: CANON, parts: [], cacheDir });
    expect(second.cached).toBe(false);
    expect(await readdir(first.dir)).toContain('score-1.svg');
    expect(await readdir(cacheDir)).toEqual([first.hash]);

    await writeFile(path.join(first.dir, 'engraved.json'), '{"format":1,"ha');
    expect((await engraveScore({ file: CANON, parts: [], cacheDir })).cached).toBe(false);
    expect((await engraveScore({ file: CANON, parts: [], cacheDir })).cached).toBe(true);
  });
});

describe('narrower layouts engraved after the rest', () => {
  /** @param {string} dir */
  const index = async (dir) => JSON.parse(await readFile(path.join(dir, 'engraved.json'), 'utf8'));

  it('is ready with the A4 parts, the entry pending, then complete with every layout', async () => {
    const cacheDir = path.join(tmp, 'deferred');
    const first = await engraveScore({ file: DUO, parts: DUO_PARTS, cacheDir, deferLayouts: true });
    expect(first.pending).toEqual(['medium', 'narrow']);
    expect(first.views.violin.layouts).toBeUndefined();
    expect(first.views.violin.pages).toEqual(duo.views.violin.pages);
    expect(first.views.score).toEqual(duo.views.score);
    expect((await index(first.dir)).pending).toEqual({ layouts: ['medium', 'narrow'], parts: ['violin', 'cello'] });
    // What the layouts need is kept in the entry, for a process started later.
    expect(await readdir(first.dir)).toEqual(
      expect.arrayContaining(['_pending-violin.mei', '_pending-cello.mei', '_pending-timing.json']),
    );

    const complete = await first.complete;
    expect(complete.pending).toEqual([]);
    expect(complete.views).toEqual(duo.views);
    const entry = await index(first.dir);
    expect(entry.pending).toBeUndefined();
    expect(Object.keys(entry.files)).toContain('violin.narrow-1.svg');
    expect((await readdir(first.dir)).filter((f) => f.startsWith('_pending') || f.startsWith('.engraved'))).toEqual([]);

    await closeEngraver();
    const warm = await engraveScore({ file: DUO, parts: DUO_PARTS, cacheDir, deferLayouts: true });
    expect(warm.cached).toBe(true);
    expect(warm.pending).toEqual([]);
    expect(warm.views).toEqual(duo.views);
    expect(engraverThreads()).toEqual([]);
  });

  it('finishes the pending layouts of an entry a stopped process left, without engraving it again', async () => {
    const cacheDir = path.join(tmp, 'resumed');
    const first = await engraveScore({ file: DUO, parts: DUO_PARTS, cacheDir, deferLayouts: true });
    // The process stops before its layouts are done (a restart).
    await closeEngraver();
    await expect(first.complete).rejects.toMatchObject({ code: 'SC_ERR_INTERNAL' });
    expect((await index(first.dir)).pending?.layouts).toEqual(['medium', 'narrow']);
    const score = await readFile(path.join(first.dir, 'score-1.svg.br'));

    const next = await engraveScore({ file: DUO, parts: DUO_PARTS, cacheDir, deferLayouts: true });
    expect(next.cached).toBe(true);
    expect(next.pending).toEqual(['medium', 'narrow']);
    expect((await next.complete).views).toEqual(duo.views);
    expect((await index(first.dir)).pending).toBeUndefined();
    // The full score was not engraved again: its files are the ones first written.
    expect(await readFile(path.join(first.dir, 'score-1.svg.br'))).toEqual(score);
    expect(await readdir(cacheDir)).toEqual([first.hash]);
  });

  it('waits for every layout unless asked not to (check, the benchmark)', async () => {
    const cacheDir = path.join(tmp, 'waited');
    const all = await engraveScore({ file: DUO, parts: DUO_PARTS, cacheDir });
    expect(all.pending).toEqual([]);
    expect((await index(all.dir)).pending).toBeUndefined();
  });
});

import { describe, it, expect } from 'vitest';
import { barsFromBeats, checkBeatMap, describeBeatMapProblem, parseBeatMapCsv, parseCsv } from '../../core/beatmap.js';
import { createTempoMapFromBars } from '../../core/tempo-map.js';

const HEADER = 'beat,page,system,bar,x0,x1,y0,y1';
/** Two pages: beats 0-2 on page 0 (two systems), 3-4 on page 1. */
const GOOD_ROWS = [
  '0,0,0,0,30,60,100,180',
  '1,0,0,1,60,120,100,180',
  '2,0,1,1,40,100,240,320',
  '3,1,0,1,50,110,100,180',
  '4,1,0,2,110,170,100,180',
];
const FILE = 'beatmaps/violin1.csv';

/** @param {string[]} rows @param {import('../../core/beatmap.js').BeatMapOptions | {}} [o] */
const csv = (rows, o = {}) => parseBeatMapCsv([HEADER, ...rows].join('\n'), { file: FILE, ...o });

/** @param {ReturnType<typeof csv>} r */
const lines = (r) => (r.ok ? [] : r.problems.map(describeBeatMapProblem));

/** @param {number} i @param {string} row */
const replaceRow = (i, row) => GOOD_ROWS.map((r, k) => (k === i ? row : r));

const jsonMap = () => ({
  pages: [
    { file: 'pages/v-1.png', width: 800, height: 400 },
    { file: 'pages/v-2.png', width: 800, height: 400 },
  ],
  beats: GOOD_ROWS.map((r) => {
    const [beat, page, system, bar, x0, x1, y0, y1] = r.split(',').map(Number);
    return { beat, page, system, bar, x0, x1, y0, y1 };
  }),
});

describe('parseBeatMapCsv', () => {
  it('reads a valid map, with LF, CRLF or CR line ends and a BOM', () => {
    for (const eol of ['\n', '\r\n', '\r']) {
      const r = parseBeatMapCsv(`\ufeff${[HEADER, ...GOOD_ROWS].join(eol)}${eol}`, {
        file: FILE,
        totalBeats: 5,
        pageCount: 2,
      });
      if (!r.ok) throw new Error(lines(r).join('\n'));
      expect(r.value.beats).toHaveLength(5);
      expect(r.value.beats[2]).toEqual({ beat: 2, page: 0, system: 1, bar: 1, x0: 40, x1: 100, y0: 240, y1: 320 });
    }
  });

  it('reports a wrong header on line 1', () => {
    const r = parseBeatMapCsv('beat,page,x0\n0,0,1', { file: FILE });
    expect(lines(r)).toEqual([`${FILE} line 1: the header must be ${HEADER} (found beat,page,x0)`]);
  });

  it('reports an empty file', () => {
    expect(lines(parseBeatMapCsv('\n\n', { file: FILE }))[0]).toMatch(/is empty; start with the header/);
  });

  it.each([
    [
      'a cell that is not a number',
      replaceRow(1, '1,0,0,1,abc,120,100,180'),
      `${FILE} line 3: x0: "abc" is not a number`,
    ],
    ['an infinite number', replaceRow(1, '1,0,0,1,1e999,120,100,180'), `${FILE} line 3: x0: "1e999" is not a number`],
    [
      'a fractional page',
      replaceRow(1, '1,0.5,0,1,60,120,100,180'),
      `${FILE} line 3: page: 0.5 must be a whole number`,
    ],
    ['a row with too few cells', replaceRow(1, '1,0,0,1,60'), `${FILE} line 3: has 5 cells, the header has 8`],
  ])('reports %s with its line and column', (_, rows, expected) => {
    expect(lines(csv(rows)).join('\n')).toContain(expected);
  });

  it('reports a missing beat once, not every beat after it', () => {
    const r = csv(GOOD_ROWS.filter((_, i) => i !== 1));
    expect(lines(r)).toEqual([
      `${FILE} line 3: beat: beat 2 where beat 1 was expected; add the missing beat 1 or renumber`,
    ]);
  });

  it('reports a beat that comes twice or out of order', () => {
    const r = csv(replaceRow(2, '1,0,1,1,40,100,240,320'));
    expect(lines(r)[0]).toBe(
      `${FILE} line 4: beat: beat 1 comes again (or out of order) where beat 2 was expected; list every beat 0..N-1 once, in order`,
    );
  });

  it("checks page indexes against the view's pages", () => {
    expect(lines(csv(GOOD_ROWS, { pageCount: 1 }))).toContain(
      `${FILE} line 5: page: page 1 does not exist; the view has 1 page (0..0)`,
    );
    expect(lines(csv(replaceRow(0, '0,-1,0,0,30,60,100,180')))[0]).toMatch(/page: page -1 is not a page index/);
  });

  it('refuses x0 right of x1', () => {
    expect(lines(csv(replaceRow(1, '1,0,0,1,130,120,100,180')))).toContain(
      `${FILE} line 3: x0: x0 130 is right of x1 120; x0..x1 is the beat's range from left to right`,
    );
  });

  it('refuses x0 going left within a system, but not at a new system or page', () => {
    expect(lines(csv(replaceRow(1, '1,0,0,1,20,120,100,180')))).toContain(
      `${FILE} line 3: x0: x0 20 is left of the previous beat's (30) in the same system; start a new system there or fix the positions`,
    );
    expect(csv(GOOD_ROWS).ok).toBe(true); // row 2 goes left at system 1, row 3 at page 1
  });

  it('refuses systems or pages that go back', () => {
    expect(lines(csv(replaceRow(2, '2,0,0,1,140,150,240,320')))).toEqual([]);
    const back = csv([...GOOD_ROWS.slice(0, 3), '3,0,0,1,150,160,100,180', '4,1,0,2,110,170,100,180']);
    expect(lines(back)).toContain(
      `${FILE} line 5: system: system goes back from 1 to 0 on page 0; systems run down the page in order`,
    );
    const pageBack = csv([...GOOD_ROWS.slice(0, 4), '4,0,1,2,110,170,100,180']);
    expect(lines(pageBack)).toContain(
      `${FILE} line 6: page: page goes back from 1 to 0; beats run through the pages in order`,
    );
  });

  it('lets the position go back where the bar number does (a repeat in performance order)', () => {
    // |: bar 1 | bar 2 :| bar 3 on one page: the repeat returns to bar 1's position
    const repeat = csv([
      '0,0,0,1,30,60,100,180',
      '1,0,0,2,60,90,100,180',
      '2,0,0,1,30,60,100,180',
      '3,0,0,2,60,90,100,180',
      '4,0,1,3,30,60,240,320',
    ]);
    expect(lines(repeat)).toEqual([]);
    const notARepeat = csv([
      '0,0,0,1,30,60,100,180',
      '1,0,0,2,60,90,100,180',
      '2,0,0,2,30,60,100,180',
      '3,0,0,2,60,90,100,180',
      '4,0,1,3,30,60,240,320',
    ]);
    expect(lines(notARepeat)).toContain(
      `${FILE} line 4: x0: x0 30 is left of the previous beat's (60) in the same system; start a new system there or fix the positions`,
    );
  });

  it('names the file and both counts when the beats do not match the score', () => {
    expect(lines(csv(GOOD_ROWS, { totalBeats: 8 }))).toEqual([
      `${FILE}: has 5 beats but the score has 8; add the missing beats or fix the meter`,
    ]);
    expect(lines(csv(GOOD_ROWS, { totalBeats: 4 }))).toEqual([
      `${FILE}: has 5 beats but the score has 4; remove the extra beats or fix the meter`,
    ]);
  });

  it('never throws on text that is not CSV', () => {
    expect(parseBeatMapCsv(/** @type {any} */ (null), { file: FILE }).ok).toBe(false);
    expect(lines(parseBeatMapCsv(`${HEADER}\n"0,0`, { file: FILE }))[0]).toMatch(
      /line 2: a quoted cell is never closed/,
    );
  });
});

describe('checkBeatMap', () => {
  const FILE_JSON = 'beatmaps/violin1.json';
  /** @param {unknown} v @param {{ totalBeats?: number, pageCount?: number }} [o] */
  const check = (v, o = {}) => {
    const r = checkBeatMap(v, { file: FILE_JSON, ...o });
    return r.ok ? [] : r.problems.map(describeBeatMapProblem);
  };

  it('accepts a valid map and returns a clean copy', () => {
    const m = /** @type {any} */ (jsonMap());
    m.extra = 'ignored';
    const r = checkBeatMap(m, { file: FILE_JSON, totalBeats: 5, pageCount: 2 });
    if (!r.ok) throw new Error(JSON.stringify(r.problems));
    expect(r.value).toEqual(jsonMap());
  });

  it("accepts what parseBeatMapCsv returns (no pages: they are the view's files)", () => {
    const parsed = csv(GOOD_ROWS);
    if (!parsed.ok) throw new Error('csv');
    expect(checkBeatMap(parsed.value, { file: FILE, totalBeats: 5, pageCount: 2 }).ok).toBe(true);
    expect(checkBeatMap(parsed.value, { file: FILE, pageCount: 1 }).ok).toBe(false);
  });

  it('names the field of each problem as a JSON path', () => {
    const m = /** @type {any} */ (jsonMap());
    m.beats[3].x0 = 'left';
    delete m.beats[4].y1;
    m.beats[1].bar = 1.5;
    expect(check(m)).toEqual([
      `${FILE_JSON}: beats[1].bar: must be a whole number`,
      `${FILE_JSON}: beats[3].x0: must be a finite number`,
      `${FILE_JSON}: beats[4].y1: is missing`,
    ]);
  });

  it('applies the same rules as the CSV form', () => {
    const m = jsonMap();
    m.beats[3].x0 = 200;
    m.beats[4].page = 2;
    expect(check(m, { totalBeats: 6 })).toEqual([
      `${FILE_JSON}: beats[3].x0: x0 200 is right of x1 110; x0..x1 is the beat's range from left to right`,
      `${FILE_JSON}: beats[4].page: page 2 does not exist; the view has 2 pages (0..1)`,
      `${FILE_JSON}: has 5 beats but the score has 6; add the missing beats or fix the meter`,
    ]);
  });

  it('checks the pages list against the view', () => {
    const m = /** @type {any} */ (jsonMap());
    expect(check(m, { pageCount: 3 })).toEqual([
      `${FILE_JSON}: pages: lists 2 pages but the view has 3 page files; list each page once, in order`,
    ]);
    m.pages[1].width = 0;
    expect(check(m)).toEqual([
      `${FILE_JSON}: pages[1].width: must be a number from 1 to 100000 (page units: SVG user units or image pixels)`,
    ]);
    expect(check({ ...jsonMap(), pages: [] })[0]).toMatch(/pages: must list the pages in order/);
  });

  it('refuses values that are not a beat map', () => {
    expect(check([])[0]).toMatch(/must be a JSON object/);
    expect(check({ pages: jsonMap().pages })[0]).toMatch(/beats: must be a list/);
    expect(check({ beats: [1] })[0]).toBe(
      `${FILE_JSON}: beats[0]: must be {"beat", "page", "system", "bar", "x0", "x1", "y0", "y1"}`,
    );
  });
});

describe('parseCsv', () => {
  it('keeps quoted commas and quotes, and the line each row starts on', () => {
    const r = parseCsv('a,"b,c","say ""hi"""\n\n"multi\nline",x\n');
    if (!r.ok) throw new Error(r.message);
    expect(r.rows).toEqual([
      { line: 1, cells: ['a', 'b,c', 'say "hi"'] },
      { line: 3, cells: ['multi\nline', 'x'] },
    ]);
  });
});

describe('barsFromBeats', () => {
  it('builds bars with a pickup, a time change and tempo changes that the tempo map accepts', () => {
    /** @type {{ bar: number, time: [number, number], bpm: number }[]} */
    const beats = [
      { bar: 0, time: [4, 4], bpm: 120 },
      ...Array.from({ length: 4 }, () => ({ bar: 1, time: /** @type {[number, number]} */ ([4, 4]), bpm: 120 })),
      { bar: 2, time: [3, 4], bpm: 120 },
      { bar: 2, time: [3, 4], bpm: 90 },
      { bar: 2, time: [3, 4], bpm: 90 },
    ];
    const bars = barsFromBeats(beats);
    expect(bars).toEqual([
      { bar: 0, time: [4, 4], beats: 1, firstBeatInBar: 4, tempo: [{ beat: 4, bpm: 120 }] },
      { bar: 1, time: [4, 4] },
      { bar: 2, time: [3, 4], tempo: [{ beat: 2, bpm: 90 }] },
    ]);
    const map = createTempoMapFromBars(bars);
    expect(map.totalBeats).toBe(8);
    expect(map.timeAt(6)).toBe(3000);
    expect(map.timeAt(7)).toBeCloseTo(3000 + 60000 / 90);
  });
});

describe('beat-map bounds: pages and boxes', () => {
  const sizes = [
    { width: 800, height: 400 },
    { width: 800, height: 400 },
  ];

  it("refuses a beat box off its page (CSV: the view's page sizes; JSON: its pages)", () => {
    expect(lines(csv(GOOD_ROWS, { pageSizes: sizes }))).toEqual([]);
    expect(lines(csv(replaceRow(4, '4,1,0,2,110,900,100,180'), { pageSizes: sizes }))).toEqual([
      `${FILE} line 6: x1: x1 900 is off page 1 (800 x 400); positions are in page units from its top left corner`,
    ]);
    expect(lines(csv(replaceRow(0, '0,0,0,0,30,60,-5,180'), { pageSizes: sizes }))).toEqual([
      `${FILE} line 2: y0: y0 -5 is off page 0 (800 x 400); positions are in page units from its top left corner`,
    ]);
    const m = jsonMap();
    m.beats[2].y1 = 401;
    expect(lines(checkBeatMap(m, { file: 'v.json' }))).toEqual([
      'v.json: beats[2].y1: y1 401 is off page 0 (800 x 400); positions are in page units from its top left corner',
    ]);
  });

  it('refuses y0 below y1', () => {
    expect(lines(csv(replaceRow(1, '1,0,0,1,60,120,180,100')))).toEqual([
      `${FILE} line 3: y0: y0 180 is below y1 100; y0..y1 is the system's extent from top to bottom`,
    ]);
  });

  it.each([
    ['NaN', NaN],
    ['zero', 0],
    ['a millionth', 1e-6],
    ['absurdly wide', 1e9],
    ['infinite', Infinity],
  ])('refuses a page size that is %s', (_, width) => {
    const m = jsonMap();
    m.pages[0].width = width;
    expect(lines(checkBeatMap(m, { file: 'v.json' }))).toEqual([
      'v.json: pages[0].width: must be a number from 1 to 100000 (page units: SVG user units or image pixels)',
    ]);
  });

  it('refuses a map longer than any score before reading all of it', () => {
    const rows = Array.from({ length: 50_002 }, (_, b) => `${b},0,0,1,0,1,0,1`);
    expect(lines(csv(rows))).toEqual([
      `${FILE} line 50002: has more rows than the 50000 beats a score may have; give one row per beat`,
    ]);
    const m = { beats: rows.map((r) => ({ ...jsonMap().beats[0], beat: Number(r.split(',')[0]) })) };
    expect(lines(checkBeatMap(m, { file: 'v.json' }))).toEqual([
      'v.json: beats: lists 50002 beats, more than the 50000 a score may have; give one entry per beat',
    ]);
  });
});

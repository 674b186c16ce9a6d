import { describe, it, expect } from 'vitest';
import { PACKAGE_LIMITS } from '../../core/package-limits.js';
import { buildScoreModel, isColour, isSafeRelativePath } from '../../core/manifest.js';

const base = () => ({
  id: 'piece',
  title: 'Piece',
  bars: 4,
  meter: [{ bar: 1, time: '4/4', tempo: 120 }],
  parts: [{ id: 'violin', name: 'Violin' }],
  cues: [
    { bar: 2, set: { text: 'two' } },
    { at: 0, set: { text: 'zero' } },
    { bar: 3, beat: 2, view: 'violin', set: { text: 'v' } },
  ],
});

/**
 * @param {unknown} raw
 * @param {import('../../core/tempo-map.js').BarSpec[]} [bars]
 */
function problems(raw, bars) {
  const r = buildScoreModel(raw, { bars });
  return r.ok ? [] : r.problems.map((p) => `${p.field}: ${p.message}`);
}

describe('score manifest', () => {
  it('builds a model with views, a tempo map and cues in beat order', () => {
    const r = buildScoreModel(base());
    if (!r.ok) throw new Error(JSON.stringify(r.problems));
    expect(r.value.views).toEqual(['audience', 'score', 'violin']);
    expect(r.value.map.totalBeats).toBe(16);
    expect(r.value.cues.map((c) => c.beat)).toEqual([0, 4, 9]);
    expect(r.value.cues[2].view).toBe('violin');
  });

  it('takes cue colours written as names, #hex, rgb() or hsl(), and null to clear them', () => {
    const m = /** @type {any} */ (base());
    const colours = [
      'white',
      'DodgerBlue',
      'transparent',
      '#fff',
      '#ffff',
      '#1e90ff',
      '#1e90ff80',
      'rgb(0, 0, 0)',
      'rgba(225,225,225,0.7)',
      'rgb(10% 20% 30% / 50%)',
      'hsl(210deg 100% 56%)',
      'hsla(210, 100%, 56%, .5)',
      null,
    ];
    m.cues = colours.map((c, i) => ({ at: i, set: { color: c, background: c } }));
    expect(problems(m)).toEqual([]);
  });

  it.each([
    'url(http://127.0.0.2/track.png)',
    'red url(x.png)',
    'URL(x)',
    '#000; background-image: url(x)',
    'image-set("x.png" 1x)',
    'rgb(0 0 0) , url(x)',
    'rgb(url(x))',
    'var(--x)',
    'expression(alert(1))',
    'linear-gradient(red, blue)',
    '#12345',
    '',
    42,
    { url: 'x' },
    'red\\,',
    'a'.repeat(65),
  ])('refuses a cue colour that is not just a colour: %j', (bad) => {
    expect(isColour(bad)).toBe(false);
    const m = /** @type {any} */ (base());
    m.cues.push({ at: 1, set: { text: 'x', background: bad } });
    m.cues.push({ at: 2, set: { color: bad } });
    expect(problems(m)).toEqual([
      'cues[3].set.background: must be a colour: a name (white), #rgb, #rrggbb, rgb(...) or hsl(...); url(...) and other CSS are not allowed',
      'cues[4].set.color: must be a colour: a name (white), #rgb, #rrggbb, rgb(...) or hsl(...); url(...) and other CSS are not allowed',
    ]);
  });

  it('reports a cue after the last beat with the fix', () => {
    const m = base();
    m.cues.push({ at: 300, set: { text: 'late' } });
    expect(problems(m)).toContain('cues[3]: is at beat 300, after the last beat (15); move it or extend the score');
  });

  it.each([
    [{ id: 'Bad Id' }, /^id: /],
    [{ title: '' }, /^title: is missing/],
    [{ bars: 0 }, /^bars: /],
    [{ meter: [] }, /^meter: is missing/],
    [{ meter: [{ bar: 1, time: '4-4', tempo: 60 }] }, /^meter\[0\]\.time: must be a time signature/],
    [{ meter: [{ bar: 1, time: '4/4', tempo: -1 }] }, /^meter\[0\]\.tempo: /],
    [{ meter: [{ bar: 1, time: '4/4', tempo: 60 }, { bar: 3 }] }, /^meter\[1\]: changes nothing/],
    [{ parts: [{ id: 'score' }] }, /reserved view name/],
    [{ cues: [{ bar: 2, view: 'flute', set: {} }] }, /"flute" is not a view/],
    [{ cues: [{ bar: 2, set: 'text' }] }, /set: must be a mapping/],
    [{ cues: [{ bar: 9, set: {} }] }, /no bar 9; the score has bars 1..4/],
    [{ cues: [{ set: {} }] }, /needs a position/],
    [{ assets: [{ path: '../etc/passwd' }] }, /relative path inside the package/],
  ])('reports %j', (change, expected) => {
    const found = problems({ ...base(), ...change });
    expect(
      found.some((p) => expected.test(p)),
      found.join('\n'),
    ).toBe(true);
  });

  it('refuses a manifest that is not a mapping', () => {
    expect(problems('just text')[0]).toMatch(/must be a YAML mapping/);
    expect(problems(null).length).toBe(1);
  });

  it('accepts only safe relative asset paths', () => {
    expect(isSafeRelativePath('audio/a.wav')).toBe(true);
    for (const p of ['/etc/passwd', '../x', 'a/../../x', 'a\\b', 'a//b', './a', '', 'a/\0'])
      expect(isSafeRelativePath(p)).toBe(false);
  });

  it('takes timing from the engraved bars when the score has notation', () => {
    const raw = {
      id: 'n',
      title: 'N',
      notation: { file: 'q.musicxml' },
      parts: [{ id: 'violin', source: 'P1' }],
      cues: [{ bar: 2, set: { text: 'x' } }],
    };
    expect(problems(raw)).toEqual([
      'notation: has not been engraved yet (internal: build the model with the engraved bars)',
    ]);
    const bars = [
      { bar: 1, time: /** @type {[number, number]} */ ([3, 4]), tempo: [{ beat: 1, bpm: 60 }] },
      { bar: 2, time: /** @type {[number, number]} */ ([3, 4]) },
    ];
    const r = buildScoreModel(raw, { bars });
    if (!r.ok) throw new Error(JSON.stringify(r.problems));
    expect(r.value.map.totalBeats).toBe(6);
    expect(r.value.cues[0].beat).toBe(3);
    expect(r.value.parts[0]).toEqual({ id: 'violin', name: 'violin', source: 'P1' });
    expect(problems({ ...raw, meter: [{ bar: 1, time: '4/4', tempo: 60 }] })).toContain(
      'meter: comes from the notation when the score has `notation`; remove it',
    );
    expect(problems({ ...raw, notation: { file: 'q.pdf' } })).toContain(
      'notation.file: must be MusicXML (.musicxml, .xml, .mxl) or MEI (.mei)',
    );
  });

  it('checks image-score pages per view', () => {
    const ok = buildScoreModel({ ...base(), pages: { score: { files: ['p/1.png'], beatmap: 'b/score.csv' } } });
    expect(ok.ok && ok.value.pages).toEqual({ score: { files: ['p/1.png'], beatmap: 'b/score.csv' } });
    expect(problems({ ...base(), pages: { flute: { files: ['p/1.png'], beatmap: 'b.csv' } } })[0]).toMatch(
      /pages\.flute: "flute" is not a score or part view/,
    );
    expect(problems({ ...base(), pages: { score: { files: ['../1.png'], beatmap: 'b.csv' } } })[0]).toMatch(
      /pages\.score\.files\[0\]: must be a relative path/,
    );
    expect(problems({ ...base(), pages: { score: { files: ['1.png'], beatmap: 'b.txt' } } })[0]).toMatch(
      /beatmap: must be a \.csv or \.json/,
    );
    expect(problems({ ...base(), notation: { file: 'a.mei' }, pages: {} })).toContain(
      'pages: a score has either notation or page images, not both; remove one',
    );
  });

  it('turns an audio cue into a cue-state patch with the asset URL, and lists the asset', () => {
    const r = buildScoreModel(
      { ...base(), cues: [{ bar: 2, audio: 'clips/bell.wav' }] },
      { assetUrl: (p) => `/scores/piece/h/${p}` },
    );
    if (!r.ok) throw new Error(JSON.stringify(r.problems));
    expect(r.value.cues).toEqual([
      { beat: 4, view: 'audience', set: { audio: { src: '/scores/piece/h/clips/bell.wav', beat: 4 } } },
    ]);
    expect(r.value.assets).toContainEqual({ path: 'clips/bell.wav', preload: true });
  });

  it('opens and closes a vote window and resolves what it decides', () => {
    const vote = {
      id: 'ending',
      tiles: ['a', 'b'],
      close: { bar: 3 },
      decides: { a: { seek: { bar: 4 } }, b: { seek: { at: 1 } } },
    };
    const r = buildScoreModel({ ...base(), cues: [{ bar: 2, vote }] });
    if (!r.ok) throw new Error(JSON.stringify(r.problems));
    expect(r.value.votes).toEqual([
      { id: 'ending', tiles: ['a', 'b'], open: 4, close: 8, decides: { a: { seek: 12 }, b: { seek: 1 } } },
    ]);
    expect(r.value.cues).toEqual([
      { beat: 4, view: 'audience', set: { vote: { id: 'ending', tiles: ['a', 'b'], closes: 8 } } },
      { beat: 8, view: 'audience', set: { vote: null } },
    ]);
  });

  it.each([
    [{ id: 'v', tiles: ['a'], close: { bar: 3 } }, /tiles: must list at least two distinct tile ids/],
    [{ id: 'v', tiles: ['a', 'a'], close: { bar: 3 } }, /tiles: must list at least two distinct/],
    [{ id: 'v', tiles: ['a', 'b'], close: { bar: 1 } }, /close: is at beat 0, not after the vote opens \(beat 4\)/],
    [
      { id: 'v', tiles: ['a', 'b'], close: { bar: 3 }, decides: { c: { seek: { bar: 1 } } } },
      /decides\.c: "c" is not one of the vote's tiles/,
    ],
    [
      { id: 'v', tiles: ['a', 'b'], close: { bar: 3 }, decides: { a: { seek: { bar: 12 } } } },
      /decides\.a\.seek: no bar 12/,
    ],
    [{ id: 'v', tiles: ['a', 'b'] }, /close: needs a position/],
  ])('reports a broken vote %j', (vote, expected) => {
    const found = problems({ ...base(), cues: [{ bar: 2, vote }] });
    expect(
      found.some((p) => expected.test(p)),
      found.join('\n'),
    ).toBe(true);
  });

  it('needs exactly one of set, audio or vote in a cue', () => {
    expect(problems({ ...base(), cues: [{ bar: 1, set: {}, audio: 'a.wav' }] })).toContain(
      'cues[0]: needs exactly one of set, audio or vote',
    );
    expect(problems({ ...base(), cues: [{ bar: 1 }] })).toContain('cues[0]: needs exactly one of set, audio or vote');
  });
});

describe('score manifest bounds (doc/score-format.md, "Limits")', () => {
  const L = PACKAGE_LIMITS;
  /** @param {Record<string, unknown>} over */
  const withOver = (over) => ({ ...base(), ...over });

  it('refuses a bar count past the bound before building the bars (1e8 bars took gigabytes)', () => {
    expect(problems(withOver({ bars: 100_000_000 }))).toEqual([
      `bars: is 100000000, more than the ${L.bars} bars a package may have; split the piece into movements`,
    ]);
  });

  it('keeps a 1,000-bar symphony movement with 30 parts and a full score', () => {
    const parts = Array.from({ length: 30 }, (_, i) => ({ id: `p${i}` }));
    const r = buildScoreModel({ ...base(), bars: 1000, parts, cues: [{ bar: 999, set: { text: 'coda' } }] });
    expect(r.ok).toBe(true);
  });

  it('refuses a piece of more beats than the bound, however few its bars', () => {
    expect(problems(withOver({ bars: 2, meter: [{ bar: 1, time: [60_000, 4], tempo: 120 }], cues: [] }))).toEqual([
      `meter: has 120000 beats in performance order, more than the ${L.beats} a package may have; split the piece into movements`,
    ]);
  });

  it('bounds the engraved bars as it bounds the manifest', () => {
    const bars = Array.from({ length: L.bars + 1 }, (_, i) => ({
      bar: i + 1,
      time: /** @type {[number, number]} */ ([4, 4]),
      ...(i === 0 ? { tempo: [{ beat: 1, bpm: 60 }] } : {}),
    }));
    expect(problems({ id: 'x', title: 'X', notation: { file: 'x.mei' } }, bars)).toEqual([
      `notation: has ${L.bars + 1} bars in performance order, more than the ${L.bars} a package may have; split the piece into movements`,
    ]);
  });

  it('bounds the list of parts, of meter changes, of cues and of assets', () => {
    const many = (/** @type {number} */ n, /** @type {(i: number) => unknown} */ f) =>
      Array.from({ length: n }, (_, i) => f(i));
    expect(problems(withOver({ parts: many(L.parts + 1, (i) => ({ id: `p${i}` })), cues: [] }))).toEqual([
      `parts: lists ${L.parts + 1} parts, more than the ${L.parts} a package may have`,
    ]);
    expect(
      problems(withOver({ meter: many(L.meterChanges + 1, () => ({ bar: 1, time: '4/4', tempo: 60 })) }))[0],
    ).toMatch(/^meter: lists 50001 changes, more than the 50000/);
    expect(problems(withOver({ cues: many(L.cues + 1, () => ({ at: 0, set: {} })) }))).toEqual([
      `cues: lists ${L.cues + 1} cues, more than the ${L.cues} a package may have; split the piece into movements`,
    ]);
    expect(problems(withOver({ assets: many(L.assets + 1, (i) => ({ path: `a/${i}.wav` })) }))).toEqual([
      `assets: lists ${L.assets + 1} files, more than the ${L.assets} a package may have`,
    ]);
    expect(problems(withOver({ cues: many(L.assets + 1, (i) => ({ at: 0, audio: `a/${i}.wav` })) }))).toEqual([
      `cues: name ${L.assets + 1} files with the assets, more than the ${L.assets} a package may have`,
    ]);
  });

  it("bounds a cue: its size as JSON, its nesting and its tiles; a vote's tiles", () => {
    const at = { at: 0 };
    expect(problems(withOver({ cues: [{ ...at, set: { text: 'x'.repeat(L.cueBytes) } }] }))[0]).toBe(
      'cues[0].set: is 256 KiB as JSON, more than the 256 KiB a cue may send to every phone; put large content in an asset file',
    );
    /** @type {Record<string, unknown>} */
    let deep = { text: 'bottom' };
    for (let i = 0; i < L.cueDepth; i++) deep = { deeper: deep };
    expect(problems(withOver({ cues: [{ ...at, set: deep }] }))).toEqual([
      `cues[0].set: nests deeper than ${L.cueDepth} levels; a cue sets flat values`,
    ]);
    const tiles = Array.from({ length: L.tiles + 1 }, (_, i) => ({ id: `t${i}`, state: 'lit' }));
    expect(problems(withOver({ cues: [{ ...at, set: { tiles } }] }))).toEqual([
      `cues[0].set: tiles: lists ${L.tiles + 1} tiles, more than the ${L.tiles} a cue may set`,
    ]);
    const vote = { id: 'v', tiles: Array.from({ length: L.voteTiles + 1 }, (_, i) => `t${i}`), close: { bar: 2 } };
    expect(problems(withOver({ cues: [{ ...at, vote }] }))).toEqual([
      `cues[0].vote.tiles: lists ${L.voteTiles + 1} tiles, more than the ${L.voteTiles} a vote may have`,
    ]);
  });

  it('bounds the pages of a view, and the beat-map rows of all views together', () => {
    const files = Array.from({ length: L.pagesPerView + 1 }, (_, i) => `p/${i}.png`);
    expect(problems(withOver({ cues: [], pages: { score: { files, beatmap: 'b.csv' } } }))).toEqual([
      `pages.score.files: lists ${L.pagesPerView + 1} pages, more than the ${L.pagesPerView} a view may have`,
    ]);
    const parts = Array.from({ length: 20 }, (_, i) => ({ id: `p${i}` }));
    const pages = Object.fromEntries(
      ['score', ...parts.map((p) => p.id)].map((v) => [v, { files: ['a.png'], beatmap: `${v}.csv` }]),
    );
    // 21 views of 2,500 bars of 4/4: 21 x 10,000 = 210,000 rows, within; 21 x 40,000 is not.
    expect(problems(withOver({ parts, pages, bars: 2500, cues: [] }))).toEqual([]);
    expect(problems(withOver({ parts, pages, bars: 10_000, cues: [] }))).toEqual([
      `pages: 21 views with pages of 40000 beats need 840000 beat-map rows, more than the ${L.beatMapRows} a package may have; split the piece into movements`,
    ]);
  });
});

describe("the granulator's sound file", () => {
  it('is an asset of the package, its cue pointing at the served file', () => {
    const r = buildScoreModel(
      {
        id: 'g',
        title: 'G',
        bars: 1,
        meter: [{ bar: 1, time: '4/4', tempo: 60 }],
        cues: [
          { at: 0, set: { granulator: { src: 'audio/grain.wav', play: null } } },
          { at: 1, set: { granulator: { play: 1 } } },
        ],
      },
      { assetUrl: (p) => `/scores/g/${p}` },
    );
    expect(r.ok && r.value.assets).toEqual([{ path: 'audio/grain.wav', preload: true }]);
    expect(r.ok && r.value.cues[0].set).toEqual({ granulator: { src: '/scores/g/audio/grain.wav', play: null } });
  });

  it('may not leave the package', () => {
    const r = buildScoreModel({
      id: 'g',
      title: 'G',
      bars: 1,
      meter: [{ bar: 1, time: '4/4', tempo: 60 }],
      cues: [{ at: 0, set: { granulator: { src: '../x.wav' } } }],
    });
    expect(r.ok ? [] : r.problems.map((p) => p.field)).toEqual(['cues[0].set.granulator.src']);
  });
});

describe('stems: audio cues with a volume', () => {
  it('gives the clip its volume and names it, so that later cues ramp it', () => {
    const r = buildScoreModel({
      id: 's',
      title: 'S',
      bars: 1,
      meter: [{ bar: 1, time: '4/4', tempo: 60 }],
      cues: [
        { at: 0, audio: 'a.wav', stem: 'drone', gain: 0.5 },
        { at: 1, audio: 'b.wav', gain: 0.2 },
      ],
    });
    expect(r.ok && r.value.cues.map((c) => c.set)).toEqual([
      {
        audio: { src: 'a.wav', beat: 0, stem: 'drone', gain: 0.5 },
        stems: { drone: { src: 'a.wav', gain: 0.5, glide: 0 } },
      },
      { audio: { src: 'b.wav', beat: 1, gain: 0.2 } },
    ]);
  });

  it('refuses a volume outside 0..1 and a stem name that is not a name', () => {
    const r = buildScoreModel({
      id: 's',
      title: 'S',
      bars: 1,
      meter: [{ bar: 1, time: '4/4', tempo: 60 }],
      cues: [
        { at: 0, audio: 'a.wav', gain: 2 },
        { at: 0, audio: 'a.wav', stem: 'a b' },
      ],
    });
    expect(r.ok ? [] : r.problems.map((p) => p.field)).toEqual(['cues[0].gain', 'cues[1].stem']);
  });
});

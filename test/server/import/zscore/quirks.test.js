// The importer takes ZScore's exports exactly as ZScore writes them: one test per quirk of the
// real Union Rose export, on the fixture test/fixtures/zscore/rose (make-rose.js), and the real
// export itself when ../shared/zscore/union-rose is there.

import path from 'node:path';
import os from 'node:os';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, it, expect } from 'vitest';
import { parse } from 'yaml';
import { buildScoreModel } from '../../../../core/manifest.js';
import { importZScore } from '../../../../server/import/zscore/index.js';
import { readZScoreConfig } from '../../../../server/import/zscore/config.js';
import { indentFlowContinuations } from '../../../../server/import/zscore/yaml.js';
import { unknownKeys } from '../../../../server/package/manifest-schema.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const FIXTURE = path.join(HERE, '../../../fixtures/zscore/rose');
const UNION_ROSE = path.resolve(HERE, '../../../../../shared/zscore/union-rose');

/** A copy of the rose fixture in a fresh temporary folder, and a package folder beside it. */
function copyFixture() {
  const root = mkdtempSync(path.join(os.tmpdir(), 'sc-zrose-'));
  const dir = path.join(root, 'export');
  cpSync(FIXTURE, dir, { recursive: true });
  return { root, dir, out: path.join(root, 'package') };
}

/** @param {string} dir */
const manifest = (dir) => parse(readFileSync(path.join(dir, 'score.yaml'), 'utf8'));
/** @param {string} dir @param {string} f */
const readJson = (dir, f) => JSON.parse(readFileSync(path.join(dir, f), 'utf8'));

describe('import-zscore: ZScore export quirks (the rose fixture)', () => {
  const { root, dir, out } = copyFixture();
  const imported = importZScore(dir, out);

  it('takes the export as ZScore wrote it, and the package is valid', async () => {
    const { report } = await imported;
    expect(report.score.title).toBe('Mini Rose');
    expect(report.score.totalBeats).toBe(13);
    expect(buildScoreModel(manifest(out)).ok).toBe(true);
    // and passes `scorecast check`, whose schema knows every key the importer writes
    expect(unknownKeys(manifest(out))).toEqual([]);
  });

  it('reads CSVs with old-Mac CR line endings', async () => {
    expect(readFileSync(path.join(dir, 'Mini_Rose_Violin1_page1_BeatInfo.csv'), 'utf8')).not.toContain('\n');
    const { report } = await imported;
    expect(report.timeMismatches).toEqual([]);
    expect(readJson(out, 'beatmaps/violin1.json').beats).toHaveLength(13);
  });

  it("finds page files named with the title's spaces as underscores", async () => {
    await imported;
    expect(manifest(out).pages.violin1.files).toEqual([
      'pages/violin1-1.png',
      'pages/violin1-2.png',
      'pages/violin1-3.png',
    ]);
  });

  it('reads a byte-identical second score-level BeatInfo once, and says so', async () => {
    const { report } = await imported;
    expect(report.notes).toContain(
      "1_Mini_Rose_BeatInfo.csv is a byte-identical copy of Mini_Rose_BeatInfo.csv (ZScore's export can write the score-level file twice); it was read once",
    );
    expect(report.notConverted.some((i) => i.source.startsWith('1_Mini_Rose_BeatInfo.csv'))).toBe(false);
  });

  it('reads the master 1_ score-level BeatInfo when the other differs, and leaves the other aside with a warning', async () => {
    const c = copyFixture();
    // an older export of the score beside the master: its last row is not in the master
    const older = path.join(c.dir, 'Mini_Rose_BeatInfo.csv');
    writeFileSync(
      older,
      `${readFileSync(older, 'utf8').replace(/\r?\n?$/, '')}\nMini Rose,Violin9,page1,1,bar1,1,4,4,60,4,1,0,1000,1000,1,2,3,0,10,0,10,0,x,1\n`,
    );
    const { report } = await importZScore(c.dir, c.out);
    expect(report.notes).toContain(
      "warning: Mini_Rose_BeatInfo.csv differs from 1_Mini_Rose_BeatInfo.csv, the master ZScore's ScoreMerger writes, the one ZScore's loader reads: it was ignored (an older export of the score, before its movements were merged?)",
    );
    expect(report.score.views.map((v) => v.instrument)).not.toContain('Violin9');
    rmSync(c.root, { recursive: true, force: true });
  });

  it("reads YAML with multi-line flow mappings as ZScore's reader (SnakeYAML) does", async () => {
    const { report } = await imported;
    expect(report.notes.some((n) => /^webscoreConfig\.yml: 11 lines inside multi-line flow mappings/.test(n))).toBe(
      true,
    );
    // its load preset (-2) gives the phones their voice and granulator: read, not listed
    expect(report.converted).toContainEqual(
      expect.objectContaining({ source: 'audienceScoreConfig.yml line 5', what: 'preset -2: config granulator' }),
    );
    expect(report.notConverted.some((i) => /^preset -2/.test(i.what))).toBe(false);
    // the values and line numbers are the ones written
    const config = readZScoreConfig(readFileSync(path.join(dir, 'webscoreConfig.yml'), 'utf8'), 'webscoreConfig.yml');
    expect(config.problems).toEqual([]);
    expect(config.presets.map((p) => [p.id, p.line])).toEqual([
      [-2, 3],
      [2, 15],
    ]);
  });

  it('leaves valid YAML alone and still refuses YAML that is broken in another way', () => {
    const valid = 'a: { b: 1,\n     c: 2 }\n';
    expect(readZScoreConfig(valid, 'x.yml').notes).toEqual([]);
    const broken = readZScoreConfig('presets:\n  - id: 1\n    scripts: [ "a",\n  b: ]]\n', 'x.yml');
    expect(broken.problems.length).toBeGreaterThan(0);
    expect(indentFlowContinuations('k: [\n"#[" ,\n# x [\n]\nz: 1\n').text).toBe(
      `k: [\n${' '.repeat(64)}"#[" ,\n${' '.repeat(64)}# x [\n${' '.repeat(64)}]\nz: 1\n`,
    );
  });

  it('turns @Q@ into an apostrophe and @C@ into a comma, and keeps the three instruction lines', async () => {
    await imported;
    const texts = manifest(out).cues.filter((/** @type {any} */ c) => c.set?.text !== undefined);
    expect(texts).toEqual([
      { at: 2, set: { text: 'You can select\nany tile, anytime.\nHowever,' } },
      { at: 6, set: { text: "The choices you've made\n?" } },
    ]);
  });

  it('reads the AV lane as the script source, not as a part', async () => {
    const { report } = await imported;
    expect(manifest(out).parts).toEqual([
      { id: 'violin1', name: 'Violin1' },
      { id: 'cello', name: 'Cello' },
    ]);
    expect(Object.keys(manifest(out).pages)).toEqual(['score', 'violin1', 'cello']);
    expect(report.notConverted).toContainEqual(
      expect.objectContaining({ what: 'the 3 page images of AV', reason: expect.stringMatching(/script lane/) }),
    );
  });

  it("does not make tiles of ZScore's shapes (centreShape, innerCircle, outerCircle)", async () => {
    const { report } = await imported;
    expect(JSON.stringify(manifest(out).cues)).not.toContain('centreShape');
    expect(report.notConverted).toContainEqual(
      expect.objectContaining({
        what: "webScore.setVisible(['centreShape'], true)",
        reason: expect.stringMatching(/shape/),
      }),
    );
  });

  it("shows pages whole: a beat box at ZScore's fixed y = 100 spans the page's height", async () => {
    await imported;
    const score = readJson(out, 'beatmaps/score.json');
    expect(score.beats[0]).toEqual({ beat: 0, page: 0, system: 0, bar: 0, x0: 30, x1: 70, y0: 0, y1: 400 });
    expect(readJson(out, 'beatmaps/violin1.json').beats[5]).toEqual({
      beat: 5,
      page: 1,
      system: 0,
      bar: 2,
      x0: 68,
      x1: 108,
      y0: 0,
      y1: 80,
    });
  });

  it("turns the active rows and tile texts into the audience's tiles, and the page strategy into a page choice the votes decide", async () => {
    const { report } = await imported;
    const m = manifest(out);
    expect(m.cues.filter((/** @type {any} */ c) => (c.set?.tiles || c.vote) && c.at < 5)).toEqual([
      // every tile on show from the start, keyed by id; a rose, since the page has the rose's shapes
      {
        at: 0,
        set: {
          layout: { rings: 1, slices: 2 },
          tiles: { 't1-1': { state: 'dim', text: '' }, 't1-2': { state: 'dim', text: '' } },
        },
      },
      // setActiveRows([1]) on beat 0 (beat=-1 from beat 1): a small patch per tile
      { at: 0, set: { tiles: { 't1-1': { state: 'lit' }, 't1-2': { state: 'lit' } } } },
      // page 3 is prepared when page 2 starts (beat 5): the audience votes until then
      { at: 0, vote: { id: 'page-3', tiles: ['t1-1', 't1-2'], close: { at: 5 } } },
      { at: 1, set: { tiles: { 't1-1': { text: 'hope' }, 't1-2': { text: 'fear' } } } },
    ]);
    // sce.setRndStrategy([1|1]) on beat 3: two pages, one part each
    expect(m.pageChoices).toEqual([
      // setPlayingNextTiles(['t1-2']) during page 2: the composer's tile is played there first
      {
        slot: 3,
        at: 5,
        from: [1, 2],
        groups: [1, 1],
        vote: 'page-3',
        tiles: { 't1-1': 1, 't1-2': 2 },
        next: ['t1-2'],
      },
    ]);
    const built = buildScoreModel(m);
    expect(built.ok && built.value.pageChoices).toHaveLength(1);
    const missing = report.notConverted
      .map((i) => i.what)
      .filter((w) => /setActiveRows|setTileTexts|setRndStrategy|^rndStrategy$|^pageRangeMapping$/.test(w));
    expect(missing).toEqual([]);
    expect(report.converted.map((i) => i.what)).toEqual(
      expect.arrayContaining(['rndStrategy', 'pageRangeMapping', 'sce:beat=3:sce.setRndStrategy([1|1])']),
    );
  });

  it("turns the page's motion into audience state: zoom, the stage's fade, a ring's swing", async () => {
    const { report } = await imported;
    const motion = manifest(out)
      .cues.filter((/** @type {any} */ c) => c.set?.layout?.zoom || c.set?.stage || c.set?.spin)
      .map((/** @type {any} */ c) => [c.at, c.set]);
    expect(motion).toEqual([
      [0, { stage: { alpha: 1, glide: 0 } }],
      [1, { layout: { zoom: 1 } }],
      [1, { stage: { alpha: 0, glide: 2000, from: 1, at: 1 } }],
      [7, { spin: { rings: [1], at: 7 } }],
    ]);
    // the shape's timeline is listed with ZScore's own reason, once
    expect(report.notConverted.filter((i) => /TIMELINE/.test(i.what)).map((i) => i.reason)).toEqual([
      expect.stringMatching(/ZScore's own drawings/),
    ]);
  });

  it('shows which tile sounds, which sounds next and which sounded (playTiles, setPlayingNextTiles)', async () => {
    const tiles = manifest(out)
      .cues.filter((/** @type {any} */ c) => c.at > 0 && c.set?.tiles)
      .map((/** @type {any} */ c) => [c.at, c.set.tiles]);
    expect(tiles).toContainEqual([5, { 't1-1': { state: 'playing' }, 't1-2': { state: 'next' } }]);
    expect(tiles).toContainEqual([9, { 't1-1': { state: 'played' }, 't1-2': { state: 'playing' } }]);
    // each a patch of the tiles that changed, far under the 300 bytes a single tile's change may take
    for (const [, t] of tiles) expect(JSON.stringify({ cues: { audience: { tiles: t } } }).length).toBeLessThan(300);
    // playTiles fades the tile out over 0.8 of its page (t1-1 is page 1: bar 0 and bar 1, 3.75 s)
    // and sweeps a play line across it over the page less its last beat, as szcore does
    const playing = manifest(out)
      .cues.filter((/** @type {any} */ c) => c.set?.playing)
      .map((/** @type {any} */ c) => c.set.playing);
    expect(playing).toEqual([
      { at: 5, fade: 3000, sweep: 3000 },
      { at: 9, fade: 2400, sweep: 2250 },
    ]);
  });

  it("shows each phone's selected tiles as the closing picture (ACTIVATE selectedTiles)", async () => {
    const { report } = await imported;
    const picture = manifest(out).cues.filter((/** @type {any} */ c) => c.set?.showSelected);
    expect(picture).toEqual([{ at: 11, set: { showSelected: { at: 11, ms: 4000 } } }]);
    expect(report.notConverted.some((i) => /ACTIVATE/.test(i.what))).toBe(false);
  });

  it("makes the phones speak the tiles' words with the load preset's voice", async () => {
    const { report } = await imported;
    expect(manifest(out).cues.filter((/** @type {any} */ c) => c.set?.speech)).toEqual([
      { at: 0, set: { speech: { enabled: false, volume: 1, rate: 0.7, lang: 'en-GB' } } },
      { at: 1, set: { speech: { enabled: true } } },
      { at: 1, set: { speech: { text: 'I want @TILE_TEXT@.' } } },
      // rampLinearSpeechParam('volume', 0.5, 4): from 1 to 0.5 over 4 s (q = 80), a step a beat
      ...[
        [6, 0.906],
        [7, 0.813],
        [8, 0.719],
        [9, 0.625],
        [10, 0.531],
        [11, 0.5],
      ].map(([at, volume]) => ({ at, set: { speech: { volume } } })),
    ]);
    expect(report.notConverted.some((i) => /SpeechSynth|SpeechText|SpeechParam/.test(i.what))).toBe(false);
  });

  it("gives the phones ZScore's granulator: the load preset's parameters, started and ramped on their beats", async () => {
    const { report } = await imported;
    const cues = manifest(out).cues.filter((/** @type {any} */ c) => c.set?.granulator);
    expect(cues[0]).toMatchObject({
      at: 0,
      set: {
        granulator: {
          src: null,
          play: null,
          gain: 0.1,
          config: { masterGainVal: 0.1, maxGrains: 16, envelope: { attackTime: 0.5, releaseTime: 0.5 } },
        },
      },
    });
    expect(cues.slice(1)).toEqual([
      { at: 5, set: { granulator: { gain: 0.2, glide: 10 } } },
      { at: 5, set: { granulator: { play: 5 } } },
      { at: 10, set: { granulator: { gain: 0.5, glide: 8000 } } },
    ]);
    expect(report.notConverted.some((i) => /Granulator|granulator/.test(i.what))).toBe(false);
    expect(report.notes.some((n) => /sound file is not in ZScore's export/.test(n))).toBe(true);
  });

  it("takes the granulator's sound from --granulator-sound (the export has none) into the package", async () => {
    const c = copyFixture();
    const sound = path.join(c.root, 'Union Rose m1.mp3');
    writeFileSync(sound, 'ID3 sound');
    const { report } = await importZScore(c.dir, c.out, { granulatorSound: sound });
    expect(readFileSync(path.join(c.out, 'audio/union-rose-m1.mp3'), 'utf8')).toBe('ID3 sound');
    expect(manifest(c.out).cues.find((/** @type {any} */ x) => x.set?.granulator?.src)?.set.granulator.src).toBe(
      'audio/union-rose-m1.mp3',
    );
    expect(report.notes.some((n) => /granulator plays audio\/union-rose-m1\.mp3/.test(n))).toBe(true);
    await expect(
      importZScore(c.dir, path.join(c.root, 'other'), { granulatorSound: path.join(c.root, 'notes.txt') }),
    ).rejects.toThrow(/must be an audio file/);
    rmSync(c.root, { recursive: true, force: true });
  });

  it('turns a scripted tempo ramp into tempo changes on the beats it spans', async () => {
    const { report } = await imported;
    // From q=80 to 40 over 2 beats from bar 3 beat 1: 60, then 40, which stays.
    expect(manifest(out).meter).toEqual([
      { bar: 1, time: '4/4', tempo: 80 },
      { bar: 3, tempo: 60 },
      { bar: 3, beat: 2, tempo: 40 },
    ]);
    const built = buildScoreModel(manifest(out));
    expect(built.ok && built.value.map.tempoAt(12)).toBe(40);
    expect(report.notConverted.some((i) => /timedAction/.test(i.what))).toBe(false);
    expect(report.converted).toContainEqual(
      expect.objectContaining({
        what: "sce:beat=1:sce.timedAction('tempo'| 40| 2)",
        result: expect.stringMatching(/from 80 to 40 over 2 beats from beat 9/),
      }),
    );
  });

  it('turns max: lines into OSC cues on their beats, as ZScore addresses them (/zs/<target> cmd args)', async () => {
    const { report } = await imported;
    const m = manifest(out);
    expect(m.osc).toEqual([
      // a reset-only line: the set-up ZScore sends when it starts at a position, on the beat
      // its beat=-1 names (the pickup before beat 1)
      { at: 0, address: '/zs/b1', args: ['setFile', 'UnionRose_b1.wav'], setup: 'only' },
      { at: 1, address: '/zs/b1', args: ['play'] },
      { at: 3, address: '/zs/mcGroove.mcgHarmonics', args: ['send', 'int', 3] },
    ]);
    const built = buildScoreModel(m);
    expect(built.ok && built.value.osc.map((c) => c.beat)).toEqual([0, 1, 3]);
    expect(report.converted).toContainEqual(
      expect.objectContaining({
        what: 'max:beat=-1:reset=only:setFile|b1|UnionRose_b1.wav',
        result: expect.stringMatching(/OSC set-up, sent when the performance starts at beat 0 or later/),
      }),
    );
    expect(report.notConverted.some((i) => /^max:beat=(1|3):/.test(i.what))).toBe(false);
  });

  it("lists ZScore's blank pages and INScore maps with their reasons", async () => {
    const { report } = await imported;
    expect(report.notConverted).toContainEqual(
      expect.objectContaining({ source: 'Violin1_pagex.png', reason: expect.stringMatching(/blank page/) }),
    );
    expect(report.notConverted).toContainEqual(
      expect.objectContaining({
        source: 'Mini_Rose_Cello_page1_InScoreMap.txt',
        reason: expect.stringMatching(/INScore map/),
      }),
    );
  });

  it('cleans up', () => imported.then(() => rmSync(root, { recursive: true, force: true })));
});

const REAL = existsSync(UNION_ROSE);
if (!REAL)
  console.warn(
    `import-zscore: ${UNION_ROSE} is absent, so the real Union Rose export is not imported (the rose fixture covers each of its quirks)`,
  );

describe.skipIf(!REAL)('import-zscore: the real Union Rose export, as ZScore wrote it', () => {
  it('imports with no hand edits into a valid package of the four players and the full score', async () => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'sc-union-rose-'));
    const out = path.join(root, 'package');
    try {
      const { report } = await importZScore(UNION_ROSE, out);
      const m = manifest(out);
      expect(m.title).toBe('Union Rose');
      expect(m.parts.map((/** @type {{ id: string }} */ p) => p.id)).toEqual(['violin1', 'violin2', 'viola', 'cello']);
      for (const view of ['score', 'violin1', 'violin2', 'viola', 'cello'])
        expect(m.pages[view].files).toHaveLength(56);
      expect(report.score.totalBeats).toBe(897);
      expect(report.timeMismatches).toEqual([]);
      const built = buildScoreModel(m);
      expect(built.ok).toBe(true);
      const text = JSON.stringify(m.cues);
      expect(text).toContain("The choices you've made");
      expect(text).not.toMatch(/@Q@|@C@|centreShape/);
      // the audience chooses pages: 28 slots of the random ranges, 21 decided by a vote window
      expect(built.ok && built.value.pageChoices).toHaveLength(28);
      expect(built.ok && built.value.votes).toHaveLength(21);
      expect(m.pageChoices[0]).toMatchObject({ slot: 9, from: [1, 8], groups: [1] });
      // the composer's next tiles, set during the page before a slot, come first there
      expect(
        m.pageChoices.filter((/** @type {any} */ c) => c.next).map((/** @type {any} */ c) => [c.slot, c.next]),
      ).toEqual([
        [9, ['t2-1']],
        [25, ['t5-1']],
        [41, ['t7-1']],
      ]);
      // the rose: 64 tiles in 8 rings, keyed by id
      expect(m.cues[0].set.layout).toEqual({ rings: 8, slices: 8 });
      expect(Object.keys(m.cues[0].set.tiles)).toHaveLength(64);
      // its electronics, sound, tile states and presets, all converted
      expect(m.osc.filter((/** @type {any} */ c) => !c.setup).length).toBeGreaterThan(200); // 241: every max: line once (the exporter writes each up to four times)
      expect(m.osc.find((/** @type {any} */ c) => !c.setup)).toEqual({ at: 1, address: '/zs/b1', args: ['play'] });
      // the reset-only lines: the set-up of each page's start (the files of its buffers, the preset)
      expect(m.osc.filter((/** @type {any} */ c) => c.at === 0 && c.setup === 'only')).toHaveLength(5);
      expect(report.notConverted.some((i) => /^max:/.test(i.what))).toBe(false);
      // sce.sendMaxMspRndPageUpdates: the Max patch loads the sound file of the page chosen next
      const rnd = m.osc.filter((/** @type {any} */ c) => /\{page:/.test(String(c.args[1])));
      expect(rnd).toHaveLength(14);
      expect(rnd[0]).toEqual({ at: 141, address: '/zs/b2', args: ['setFile', 'UnionRose_b{page:10}.wav'] });
      expect(report.notConverted.some((i) => /sendMaxMspRndPageUpdates/.test(i.what))).toBe(false);
      expect(
        m.cues.filter(
          (/** @type {any} */ c) => c.set?.granulator?.play !== undefined && c.set.granulator.play !== null,
        ),
      ).toHaveLength(1);
      expect(
        m.cues.some((/** @type {any} */ c) =>
          Object.values(c.set?.tiles ?? {}).some((/** @type {any} */ x) => x?.state === 'played'),
        ),
      ).toBe(true);
      expect(m.presets.find((/** @type {any} */ p) => p.id === 0)).toEqual({
        id: 0,
        name: 'ZScore preset 0',
        set: { text: 'get ready for\nUnion Rose\nperformance' },
      });
      // a section's preset: the rose's rows, zoom and disc as well as its words
      const section = m.presets.find((/** @type {any} */ p) => p.id === 3).set;
      expect(section).toMatchObject({ layout: { zoom: 1 }, stage: { alpha: 0, glide: 500 } });
      expect(section.tiles).toMatchObject({
        't1-1': { state: 'hidden' },
        't2-1': { state: 'lit' },
        't3-1': { state: 'dim' },
      });
      expect(report.notConverted.some((i) => /Granulator|SpeechParam|playTiles|setPlayingNextTiles/.test(i.what))).toBe(
        false,
      );
      // the page's motion: zoom from the centre outwards, the dark disc faded in and out, rings swinging
      const motion = m.cues.filter((/** @type {any} */ c) => c.set?.layout?.zoom || c.set?.stage || c.set?.spin);
      expect(motion.slice(0, 4).map((/** @type {any} */ c) => [c.at, c.set])).toEqual([
        [0, { stage: { alpha: 1, glide: 0 } }],
        [1, { layout: { zoom: 1 } }],
        [2, { spin: { rings: [1, 2], at: 2 } }],
        [3, { stage: { alpha: 0, glide: 8000, from: 1, at: 3 } }],
      ]);
      expect(motion.at(-1)).toEqual({ at: 849, set: { stage: { alpha: 1, glide: 30000, from: 0, at: 849 } } });
      expect(report.notConverted.some((i) => /setZoomLevel|setStageAlpha|ROTATE|ACTIVATE/.test(i.what))).toBe(false);
      // the closing picture of each phone's selected tiles, flown in over 36 s
      expect(m.cues.find((/** @type {any} */ c) => c.set?.showSelected)).toEqual({
        at: 770,
        set: { showSelected: { at: 770, ms: 36000 } },
      });
      // every page shown whole: no beat box is a strip at y = 100
      expect(
        readJson(out, 'beatmaps/violin1.json').beats.every(
          (/** @type {{ y0: number, y1: number }} */ b) => b.y0 === 0 && b.y1 === 211,
        ),
      ).toBe(true);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  }, 60_000);
});

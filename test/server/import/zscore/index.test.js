import path from 'node:path';
import os from 'node:os';
import { cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, it, expect } from 'vitest';
import { parse } from 'yaml';
import AjvModule from 'ajv';
import { buildScoreModel } from '../../../../core/manifest.js';
import { loadPackage } from '../../../../server/package/load.js';
import { SCHEMA_PATH } from '../../../../server/package/manifest-schema.js';
import { importZScore } from '../../../../server/import/zscore/index.js';
import { run } from '../../../../server/import/zscore/cli.js';
import { createPackageWriter } from '../../../../server/import/zscore/package-dir.js';
import { slug } from '../../../../server/import/zscore/views.js';
import {
  parseWebCalls,
  plainText,
  splitWebResource,
  zscoreScriptBeat,
} from '../../../../server/import/zscore/script.js';
import { compareBeatTimes, meterFromBeats } from '../../../../server/import/zscore/timing.js';

// ajv is CommonJS: under nodenext its default export is the module object.
const Ajv = /** @type {typeof AjvModule.default} */ (/** @type {any} */ (AjvModule).default ?? AjvModule);

const FIXTURE = path.join(path.dirname(fileURLToPath(import.meta.url)), '../../../fixtures/zscore/mini');

/** A copy of the Mini export in a fresh temporary folder, and a package folder beside it. */
function copyFixture() {
  const root = mkdtempSync(path.join(os.tmpdir(), 'sc-zscore-'));
  const dir = path.join(root, 'export');
  cpSync(FIXTURE, dir, { recursive: true });
  return { root, dir, out: path.join(root, 'package') };
}

/**
 * Rewrite the rows of BeatInfo CSVs: `fn` gets a row's cells by column name and its line, and
 * returns the row to keep (changed or not) or null to drop it.
 * @param {string} dir
 * @param {(file: string) => boolean} which
 * @param {(row: Record<string, string>, line: number, file: string) => Record<string, string> | null} fn
 */
function editCsv(dir, which, fn) {
  for (const file of readdirSync(dir).filter((f) => f.endsWith('_BeatInfo.csv') && which(f))) {
    const [header, ...rows] = readFileSync(path.join(dir, file), 'utf8').trimEnd().split('\n');
    const names = header.split(',');
    /** @type {string[]} */
    const kept = [];
    rows.forEach((r, i) => {
      const cells = r.split(',');
      const row = fn(Object.fromEntries(names.map((n, k) => [n, cells[k]])), i + 2, file);
      if (row) kept.push(names.map((n) => row[n]).join(','));
    });
    writeFileSync(path.join(dir, file), `${[header, ...kept].join('\n')}\n`);
  }
}

const ALL = () => true;
/** @param {string} dir */
const readJson = (dir, /** @type {string} */ f) => JSON.parse(readFileSync(path.join(dir, f), 'utf8'));
/** @param {string} dir */
const manifest = (dir) => parse(readFileSync(path.join(dir, 'score.yaml'), 'utf8'));

/** Every file under `dir`, as paths relative to it. @param {string} dir @returns {string[]} */
function listFiles(dir) {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? listFiles(path.join(dir, e.name)).map((f) => `${e.name}/${f}`) : [e.name]))
    .sort();
}

describe('import-zscore: the Mini export', () => {
  const { dir, out } = copyFixture();
  const imported = importZScore(dir, out);

  it('writes a package: manifest, page images, one beat map per view, the report', async () => {
    await imported;
    expect(listFiles(out)).toEqual([
      'beatmaps/cello.json',
      'beatmaps/score.json',
      'beatmaps/violin.json',
      'import-report.md',
      'pages/cello-1.png',
      'pages/score-1.png',
      'pages/violin-1.png',
      'pages/violin-2.png',
      'score.schema.json',
      'score.yaml',
    ]);
    expect(
      readFileSync(path.join(out, 'pages/violin-2.png')).equals(
        readFileSync(path.join(FIXTURE, 'Mini_Violin_page2.png')),
      ),
    ).toBe(true);
  });

  // An editor with yaml-language-server finds the schema through the modeline, relative to
  // score.yaml: the package carries its own copy, so it still does when the package is moved.
  it('names a copy of the schema in the first line of score.yaml, which the server loads past and never serves', async () => {
    await imported;
    const text = readFileSync(path.join(out, 'score.yaml'), 'utf8');
    expect(text.split('\n').slice(0, 2)).toEqual([
      '# yaml-language-server: $schema=./score.schema.json',
      `# Imported from ZScore's export of "Mini" by scorecast import-zscore; import-report.md lists what was and was not converted.`,
    ]);
    const copy = readFileSync(path.join(out, 'score.schema.json'), 'utf8');
    expect(copy).toBe(readFileSync(SCHEMA_PATH, 'utf8'));
    const validate = new Ajv({ strict: false }).compile(JSON.parse(copy));
    expect(validate(parse(text)), JSON.stringify(validate.errors)).toBe(true);
    const pkg = await loadPackage(out, { cacheDir: mkdtempSync(path.join(os.tmpdir(), 'sc-zscore-cache-')) });
    expect(pkg.model.id).toBe('mini');
    expect([...pkg.files.keys()].filter((url) => url.includes('schema'))).toEqual([]);
  });

  it('maps parts to views: FullScore is the score view, parts get slug ids', async () => {
    await imported;
    const m = manifest(out);
    expect(m.id).toBe('mini');
    expect(m.title).toBe('Mini');
    expect(m.parts).toEqual([
      { id: 'violin', name: 'Violin' },
      { id: 'cello', name: 'Cello' },
    ]);
    expect(m.pages).toEqual({
      score: { files: ['pages/score-1.png'], beatmap: 'beatmaps/score.json' },
      violin: { files: ['pages/violin-1.png', 'pages/violin-2.png'], beatmap: 'beatmaps/violin.json' },
      cello: { files: ['pages/cello-1.png'], beatmap: 'beatmaps/cello.json' },
    });
  });

  it('builds beat maps from the BeatInfo positions, page sizes from the PNG headers', async () => {
    await imported;
    const violin = readJson(out, 'beatmaps/violin.json');
    expect(violin.pages).toEqual([
      { file: 'pages/violin-1.png', width: 800, height: 400 },
      { file: 'pages/violin-2.png', width: 800, height: 400 },
    ]);
    expect(violin.beats).toHaveLength(17);
    expect(violin.beats[0]).toEqual({ beat: 0, page: 0, system: 0, bar: 0, x0: 30, x1: 90, y0: 80, y1: 160 });
    // x goes back and y changes: a new system
    expect(violin.beats[5]).toEqual({ beat: 5, page: 0, system: 1, bar: 2, x0: 40, x1: 120, y0: 240, y1: 320 });
    // page 2 opens with ZScore's lead-in (a repeat of beat 7): beat 7 stays on page 1, beat 8 is next
    expect(violin.beats[7]).toEqual({ beat: 7, page: 0, system: 1, bar: 2, x0: 200, x1: 280, y0: 240, y1: 320 });
    expect(violin.beats[8]).toEqual({ beat: 8, page: 1, system: 0, bar: 3, x0: 68, x1: 138, y0: 80, y1: 160 });
    // Cello: x goes back with the same y (ZScore writes a fixed y): still a new system; a box at
    // ZScore's fixed y marks no staff, so it spans the page's height (300)
    const cello = readJson(out, 'beatmaps/cello.json');
    expect(cello.beats[8]).toEqual({ beat: 8, page: 0, system: 1, bar: 3, x0: 40, x1: 100, y0: 0, y1: 300 });
    expect(readJson(out, 'beatmaps/score.json').pages).toEqual([
      { file: 'pages/score-1.png', width: 1200, height: 900 },
    ]);
  });

  it("derives pickup, bars and meter; the tempo map puts every beat at ZScore's startTimeMillis", async () => {
    const { report } = await imported;
    const m = manifest(out);
    expect(m.pickup).toBe(1);
    expect(m.bars).toBe(4);
    expect(m.meter).toEqual([
      { bar: 1, time: '4/4', tempo: 120 },
      { bar: 2, time: '3/4' },
      { bar: 3, tempo: 100 },
      { bar: 4, time: '6/8', tempo: 200 }, // q=100 in 6/8 is 200 eighths a minute
    ]);
    const built = buildScoreModel(m);
    if (!built.ok) throw new Error(JSON.stringify(built.problems));
    const starts = readFileSync(path.join(FIXTURE, 'Mini_FullScore_page1_BeatInfo.csv'), 'utf8')
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => l.split(','))
      .filter((c) => !c[22].includes(':'))
      .map((c) => Number(c[11]));
    expect(starts).toHaveLength(17);
    expect(starts.map((_, i) => built.value.map.timeAt(i))).toEqual(starts);
    expect(report.timeMismatches).toEqual([]);
  });

  it('converts web: scripts to audience cues at the right beats, presets included', async () => {
    await imported;
    expect(manifest(out).cues).toEqual([
      { at: 1, set: { text: 'Get ready\nlisten' } },
      // beat=2 on beat 5 is the next beat; HTML markup is dropped; the colour is the panel's
      // setVisible shows ZScore's shapes (centreShape), which are not tiles: not converted
      { at: 6, set: { text: 'Now\nplay', background: '#203040' } },
      // webScore.reset(2) runs preset 2 of audienceScoreConfig.yml
      { at: 8, set: { text: 'Slower' } },
      { at: 14, set: { text: 'Fin', color: null, background: null } },
    ]);
  });

  it('lists every item not converted with its source line and reason', async () => {
    const { report } = await imported;
    const items = report.notConverted.map((i) => `${i.source} | ${i.what} | ${i.reason}`);
    const expected = [
      /^Mini_BeatInfo\.csv line 19 \| sce:sce\.resetState\(\) \| .*scripting engine/,
      /^Mini_BeatInfo\.csv line 21 \| webScore\.setVisible\(\['centreShape'\],true\) \| shows or hides a shape of ZScore's audience page/,
      /^Mini_BeatInfo\.csv line 44 \| webScore\.setStageAlpha\(0\.5,2\) \| /,
      /^Mini_BeatInfo\.csv line 64 \| web:reset=only:.* \| a reset-only script/,
      /^audienceScoreConfig\.yml line 4 \| preset -2: config granulator \| no web: script at a beat runs it/,
      /^audienceScoreConfig\.yml line 15 \| webScore\.setVisible\(\['centreShape', 'innerCircle'\], false\) \| shows or hides a shape/,
      /^audienceScoreConfig\.yml line 16 \| webScore\.setGranulatorConfig\(\{'grain\.sizeMs': 50\}\) \| browser sound of this kind/,
      /^audienceScoreConfig\.yml line 18 \| pageRangeMapping \| /,
    ];
    expect(items).toHaveLength(expected.length);
    items.forEach((item, i) => {
      expect(item).toMatch(expected[i]);
    });
    const md = readFileSync(path.join(out, 'import-report.md'), 'utf8');
    expect(md).toContain('## Not converted (8)');
    // a preset no script runs is one the conductor fires from the console
    expect(report.converted).toContainEqual(
      expect.objectContaining({
        source: 'audienceScoreConfig.yml line 7',
        what: 'preset 1',
        result: expect.stringMatching(
          /^presets: \{ id: 1, set: \{"text":"Welcome\\nto Mini","color":null,"background":null\} \}/,
        ),
      }),
    );
    // a max: line is an OSC cue, addressed as ZScore addresses it (/zs/ + its target)
    expect(report.converted).toContainEqual(
      expect.objectContaining({
        source: 'Mini_BeatInfo.csv line 62',
        result: 'OSC cue at beat 1: /zs//mini/bell bell 1',
      }),
    );
    expect(md).toContain("every beat starts within 1 ms of ZScore's startTimeMillis (17 beats checked)");
    expect(
      report.converted.some((c) => c.source === 'Mini_BeatInfo.csv line 20' && /cue at beat 1/.test(c.result ?? '')),
    ).toBe(true);
    expect(
      report.notes.some((n) =>
        /Mini_Violin_page2_BeatInfo\.csv line 2: beat 7 opens page 2 again as ZScore's lead-in upbeat/.test(n),
      ),
    ).toBe(true);
  });
});

describe('import-zscore: beat numbers and timing', () => {
  it('counts beats from 0 in performance order when ZScore numbers them from 1', async () => {
    const a = copyFixture();
    const b = copyFixture();
    editCsv(b.dir, ALL, (r) => ({ ...r, beatNo: String(Number(r.beatNo) + 1) }));
    await importZScore(a.dir, a.out);
    await importZScore(b.dir, b.out);
    for (const f of ['score.yaml', 'beatmaps/violin.json', 'beatmaps/cello.json']) {
      expect(readFileSync(path.join(b.out, f), 'utf8')).toBe(readFileSync(path.join(a.out, f), 'utf8'));
    }
  });

  it('reports beats whose ZScore time differs from the tempo map by more than 1 ms', async () => {
    const { dir, out } = copyFixture();
    editCsv(dir, ALL, (r) => (r.beatNo === '9' ? { ...r, startTimeMillis: String(Number(r.startTimeMillis) + 5) } : r));
    const { report } = await importZScore(dir, out);
    expect(report.timeMismatches).toEqual([
      { beat: 9, source: 'Mini_FullScore_page1_BeatInfo.csv line 11', zscoreMs: 4605, ourMs: 4600 },
    ]);
    const md = readFileSync(path.join(out, 'import-report.md'), 'utf8');
    expect(md).toContain('| 9 | Mini_FullScore_page1_BeatInfo.csv line 11 | 4605 | 4600 | -5 |');
  });
});

describe('import-zscore: bad input', () => {
  /**
   * @param {(dir: string) => void} breakIt
   * @param {RegExp} message
   */
  async function expectError(breakIt, message) {
    const { dir, out } = copyFixture();
    breakIt(dir);
    await expect(importZScore(dir, out)).rejects.toMatchObject({
      code: 'SC_ERR_SCORE_INVALID',
      message: expect.stringMatching(message),
    });
    expect(existsSync(out)).toBe(false); // nothing written
  }

  it('a page image is missing', () =>
    expectError(
      (d) => rmSync(path.join(d, 'Mini_Violin_page2.png')),
      /\nMini_Violin_page2_BeatInfo\.csv: there is no page image Mini_Violin_page2\.png beside it/,
    ));

  it("a page's BeatInfo is missing", () =>
    expectError(
      (d) => rmSync(path.join(d, 'Mini_Cello_page1_BeatInfo.csv')),
      /\nMini_Cello_page1\.png: there is no Mini_Cello_page1_BeatInfo\.csv beside it/,
    ));

  it('the score-level BeatInfo is missing', () =>
    expectError((d) => rmSync(path.join(d, 'Mini_BeatInfo.csv')), /there is no score-level <Score>_BeatInfo\.csv/));

  it('a CSV has the wrong columns', () =>
    expectError((d) => {
      const f = path.join(d, 'Mini_Violin_page1_BeatInfo.csv');
      writeFileSync(f, readFileSync(f, 'utf8').replace('xStartPxl', 'xStart'));
    }, /\nMini_Violin_page1_BeatInfo\.csv line 1: missing column xStartPxl; unknown column "xStart"; ZScore's BeatInfo header is scoreName,/));

  it('a cell is not a number', () =>
    expectError(
      (d) =>
        editCsv(
          d,
          (f) => f === 'Mini_Violin_page2_BeatInfo.csv',
          (r, line) => (line === 3 ? { ...r, tempoBpm: 'fast' } : r),
        ),
      /\nMini_Violin_page2_BeatInfo\.csv line 3: tempoBpm: "fast" is not a number; ZScore writes whole numbers here/,
    ));

  it('a beat is missing', () =>
    expectError(
      (d) =>
        editCsv(
          d,
          (f) => f === 'Mini_Cello_page1_BeatInfo.csv',
          (r) => (r.beatNo === '10' && !r.resource.includes(':') ? null : r),
        ),
      /\nMini_Cello_page1_BeatInfo\.csv line 12: beatNo jumps from 9 to 11; beat 10 is missing/,
    ));

  it('a page image is not a PNG', () =>
    expectError(
      (d) => writeFileSync(path.join(d, 'Mini_Cello_page1.png'), 'GIF89a not a png at all'),
      /\nMini_Cello_page1\.png: is not a PNG image/,
    ));

  it('the parts disagree on the timeline', () =>
    expectError(
      (d) =>
        editCsv(
          d,
          (f) => f === 'Mini_Cello_page1_BeatInfo.csv',
          (r) => (r.beatNo === '12' ? { ...r, tempoBpm: '90' } : r),
        ),
      /\nMini_Cello_page1_BeatInfo\.csv line 14: beat 12 is bar 4, 6\/8, 180 a minute .* all parts share one timeline/,
    ));

  it('the time signature changes inside a bar', () =>
    expectError(
      (d) => editCsv(d, ALL, (r) => (r.beatNo === '3' ? { ...r, timeSigNum: '5' } : r)),
      /\nMini_FullScore_page1_BeatInfo\.csv line 5: the time signature changes inside bar 1 \(4\/4 to 5\/4\)/,
    ));

  it('a bar is not full', () =>
    expectError(
      (d) => editCsv(d, ALL, (r) => (r.beatNo === '10' ? { ...r, barNo: '4', timeSigNum: '6', timeSigDenom: '8' } : r)),
      /\nMini_FullScore_page1_BeatInfo\.csv line 10: bar 3 has 2 beats but its time signature 3\/4 has 3; scorecast's meter needs full bars/,
    ));

  it('the YAML configuration is not YAML', () =>
    expectError(
      (d) => writeFileSync(path.join(d, 'audienceScoreConfig.yml'), 'scoreName: "Mini"\npresets: [ { id: 1\n'),
      /\naudienceScoreConfig\.yml line \d+: YAML: /,
    ));

  it('the export folder does not exist', async () => {
    const { root, out } = copyFixture();
    // Not "the score package is invalid": nothing is wrong with a package that was never found.
    await expect(importZScore(path.join(root, 'nope'), out)).rejects.toMatchObject({
      code: 'SC_ERR_EXPORT_NOT_FOUND',
      message: expect.stringMatching(
        /^No ZScore export at that path; give the folder ZScore exported the score to\. \(.*nope: no such folder\)$/,
      ),
    });
  });

  it('the package folder exists and is not empty', async () => {
    const { dir, out } = copyFixture();
    cpSync(path.join(dir, 'audienceScoreConfig.yml'), path.join(out, 'keep-me.yml'), { recursive: true });
    await expect(importZScore(dir, out)).rejects.toMatchObject({
      code: 'SC_ERR_SCORE_INVALID',
      message: expect.stringMatching(/package exists and is not empty; choose a new folder or empty this one/),
    });
    expect(readdirSync(out)).toEqual(['keep-me.yml']);
  });
});

describe('import-zscore: paths', () => {
  it('never takes output file names from CSV content, and makes safe ids from odd names', async () => {
    const { root, dir, out } = copyFixture();
    // Hostile resources (ZScore writes the page file's path there) and an instrument name that
    // is not a valid id.
    editCsv(dir, ALL, (r) => ({ ...r, resource: r.resource.includes(':') ? r.resource : '../../../../escaped.png' }));
    for (const f of readdirSync(dir).filter((n) => n.startsWith('Mini_Cello_'))) {
      renameSync(path.join(dir, f), path.join(dir, f.replace('Mini_Cello_', 'Mini_..Cello É_')));
    }
    editCsv(dir, ALL, (r) => (r.instrumentName === 'Cello' ? { ...r, instrumentName: '..Cello É' } : r));
    const { report } = await importZScore(dir, out);
    expect(report.score.views.map((v) => v.id)).toEqual(['score', 'violin', 'cello-e']);
    expect(readdirSync(root).sort()).toEqual(['export', 'package']);
    expect(listFiles(out)).toContain('pages/cello-e-1.png');
    expect(listFiles(out).every((f) => !f.includes('..'))).toBe(true);
  });

  it('the package writer refuses paths that leave the folder', async () => {
    const { out } = copyFixture();
    const w = createPackageWriter(out);
    for (const bad of ['../x.png', '/etc/x', 'pages/../../x', 'a\\b', '', 'pages/./x']) {
      await expect(w.write(bad, 'x')).rejects.toThrow(/refusing to write/);
    }
    await w.write('pages/ok.png', 'x');
    expect(listFiles(out)).toEqual(['pages/ok.png']);
  });

  it('slugs names into ids', () => {
    expect(slug('../../Evil Name', 'x')).toBe('evil-name');
    expect(slug('Violin I (solo)', 'x')).toBe('violin-i-solo');
    expect(slug('…', 'part')).toBe('part');
  });
});

describe('import-zscore: reading ZScore scripts and times', () => {
  it("undoes ZScore's escapes and reads the prefixes", () => {
    expect(splitWebResource("web:beat=-1:reset=both:webScore.setInstructions(\u2019a@C@b\u2019|'c'|'')")).toEqual({
      ok: true,
      value: { beat: -1, reset: 'both', body: "webScore.setInstructions('a,b','c','')" },
    });
    expect(splitWebResource('web:beat=x:webScore.resetState()').ok).toBe(false);
  });

  it('moves beat=N scripts as ZScore does', () => {
    expect([1, 2, 4, -1, 0].map((n) => zscoreScriptBeat(11, n))).toEqual([11, 12, 14, 10, 10]);
    expect(zscoreScriptBeat(11, 11)).toBe(11); // N equal to the row's beat: that beat
  });

  it('reads calls with literal arguments only', () => {
    const ok = parseWebCalls(
      "webScore.setVisible(['a', \"b\"], true); webScore.setGranulatorConfig({'grain.sizeMs': 5, x: [1, -2.5]});",
    );
    expect(ok).toEqual({
      ok: true,
      calls: [
        { method: 'setVisible', args: [['a', 'b'], true], text: 'webScore.setVisible([\'a\', "b"], true)' },
        {
          method: 'setGranulatorConfig',
          args: [{ 'grain.sizeMs': 5, x: [1, -2.5] }],
          text: "webScore.setGranulatorConfig({'grain.sizeMs': 5, x: [1, -2.5]})",
        },
      ],
    });
    for (const bad of [
      'alert(1)',
      'webScore.setInstructions(x)',
      'webScore.reset(1) webScore.reset(2)',
      "webScore.setInstructions('a'",
    ]) {
      expect(parseWebCalls(bad).ok, bad).toBe(false);
    }
  });

  it('keeps the text of HTML lines', () => {
    expect(plainText("<span style='color:red'>Dia&amp;log</span><br>two&#33;")).toBe('Dia&log two!');
  });

  it("shows ZScore's rounding drift at 90 bpm: 667 ms beats instead of 666.67", () => {
    /** @type {import('../../../../server/import/zscore/timing.js').TimedBeat[]} */
    const beats = Array.from({ length: 8 }, (_, i) => ({
      bar: 1 + Math.floor(i / 4),
      time: [4, 4],
      bpm: 90,
      startMs: i * 667,
      source: `x.csv line ${i + 2}`,
    }));
    const meter = meterFromBeats(beats);
    if (!meter.ok) throw new Error(JSON.stringify(meter.problems));
    expect(meter.value.meter).toEqual([{ bar: 1, time: '4/4', tempo: 90 }]);
    const off = compareBeatTimes(meter.value.map, beats);
    expect(off.map((m) => m.beat)).toEqual([4, 5, 6, 7]); // 1.33 ms at beat 4, growing
    expect(off[3]).toEqual({ beat: 7, source: 'x.csv line 9', zscoreMs: 4669, ourMs: 4666.667 });
  });
});

describe('scorecast import-zscore (cli)', () => {
  /** @param {string[]} argv */
  async function cli(argv) {
    let out = '';
    let err = '';
    const code = await run(argv, {
      out: (t) => {
        out += t;
      },
      err: (t) => {
        err += t;
      },
    });
    return { code, out, err };
  }

  it('prints a summary and the report path', async () => {
    const { dir, out } = copyFixture();
    const r = await cli(['import-zscore', dir, out]);
    expect(r.code).toBe(0);
    expect(r.out).toContain('Imported "Mini"');
    expect(r.out).toContain('views: score (FullScore, 1 page), violin (Violin, 2 pages), cello (Cello, 1 page)');
    expect(r.out).toContain('17 beats: a 1-beat pickup and 4 bars; 4 cues');
    expect(r.out).toContain(`Report: ${path.join(out, 'import-report.md')}`);
  });

  it('exits 1 with the problems on bad input, 2 on bad usage', async () => {
    const { dir, out } = copyFixture();
    rmSync(path.join(dir, 'Mini_Violin_page1.png'));
    const bad = await cli([dir, out]);
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(/SC_ERR|invalid/i);
    expect(bad.err).toContain('Mini_Violin_page1_BeatInfo.csv: there is no page image Mini_Violin_page1.png beside it');
    expect((await cli([dir])).code).toBe(2);
    expect((await cli([dir, out, '--granulator-sound'])).code).toBe(2);
    expect((await cli([dir, out, '--granulator-sound', path.join(dir, 'none.mp3')])).err).toMatch(
      /none\.mp3: no such file/,
    );
    expect((await cli(['--help'])).out).toMatch(/^usage: scorecast import-zscore .*--granulator-sound FILE/);
  });
});

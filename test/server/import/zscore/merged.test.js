// ZScore's merged exports (ScoreMerger): the master `1_<Score>_BeatInfo.csv` is the truth, the
// page files are the movements' originals, an older unmerged score-level file lies beside it.
// On the fixture test/fixtures/zscore/merged (make-merged.js: synthetic, in the shape of the
// Dialogs export in szagorac/zsweb).

import path from 'node:path';
import os from 'node:os';
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, it, expect } from 'vitest';
import { parse } from 'yaml';
import { buildScoreModel } from '../../../../core/manifest.js';
import { createTempoMap } from '../../../../core/tempo-map.js';
import { loadPackage } from '../../../../server/package/load.js';
import { unknownKeys } from '../../../../server/package/manifest-schema.js';
import { importZScore } from '../../../../server/import/zscore/index.js';
import { run } from '../../../../server/import/zscore/cli.js';
import { parseBeatInfoCsv } from '../../../../server/import/zscore/csv.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const FIXTURE = path.join(HERE, '../../../fixtures/zscore/merged');
const MINI = path.join(HERE, '../../../fixtures/zscore/mini');
const MASTER = '1_minimerge_BeatInfo.csv';

/** A copy of a fixture in a fresh temporary folder, and a package folder beside it. */
function copyFixture(from = FIXTURE) {
  const root = mkdtempSync(path.join(os.tmpdir(), 'sc-zmerged-'));
  const dir = path.join(root, 'export');
  cpSync(from, dir, { recursive: true });
  return { root, dir, out: path.join(root, 'package') };
}
/** @param {string} dir */
const manifest = (dir) => parse(readFileSync(path.join(dir, 'score.yaml'), 'utf8'));
/**
 * Rewrite a file of the export, line by line.
 * @param {string} file @param {(line: string, i: number) => string | null} edit  null drops the line
 */
function editLines(file, edit) {
  const text = readFileSync(file, 'utf8');
  const eol = text.includes('\n') ? '\n' : '\r';
  const lines = text.split(eol);
  writeFileSync(
    file,
    lines
      .map(edit)
      .filter((l) => l !== null)
      .join(eol),
  );
}

describe('import-zscore: a merged export of three movements', () => {
  const { root, dir, out } = copyFixture();
  const imported = importZScore(dir, out);

  it('imports with no hand edits into a package that loads and passes the schema', async () => {
    const { report } = await imported;
    expect(report.score.title).toBe('MiniMerge');
    expect(report.score.totalBeats).toBe(31);
    expect(buildScoreModel(manifest(out)).ok).toBe(true);
    expect(unknownKeys(manifest(out))).toEqual([]);
    const pkg = await loadPackage(out, { cacheDir: mkdtempSync(path.join(os.tmpdir(), 'sc-zmerged-cache-')) });
    expect(pkg.model.id).toBe('minimerge');
  });

  it("starts every beat within 1 ms of the master's startTimeMillis", async () => {
    const { report } = await imported;
    expect(report.timeMismatches).toEqual([]);
    // checked here too, from the master file itself and the written meter
    const master = parseBeatInfoCsv(readFileSync(path.join(dir, MASTER), 'utf8'), MASTER);
    expect(master.problems).toEqual([]);
    const starts = new Map();
    for (const r of master.rows)
      if (r.instrumentName === 'Violin' && !r.script && !starts.has(r.beatNo)) starts.set(r.beatNo, r.startTimeMillis);
    expect(starts.size).toBe(31);
    const m = manifest(out);
    const map = createTempoMap({
      bars: m.bars,
      pickup: m.pickup,
      changes: m.meter.map((/** @type {{ bar: number, beat?: number, time?: string, tempo?: number }} */ e) => ({
        bar: e.bar,
        ...(e.beat !== undefined ? { beat: e.beat } : {}),
        ...(e.tempo !== undefined ? { tempo: e.tempo } : {}),
        ...(e.time ? { time: /** @type {[number, number]} */ (e.time.split('/').map(Number)) } : {}),
      })),
    });
    for (const [beatNo, ms] of starts) expect(Math.abs(map.timeAt(beatNo) - ms)).toBeLessThanOrEqual(1);
    // The master times each movement from its lead-in, which has the new movement's tempo and
    // upbeat length: the beat it repeats is played so (MergeRhythm's q=80 upbeat, 750 ms).
    expect(m.meter).toContainEqual({ bar: 3, beat: 4, tempo: 80 });
  });

  it("makes ZScore's section builder the package's open form, the movements its sections", async () => {
    const { report } = await imported;
    const m = manifest(out);
    expect(m.openForm).toEqual({
      start: 'pitch',
      sections: [
        { id: 'pitch', name: 'pitch', beats: [0, 12], chooser: 'first' },
        { id: 'rhythm', name: 'rhythm', beats: [13, 18], chooser: 'first' },
        { id: 'noise', name: 'noise', beats: [19, 30], chooser: 'first' },
      ],
    });
    expect(report.notConverted).toContainEqual(
      expect.objectContaining({ source: 'strategyConfig.yml line 2', what: 'builderStrategy isStopOnSectionEnd' }),
    );
    expect(report.notConverted.map((/** @type {{ what: string }} */ x) => x.what)).not.toContain('builderStrategy');
  });

  it("reads the beats from the master, not from the movements' original page files", async () => {
    const { report } = await imported;
    expect(report.converted).toContainEqual(
      expect.objectContaining({ source: MASTER, what: 'beat positions of Violin' }),
    );
    expect(report.notes).toContain(
      `Violin: the BeatInfo files of pages 1–5 are the movements' originals (scoreName "MergePitch", "MergeRhythm", "MergeNoise", pageNo within the movement), as ZScore's ScoreMerger copies them; their beats were read from the master ${MASTER}, renumbered into one score, as ZScore's loader reads them`,
    );
    const violin = JSON.parse(readFileSync(path.join(out, 'beatmaps/violin.json'), 'utf8'));
    expect(violin.beats).toHaveLength(31);
    // page 3 (the second movement) opens with its lead-in; its first beat of its own is 13
    expect(violin.beats.findIndex((/** @type {{ page: number }} */ b) => b.page === 2)).toBe(13);
  });

  it('keeps the movements as named sections of the one score', async () => {
    const { report } = await imported;
    expect(report.sections).toEqual([
      { name: 'MergePitch', beat: 0, bar: 0, pages: [1, 2] },
      { name: 'MergeRhythm', beat: 13, bar: 4, pages: [3, 3] },
      { name: 'MergeNoise', beat: 19, bar: 6, pages: [4, 5] },
    ]);
    const md = readFileSync(report.file, 'utf8');
    expect(md).toContain('| MergeRhythm | 13 | 4 | 3 |');
    expect(readFileSync(path.join(out, 'score.yaml'), 'utf8')).toContain(
      'Sections (movements): MergePitch from beat 0 (bar 0), MergeRhythm from beat 13 (bar 4), MergeNoise from beat 19 (bar 6).',
    );
  });

  it('ignores the older unmerged score-level file with a warning, not a refusal', async () => {
    const { report } = await imported;
    expect(report.notes).toContain(
      `warning: MiniMerge_BeatInfo.csv differs from ${MASTER}, the master ZScore's ScoreMerger writes, the one ZScore's loader reads: it was ignored (an older export of the score, before its movements were merged?)`,
    );
    expect(report.notConverted).toContainEqual(
      expect.objectContaining({ source: 'MiniMerge_BeatInfo.csv', what: 'MiniMerge_BeatInfo.csv' }),
    );
  });

  it("takes the scripts from the master only (the page files' are the movements' own)", async () => {
    await imported;
    const m = manifest(out);
    expect(m.cues).toEqual([
      { at: 1, set: { text: 'Pitch\nlisten' } },
      { at: 13, set: { text: 'Rhythm' } },
      { at: 19, set: { text: 'Noise' } },
    ]);
    expect(m.osc).toEqual([{ at: 1, address: '/zs//merge/bell', args: ['bell', 1] }]);
    rmSync(root, { recursive: true, force: true });
  });
});

describe('import-zscore: a merged export that differs from its master, or is broken', () => {
  it('uses the master where a page file disagrees with it, and says which line and why', async () => {
    const c = copyFixture();
    // the Cello's page 4 file draws its third beat elsewhere than the master does
    editLines(path.join(c.dir, 'MiniMerge_Cello_page4_BeatInfo.csv'), (l, i) =>
      i === 3 ? l.replace(',130,180,200,280,', ',135,180,200,280,') : l,
    );
    const { report } = await importZScore(c.dir, c.out);
    expect(
      report.notes.some((n) =>
        n.startsWith(
          `warning: MiniMerge_Cello_page4_BeatInfo.csv disagrees with the master: line 4 has xStartPxl 135 where ${MASTER} line`,
        ),
      ),
    ).toBe(true);
    expect(report.timeMismatches).toEqual([]);
    rmSync(c.root, { recursive: true, force: true });
  });

  it("reads the master's beats of a page whose BeatInfo file is missing", async () => {
    const c = copyFixture();
    unlinkSync(path.join(c.dir, 'MiniMerge_Violin_page3_BeatInfo.csv'));
    const { report } = await importZScore(c.dir, c.out);
    expect(
      report.notes.some((n) =>
        n.startsWith('page 3 of Violin has no BeatInfo file; its beats were read from the master'),
      ),
    ).toBe(true);
    rmSync(c.root, { recursive: true, force: true });
  });

  it("reads an AV page whose image is missing (Symphonea's export has none for its last), and lists what ZScore's later pieces add", async () => {
    const c = copyFixture();
    unlinkSync(path.join(c.dir, 'MiniMerge_AV_page4.png'));
    // Symphonea's strategyConfig.yml: dynamic movements; its note names beside the pages.
    writeFileSync(
      path.join(c.dir, 'strategyConfig.yml'),
      `${readFileSync(path.join(c.dir, 'strategyConfig.yml'), 'utf8')}dynamicMovementStrategy:\n  isActive: true\n  movements:\n    - { name: Fast }\n`,
    );
    writeFileSync(path.join(c.dir, 'MiniMerge_NoteInfo.txt'), '- { pageNo: 1, part: Violin, textElements: [  ] }\n');
    const { report } = await importZScore(c.dir, c.out);
    // The AV lane's beats and scripts are read all the same: the Noise movement's cue is there.
    expect(JSON.stringify(manifest(c.out).cues)).toContain('Noise');
    const why = (/** @type {string} */ what) =>
      report.notConverted.find((/** @type {{ what: string }} */ x) => x.what === what)?.reason ?? '';
    expect(why('page 4 of AV (beat info with no page image)')).toMatch(/script lane, not shown to anyone/);
    expect(why('the 4 page images of AV')).toMatch(/script lane/);
    expect(why('dynamicMovementStrategy')).toMatch(/regions that move to a play line, play and dissolve/);
    expect(why('MiniMerge_NoteInfo.txt')).toMatch(/transposition strategy/);
    rmSync(c.root, { recursive: true, force: true });
  });

  it('refuses a broken row of a page file, naming the file and line', async () => {
    const c = copyFixture();
    editLines(path.join(c.dir, 'MiniMerge_Violin_page2_BeatInfo.csv'), (l, i) =>
      i === 2 ? l.replace(/,500,/, ',half,') : l,
    );
    await expect(importZScore(c.dir, c.out)).rejects.toMatchObject({
      code: 'SC_ERR_SCORE_INVALID',
      problems: expect.arrayContaining([
        expect.stringMatching(/^MiniMerge_Violin_page2_BeatInfo\.csv line 3: \w+: "half" is not a number/),
      ]),
    });
    rmSync(c.root, { recursive: true, force: true });
  });

  it('refuses a broken row of the master, naming the file and line', async () => {
    const c = copyFixture();
    editLines(path.join(c.dir, MASTER), (l, i) => (i === 5 ? l.split(',').slice(0, 10).join(',') : l));
    await expect(importZScore(c.dir, c.out)).rejects.toMatchObject({
      code: 'SC_ERR_SCORE_INVALID',
      problems: expect.arrayContaining([
        `${MASTER} line 6: has 10 cells, the header has 24; a comma inside a script must be written "|" as ZScore does`,
      ]),
    });
    rmSync(c.root, { recursive: true, force: true });
  });

  it("refuses a movement whose pages were not copied beside the master, naming the master's row", async () => {
    const c = copyFixture();
    for (const f of readdirSync(c.dir)) if (/_page3(\.png|_BeatInfo\.csv)$/.test(f)) unlinkSync(path.join(c.dir, f));
    const err = await importZScore(c.dir, c.out).catch((e) => e);
    expect(err.code).toBe('SC_ERR_SCORE_INVALID');
    expect(err.problems).toContain(
      'MiniMerge_Violin_page3.png: missing; Violin has pages 1, 2, 4, 5 (pages must follow one another)',
    );
    expect(
      err.problems.some((/** @type {string} */ p) =>
        /^1_minimerge_BeatInfo\.csv line \d+: page 3 of Violin has beats in the master but there is no MiniMerge_Violin_page3\.png in the export folder/.test(
          p,
        ),
      ),
    ).toBe(true);
    rmSync(c.root, { recursive: true, force: true });
  });

  it('refuses pages of a movement the master does not have, naming the file', async () => {
    const c = copyFixture();
    // the master without its last page: the third movement's second page is not merged
    editLines(path.join(c.dir, MASTER), (l) => (/,page5,5,/.test(l) ? null : l));
    const err = await importZScore(c.dir, c.out).catch((e) => e);
    expect(err.code).toBe('SC_ERR_SCORE_INVALID');
    expect(err.problems).toContain(
      `MiniMerge_Violin_page5_BeatInfo.csv: page 5 of Violin has no beats in the master ${MASTER}, which has Violin's pages 1–4; a movement missing from the merge? Merge the movements again with ZScore's ScoreMerger, or remove this page`,
    );
    rmSync(c.root, { recursive: true, force: true });
  });
});

describe('import-zscore: several score-level BeatInfo files', () => {
  it('refuses several that differ with no master, and names the flag that chooses', async () => {
    const c = copyFixture(MINI);
    writeFileSync(
      path.join(c.dir, 'Mini_old_BeatInfo.csv'),
      readFileSync(path.join(c.dir, 'Mini_BeatInfo.csv'), 'utf8').replace('Get ready', 'Get set'),
    );
    await expect(importZScore(c.dir, c.out)).rejects.toThrow(
      /2 different score-level BeatInfo files \(Mini_BeatInfo\.csv, Mini_old_BeatInfo\.csv\) and no master 1_<Score>_BeatInfo\.csv .*; name the one to import with --beat-info FILE/,
    );
    // the flag chooses; the other is left aside with a warning
    const { report } = await importZScore(c.dir, c.out, { beatInfo: 'Mini_BeatInfo.csv' });
    expect(report.notes).toContain(
      'warning: Mini_old_BeatInfo.csv differs from Mini_BeatInfo.csv, the one named with --beat-info: it was ignored (an older export of the score, before its movements were merged?)',
    );
    rmSync(c.root, { recursive: true, force: true });
  });

  it('--beat-info on the command line, and a name that is not in the folder', async () => {
    const c = copyFixture();
    /** @type {string[]} */
    const said = [];
    const io = { out: (/** @type {string} */ t) => said.push(t), err: (/** @type {string} */ t) => said.push(t) };
    expect(await run(['import-zscore', c.dir, c.out, '--beat-info', 'Nope_BeatInfo.csv'], io)).toBe(1);
    expect(said.join('')).toContain(`--beat-info Nope_BeatInfo.csv: not a score-level BeatInfo file of ${c.dir}`);
    said.length = 0;
    expect(await run(['import-zscore', c.dir, c.out, '--beat-info', MASTER], io)).toBe(0);
    expect(said.join('')).toContain('every beat starts within 1 ms');
    expect(said.join('')).toContain(
      'sections (movements): MergePitch from beat 0, MergeRhythm from beat 13, MergeNoise from beat 19',
    );
    rmSync(c.root, { recursive: true, force: true });
  });
});

import path from 'node:path';
import os from 'node:os';
import { execFileSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  linkSync,
  mkdtempSync,
  mkdirSync,
  readFileSync,
  realpathSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { describe, it, expect } from 'vitest';
import { loadPackage } from '../../../server/package/load.js';
import { importZScore } from '../../../server/import/zscore/index.js';
import { PACKAGE_LIMITS } from '../../../core/package-limits.js';
import { pngHeader, packageDir } from '../../helpers/fixtures.js';

const CACHE = mkdtempSync(path.join(os.tmpdir(), 'sc-cache-'));
/** @param {string} dir */
const loadScore = (dir) => loadPackage(dir, { cacheDir: CACHE });

/** @param {string} yaml @param {Record<string, string | Buffer>} [files] */
const pkg = (yaml, files = {}) => packageDir(yaml, files);

const GOOD = `id: ok
title: OK
bars: 2
meter:
  - { bar: 1, time: 4/4, tempo: 60 }
cues:
  - { at: 0, set: { text: hi } }
`;

describe('score package loader', () => {
  it('loads the demo and the seed profile shipped in scores/', async () => {
    const demo = await loadScore('scores/demo');
    expect(demo.model.id).toBe('demo');
    expect(demo.model.map.segments.length).toBeGreaterThan(1); // it has a tempo change
    const seed = await loadScore('scores/seed-profile');
    expect(seed.assets[0]).toMatchObject({ path: 'generated/ambience.wav', preload: true });
    expect(seed.assets[0].bytes).toBeGreaterThan(1_800_000);
    expect(seed.model.map.totalBeats).toBe(16);
    expect(seed.model.map.tempoAt(0)).toBe(80);
    expect(seed.model.cues.filter((c) => c.beat % 2 === 0)).toHaveLength(8);
    for (const c of seed.model.cues) expect(JSON.stringify(c.set).length).toBeGreaterThan(17_000);
  });

  it('engraves the demo quartet: one page per part, the full score on four (drawn for a tablet), a full beat map each, the vote and the clip', async () => {
    const demo = await loadScore('scores/demo');
    expect(demo.model.views).toEqual(['audience', 'score', 'violin1', 'violin2', 'viola', 'cello']);
    expect(demo.model.map.lastBar).toBe(32);
    expect(demo.model.map.positionOf(demo.model.map.beatOf(25, 1)).time).toEqual([3, 4]);
    expect(demo.model.map.tempoAt(0)).toBe(96);
    expect(demo.model.map.tempoAt(demo.model.map.beatOf(17, 1))).toBe(72);
    for (const view of ['score', 'violin1', 'violin2', 'viola', 'cello']) {
      expect(demo.views[view].pages, view).toHaveLength(view === 'score' ? 4 : 1);
      expect(demo.views[view].beats).toHaveLength(demo.model.map.totalBeats);
      expect(demo.files.get(demo.views[view].pages[0].url)?.br).toMatch(/\.svg\.br$/);
    }
    expect(demo.model.votes).toHaveLength(1);
    expect(demo.assets.map((a) => a.path)).toContain('generated/bell.wav');
  });

  it('names the line of a cue after the last beat and says what to do', async () => {
    const dir = pkg(`${GOOD}  - { at: 300, set: { text: late } }\n`);
    await expect(loadScore(dir)).rejects.toThrow(
      /score\.yaml line 8: cues\[1\]: is at beat 300, after the last beat \(7\); move it or extend the score/,
    );
  });

  it('reports YAML syntax errors with a line', async () => {
    const dir = pkg('id: x\ntitle: [unclosed\n');
    await expect(loadScore(dir)).rejects.toMatchObject({
      code: 'SC_ERR_SCORE_INVALID',
      message: expect.stringMatching(/score\.yaml line \d+: syntax/),
    });
  });

  it('reports a missing asset', async () => {
    const dir = pkg(`${GOOD}assets:\n  - { path: audio/missing.wav }\n`);
    await expect(loadScore(dir)).rejects.toThrow(/assets\[0\]\.path: audio\/missing\.wav does not exist/);
  });

  it('refuses an asset path outside the package', async () => {
    const dir = pkg(`${GOOD}assets:\n  - { path: ../../etc/passwd }\n`);
    await expect(loadScore(dir)).rejects.toThrow(
      /line 9: assets\[0\]\.path: must be a relative path inside the package/,
    );
  });

  it('reports a missing package as SC_ERR_SCORE_NOT_FOUND', async () => {
    await expect(loadScore(path.join(os.tmpdir(), 'no-such-package-sc'))).rejects.toMatchObject({
      code: 'SC_ERR_SCORE_NOT_FOUND',
    });
  });

  it('lists every problem, not only the first', async () => {
    const dir = pkg('id: Bad Id\nbars: 0\nmeter: []\n');
    const err = await loadScore(dir).catch((e) => e);
    expect(
      err.message.split('\n').filter((/** @type {string} */ l) => l.startsWith('score.yaml')).length,
    ).toBeGreaterThanOrEqual(4);
  });

  it('gives assets content-hashed URLs and lists them as the only files served', async () => {
    const dir = pkg(`${GOOD}assets:\n  - { path: a/b.wav, preload: true }\n`, { 'a/b.wav': 'data' });
    const s = await loadScore(dir);
    expect(s.assets[0]).toMatchObject({
      path: 'a/b.wav',
      bytes: 4,
      preload: true,
      url: expect.stringMatching(/^\/scores\/ok\/[0-9a-f]{16}\/a\/b\.wav$/),
    });
    expect(s.files.get(s.assets[0].url)?.file).toBe(path.join(dir, 'a/b.wav'));
  });

  it("serves the granulator's sound file like an audio cue's clip, its cue pointing at the served URL", async () => {
    const dir = pkg(`${GOOD}  - { at: 1, set: { granulator: { src: audio/m1.mp3, play: 1 } } }\n`, {
      'audio/m1.mp3': 'mp3!',
    });
    const s = await loadScore(dir);
    expect(s.assets).toEqual([
      expect.objectContaining({
        path: 'audio/m1.mp3',
        preload: true,
        url: expect.stringMatching(/^\/scores\/ok\/[0-9a-f]{16}\/audio\/m1\.mp3$/),
      }),
    ]);
    expect(s.model.cues.find((c) => c.beat === 1)?.set).toEqual({ granulator: { src: s.assets[0].url, play: 1 } });
    const missing = await loadScore(pkg(`${GOOD}  - { at: 1, set: { granulator: { src: audio/none.mp3 } } }\n`)).catch(
      (e) => e,
    );
    expect(missing.message).toMatch(/audio\/none\.mp3 does not exist in the package/);
  });

  it('loads an image score: pages with their sizes and a CSV beat map checked against the score', async () => {
    const png = pngHeader(1200, 800);
    const rows = Array.from(
      { length: 8 },
      (_, b) =>
        `${b},0,${b < 4 ? 0 : 1},${Math.floor(b / 4) + 1},${100 + (b % 4) * 200},${300 + (b % 4) * 200},${b < 4 ? 50 : 400},${b < 4 ? 350 : 700}`,
    );
    const manifest = `${GOOD}pages:\n  score: { files: [pages/p1.png], beatmap: beatmaps/score.csv }\n`;
    const dir = pkg(manifest, {
      'pages/p1.png': '',
      'beatmaps/score.csv': ['beat,page,system,bar,x0,x1,y0,y1', ...rows].join('\n'),
    });
    writeFileSync(path.join(dir, 'pages/p1.png'), png);
    const s = await loadScore(dir);
    expect(s.views.score.pages).toEqual([
      { url: expect.stringMatching(/^\/scores\/ok\/[0-9a-f]{16}\/pages\/p1\.png$/), width: 1200, height: 800 },
    ]);
    expect(s.views.score.beats[5]).toEqual({ beat: 5, page: 0, system: 1, bar: 2, x0: 300, x1: 500, y0: 400, y1: 700 });

    writeFileSync(
      path.join(dir, 'beatmaps/score.csv'),
      ['beat,page,system,bar,x0,x1,y0,y1', ...rows.slice(0, 7)].join('\n'),
    );
    await expect(loadScore(dir)).rejects.toThrow(
      /beatmaps\/score\.csv: has 7 beats but the score has 8; bar 2 has no position \(place them in the preview's bar-line mode\); add the missing beats or fix the meter/,
    );
  });

  it('loads what import-zscore writes', async () => {
    const out = path.join(mkdtempSync(path.join(os.tmpdir(), 'sc-import-')), 'mini');
    await importZScore(new URL('../../fixtures/zscore/mini', import.meta.url).pathname, out);
    const s = await loadScore(out);
    expect(Object.keys(s.views).sort()).toEqual(['cello', 'score', 'violin']);
    expect(s.views.violin.pages).toHaveLength(2);
    for (const v of Object.values(s.views)) expect(v.beats).toHaveLength(s.model.map.totalBeats);
  });

  it("serves a package's SVG pages and SVG assets only as cleaned, and says what it removed", async () => {
    const s = await loadScore(new URL('../../fixtures/hostile', import.meta.url).pathname);
    const [page] = s.views.score.pages;
    expect(page).toEqual({
      url: expect.stringMatching(/^\/scores\/hostile\/[0-9a-f]{16}\/pages\/score-1\.svg$/),
      width: 1200,
      height: 800,
    });
    const asset = s.assets.find((a) => a.path === 'pages/logo.svg');
    for (const url of [page.url, asset?.url ?? '']) {
      const body = s.files.get(url)?.body?.toString() ?? '';
      expect(body, url).toMatch(/^<svg /);
      expect(body, url).not.toMatch(/script|pwned|javascript|onload|foreignObject/i);
    }
    expect(s.files.get(page.url)?.body?.toString()).toContain('<use id="legit-use" href="#notehead"');
    expect(s.warnings).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^pages\/score-1\.svg: \d+ element\(s\) or attribute\(s\) removed/),
      ]),
    );
  });

  it('refuses an SVG page that is not a well-formed SVG document', async () => {
    const rows = Array.from({ length: 8 }, (_, b) => `${b},0,0,${Math.floor(b / 4) + 1},${b * 10},${b * 10 + 10},0,10`);
    const manifest = `${GOOD}pages:\n  score: { files: [pages/p1.svg], beatmap: beatmaps/score.csv }\n`;
    const dir = pkg(manifest, {
      'pages/p1.svg': '<svg xmlns="http://www.w3.org/2000/svg" width="100" height="10"><g></svg>',
      'beatmaps/score.csv': ['beat,page,system,bar,x0,x1,y0,y1', ...rows].join('\n'),
    });
    await expect(loadScore(dir)).rejects.toThrow(
      /pages\/p1\.svg: is not well-formed XML .*; export it again as a plain SVG file/,
    );
  });
});

describe('score package loader: bounds and links', () => {
  const outside = mkdtempSync(path.join(os.tmpdir(), 'sc-secret-'));
  const secret = path.join(outside, 'passwd');
  writeFileSync(secret, 'root:x:0:0:secret\n');

  it('refuses a symbolic link to a file outside the package, and never lists it to serve', async () => {
    const dir = pkg(`${GOOD}assets:\n  - { path: notes.txt }\n`);
    symlinkSync(secret, path.join(dir, 'notes.txt'));
    await expect(loadScore(dir)).rejects.toMatchObject({
      code: 'SC_ERR_SCORE_INVALID',
      message: expect.stringMatching(
        /\nnotes\.txt: leads outside the package \(a link\); put the file itself in the package/,
      ),
    });
  });

  it('refuses a folder linked from outside, an audio cue through it and a linked score.yaml', async () => {
    const dir = pkg(`${GOOD}  - { at: 1, audio: clips/bell.wav }\n`);
    mkdirSync(path.join(outside, 'clips'), { recursive: true });
    writeFileSync(path.join(outside, 'clips/bell.wav'), 'RIFF');
    symlinkSync(path.join(outside, 'clips'), path.join(dir, 'clips'));
    await expect(loadScore(dir)).rejects.toThrow(/\nclips\/bell\.wav: leads outside the package/);
    const linked = mkdtempSync(path.join(os.tmpdir(), 'sc-pkg-'));
    writeFileSync(path.join(outside, 'score.yaml'), GOOD);
    symlinkSync(path.join(outside, 'score.yaml'), path.join(linked, 'score.yaml'));
    await expect(loadScore(linked)).rejects.toThrow(/\nscore\.yaml: leads outside the package/);
  });

  it('keeps a link that stays inside the package, serving the file it names', async () => {
    const dir = pkg(`${GOOD}assets:\n  - { path: alias.wav }\n`, { 'real/a.wav': 'data' });
    symlinkSync('real/a.wav', path.join(dir, 'alias.wav'));
    const s = await loadScore(dir);
    expect(s.files.get(s.assets[0].url)?.file).toBe(path.join(realpathSync(dir), 'real/a.wav'));
  });

  it('refuses a hard link (a second name, which may be a file elsewhere) and a FIFO, without hanging', async () => {
    const dir = pkg(`${GOOD}assets:\n  - { path: hard.txt }\n`);
    linkSync(path.join(outside, 'passwd'), path.join(dir, 'hard.txt'));
    await expect(loadScore(dir)).rejects.toThrow(
      /\nhard\.txt: has 2 names \(a hard link, which may lead outside the package\); put a copy of the file in the package/,
    );
    const fifo = pkg(`${GOOD}assets:\n  - { path: pipe.wav }\n`);
    execFileSync('mkfifo', [path.join(fifo, 'pipe.wav')]);
    await expect(loadScore(fifo)).rejects.toThrow(/\npipe\.wav: is not a regular file/);
  });

  it('answers a YAML alias bomb with the line of the first alias', async () => {
    const lol = (/** @type {string} */ a, /** @type {string} */ b) =>
      `${a}: &${a} [${Array(9).fill(`*${b}`).join(', ')}]\n`;
    const dir = pkg(
      `${GOOD}x: &x [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n${lol('y', 'x')}${lol('z', 'y')}${lol('w', 'z')}`,
    );
    await expect(loadScore(dir)).rejects.toMatchObject({
      code: 'SC_ERR_SCORE_INVALID',
      message: expect.stringMatching(
        /\nscore\.yaml line 9: aliases: aliases \(\*name\) expand to more than 100 copies/,
      ),
    });
  });

  it('answers an alias inside the value it names (an endless value) with its line', async () => {
    const dir = pkg(`${GOOD}  - { at: 1, set: &s { x: *s } }\n`);
    await expect(loadScore(dir)).rejects.toThrow(
      /\nscore\.yaml line 8: aliases: an alias \(\*name\) is inside the value it names, which makes the value endless; write the values out$/,
    );
  });

  it('bounds the size of score.yaml and of a beat map, naming the file', async () => {
    const big = pkg(`${GOOD}# ${'x'.repeat(PACKAGE_LIMITS.manifestBytes)}\n`);
    await expect(loadScore(big)).rejects.toThrow(
      /\nscore\.yaml: is 2\.0 MiB, more than the 2 MiB a file of its kind may be/,
    );
    const manifest = `${GOOD}pages:\n  score: { files: [p1.svg], beatmap: score.csv }\n`;
    const dir = pkg(manifest, {
      'p1.svg': '<svg viewBox="0 0 800 400"/>',
      'score.csv': 'x'.repeat(PACKAGE_LIMITS.beatMapBytes + 1),
    });
    await expect(loadScore(dir)).rejects.toThrow(
      /score\.yaml line 9: pages\.score\.beatmap: score\.csv is 8\.0 MiB, more than the 8 MiB/,
    );
  });

  it('refuses a package past its total size before hashing any asset (sparse files of 1 GiB)', async () => {
    const dir = pkg(`${GOOD}assets:\n  - { path: a.wav }\n  - { path: b.wav }\n  - { path: c.wav }\n`, {
      'a.wav': '',
      'b.wav': '',
      'c.wav': '',
    });
    for (const f of ['a.wav', 'b.wav', 'c.wav']) truncateSync(path.join(dir, f), PACKAGE_LIMITS.assetBytes);
    const err = await loadScore(dir).catch((e) => e);
    expect(err.message.split('\n').slice(1)).toEqual([
      `${path.basename(dir)}: its files come to more than the 2 GiB a package may be (the rest were not read); keep only what the performance needs`,
    ]);
  });

  it('refuses a page whose size is not a number or absurd, and a beat box off its page', async () => {
    const rows = Array.from(
      { length: 8 },
      (_, b) => `${b},0,0,${Math.floor(b / 4) + 1},${b * 90},${b * 90 + 180},10,390`,
    );
    const manifest = `${GOOD}pages:\n  score: { files: [p1.svg], beatmap: score.csv }\n`;
    const csv = ['beat,page,system,bar,x0,x1,y0,y1', ...rows].join('\n');
    await expect(
      loadScore(pkg(manifest, { 'p1.svg': '<svg viewBox="0 0 800 400"/>', 'score.csv': csv })),
    ).rejects.toThrow(
      /\nscore\.csv line 9: x1: x1 810 is off page 0 \(800 x 400\); positions are in page units from its top left corner/,
    );
    await expect(
      loadScore(pkg(manifest, { 'p1.svg': '<svg viewBox="0 0 . 400"/>', 'score.csv': csv })),
    ).rejects.toThrow(/\np1\.svg: is not a PNG, JPEG or SVG image I can read/);
    const png = Buffer.alloc(33);
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(png);
    png.writeUInt32BE(13, 8);
    png.write('IHDR', 12, 'latin1');
    png.writeUInt32BE(20_000, 16);
    png.writeUInt32BE(20_000, 20);
    const raster = pkg(manifest.replace('p1.svg', 'p1.png'), { 'score.csv': csv });
    writeFileSync(path.join(raster, 'p1.png'), png);
    await expect(loadScore(raster)).rejects.toThrow(
      /\np1\.png: is 20000 x 20000 pixels, more than the 64000000 a tablet can be asked to decode; export it at a lower resolution/,
    );
    await expect(
      loadScore(pkg(manifest, { 'p1.svg': '<svg viewBox="0 0 1e308 400"/>', 'score.csv': csv })),
    ).rejects.toThrow(/\np1\.svg: is 1e\+308 x 400; a page's width/);
    await expect(
      loadScore(pkg(manifest, { 'p1.svg': '<svg width="0.001" height="400"/>', 'score.csv': csv })),
    ).rejects.toThrow(/\np1\.svg: is 0\.001 x 400; a page's width/);
  });
});

describe('score package loader: a package wrong everywhere', () => {
  it('lists its first 200 problems with their lines, and how many more', async () => {
    const dir = pkg(
      `${GOOD}${Array.from({ length: 300 }, (_, i) => `  - { at: ${1000 + i}, set: { text: late } }\n`).join('')}`,
    );
    const lines = (await loadScore(dir).catch((e) => e)).message.split('\n').slice(1);
    expect(lines).toHaveLength(201);
    expect(lines[0]).toBe(
      'score.yaml line 8: cues[1]: is at beat 1000, after the last beat (7); move it or extend the score',
    );
    expect(lines[199]).toMatch(/^score\.yaml line 207: cues\[200\]: is at beat 1199/);
    expect(lines[200]).toBe('and 100 more problems');
  });
});

const UNION_ROSE = '/work/shared/zscore/union-rose';

describe.skipIf(!existsSync(UNION_ROSE))('the bounds and a real piece', () => {
  it("loads Union Rose's full score as ZScore exported it: 56 pages, 897 beats", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'sc-union-rose-'));
    mkdirSync(path.join(dir, 'pages'));
    /** @type {Map<number, string>} */
    const rows = new Map();
    for (let page = 1; page <= 56; page++) {
      copyFileSync(path.join(UNION_ROSE, `Union_Rose_FullScore_page${page}.png`), path.join(dir, `pages/${page}.png`));
      const lines = readFileSync(path.join(UNION_ROSE, `Union_Rose_FullScore_page${page}_BeatInfo.csv`), 'utf8')
        .split(/\r\n?|\n/)
        .slice(1);
      for (const line of lines) {
        const c = line.split(',');
        // Beat rows name a page resource; a page opens with the previous page's last beat again.
        if (c.length < 22 || !c[22]?.startsWith('/') || rows.has(Number(c[10]))) continue;
        rows.set(Number(c[10]), [c[10], page - 1, 0, c[5], c[17], c[18], c[19], c[20]].join(','));
      }
    }
    writeFileSync(path.join(dir, 'score.csv'), ['beat,page,system,bar,x0,x1,y0,y1', ...rows.values()].join('\n'));
    writeFileSync(
      path.join(dir, 'score.yaml'),
      `id: union-rose\ntitle: Union Rose\npickup: 1\nbars: 56\nmeter: [{ bar: 1, time: 16/4, tempo: 80 }]\n` +
        `pages:\n  score: { files: [${Array.from({ length: 56 }, (_, i) => `pages/${i + 1}.png`).join(', ')}], beatmap: score.csv }\n`,
    );
    const s = await loadScore(dir);
    expect(s.model.map.totalBeats).toBe(897);
    expect(s.views.score.pages).toHaveLength(56);
    expect(s.views.score.pages[0]).toMatchObject({ width: expect.any(Number), height: expect.any(Number) });
  });
});

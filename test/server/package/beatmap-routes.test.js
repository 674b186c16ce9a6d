// The preview's bar-line mode on the server: the views it places bars on, and the beat map it
// writes into the package (token only, bars checked, inside the package, atomically).

import path from 'node:path';
import os from 'node:os';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { afterEach, describe, it, expect } from 'vitest';
import { buildApp } from '../../../server/app.js';
import { loadPackage } from '../../../server/package/load.js';
import { unplacedProblems } from '../../../server/commands/check-report.js';
import { pngHeader } from '../../helpers/fixtures.js';

const TOKEN = 'test-token-beatmaps';
const auth = { authorization: `Bearer ${TOKEN}` };
const CACHE = mkdtempSync(path.join(os.tmpdir(), 'sc-cache-'));

/** Three bars (4/4, 4/4, 3/4), one page, no beat map yet. */
function unplacedPackage() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sc-bl-'));
  writeFileSync(
    path.join(dir, 'score.yaml'),
    `id: bl
title: Bar lines
parts: [{ id: violin, name: Violin }]
bars: 3
meter:
  - { bar: 1, time: 4/4, tempo: 120 }
  - { bar: 3, time: 3/4 }
pages:
  violin: { files: [pages/v1.png], beatmap: beatmaps/violin.csv }
  score: { files: [pages/v1.png], beatmap: beatmaps/score.json }
`,
  );
  mkdirSync(path.join(dir, 'pages'));
  mkdirSync(path.join(dir, 'beatmaps'));
  writeFileSync(path.join(dir, 'pages/v1.png'), pngHeader());
  return dir;
}

const GOOD = [
  { bar: 1, page: 0, system: 0, x0: 100, x1: 400, y0: 50, y1: 250 },
  { bar: 2, page: 0, system: 0, x0: 400, x1: 700, y0: 50, y1: 250 },
  { bar: 3, page: 0, system: 1, x0: 100, x1: 400, y0: 250, y1: 450 },
];

/** @type {(() => Promise<unknown> | void)[]} */
const cleanup = [];
afterEach(async () => {
  while (cleanup.length > 0) await cleanup.pop()?.();
});

async function app() {
  const dir = unplacedPackage();
  const score = await loadPackage(dir, { cacheDir: CACHE });
  const built = await buildApp({ score, token: TOKEN, cacheDir: CACHE });
  cleanup.push(
    () => built.app.close(),
    () => rmSync(dir, { recursive: true, force: true }),
  );
  return { dir, score, app: built.app };
}

describe('beat maps from bar lines', () => {
  it('loads a view whose beat map is not made yet without beats, with a warning, and check refuses it naming its bars', async () => {
    const { score } = await app();
    expect(score.views.violin).toMatchObject({ beats: [], unplaced: true });
    expect(score.warnings.join('\n')).toMatch(/pages\.violin\.beatmap: beatmaps\/violin\.csv does not exist yet/);
    expect(unplacedProblems(score)).toEqual([
      expect.stringMatching(
        /beatmaps\/violin\.csv does not exist yet: bars 1-3 of violin have no position; place them in the preview's bar-line mode/,
      ),
      expect.stringMatching(/beatmaps\/score\.json does not exist yet/),
    ]);
  });

  it('lists the views to place and the written bars, to the conductor only', async () => {
    const { app: a } = await app();
    expect((await a.inject({ url: '/api/score/beatmaps' })).statusCode).toBe(401);
    const res = await a.inject({ url: '/api/score/beatmaps', headers: auth });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      bars: [
        { bar: 1, beats: 4 },
        { bar: 2, beats: 4 },
        { bar: 3, beats: 3 },
      ],
      views: [
        {
          view: 'violin',
          file: 'beatmaps/violin.csv',
          placed: false,
          pages: [{ url: expect.stringMatching(/\/pages\/v1\.png$/), width: 1200, height: 800 }],
        },
        { view: 'score', file: 'beatmaps/score.json', placed: false, pages: [expect.any(Object)] },
      ],
    });
  });

  it('writes the CSV beat map the loader reads, atomically, and the package then loads with it', async () => {
    const { app: a, dir } = await app();
    const put = (
      /** @type {unknown} */ payload,
      /** @type {Record<string, string>} */ headers = auth,
      view = 'violin',
    ) =>
      a.inject({ method: 'PUT', url: `/api/score/beatmaps/${view}`, headers, payload: /** @type {any} */ (payload) });
    expect((await put({ bars: GOOD }, {})).statusCode).toBe(401);
    const res = await put({ bars: GOOD });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ view: 'violin', file: 'beatmaps/violin.csv', bars: 3, beats: 11 });
    const text = readFileSync(path.join(dir, 'beatmaps/violin.csv'), 'utf8');
    expect(text.split('\n').slice(0, 3)).toEqual([
      'beat,page,system,bar,x0,x1,y0,y1',
      '0,0,0,1,100,175,50,250',
      '1,0,0,1,175,250,50,250',
    ]);
    expect(readdirSync(path.join(dir, 'beatmaps'))).toEqual(['violin.csv']); // no temp file left
    const again = await loadPackage(dir, { cacheDir: CACHE });
    expect(again.views.violin.unplaced).toBeUndefined();
    expect(again.views.violin.beats[10]).toEqual({
      beat: 10,
      page: 0,
      system: 1,
      bar: 3,
      x0: 300,
      x1: 400,
      y0: 250,
      y1: 450,
    });
  });

  it('refuses bad bars with what is wrong, and writes nothing', async () => {
    const { app: a, dir } = await app();
    const put = (/** @type {unknown} */ payload, view = 'violin') =>
      a.inject({
        method: 'PUT',
        url: `/api/score/beatmaps/${view}`,
        headers: auth,
        payload: /** @type {any} */ (payload),
      });
    /** @param {import('light-my-request').Response} r */
    const refusal = (r) => ({ status: r.statusCode, code: r.json().code, message: r.json().message });
    expect(refusal(await put({ bars: GOOD.slice(0, 2) }))).toMatchObject({
      status: 400,
      code: 'SC_ERR_EDIT_REFUSED',
      message: expect.stringMatching(/bar 3 has no position/),
    });
    expect(refusal(await put({ bars: [{ ...GOOD[0], x1: 1300 }, ...GOOD.slice(1)] })).message).toMatch(
      /not inside page 0 \(1200 x 800\)/,
    );
    expect(refusal(await put({ bars: [{ ...GOOD[0], bar: 7 }, ...GOOD.slice(1)] })).message).toMatch(
      /bar 7 is not a bar/,
    );
    // Positions running back along a system are refused as the loader would refuse the map.
    expect(refusal(await put({ bars: [GOOD[0], { ...GOOD[1], x0: 50, x1: 90 }, GOOD[2]] })).message).toMatch(
      /left of the previous beat's/,
    );
    const malformed = await a.inject({
      method: 'PUT',
      url: '/api/score/beatmaps/violin',
      headers: { ...auth, 'content-type': 'application/json' },
      payload: '{"bars": [',
    });
    // A body that cannot be read is a bad request; one that reads but is refused is a refused edit.
    expect([malformed.statusCode, malformed.json().code]).toEqual([400, 'SC_ERR_BAD_REQUEST']);
    expect(refusal(await put([GOOD]))).toMatchObject({
      status: 400,
      message: expect.stringMatching(/must be \{"bars"/),
    });
    expect(refusal(await put({ bars: GOOD }, 'nope'))).toMatchObject({ status: 404, code: 'SC_ERR_NOT_FOUND' });
    // The full score's beat map is JSON: the mode writes the CSV form only.
    expect(refusal(await put({ bars: GOOD }, 'score')).message).toMatch(/writes the CSV form; name a \.csv file/);
    const big = await a.inject({
      method: 'PUT',
      url: '/api/score/beatmaps/violin',
      headers: { ...auth, 'content-type': 'application/json' },
      payload: `{"bars":[${'0,'.repeat(2_200_000)}0]}`,
    });
    expect(big.statusCode).toBe(413);
    expect(existsSync(path.join(dir, 'beatmaps/violin.csv'))).toBe(false);
  });

  it('never writes through a link or outside the package', async () => {
    const { app: a, dir } = await app();
    const outside = mkdtempSync(path.join(os.tmpdir(), 'sc-out-'));
    cleanup.push(() => rmSync(outside, { recursive: true, force: true }));
    writeFileSync(path.join(outside, 'victim.csv'), 'keep');
    symlinkSync(path.join(outside, 'victim.csv'), path.join(dir, 'beatmaps/violin.csv'));
    const put = () =>
      a.inject({ method: 'PUT', url: '/api/score/beatmaps/violin', headers: auth, payload: { bars: GOOD } });
    const linked = await put();
    expect(linked.statusCode).toBe(400);
    expect(linked.json().message).toMatch(/is not a plain file \(a link or a folder\)/);
    expect(readFileSync(path.join(outside, 'victim.csv'), 'utf8')).toBe('keep');
    // The folder itself a link out of the package.
    rmSync(path.join(dir, 'beatmaps'), { recursive: true });
    symlinkSync(outside, path.join(dir, 'beatmaps'));
    const folder = await put();
    expect(folder.statusCode).toBe(400);
    expect(folder.json().message).toMatch(/its folder is outside the package/);
    expect(readdirSync(outside)).toEqual(['victim.csv']);
  });

  it('writes the meter tapped along to a recording into score.yaml, the rest kept, and refuses bad taps', async () => {
    const { app: a, dir } = await app();
    const put = (/** @type {unknown} */ payload, /** @type {Record<string, string>} */ headers = auth) =>
      a.inject({ method: 'PUT', url: '/api/score/tempo', headers, payload: /** @type {any} */ (payload) });
    const before = readFileSync(path.join(dir, 'score.yaml'), 'utf8');
    expect((await put({ times: [1, 3, 5] }, {})).statusCode).toBe(401);
    // Two bars of 4 at 120, then 3/4 slower, its end tapped: 3 beats in 2 s is 90.
    /** @type {[unknown, RegExp][]} */
    const refused = [
      [{ times: [1, 3] }, /lists 2 bar times; the score has 3 bars/],
      [{ times: [1, 3, 3] }, /times\[2\]: must come after/],
      [{ times: [1, 1.1, 3] }, /bar 1: faster than 1000 beats a minute/],
      [{ times: [1, 3, 5], end: -1 }, /end: must be seconds/],
    ];
    for (const [payload, message] of refused) {
      const r = await put(payload);
      expect([r.statusCode, r.json().code]).toEqual([400, 'SC_ERR_EDIT_REFUSED']);
      expect(r.json().message).toMatch(message);
      expect(r.json().message).toMatch(/^The edit was read but refused, and nothing was written/);
    }
    expect(readFileSync(path.join(dir, 'score.yaml'), 'utf8')).toBe(before);
    const res = await put({ times: [1, 3, 5], end: 7, recording: 'take 2.wav\n# not a line' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ file: 'score.yaml', bars: 3, changes: 2, first: 1 });
    const text = readFileSync(path.join(dir, 'score.yaml'), 'utf8');
    expect(text).toBe(
      before.replace(
        'meter:\n  - { bar: 1, time: 4/4, tempo: 120 }\n  - { bar: 3, time: 3/4 }\n',
        '# meter tapped along to take 2.wav # not a line: bar 1 at 1.000 s of it\nmeter:\n  - { bar: 1, time: 4/4, tempo: 120 }\n  - { bar: 3, time: 3/4, tempo: 90 }\n',
      ),
    );
    expect(readdirSync(dir).sort()).toEqual(['beatmaps', 'pages', 'score.yaml']); // no temp file left
    const again = await loadPackage(dir, { cacheDir: CACHE });
    expect(again.model.map.timeAt(8) - again.model.map.timeAt(0)).toBe(4000);
    expect(again.model.map.timeAt(11) - again.model.map.timeAt(8)).toBe(2000);
    // Tapped again: the comment is replaced, not added to.
    expect((await put({ times: [0.5, 2.5, 4.5] })).statusCode).toBe(200);
    const twice = readFileSync(path.join(dir, 'score.yaml'), 'utf8');
    expect(twice.match(/tapped along/g)).toHaveLength(1);
    expect(twice).toContain(
      '# meter tapped along to a recording: bar 1 at 0.500 s of it\nmeter:\n  - { bar: 1, time: 4/4, tempo: 120 }\n  - { bar: 3, time: 3/4 }\n',
    );
  });
});

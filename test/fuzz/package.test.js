// Property-based fuzzing of what a score package holds: the manifest (as data and as YAML text)
// and beat maps (CSV and JSON). A package may come from anyone: whatever it holds, loading it
// answers a model or a list of problems (documented code, file, line where known), never a
// crash, and never work out of proportion to the input.

import fc from 'fast-check';
import os from 'node:os';
import path from 'node:path';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { describe, it, expect } from 'vitest';
import { buildScoreModel } from '../../core/manifest.js';
import { checkBeatMap, parseBeatMapCsv } from '../../core/beatmap.js';
import { readManifest } from '../../server/package/manifest-file.js';
import { ScorecastError } from '../../core/errors.js';
import { documented, params, TIMEOUT } from './runs.js';

const scalar = fc.oneof(
  fc.constantFrom(
    null,
    true,
    false,
    0,
    -1,
    1,
    2,
    4,
    1.5,
    -0,
    1e9,
    1e308,
    Number.NaN,
    Infinity,
    -Infinity,
    '',
    '4/4',
    '3/8',
    '0/4',
    '4/0',
    '1/3',
    'x',
    'bar',
    '#fff',
    'url(http://x/)',
  ),
  fc.integer({ min: -1000, max: 100_000 }),
  fc.double(),
  fc.string({ maxLength: 20 }),
);
const value = fc.letrec((tie) => ({
  v: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    scalar,
    fc.array(tie('v'), { maxLength: 4 }),
    fc.dictionary(
      fc.constantFrom(
        'bar',
        'beat',
        'at',
        'time',
        'tempo',
        'set',
        'text',
        'color',
        'background',
        'tiles',
        'vote',
        'id',
        'close',
        'open',
        'audio',
        'view',
        'pages',
        'beatmap',
        'x',
      ),
      tie('v'),
      { maxKeys: 4 },
    ),
  ),
})).v;

/** Manifests near the real shape: the right keys, values of any type and size. */
const manifestLike = fc.record(
  {
    id: fc.oneof(fc.constantFrom('fuzz', 'a-b', 'Bad Id', ''), scalar),
    title: fc.oneof(fc.constant('Fuzz'), scalar),
    bars: fc.oneof(fc.integer({ min: -2, max: 400 }), scalar),
    meter: fc.oneof(
      fc.array(
        fc.record(
          {
            bar: fc.oneof(fc.integer({ min: -1, max: 500 }), scalar),
            time: fc.oneof(fc.constantFrom('4/4', '3/4', '7/8', '0/4', '4/3'), scalar),
            tempo: fc.oneof(fc.integer({ min: -10, max: 1000 }), scalar),
          },
          { requiredKeys: [] },
        ),
        { maxLength: 5 },
      ),
      value,
    ),
    cues: fc.oneof(fc.array(value, { maxLength: 8 }), value),
    parts: fc.oneof(fc.array(value, { maxLength: 4 }), value),
    views: value,
    assets: value,
  },
  { requiredKeys: ['id', 'title', 'bars', 'meter'] },
);

/** @param {any} r */
function expectModelOrProblems(r) {
  expect(typeof r.ok).toBe('boolean');
  if (r.ok) {
    expect(r.value.map.totalBeats).toBeGreaterThan(0);
    expect(Number.isFinite(r.value.map.durationMs)).toBe(true);
  } else {
    expect(r.problems.length).toBeGreaterThan(0);
    for (const p of r.problems) {
      expect(typeof p.message).toBe('string');
      expect(p.message.length).toBeGreaterThan(0);
    }
  }
}

describe('fuzz: manifests', () => {
  it(
    'any value as a manifest: a model or problems, never a throw',
    () => {
      fc.assert(
        fc.property(fc.oneof(value, fc.anything({ maxDepth: 3 })), (raw) => {
          expectModelOrProblems(buildScoreModel(raw));
        }),
        params(),
      );
    },
    TIMEOUT,
  );

  it(
    'manifests of the right shape with values of any type: a model or problems that name the field',
    () => {
      fc.assert(
        fc.property(manifestLike, (raw) => {
          const r = buildScoreModel(raw);
          expectModelOrProblems(r);
          if (!r.ok) for (const p of r.problems) expect(typeof p.field).toBe('string');
        }),
        params(),
      );
    },
    TIMEOUT,
  );

  it(
    'score.yaml text of any kind: parsed, or SC_ERR_SCORE_INVALID with the line',
    async () => {
      const dir = mkdtempSync(path.join(os.tmpdir(), 'sc-fuzz-yaml-'));
      const token = fc.constantFrom(
        'id: x\n',
        'bars: 4\n',
        'meter:\n',
        '  - ',
        '{',
        '}',
        '[',
        ']',
        '&a ',
        '*a ',
        '<<: *a\n',
        '!!binary ',
        '!!js/function ',
        '"',
        "'",
        ': ',
        '- ',
        '\t',
        '\n',
        '---\n',
        '...\n',
        '%YAML 1.2\n',
        '? ',
        '|\n',
        '>\n',
        '#',
        'a',
        '1',
        'ü',
        '\u0000',
        '\ufeff',
      );
      const text = fc.oneof(
        fc.array(token, { maxLength: 40 }).map((t) => t.join('')),
        fc.string({ maxLength: 200 }),
      );
      await fc.assert(
        fc.asyncProperty(text, async (yaml) => {
          writeFileSync(path.join(dir, 'score.yaml'), yaml);
          try {
            const { raw } = await readManifest(dir);
            expectModelOrProblems(buildScoreModel(raw));
          } catch (err) {
            expect(err).toBeInstanceOf(ScorecastError);
            expect(documented(/** @type {ScorecastError} */ (err).code)).toBe(true);
          }
        }),
        params(),
      );
    },
    TIMEOUT,
  );
});

describe('fuzz: beat maps', () => {
  const cell = fc.oneof(
    fc.integer({ min: -5, max: 2000 }).map(String),
    fc.double().map(String),
    fc.constantFrom('', ' ', 'NaN', '1e400', '-0', '0x10', '1,5', '"1"', '""', '\t1'),
    fc.string({ maxLength: 6 }),
  );
  const header = fc.oneof(fc.constant('beat,page,system,bar,x0,x1,y0,y1'), fc.string({ maxLength: 40 }));
  const csv = fc
    .tuple(
      header,
      fc.array(fc.array(cell, { minLength: 6, maxLength: 9 }), { maxLength: 30 }),
      fc.constantFrom('\n', '\r\n', '\r'),
    )
    .map(([h, rows, eol]) => [h, ...rows.map((r) => r.join(','))].join(eol));
  const options = fc.record({ totalBeats: fc.integer({ min: 1, max: 40 }), pageCount: fc.integer({ min: 1, max: 4 }) });

  /** @param {any} r @param {number} totalBeats @param {number} pageCount */
  function expectMapOrProblems(r, totalBeats, pageCount) {
    if (r.ok) {
      for (const b of r.value.beats) {
        for (const k of ['beat', 'page', 'system', 'bar', 'x0', 'x1', 'y0', 'y1'])
          expect(Number.isFinite(b[k]), k).toBe(true);
        expect(b.beat).toBeLessThan(totalBeats);
        expect(b.page).toBeLessThan(pageCount);
      }
    } else {
      expect(r.problems.length).toBeGreaterThan(0);
      for (const p of r.problems) expect(p.file).toBe('beats.csv');
    }
  }

  it(
    'CSV text of any kind: beats within the score and its pages, or problems naming the file',
    () => {
      fc.assert(
        fc.property(fc.oneof(csv, fc.string({ maxLength: 300 })), options, (text, { totalBeats, pageCount }) => {
          expectMapOrProblems(
            parseBeatMapCsv(text, { file: 'beats.csv', totalBeats, pageCount }),
            totalBeats,
            pageCount,
          );
        }),
        params(),
      );
    },
    TIMEOUT,
  );

  it(
    'JSON beat maps of any shape',
    () => {
      const entry = fc.dictionary(
        fc.constantFrom('beat', 'page', 'system', 'bar', 'x0', 'x1', 'y0', 'y1', 'x'),
        fc.oneof(fc.integer({ min: -2, max: 50 }), fc.double(), scalar),
        { maxKeys: 9 },
      );
      const map = fc.oneof(fc.record({ beats: fc.array(entry, { maxLength: 30 }) }), fc.anything({ maxDepth: 3 }));
      fc.assert(
        fc.property(map, options, (m, { totalBeats, pageCount }) => {
          expectMapOrProblems(checkBeatMap(m, { file: 'beats.csv', totalBeats, pageCount }), totalBeats, pageCount);
        }),
        params(),
      );
    },
    TIMEOUT,
  );
});

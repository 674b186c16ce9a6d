// The JSON Schema of score.yaml stays true: every shipped package conforms, and the manifest
// check refuses what the schema refuses.

import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { describe, it, expect } from 'vitest';
import AjvModule from 'ajv';
import { parse } from 'yaml';

const schema = JSON.parse(readFileSync(new URL('../../scores/schema/score.schema.json', import.meta.url), 'utf8'));
// ajv is CommonJS: under nodenext its default export is the module object.
const Ajv = /** @type {typeof AjvModule.default} */ (/** @type {any} */ (AjvModule).default ?? AjvModule);
const ajv = new Ajv({ allErrors: true });
const validate = ajv.compile(schema);

const scoresDir = new URL('../../scores/', import.meta.url);
const packages = readdirSync(scoresDir).filter((d) => existsSync(new URL(`${d}/score.yaml`, scoresDir)));

describe('score.schema.json', () => {
  it.each(packages)('scores/%s/score.yaml conforms', (dir) => {
    const manifest = parse(readFileSync(new URL(`${dir}/score.yaml`, scoresDir), 'utf8'));
    expect(validate(manifest), JSON.stringify(validate.errors)).toBe(true);
  });

  it.each([
    ['an unknown key', { id: 'x', title: 'X', bars: 1, meter: [{ bar: 1, time: '4/4', tempo: 60 }], colour: 'red' }],
    ['notation with meter', { id: 'x', title: 'X', notation: { file: 'a.mei' }, meter: [{ bar: 1, tempo: 60 }] }],
    ['no timing at all', { id: 'x', title: 'X' }],
    [
      'an escaping asset path',
      { id: 'x', title: 'X', bars: 1, meter: [{ bar: 1, time: '4/4', tempo: 60 }], assets: [{ path: '../x' }] },
    ],
    [
      'more bars than a package may have',
      { id: 'x', title: 'X', bars: 100_000_000, meter: [{ bar: 1, time: '4/4', tempo: 60 }] },
    ],
    [
      'a vote between more tiles than a vote may have',
      {
        id: 'x',
        title: 'X',
        bars: 2,
        meter: [{ bar: 1, time: '4/4', tempo: 60 }],
        cues: [{ at: 0, vote: { id: 'v', tiles: Array.from({ length: 65 }, (_, i) => `t${i}`), close: { bar: 2 } } }],
      },
    ],
    [
      'a cue with two kinds',
      {
        id: 'x',
        title: 'X',
        bars: 1,
        meter: [{ bar: 1, time: '4/4', tempo: 60 }],
        cues: [{ at: 0, set: {}, audio: 'a.wav' }],
      },
    ],
  ])('refuses %s', (_, manifest) => {
    expect(validate(manifest)).toBe(false);
  });
});

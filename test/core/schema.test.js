// The JSON Schema of score.yaml stays true: every shipped package conforms, and the manifest
// check refuses what the schema refuses. It is also the composer's help in an editor (hover and
// completion through yaml-language-server), so every field says what it is and shows a value
// that is valid where it stands.

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
const fixturesDir = new URL('../fixtures/', import.meta.url);
const fixtures = readdirSync(fixturesDir).filter((d) => existsSync(new URL(`${d}/score.yaml`, fixturesDir)));

/**
 * Pointers of the fields (properties, pattern properties, map values and definitions) that lack
 * a description or an example, found through every branch of the schema.
 * @param {any} node
 * @param {string} [at]  JSON pointer of `node`
 * @returns {string[]}
 */
function undocumented(node, at = '') {
  if (node === null || typeof node !== 'object') return [];
  if (Array.isArray(node)) return node.flatMap((n, i) => undocumented(n, `${at}/${i}`));
  /** @type {string[]} */
  const missing = [];
  /** @param {any} field @param {string} where */
  const field = (field, where) => {
    const described = typeof field?.description === 'string' && field.description.trim() !== '';
    const shown = Array.isArray(field?.examples) && field.examples.length > 0;
    if (!described || !shown) missing.push(where);
    missing.push(...undocumented(field, where));
  };
  for (const map of ['properties', 'patternProperties', 'definitions', '$defs']) {
    for (const [name, sub] of Object.entries(node[map] ?? {})) field(sub, `${at}/${map}/${name}`);
  }
  // A map's values (the views of `pages`, the tiles of `decides`) are fields with any name.
  if (node.additionalProperties && typeof node.additionalProperties === 'object')
    field(node.additionalProperties, `${at}/additionalProperties`);
  for (const key of ['items', 'allOf', 'anyOf', 'oneOf', 'not', 'if', 'then', 'else']) {
    if (node[key] !== undefined) missing.push(...undocumented(node[key], `${at}/${key}`));
  }
  return missing;
}

/**
 * Every `examples` entry of the schema, with the pointer of the schema it illustrates.
 * @param {any} node
 * @param {string} [at]
 * @returns {{ at: string, example: unknown }[]}
 */
function examples(node, at = '') {
  if (node === null || typeof node !== 'object') return [];
  if (Array.isArray(node)) return node.flatMap((n, i) => examples(n, `${at}/${i}`));
  return Object.entries(node).flatMap(([k, v]) =>
    k === 'examples' && Array.isArray(v)
      ? v.map((example) => ({ at, example }))
      : k === 'enum' || k === 'const' || k === 'default'
        ? []
        : examples(v, `${at}/${k}`),
  );
}

describe('score.schema.json', () => {
  it.each(packages)('scores/%s/score.yaml conforms', (dir) => {
    const manifest = parse(readFileSync(new URL(`${dir}/score.yaml`, scoresDir), 'utf8'));
    expect(validate(manifest), JSON.stringify(validate.errors)).toBe(true);
  });

  // The modeline is how an editor with yaml-language-server finds the schema: a path relative to
  // the file, on its first line.
  it.each(packages)('scores/%s/score.yaml names the schema in its first line, for an editor', (dir) => {
    const first = readFileSync(new URL(`${dir}/score.yaml`, scoresDir), 'utf8').split('\n')[0];
    const modeline = /^# yaml-language-server: \$schema=(\S+)$/.exec(first);
    expect(modeline, first).not.toBeNull();
    expect(new URL(/** @type {RegExpExecArray} */ (modeline)[1], new URL(`${dir}/score.yaml`, scoresDir)).href).toBe(
      new URL('../../scores/schema/score.schema.json', import.meta.url).href,
    );
  });

  // The descriptions and examples were added without touching a validating keyword: the
  // packages that conformed before still do.
  it('sees every package it should', () => {
    expect(packages).toEqual(expect.arrayContaining(['demo', 'seed-profile']));
    expect(fixtures).toEqual(expect.arrayContaining(['cluster', 'hostile', 'pkg']));
  });

  it.each(fixtures)('test/fixtures/%s/score.yaml conforms', (dir) => {
    const manifest = parse(readFileSync(new URL(`${dir}/score.yaml`, fixturesDir), 'utf8'));
    expect(validate(manifest), JSON.stringify(validate.errors)).toBe(true);
  });

  it('describes every field and shows an example of it, for hover and completion in an editor', () => {
    expect(schema.title).toMatch(/score\.yaml/);
    expect(undocumented(schema)).toEqual([]);
  });

  it('finds an undocumented field in any branch', () => {
    const bare = {
      definitions: { ok: { description: 'd', examples: [1] } },
      properties: {
        list: {
          description: 'd',
          examples: [[]],
          items: { oneOf: [{ properties: { deep: { description: 'd' } } }] },
        },
        map: { description: 'd', examples: [{}], additionalProperties: { properties: { x: { examples: [1] } } } },
      },
    };
    expect(undocumented(bare)).toEqual([
      '/properties/list/items/oneOf/0/properties/deep',
      '/properties/map/additionalProperties',
      '/properties/map/additionalProperties/properties/x',
    ]);
  });

  it('shows only examples that are valid where they stand', () => {
    const check = new Ajv({ strict: false }).addSchema(schema);
    const bad = examples(schema).filter(({ at, example }) => !check.validate({ $ref: `${schema.$id}#${at}` }, example));
    expect(bad).toEqual([]);
    expect(examples(schema).length).toBeGreaterThan(60);
  });

  // Editors resolve the schema from a file path (a modeline, yaml.schemas); its $id names it and
  // is never fetched, as long as every reference stays inside the document.
  it('refers only to its own definitions, so an editor never fetches anything', () => {
    const refs = JSON.stringify(schema).match(/"\$ref":"[^"]*"/g) ?? [];
    expect(refs.length).toBeGreaterThan(0);
    for (const ref of refs) expect(ref).toMatch(/^"\$ref":"#\/definitions\//);
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

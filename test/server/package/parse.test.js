// The parse worker reads a package's untrusted text off the event loop; what it answers is what
// the main thread would have computed, and a worker that fails fails that load only.

import { afterAll, describe, it, expect } from 'vitest';
import { closeParser, manifestLines, parseBeatMap, parseManifest } from '../../../server/package/parse.js';

afterAll(() => closeParser());

const HEADER = 'beat,page,system,bar,x0,x1,y0,y1';
const enc = (/** @type {string} */ s) => new TextEncoder().encode(s);

describe('package parse worker', () => {
  it('parses a manifest, and finds the lines of fields when asked', async () => {
    const text = 'id: x\ntitle: T\ncues:\n  - { at: 0, set: { text: hi } }\n  - { at: 3, set: { tempo: .nan } }\n';
    expect(await parseManifest(text)).toEqual({
      ok: true,
      raw: {
        id: 'x',
        title: 'T',
        cues: [
          { at: 0, set: { text: 'hi' } },
          { at: 3, set: { tempo: null } },
        ],
      },
    });
    expect(await manifestLines(text, ['cues[1].at', 'title', 'nope'])).toEqual([' line 5', ' line 2', '']);
  });

  it('reports YAML syntax errors with their lines', async () => {
    expect(await parseManifest('id: x\ntitle: [oops\n')).toMatchObject({
      ok: false,
      problems: [expect.stringMatching(/^score\.yaml line \d: syntax: /)],
    });
  });

  it('hands back a beat map as the beats the checks accept', async () => {
    const csv = [HEADER, '0,0,0,1,10,20,5,50', '1,0,0,1,20,30.5,5,50'].join('\n');
    expect(await parseBeatMap(enc(csv), 'csv', { file: 'm.csv', totalBeats: 2, pageCount: 1 })).toEqual({
      ok: true,
      value: {
        beats: [
          { beat: 0, page: 0, system: 0, bar: 1, x0: 10, x1: 20, y0: 5, y1: 50 },
          { beat: 1, page: 0, system: 0, bar: 1, x0: 20, x1: 30.5, y0: 5, y1: 50 },
        ],
      },
    });
    const json = JSON.stringify({ beats: [{ beat: 0, page: 0, system: 0, bar: 1, x0: 10, x1: 20, y0: 5, y1: 50 }] });
    expect(await parseBeatMap(enc(json), 'json', { file: 'm.json', totalBeats: 1 })).toMatchObject({ ok: true });
    expect(await parseBeatMap(enc('{nope'), 'json', { file: 'm.json' })).toMatchObject({
      ok: false,
      problems: [{ file: 'm.json', message: expect.stringMatching(/^is not valid JSON/) }],
    });
  });

  it('lists the first 50 problems of a map wrong on every row, and how many more', async () => {
    const rows = Array.from({ length: 120 }, (_, b) => `${b},0,0,1,x,1,0,1`);
    const r = await parseBeatMap(enc([HEADER, ...rows].join('\n')), 'csv', { file: 'm.csv', totalBeats: 120 });
    if (r.ok) throw new Error('accepted');
    expect(r.problems).toHaveLength(51);
    expect(r.problems[50]).toEqual({ file: 'm.csv', message: 'and 70 more problems like these' });
  });
});

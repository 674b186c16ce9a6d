// Part overlays (core/part-overlays.js): a section's bands read with field-named problems, and the
// value each page draws from the declaration and the meter.

import { describe, it, expect } from 'vitest';
import { readOverlays, bandsFor, BANDS } from '../../core/part-overlays.js';
import { readOpenForm } from '../../core/open-form.js';

const PARTS = ['violin', 'cello'];

/** @param {unknown} raw */
function read(raw) {
  /** @type {{ field: string, message: string }[]} */
  const problems = [];
  const value = readOverlays(raw, 'x.overlays', PARTS, (field, message) => problems.push({ field, message }));
  return { value, problems };
}

describe('part overlays: reading', () => {
  it('reads bands set by the score and driven by the meter, with their defaults', () => {
    const { value, problems } = read([
      { band: 'dynamics', parts: ['violin'], source: 'meter' },
      { band: 'timbre', value: 0.3 },
      { band: 'pitch', source: 'meter', range: [0.2, 0.8] },
    ]);
    expect(problems).toEqual([]);
    expect(value).toEqual([
      { band: 'dynamics', parts: ['violin'], source: 'meter', value: 0.5, range: [0, 1] },
      { band: 'timbre', parts: null, source: null, value: 0.3, range: [0, 1] },
      { band: 'pitch', parts: null, source: 'meter', value: 0.5, range: [0.2, 0.8] },
    ]);
    expect(read(undefined)).toEqual({ value: [], problems: [] });
    expect(BANDS).toContain('pitchStave');
  });

  it('names the field and what to write for each problem', () => {
    const { value, problems } = read([
      { band: 'loudness', value: 1 },
      { band: 'dynamics', parts: ['viola'], value: 0.5 },
      { band: 'timbre' },
      { band: 'speed', value: 2, range: [0, 1] },
      { band: 'position', source: 'votes' },
      { band: 'pressure', source: 'meter', range: [0, 3], colour: 'red' },
      { band: 'pitch', parts: [], value: 0 },
      'dynamics',
    ]);
    expect(value).toEqual([]);
    expect(problems).toEqual([
      { field: 'x.overlays[0].band', message: `must be one of ${BANDS.join(', ')}` },
      { field: 'x.overlays[1].parts', message: '"viola" is not a part' },
      { field: 'x.overlays[2]', message: 'needs a value (0..1) or source: meter' },
      { field: 'x.overlays[3].value', message: 'must be a number from 0 to 1' },
      { field: 'x.overlays[3].range', message: 'applies to source: meter only' },
      {
        field: 'x.overlays[4].source',
        message: 'must be meter (the audience meter drives the band), or be left out with a value',
      },
      { field: 'x.overlays[5].colour', message: 'is not a key of an overlay (band, parts, source, value, range)' },
      {
        field: 'x.overlays[5].range',
        message: 'must be [low, high], numbers from 0 to 1 (the band at meter -1 and at meter 1)',
      },
      { field: 'x.overlays[6].parts', message: 'must list part ids' },
      { field: 'x.overlays[7]', message: 'must be {band, parts?, source: meter | value: 0..1, range?}' },
    ]);
    expect(read({ band: 'dynamics' }).problems[0].field).toBe('x.overlays');
    expect(read(Array.from({ length: 9 }, () => ({ band: 'timbre', value: 0 }))).problems).toHaveLength(1);
  });

  it('refuses a second band of a kind over the same part', () => {
    const { value, problems } = read([
      { band: 'dynamics', value: 0.5 },
      { band: 'dynamics', parts: ['cello'], source: 'meter' },
      { band: 'timbre', parts: ['violin'], value: 0.5 },
      { band: 'timbre', parts: ['cello'], value: 0.2 },
      { band: 'timbre', value: 0.1 },
    ]);
    expect(value.map((o) => [o.band, o.parts])).toEqual([
      ['dynamics', null],
      ['timbre', ['violin']],
      ['timbre', ['cello']],
    ]);
    expect(problems).toEqual([
      { field: 'x.overlays[1]', message: 'a second dynamics band over part cello' },
      { field: 'x.overlays[4]', message: 'a second timbre band over part violin' },
    ]);
  });

  it('is read as a section key by the open form, and checked against its parts', () => {
    const r = readOpenForm(
      { sections: [{ id: 'a', beats: [0, 3], overlays: [{ band: 'dynamics', parts: ['harp'], value: 1 }] }] },
      { totalBeats: 4, parts: PARTS },
    );
    expect(!r.ok && r.problems).toEqual([
      { field: 'openForm.sections[0].overlays[0].parts', message: '"harp" is not a part' },
    ]);
  });
});

describe('part overlays: the bands over a part', () => {
  const overlays = [
    { band: 'dynamics', parts: ['violin'], source: 'meter', range: [0, 1], value: 0.5 },
    { band: 'timbre', value: 0.3 },
    { band: 'pitch', source: 'meter', range: [0.2, 0.8], value: 0.5 },
  ];

  it('follows the meter for a driven band, the score for the others, only over the parts named', () => {
    expect(bandsFor(overlays, 'violin', 0.5)).toEqual([
      { band: 'dynamics', value: 0.75, source: 'meter' },
      { band: 'timbre', value: 0.3, source: null },
      { band: 'pitch', value: 0.65, source: 'meter' },
    ]);
    expect(bandsFor(overlays, 'cello', -1).map((b) => [b.band, b.value])).toEqual([
      ['timbre', 0.3],
      ['pitch', 0.2],
    ]);
    // No meter in the state (the section shows none): a driven band rests at its middle.
    expect(bandsFor(overlays, 'violin', undefined)[0]).toEqual({ band: 'dynamics', value: 0.5, source: 'meter' });
  });

  it('reads what comes from the network with care', () => {
    expect(bandsFor(undefined, 'violin', 0)).toEqual([]);
    expect(
      bandsFor(
        [null, { band: 'x', value: 1 }, { band: 'speed', value: 7 }, { band: 'speed', parts: 'violin' }],
        'violin',
        0,
      ),
    ).toEqual([{ band: 'speed', value: 1, source: null }]);
    expect(bandsFor([{ band: 'dynamics', source: 'meter', range: [0, 1] }], 'cello', Number.NaN)).toEqual([
      { band: 'dynamics', value: 0, source: 'meter' },
    ]);
  });
});

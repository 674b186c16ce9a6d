// Unknown keys of score.yaml are errors with their line and the nearest valid key:
// before, "cue:" for "cues:" loaded as a valid score with no cues.

import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { nearestKey, unknownKeys } from '../../../server/package/manifest-schema.js';
import { loadPackage } from '../../../server/package/load.js';

const meter = { bars: 2, meter: [{ bar: 1, time: '4/4', tempo: 60 }] };

describe('unknown keys of score.yaml', () => {
  it('names each unknown key and the key meant', () => {
    const raw = { id: 'x', title: 'X', ...meter, cue: [], parts: [{ id: 'fl', nmae: 'Flute' }] };
    expect(unknownKeys(raw)).toEqual([
      { field: 'cue', message: 'is not a key of score.yaml here; did you mean "cues"?' },
      { field: 'parts[0].nmae', message: 'is not a key of score.yaml here; did you mean "name"?' },
    ]);
  });

  it('knows every key of every kind of cue', () => {
    const raw = {
      id: 'x',
      title: 'X',
      ...meter,
      cues: [
        { bar: 1, set: { text: 'a' } },
        { bar: 2, audio: 'a.mp3', view: 'audience' },
        { at: 0, set: {}, lenght: 2 },
      ],
    };
    expect(unknownKeys(raw)).toEqual([
      {
        field: 'cues[2].lenght',
        message: 'is not a key of score.yaml here; the keys here are at, bar, beat, view, set, audio, stem, gain, vote',
      },
    ]);
  });

  it('finds nothing in a valid manifest', () => {
    expect(unknownKeys({ id: 'x', title: 'X', ...meter, cues: [{ bar: 1, set: { text: 'a' } }] })).toEqual([]);
  });

  it('suggests a key only when it is near', () => {
    expect(nearestKey('colour', ['color', 'cues'])).toBe('color');
    expect(nearestKey('tempi', ['tempo', 'time'])).toBe('tempo');
    expect(nearestKey('banana', ['bars', 'meter'])).toBe(null);
  });

  it('makes loadPackage refuse the package', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'sc-keys-'));
    // The line is that of the key's value (the list under it).
    writeFileSync(
      path.join(dir, 'score.yaml'),
      'id: t\ntitle: T\nbars: 2\nmeter:\n  - { bar: 1, time: 4/4, tempo: 60 }\ncue:\n  - { bar: 1, set: { text: x } }\n',
    );
    await expect(loadPackage(dir, { cacheDir: path.join(dir, '.cache') })).rejects.toThrow(
      /score\.yaml line 7: cue: is not a key of score\.yaml here; did you mean "cues"\?/,
    );
  });
});

// Presets in score.yaml: audience patches the conductor fires by hand.

import { describe, expect, it } from 'vitest';
import { buildScoreModel } from '../../core/manifest.js';

/** @param {unknown} presets */
const build = (presets) =>
  buildScoreModel({ id: 'p', title: 'P', bars: 1, meter: [{ bar: 1, time: '4/4', tempo: 60 }], presets });

describe('presets in score.yaml', () => {
  it('keeps each preset with its id as text and a name for the console', () => {
    const r = build([
      { id: 3, set: { text: 'Zoom out' } },
      { id: 'calm', name: 'Calm', set: { background: '#003' } },
    ]);
    expect(r.ok && r.value.presets).toEqual([
      { id: '3', name: 'Preset 3', set: { text: 'Zoom out' } },
      { id: 'calm', name: 'Calm', set: { background: '#003' } },
    ]);
  });

  it('refuses a preset without a patch, a second preset of the same id, and colours that are not colours', () => {
    const r = build([
      { id: 1 },
      { id: 2, set: {} },
      { id: 2, set: {} },
      { id: 4, set: { background: 'url(x)' } },
      { id: 'a b', set: {} },
    ]);
    expect(r.ok ? [] : r.problems.map((p) => p.field)).toEqual([
      'presets[0].set',
      'presets[2].id',
      'presets[3].set',
      'presets[4].id',
    ]);
  });

  it('a score without presets has none', () => {
    const r = build(undefined);
    expect(r.ok && r.value.presets).toEqual([]);
  });
});

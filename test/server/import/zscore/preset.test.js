// ZScore's presets as package presets (server/import/zscore/preset.js): the instructions, the
// rose's rows, the zoom and the stage's disc of a section, in one patch the conductor fires.
import { describe, it, expect } from 'vitest';
import { applyPatch } from '../../../../core/merge-patch.js';
import { tilesOf } from '../../../../client/src/audience/audience-view.js';
import { presetPatch } from '../../../../server/import/zscore/preset.js';

/**
 * A ZScore preset of these scripts.
 * @param {number} id @param {string[]} scripts
 * @returns {import('../../../../server/import/zscore/script.js').Preset}
 */
const preset = (id, scripts) => ({
  id,
  file: 'audienceScoreConfig.yml',
  line: 10 + id,
  scripts: scripts.map((text, k) => ({ text, line: 11 + id + k })),
  config: [],
});

describe('import-zscore: presets', () => {
  const reset = preset(1, ['webScore.resetState();', 'webScore.sendGranulatorConfig();']);
  const section = preset(3, [
    'webScore.reset(1);',
    "webScore.setZoomLevel('centreShape');",
    "webScore.setVisible(['centreShape'], true);",
    'webScore.deactivateRows([1]);',
    'webScore.setVisibleRows([2, 3]);',
    'webScore.setActiveRows([2]);',
    'webScore.setStageAlpha(0.0, 0.5);',
  ]);
  const presets = new Map([
    [1, reset],
    [3, section],
  ]);

  it("carries a section's picture: its instructions, rows, zoom and disc", () => {
    expect(presetPatch(section, { presets, rings: 3, slices: 2 })).toEqual({
      // webScore.reset(1) -> resetState
      text: null,
      color: null,
      background: null,
      layout: { zoom: 2 },
      tiles: {
        't1-1': { state: 'hidden' },
        't1-2': { state: 'hidden' },
        't2-1': { state: 'lit' },
        't2-2': { state: 'lit' },
        't3-1': { state: 'dim' },
        't3-2': { state: 'dim' },
      },
      stage: { alpha: 0, glide: 500 },
    });
  });

  it('shows a row again that the preset removed, and swings rings as the operator asked', () => {
    const back = preset(4, [
      'webScore.deactivateRows([1]);',
      'webScore.setVisibleRows([1, 2]);',
      "webScore.setAction('start', 'ROTATE', ['ctg2']);",
    ]);
    expect(presetPatch(back, { presets, rings: 2, slices: 1 })).toEqual({
      tiles: { 't1-1': { state: 'dim' } },
      spin: { rings: [2], at: 'preset-4' },
    });
  });

  it('has no patch for a preset of what scorecast does not show, nor rows without a rose', () => {
    expect(
      presetPatch(preset(5, ["webScore.setVisible(['centreShape'], true);"]), { presets, rings: 3, slices: 2 }),
    ).toBeNull();
    expect(presetPatch(preset(6, ['webScore.setActiveRows([1]);']), { presets, rings: 0, slices: 0 })).toBeNull();
  });

  it('does not loop on a preset that runs itself', () => {
    const self = preset(7, ['webScore.reset(7);', "webScore.setInstructions('a', 'b', 'c');"]);
    expect(presetPatch(self, { presets: new Map([[7, self]]), rings: 0, slices: 0 })).toEqual({ text: 'a\nb\nc' });
  });

  it('a row the preset removed keeps its words: lit again by the score or shown by a preset, they are there', () => {
    const words = { 't1-1': { state: 'lit', text: 'hope' }, 't1-2': { state: 'lit', text: 'fear' } };
    const gone = /** @type {Record<string, unknown>} */ (
      presetPatch(preset(8, ['webScore.deactivateRows([1]);']), { presets, rings: 1, slices: 2 })
    );
    const removed = applyPatch({ tiles: words }, gone);
    // not drawn while removed
    expect(tilesOf(removed).tiles).toEqual([]);
    // the score lights the row again later: its cue says the state only (it never saw the preset)
    const back = applyPatch(removed, { tiles: { 't1-1': { state: 'lit' }, 't1-2': { state: 'lit' } } });
    expect(tilesOf(back).tiles.map((t) => t.text)).toEqual(['hope', 'fear']);
    // or another preset lights the row again
    const lit = presetPatch(preset(10, ['webScore.setActiveRows([1]);']), { presets, rings: 1, slices: 2 });
    const again = applyPatch(removed, /** @type {Record<string, unknown>} */ (lit));
    expect(tilesOf(again).tiles).toEqual([
      { id: 't1-1', state: 'lit', text: 'hope' },
      { id: 't1-2', state: 'lit', text: 'fear' },
    ]);
  });
});

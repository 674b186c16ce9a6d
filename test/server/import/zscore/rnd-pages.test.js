// sce.sendMaxMspRndPageUpdates(N) as an OSC cue naming the page chosen next
// (server/import/zscore/rnd-pages.js).
import { describe, it, expect } from 'vitest';
import { readRndPageUpdates } from '../../../../server/import/zscore/rnd-pages.js';

/**
 * @param {number} at @param {unknown[]} args
 * @returns {import('../../../../server/import/zscore/cues.js').TimedCall}
 */
const call = (at, args) => ({
  at,
  kind: 'sce',
  method: 'sendMaxMspRndPageUpdates',
  args,
  text: `sce:beat=13:sce.sendMaxMspRndPageUpdates(${args.join('|')})`,
  source: `S_BeatInfo.csv line ${at}`,
});

// Pages of 16 beats; pages 3 and 4 are chosen; the export's own Max lines name the files.
const ctx = {
  pageStarts: [0, 16, 32, 48],
  slots: new Set([3, 4]),
  osc: [{ args: ['play'] }, { args: ['setFile', 'UnionRose_b7.wav'] }],
};

describe('import-zscore: the Max patch hears the page chosen next', () => {
  it("loads the chosen page's sound file into the buffer, on the call's beat, for the page after the current one", () => {
    const r = readRndPageUpdates([call(28, [2]), call(44, [1])], ctx);
    expect(r.osc).toEqual([
      { at: 28, address: '/zs/b2', args: ['setFile', 'UnionRose_b{page:3}.wav'] },
      { at: 44, address: '/zs/b1', args: ['setFile', 'UnionRose_b{page:4}.wav'] },
    ]);
    expect(r.skipped).toEqual([]);
    expect(r.consumed).toHaveLength(2);
  });

  it("buffer 0 is ZScore's page buffer (b3): the chosen page's file is loaded there and played on the first beat of that page", () => {
    const r = readRndPageUpdates([call(28, [0])], ctx);
    expect(r.osc).toEqual([
      { at: 28, address: '/zs/b3', args: ['setFile', 'UnionRose_b{page:3}.wav'] },
      { at: 32, address: '/zs/b3', args: ['play'] },
    ]);
    expect(r.skipped).toEqual([]);
    expect(r.converted[0].result).toMatch(/play at beat 32, the first of page 3/);
  });

  it('lists, with the reason, a call whose next page is not chosen, a bad buffer, and an export that names no files', () => {
    const r = readRndPageUpdates([call(4, [1]), call(28, [-1])], ctx);
    expect(r.osc).toEqual([]);
    expect(r.skipped.map((i) => i.reason)).toEqual([
      expect.stringMatching(/page 2, after the page of beat 4, is not chosen/),
      expect.stringMatching(/not a whole number from 0/),
    ]);
    const unnamed = readRndPageUpdates([call(28, [2])], { ...ctx, osc: [] });
    expect(unnamed.skipped[0].reason).toMatch(/MaxMspConfig, not in the export/);
    expect(unnamed.consumed).toHaveLength(1);
  });
});

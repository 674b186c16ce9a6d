import { describe, it, expect } from 'vitest';
import { parsePageRanges } from '../../core/page-ranges.js';
import { PACKAGE_LIMITS } from '../../core/package-limits.js';
import { buildScoreModel } from '../../core/manifest.js';

describe('the pages a view takes from a PDF', () => {
  it('reads pages and ranges from a string, a number or a list, in the order written', () => {
    expect(parsePageRanges('1-4', 1000)).toEqual({ ok: true, value: [1, 2, 3, 4] });
    expect(parsePageRanges(' 7, 2 - 3 ', 1000)).toEqual({ ok: true, value: [7, 2, 3] });
    expect(parsePageRanges(5, 1000)).toEqual({ ok: true, value: [5] });
    expect(parsePageRanges([1, '4-5'], 1000)).toEqual({ ok: true, value: [1, 4, 5] });
  });
  it('refuses what is not a page from 1, a range that goes down, and more pages than the bound', () => {
    for (const bad of ['0', '3-1', 'one', '1-', '', [], [true], 1.5, { from: 1 }])
      expect(parsePageRanges(bad, 1000).ok, JSON.stringify(bad)).toBe(false);
    const r = parsePageRanges('1-1001', 1000);
    expect(r).toEqual({ ok: false, message: 'names more than the 1000 pages a view may have' });
  });
});

describe('score.yaml: a view whose pages are a PDF', () => {
  const raw = (/** @type {unknown} */ score) => ({
    id: 'piece',
    title: 'Piece',
    bars: 1,
    meter: [{ bar: 1, time: '4/4', tempo: 60 }],
    parts: [{ id: 'violin', name: 'Violin' }],
    pages: { score },
  });
  it('takes a file and its pages, or all of them', () => {
    const r = buildScoreModel(raw({ pdf: { file: 'parts.pdf', pages: '2-3' }, beatmap: 'score.csv' }));
    expect(r.ok && r.value.pages?.score).toEqual({
      files: [],
      beatmap: 'score.csv',
      pdf: { file: 'parts.pdf', pages: [2, 3] },
    });
    const all = buildScoreModel(raw({ pdf: { file: 'parts.pdf' }, beatmap: 'score.csv' }));
    expect(all.ok && all.value.pages?.score?.pdf).toEqual({ file: 'parts.pdf', pages: null });
  });
  it('names what is wrong: not a PDF, outside the package, both files and a PDF, bad pages', () => {
    /** @param {unknown} score */
    const problems = (score) => {
      const r = buildScoreModel(raw(score));
      return r.ok ? [] : r.problems.map((p) => `${p.field}: ${p.message}`);
    };
    expect(problems({ pdf: { file: 'parts.png' }, beatmap: 's.csv' })[0]).toMatch(
      /^pages\.score\.pdf\.file: must be a \.pdf file/,
    );
    expect(problems({ pdf: { file: '../x.pdf' }, beatmap: 's.csv' })[0]).toMatch(/^pages\.score\.pdf\.file:/);
    expect(problems({ pdf: { file: 'a.pdf' }, files: ['p.png'], beatmap: 's.csv' })[0]).toMatch(
      /^pages\.score\.files: a view has page images \(files\) or a PDF \(pdf\), not both/,
    );
    expect(problems({ pdf: { file: 'a.pdf', pages: '4-2' }, beatmap: 's.csv' })[0]).toMatch(
      /^pages\.score\.pdf\.pages: has "4-2"/,
    );
    expect(
      problems({ pdf: { file: 'a.pdf', pages: `1-${PACKAGE_LIMITS.pagesPerView + 1}` }, beatmap: 's.csv' })[0],
    ).toMatch(/more than the 1000 pages/);
    expect(problems({ pdf: { file: 'a.pdf' }, beatmap: 's.txt' })[0]).toMatch(/^pages\.score\.beatmap:/);
  });
});

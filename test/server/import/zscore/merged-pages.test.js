// merged.js on its own: which rows a page of a merged export is read from, and the movements as
// sections, in the shapes of ZScore's real merged exports (szagorac/zsweb: Dialogs, three
// movements renumbered; Symphonea, one movement "SymphoneaM1" whose page files keep the master's
// numbering but not its score name).

import { describe, it, expect } from 'vitest';
import { indexMaster, isMergedExport, pickPageRows, sectionsOf } from '../../../../server/import/zscore/merged.js';

/**
 * A beat row as csv.js reads it.
 * @param {Partial<import('../../../../server/import/zscore/csv.js').BeatInfoRow>} o
 * @returns {import('../../../../server/import/zscore/csv.js').BeatInfoRow}
 */
function row(o) {
  return {
    file: 'f.csv',
    line: 2,
    scoreName: 'Symphonea',
    instrumentName: 'Blue',
    pageName: 'page2',
    pageNo: 2,
    barName: 'bar2',
    barNo: 2,
    timeSigNum: 12,
    timeSigText: '12',
    timeSigDenom: 4,
    tempoBpm: 100,
    tempoBeatValue: 4,
    beatNo: 13,
    startTimeMillis: 7800,
    durationTimeMillis: 600,
    xStartPxl: 68,
    xEndPxl: 123,
    yStartPxl: 100,
    yEndPxl: 100,
    isUpbeat: false,
    resource: '/merged/Symphonea_Blue_page2',
    script: null,
    ...o,
  };
}

/**
 * The upbeat before `row`'s beat: the first beat row of page 2.
 * @param {Partial<import('../../../../server/import/zscore/csv.js').BeatInfoRow>} [o]
 */
const upbeat = (o) => row({ beatNo: 12, startTimeMillis: 7200, xStartPxl: 30, xEndPxl: 68, isUpbeat: true, ...o });

describe('merged exports: a page read from the master or its file', () => {
  const masterRows = [
    upbeat({ file: '1_Symphonea_BeatInfo.csv', line: 80 }),
    row({ file: '1_Symphonea_BeatInfo.csv', line: 81 }),
    row({ file: '1_Symphonea_BeatInfo.csv', line: 82, resource: 'max:beat=1:play|b1', script: 'max' }),
  ];
  const master = indexMaster('1_Symphonea_BeatInfo.csv', masterRows);
  /**
   * Blue's page 2 of Symphonea, from the master or from its page file's rows.
   * @param {ReturnType<typeof row>[]} rows @param {string} [csv] the page file's name
   */
  const pickPage2 = (rows, csv = 'p.csv') =>
    pickPageRows({ master, scoreName: 'Symphonea', instrument: 'Blue', page: 2, csv, parsed: { rows, problems: [] } });

  it("reads a movement's original (another score name, the same numbering) from the master", () => {
    const file = [upbeat({ scoreName: 'SymphoneaM1' }), row({ scoreName: 'SymphoneaM1', line: 3 })];
    expect(isMergedExport(master, 'Symphonea', [{ rows: file }])).toBe(true);
    const pick = pickPage2(file, 'Symphonea_Blue_page2_BeatInfo.csv');
    expect(pick.from).toBe('master');
    expect(pick.rows?.map((r) => r.line)).toEqual([80, 81]);
    expect(pick.movement).toEqual({ name: 'SymphoneaM1', page: 2 });
    expect(pick.note).toBe(null);
  });

  it('reads a page file that agrees with the master as it is', () => {
    const file = [
      upbeat({ startTimeMillis: 7201 }),
      row({ line: 3 }),
      row({ line: 4, resource: 'max:beat=1:play|b1', script: 'max' }),
    ];
    expect(isMergedExport(master, 'Symphonea', [{ rows: file }])).toBe(false);
    const pick = pickPage2(file);
    expect(pick).toMatchObject({ from: 'file', movement: null, note: null });
    expect(pick.rows).toHaveLength(3);
  });

  it('names the first difference of a page file that disagrees', () => {
    const file = [upbeat(), row({ line: 3, startTimeMillis: 7805 })];
    const pick = pickPage2(file);
    expect(pick.from).toBe('master');
    expect(pick.note).toBe(
      "warning: p.csv disagrees with the master: line 3 has startTimeMillis 7805 where 1_Symphonea_BeatInfo.csv line 81 has 7800; its beats were read from the master 1_Symphonea_BeatInfo.csv (lines 80–81), as ZScore's loader reads them",
    );
  });
});

describe('merged exports: movements as sections', () => {
  const view = {
    pages: [{ no: 1 }, { no: 2 }, { no: 3 }, { no: 4 }, { no: 5 }],
    beats: [
      { page: 0, bar: 0 },
      { page: 1, bar: 1 },
      { page: 2, bar: 2 },
      { page: 3, bar: 3 },
      { page: 4, bar: 4 },
    ],
  };

  it('starts a section at each movement, and again when a movement comes back at its page 1', () => {
    const m = (/** @type {string} */ name, /** @type {number} */ page) => ({ name, page });
    expect(sectionsOf(view, [m('A', 1), m('A', 2), m('B', 1), m('A', 1), null], 'Score')).toEqual([
      { name: 'A', beat: 0, bar: 0, pages: [1, 2] },
      { name: 'B', beat: 2, bar: 2, pages: [3, 3] },
      { name: 'A', beat: 3, bar: 3, pages: [4, 5] },
    ]);
  });

  it('names pages before the first named movement after the score, and has none in an export of one score', () => {
    expect(sectionsOf(view, [null, null, { name: 'B', page: 1 }, null, null], 'Score').map((x) => x.name)).toEqual([
      'Score',
      'B',
    ]);
    expect(sectionsOf(view, [null, null, null, null, null], 'Score')).toEqual([]);
  });
});

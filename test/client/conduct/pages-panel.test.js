import { describe, it, expect } from 'vitest';
import { pageChoiceRows } from '../../../client/src/conduct/pages-panel.js';

describe('console: pages chosen', () => {
  it('lists each decided page slot with the parts that play and their pages, by slot', () => {
    expect(pageChoiceRows({ violin1: { 10: 3, 9: 5 }, cello: { 9: 5 }, viola: {} })).toEqual([
      {
        slot: 9,
        plays: [
          ['violin1', 5],
          ['cello', 5],
        ],
      },
      { slot: 10, plays: [['violin1', 3]] },
    ]);
  });
  it('ignores what is not a choice', () => {
    expect(pageChoiceRows(undefined)).toEqual([]);
    expect(pageChoiceRows({ a: null, b: { x: 1, 3: 'no' } })).toEqual([]);
  });
});

import { describe, it, expect } from 'vitest';
import { decidePageChoice } from '../../core/page-choice.js';
import { hash32, seededRandom } from '../../core/random.js';

const PARTS = ['violin1', 'violin2', 'viola', 'cello'];
/** @type {import('../../core/page-choice.js').PageChoice} */
const CHOICE = {
  slot: 9,
  at: 100,
  from: [[1, 8]],
  groups: [1],
  vote: 'slot-9',
  seed: 0,
  next: [],
  tiles: { 't2-1': 1, 't2-2': 2, 't2-3': 3, 't2-4': 4, 't2-5': 5, 't2-6': 6, 't2-7': 7, 't2-8': 8 },
};
const input = (/** @type {Record<string, number> | null} */ tally, played = new Set()) => ({
  scoreId: 'union-rose',
  parts: PARTS,
  tally,
  played: /** @type {Set<string>} */ (played),
});

describe("page choice (ZScore's page strategy with votes)", () => {
  it('the tile with most votes chooses the page; one part plays it, the others rest', () => {
    const d = decidePageChoice(CHOICE, input({ 't2-3': 2, 't2-6': 5, 't2-1': 1 }));
    expect(d.tiles).toEqual(['t2-6']);
    expect(d.pages).toEqual([6]);
    expect(Object.values(d.parts)).toEqual([6]);
    expect(PARTS).toContain(Object.keys(d.parts)[0]);
  });

  it('groups deal the parts: [2, 1] gives two parts the top page and one the second', () => {
    const d = decidePageChoice({ ...CHOICE, groups: [2, 1] }, input({ 't2-3': 2, 't2-6': 5 }));
    expect(d.pages).toEqual([6, 3]);
    expect(Object.values(d.parts).sort()).toEqual([3, 6, 6]);
    expect(Object.keys(d.parts)).toHaveLength(3);
  });

  it('ties go to the tile listed first; tiles already played and unknown tiles do not count', () => {
    expect(decidePageChoice(CHOICE, input({ 't2-5': 3, 't2-2': 3 })).tiles).toEqual(['t2-2']);
    expect(decidePageChoice(CHOICE, input({ 't2-5': 3, 't2-2': 3 }, new Set(['t2-2']))).tiles).toEqual(['t2-5']);
    expect(decidePageChoice(CHOICE, input({ 't9-9': 10 })).tiles).toEqual([]);
  });

  it('without votes a seeded random page from the range: the same every time, other seeds differ', () => {
    const a = decidePageChoice({ ...CHOICE, groups: [1, 1, 1, 1] }, input(null));
    expect(a.tiles).toEqual([]);
    expect(a.pages.every((p) => p >= 1 && p <= 8)).toBe(true);
    expect(Object.keys(a.parts).sort()).toEqual([...PARTS].sort());
    expect(decidePageChoice({ ...CHOICE, groups: [1, 1, 1, 1] }, input(null))).toEqual(a);
    const others = [1, 2, 3, 4, 5].map((seed) =>
      JSON.stringify(decidePageChoice({ ...CHOICE, groups: [1, 1, 1, 1], seed }, input(null))),
    );
    expect(new Set([JSON.stringify(a), ...others]).size).toBeGreaterThan(1);
  });

  it('takes random pages only from the ranges', () => {
    const pages = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9].flatMap(
      (seed) =>
        decidePageChoice(
          {
            ...CHOICE,
            from: [
              [1, 2],
              [7, 7],
            ],
            groups: [1, 1, 1, 1],
            seed,
          },
          input(null),
        ).pages,
    );
    expect(new Set(pages)).toEqual(new Set([1, 2, 7]));
  });

  it('more group places than parts: the extra places stay empty', () => {
    const d = decidePageChoice({ ...CHOICE, groups: [3, 3] }, input({ 't2-1': 1 }));
    expect(Object.keys(d.parts)).toHaveLength(4);
  });

  it('the generator is uniform enough and the hash is stable', () => {
    expect(hash32('union-rose:9:0')).toBe(hash32('union-rose:9:0'));
    const r = seededRandom(42);
    const counts = new Array(8).fill(0);
    for (let i = 0; i < 8000; i++) counts[Math.floor(r() * 8)]++;
    expect(Math.min(...counts)).toBeGreaterThan(850);
    expect(Math.max(...counts)).toBeLessThan(1150);
  });

  it("plays the composer's next tile whatever the votes (ZScore's playing-next tiles), the votes filling the rest", () => {
    const forcedByScore = { ...CHOICE, next: ['t2-2'] };
    const d = decidePageChoice(forcedByScore, input({ 't2-6': 5 }));
    expect(d.tiles).toEqual(['t2-2']);
    expect(d.pages).toEqual([2]);
    // two groups: the forced tile's page first, then the most voted
    const two = decidePageChoice({ ...forcedByScore, groups: [1, 1] }, input({ 't2-6': 5, 't2-2': 9 }));
    expect(two.tiles).toEqual(['t2-2', 't2-6']);
    expect(two.pages).toEqual([2, 6]);
    // the conductor's choice, given live, wins over the score's; a tile of no page of this choice is ignored
    expect(decidePageChoice(forcedByScore, { ...input({ 't2-6': 5 }), forced: ['t2-4'] }).pages).toEqual([4]);
    expect(decidePageChoice(CHOICE, { ...input({ 't2-6': 5 }), forced: ['t9-9'] }).pages).toEqual([6]);
  });
});

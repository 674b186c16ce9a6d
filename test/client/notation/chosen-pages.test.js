import { describe, it, expect } from 'vitest';
import { chosenKey, chosenPages } from '../../../client/src/notation/chosen-pages.js';

describe("chosen pages (the part view's page choices)", () => {
  it('draws the chosen page in its slot and every other page as it is', () => {
    const drawn = chosenPages({ 9: 3, 10: 7 }, 56);
    expect([7, 8, 9, 10].map(drawn)).toEqual([7, 2, 6, 10]);
  });
  it('ignores what is not a page of the view', () => {
    const drawn = chosenPages({ 9: 99, 0: 1, x: 2, 3: 1.5, 4: '2' }, 10);
    expect([0, 1, 2, 3, 8].map(drawn)).toEqual([0, 1, 2, 3, 8]);
    expect(chosenPages(null, 4)(2)).toBe(2);
    expect(chosenPages([1, 2], 4)(0)).toBe(0);
  });
  it('keys change only when the choice does', () => {
    expect(chosenKey({ 10: 2, 9: 3 })).toBe(chosenKey({ 9: 3, 10: 2 }));
    expect(chosenKey({ 9: 3 })).not.toBe(chosenKey({ 9: 4 }));
    expect(chosenKey(undefined)).toBe('');
  });
});

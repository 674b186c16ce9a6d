import { describe, it, expect } from 'vitest';
import {
  roseLayout,
  sectorCentre,
  sectorOf,
  sectorPath,
  selectionPath,
  viewRadius,
  voteShade,
} from '../../../client/src/audience/rose.js';

describe('the rose (tiles in rings)', () => {
  it('reads a layout of rings and slices, nothing else', () => {
    expect(roseLayout({ rings: 8, slices: 8 })).toEqual({ rings: 8, slices: 8 });
    expect(roseLayout({ rings: 0, slices: 8 })).toBeNull();
    expect(roseLayout({ rings: 8 })).toBeNull();
    expect(roseLayout(null)).toBeNull();
    expect(roseLayout('rings')).toBeNull();
  });

  it("puts t<ring>-<slice> on its ring (1 innermost) and slice (1 from twelve o'clock, clockwise)", () => {
    const layout = { rings: 8, slices: 8 };
    const inner = /** @type {NonNullable<ReturnType<typeof sectorOf>>} */ (sectorOf('t1-1', layout));
    const outer = /** @type {NonNullable<ReturnType<typeof sectorOf>>} */ (sectorOf('t8-3', layout));
    expect(inner.r0).toBeLessThan(outer.r0);
    expect(outer.r1).toBeCloseTo(98);
    expect(inner.a0).toBe(0);
    expect(outer.a0).toBeCloseTo(Math.PI / 2);
    expect(outer.a1).toBeCloseTo((3 * Math.PI) / 4);
    expect(sectorOf('t9-1', layout)).toBeNull();
    expect(sectorOf('centreShape', layout)).toBeNull();
  });

  it('draws a sector as two arcs joined by two radii', () => {
    const d = sectorPath({ r0: 10, r1: 20, a0: 0, a1: Math.PI / 2 });
    expect(d).toBe('M 0 -10 L 0 -20 A 20 20 0 0 1 20 0 L 10 0 A 10 10 0 0 0 0 -10 Z');
  });

  it('links the tiles a phone chose with a line through their centres, in the order chosen', () => {
    const layout = { rings: 8, slices: 8 };
    expect(selectionPath(['t1-1'], layout)).toBe('');
    const [x1, y1] = /** @type {[number, number]} */ (sectorCentre('t1-1', layout));
    const [x2, y2] = /** @type {[number, number]} */ (sectorCentre('t2-5', layout));
    expect(selectionPath(['t1-1', 'centreShape', 't2-5'], layout)).toBe(`M ${x1} ${y1} L ${x2} ${y2}`);
    expect(y1).toBeLessThan(0); // slice 1 is at twelve o'clock
    expect(y2).toBeGreaterThan(0); // slice 5 of 8 is at six
  });

  it('darkens a tile with its share of the votes, the tile with most the darkest', () => {
    expect(voteShade(0, 5)).toBe(0);
    expect(voteShade(5, 5)).toBe(0.6);
    expect(voteShade(1, 4)).toBe(0.15);
    expect(voteShade(3, 0)).toBe(0);
  });

  it("shows the rings a score's zoom names, or else zooms on the rings the audience can vote in", () => {
    const layout = { rings: 8, slices: 8 };
    const tiles = [
      { id: 't1-1', state: 'dim' },
      { id: 't2-1', state: 'lit' },
    ];
    // ring 2 of 8 ends at 10 + 2 * 11 = 32 drawing units; the view leaves 4 around it
    expect(viewRadius(layout, tiles, null)).toBe(36);
    expect(viewRadius(layout, tiles, 1)).toBe(25);
    expect(viewRadius(layout, tiles, 8)).toBe(100);
    expect(viewRadius(layout, [{ id: 't1-1', state: 'dim' }], null)).toBe(100);
  });
});

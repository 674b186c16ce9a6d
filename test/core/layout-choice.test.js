// Choosing a part's layout by the width it is drawn at (core/layout-choice.js).

import { describe, expect, it } from 'vitest';
import {
  MAX_WIDTH_PX,
  MIN_STAFF_PX,
  PENDING_RETRY_MS,
  chooseLayout,
  layoutsOf,
  pendingOf,
  widthOf,
} from '../../core/layout-choice.js';

/** What the server lists for an engraved part (server/package/engrave/options.js, PART_LAYOUTS). */
const LAYOUTS = [
  { name: 'page', staff: 72, width: 2100, url: '/api/score/views/violin' },
  { name: 'medium', staff: 72, width: 1200, url: '/api/score/views/violin?layout=medium' },
  { name: 'narrow', staff: 72, width: 600, url: '/api/score/views/violin?layout=narrow' },
];

const pick = (/** @type {number} */ width) => chooseLayout(LAYOUTS, width)?.name;

describe('chooseLayout', () => {
  it('gives a phone in portrait the narrow pages: a 43 px staff instead of 12 px', () => {
    // 390 px wide, the view 358 px across.
    expect(pick(358)).toBe('narrow');
    expect((72 * 358) / 600).toBeGreaterThanOrEqual(MIN_STAFF_PX);
  });

  it('gives a tablet in portrait or a phone in landscape the medium pages, a wide desktop A4', () => {
    expect(pick(736)).toBe('medium');
    expect(pick(812)).toBe('medium');
    expect(pick(1248)).toBe('page');
  });

  it('takes the widest layout whose staff reaches the bound, whatever order they are listed in', () => {
    expect(chooseLayout([...LAYOUTS].reverse(), 1248)?.name).toBe('page');
    expect(chooseLayout(LAYOUTS, 1248, 50)?.name).toBe('medium');
  });

  it('on a screen too narrow for any, takes the tallest staff', () => {
    expect(pick(200)).toBe('narrow');
  });

  it('chooses nothing without a width (a hidden view) or without layouts', () => {
    expect(chooseLayout(LAYOUTS, 0)).toBeNull();
    expect(chooseLayout(LAYOUTS, Number.NaN)).toBeNull();
    expect(chooseLayout([], 400)).toBeNull();
  });
});

describe('widthOf', () => {
  it("reads a view's width from the query: a whole number of CSS px from 1 to MAX_WIDTH_PX, in digits", () => {
    expect(widthOf('358')).toBe(358);
    expect(widthOf('1')).toBe(1);
    expect(widthOf(String(MAX_WIDTH_PX))).toBe(MAX_WIDTH_PX);
  });

  it('gives null for anything else', () => {
    for (const bad of [
      '',
      '0',
      '007',
      '-1',
      '3.5',
      '1e3',
      '0x10',
      ' 358',
      '10001',
      '99999999',
      'wide',
      undefined,
      358,
      ['358'],
    ])
      expect(widthOf(bad), JSON.stringify(bad)).toBeNull();
  });
});

describe('layoutsOf', () => {
  it('reads the layouts a view lists and drops malformed entries', () => {
    expect(layoutsOf({ pages: [], beats: [], layouts: LAYOUTS })).toEqual(LAYOUTS);
    expect(
      layoutsOf({ layouts: [...LAYOUTS, { name: 'x', staff: 0, width: 600, url: '/x' }, null, { name: 'y' }] }),
    ).toEqual(LAYOUTS);
  });

  it('gives none for a view of one layout', () => {
    expect(layoutsOf({ pages: [], beats: [] })).toEqual([]);
    expect(layoutsOf(null)).toEqual([]);
    expect(layoutsOf({ layouts: 'narrow' })).toEqual([]);
  });
});

describe('pendingOf', () => {
  it("asks again after the server's hint while layouts are pending, bounded to 1-60 s", () => {
    expect(pendingOf({ pending: ['medium', 'narrow'], retryMs: 5000 })).toBe(5000);
    expect(pendingOf({ pending: ['narrow'], retryMs: 10 })).toBe(1000);
    expect(pendingOf({ pending: ['narrow'], retryMs: 1e9 })).toBe(60_000);
    expect(pendingOf({ pending: ['narrow'] })).toBe(PENDING_RETRY_MS);
  });

  it('does not ask again when nothing is pending or the answer is not one', () => {
    expect(pendingOf({ pages: [], beats: [] })).toBeNull();
    expect(pendingOf({ pending: [] })).toBeNull();
    expect(pendingOf(null)).toBeNull();
    expect(pendingOf('pending')).toBeNull();
  });
});

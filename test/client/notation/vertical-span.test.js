// An element placed over a page's rows by `translate` and `scale` (vertical-span.js): what a top
// and a height in % of the parent did, with nothing moved in the layout.

import { describe, it, expect } from 'vitest';
import { JSDOM } from 'jsdom';
import { pct, spanVertically } from '../../../client/src/notation/vertical-span.js';

describe('spanVertically', () => {
  it('moves the element down by the top share and scales it to the height share, leaving top and height alone', () => {
    const el = new JSDOM('<div></div>').window.document.createElement('div');
    spanVertically(el, 0.25, 0.3);
    expect(el.style.translate).toBe('0 25%');
    expect(el.style.scale).toBe('1 0.3');
    expect(el.style.top).toBe('');
    expect(el.style.height).toBe('');
    // Above the parent (a cursor's pad over a crop's top staff) and past its height.
    spanVertically(el, -0.05, 1.1);
    expect(el.style.translate).toBe('0 -5%');
    expect(el.style.scale).toBe('1 1.1');
  });

  it('writes shares to a thousandth of a percent', () => {
    expect(pct(1 / 3)).toBe(33.333);
    const el = new JSDOM('<div></div>').window.document.createElement('div');
    spanVertically(el, 2 / 3, 1 / 7);
    expect(el.style.translate).toBe('0 66.667%');
    expect(el.style.scale).toBe('1 0.14286');
  });
});

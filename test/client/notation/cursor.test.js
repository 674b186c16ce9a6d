// The beat cursor: an element over a page's SVG, placed in the SVG's page units (its viewBox, a
// crop of the page) and moved by a transform only.

import { describe, it, expect } from 'vitest';
import { JSDOM } from 'jsdom';
import { createCursor } from '../../../client/src/notation/cursor.js';

function setup(viewBox = '100 50 400 200') {
  const { window } = new JSDOM('<div id="paper"></div>');
  const doc = window.document;
  const paper = /** @type {HTMLElement} */ (doc.getElementById('paper'));
  const svg = /** @type {SVGSVGElement} */ (
    /** @type {unknown} */ (doc.createElementNS('http://www.w3.org/2000/svg', 'svg'))
  );
  svg.setAttribute('viewBox', viewBox);
  paper.append(svg);
  return { doc, paper, svg, cursor: createCursor(doc) };
}

/** A cursor at page x, over staves from y0 to y1. */
const at = (/** @type {number} */ beat, /** @type {number} */ x, y0 = 100, y1 = 150) => ({
  beat,
  x,
  y0,
  y1,
  line: 0,
  page: 0,
});

describe('beat cursor', () => {
  it('stands over the SVG, not inside it, at the share of the crop its page x is', () => {
    const { paper, svg, cursor } = setup();
    cursor.attach(svg);
    expect(cursor.el.parentElement).toBe(paper);
    expect(svg.contains(cursor.el)).toBe(false);
    cursor.show(at(9, 300), 1000);
    // (300 - 100) / 400 of the width; the bar from 10 page units (1% of the page's width) above
    // the staves to 10 below, as a share of the crop's height.
    expect(cursor.el.style.transform).toBe('translateX(50%)');
    expect(cursor.el.style.top).toBe('20%');
    expect(cursor.el.style.height).toBe('35%');
    expect(cursor.el.dataset.beat).toBe('9');
    expect(cursor.el.dataset.x).toBe('300');
    expect(cursor.el.style.visibility).toBe('visible');
  });

  it('within a beat only its transform changes', () => {
    const { svg, cursor } = setup();
    cursor.attach(svg);
    cursor.show(at(9, 300), 1000);
    const top = cursor.el.style.top;
    cursor.show(at(9, 340, 0, 190), 1000);
    expect(cursor.el.style.transform).toBe('translateX(60%)');
    expect(cursor.el.style.top).toBe(top);
    cursor.show(at(10, 120, 0, 190), 1000);
    expect(cursor.el.style.top).toBe('-30%');
    expect(cursor.el.dataset.beat).toBe('10');
  });

  it('hides when there is no cursor, and leaves a page it is attached to nowhere', () => {
    const { svg, cursor } = setup();
    cursor.attach(svg);
    cursor.show(at(9, 300), 1000);
    cursor.show(null, 1000);
    expect(cursor.el.style.visibility).toBe('hidden');
    expect(cursor.el.dataset.beat).toBeUndefined();
    cursor.attach(null);
    expect(cursor.el.parentElement).toBeNull();
    cursor.show(at(9, 300), 1000);
    expect(cursor.el.dataset.beat).toBeUndefined();
  });

  it("moves to another page and takes that page's crop", () => {
    const { doc, svg, cursor } = setup();
    cursor.attach(svg);
    cursor.show(at(9, 300), 1000);
    const other = setup('0 0 800 400');
    const moved = doc.importNode(other.svg, true);
    const box = doc.createElement('div');
    box.append(moved);
    doc.body.append(box);
    cursor.attach(/** @type {SVGSVGElement} */ (/** @type {unknown} */ (moved)));
    expect(cursor.el.parentElement).toBe(box);
    cursor.show(at(9, 300), 1000);
    expect(cursor.el.style.transform).toBe('translateX(37.5%)');
  });
});

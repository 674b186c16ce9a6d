// The beat cursor: an element over a page's SVG, placed in the SVG's page units (its viewBox, a
// crop of the page) and moved by a transform only; within a beat, by an animation of it that the
// browser runs by itself.

import { describe, it, expect } from 'vitest';
import { JSDOM } from 'jsdom';
import { GLIDE_SLACK_MS, createCursor } from '../../../client/src/notation/cursor.js';

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
    // the staves to 10 below, as a share of the crop's height: moved down and scaled to it, not
    // placed by top and height (a layout shift on every new system; vertical-span.js).
    expect(cursor.el.style.transform).toBe('translateX(50%)');
    expect(cursor.el.style.translate).toBe('0 20%');
    expect(cursor.el.style.scale).toBe('1 0.35');
    expect(cursor.el.style.top).toBe('');
    expect(cursor.el.style.height).toBe('');
    expect(cursor.el.dataset.beat).toBe('9');
    expect(cursor.el.dataset.x).toBe('300');
    expect(cursor.el.style.visibility).toBe('visible');
  });

  it('within a beat only its transform changes', () => {
    const { svg, cursor } = setup();
    cursor.attach(svg);
    cursor.show(at(9, 300), 1000);
    const rows = [cursor.el.style.translate, cursor.el.style.scale];
    cursor.show(at(9, 340, 0, 190), 1000);
    expect(cursor.el.style.transform).toBe('translateX(60%)');
    expect([cursor.el.style.translate, cursor.el.style.scale]).toEqual(rows);
    cursor.show(at(10, 120, 0, 190), 1000);
    expect(cursor.el.style.translate).toBe('0 -30%');
    expect(cursor.el.style.scale).toBe('1 1.05');
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

/**
 * A cursor whose element can animate (as in a browser; jsdom's cannot): each animation asked for
 * is recorded, with its start time on the timeline and whether it was cancelled.
 */
function gliding() {
  const s = setup();
  const timeline = { currentTime: 1000 };
  Object.defineProperty(s.doc, 'timeline', { value: timeline });
  /** @type {Array<{ keyframes: any[], duration: number, fill: string, startTime: number | null, cancelled: boolean }>} */
  const anims = [];
  const proto = /** @type {any} */ (s.doc.defaultView).HTMLElement.prototype;
  proto.animate = (/** @type {any[]} */ keyframes, /** @type {any} */ options) => {
    const a = { keyframes, ...options, startTime: null, cancelled: false, cancel: () => (a.cancelled = true) };
    anims.push(a);
    return a;
  };
  const cursor = createCursor(s.doc);
  cursor.attach(s.svg);
  const running = () => anims.filter((a) => !a.cancelled);
  return { ...s, cursor, timeline, anims, running };
}

/** Beat 9, from x 300 to 400 in the crop 100..500, at `x` now. */
const beat9 = (/** @type {number} */ x) => ({ ...at(9, x), x0: 300, x1: 400 });

describe('the cursor gliding through a beat', () => {
  it("glides over the beat's own times by one animation a beat, not one write a frame", () => {
    const g = gliding();
    g.timeline.currentTime = 1010;
    g.cursor.show(beat9(301.7), 1000, { from: 1000, to: 1600 });
    expect(g.anims).toHaveLength(1);
    const [a] = g.anims;
    expect(a.keyframes).toEqual([{ transform: 'translateX(50%)' }, { transform: 'translateX(75%)' }]);
    expect(a.duration).toBe(600);
    expect(a.startTime).toBe(1000);
    // Held at its start before it (a beat is shown from the frame whose middle reaches it), and
    // at its end after.
    expect(a.fill).toBe('both');
    // Where it is drawn in this frame, for tests and tools.
    expect(g.cursor.el.dataset.x).toBe('301.7');
    // The next frames of the beat: the glide runs on; nothing is written but where it is.
    for (let k = 1; k <= 30; k++) {
      g.timeline.currentTime = 1010 + k * 16.7;
      g.cursor.show(beat9(300 + (100 * (10 + k * 16.7)) / 600), 1000, { from: 1000 + (k % 3), to: 1600 + (k % 3) });
    }
    expect(g.anims).toHaveLength(1);
    expect(g.cursor.el.dataset.x).toBe('385.2');
    // The next beat: a glide of its own, the last one let go.
    g.timeline.currentTime = 1600;
    g.cursor.show({ ...at(10, 400), x0: 400, x1: 480 }, 1000, { from: 1600, to: 2200 });
    expect(g.running()).toHaveLength(1);
    expect(g.running()[0].keyframes).toEqual([{ transform: 'translateX(75%)' }, { transform: 'translateX(95%)' }]);
    expect(g.anims[0].cancelled).toBe(true);
  });

  it('asks for no frames of the page while it glides, and says where it glides', () => {
    const g = gliding();
    g.timeline.currentTime = 1010;
    g.cursor.show(beat9(301.7), 1000, { from: 1000, to: 1600 });
    expect(g.cursor.moving).toBe(false);
    expect(g.cursor.el.dataset.glide).toBe('300 400 1000 1600');
    // Standing (paused, reduced motion): no glide, no frames.
    g.cursor.show(beat9(300), 1000, null);
    expect(g.cursor.moving).toBe(false);
    expect(g.cursor.el.dataset.glide).toBeUndefined();
  });

  it('where it cannot glide (no animations), a playing beat asks for every frame', () => {
    const s = setup();
    s.cursor.attach(s.svg);
    expect(s.cursor.moving).toBe(false);
    s.cursor.show({ ...beat9(320) }, 1000, { from: 1000, to: 1600 });
    expect(s.cursor.moving).toBe(true);
    expect(s.cursor.el.dataset.glide).toBeUndefined();
    s.cursor.show(beat9(320), 1000, null);
    expect(s.cursor.moving).toBe(false);
    s.cursor.show(beat9(320), 1000, { from: 1000, to: 1600 });
    s.cursor.show(null, 1000);
    expect(s.cursor.moving).toBe(false);
  });

  it("starts again only when the page's clock moves the beat by more than the slack", () => {
    const g = gliding();
    g.cursor.show(beat9(300), 1000, { from: 1000, to: 1600 });
    g.timeline.currentTime = 1100;
    g.cursor.show(beat9(317), 1000, { from: 1000 + GLIDE_SLACK_MS, to: 1600 + GLIDE_SLACK_MS });
    expect(g.anims).toHaveLength(1);
    // The beat's length learnt from its message, 40 ms longer.
    g.cursor.show(beat9(316), 1000, { from: 1000, to: 1640 });
    expect(g.anims).toHaveLength(2);
    expect(g.running()).toHaveLength(1);
    expect(g.running()[0]).toMatchObject({ startTime: 1000, duration: 640 });
  });

  it('stands where it is put without a beat to glide over (paused, reduced motion, the beat over), and when hidden', () => {
    const g = gliding();
    g.cursor.show(beat9(300), 1000, { from: 1000, to: 1600 });
    g.cursor.show(beat9(300), 1000, null);
    expect(g.running()).toHaveLength(0);
    expect(g.cursor.el.style.transform).toBe('translateX(50%)');
    // The beat over and the next not yet known: at its end.
    g.timeline.currentTime = 1650;
    g.cursor.show(beat9(400), 1000, { from: 1000, to: 1600 });
    expect(g.anims).toHaveLength(1);
    expect(g.cursor.el.style.transform).toBe('translateX(75%)');
    g.cursor.show(beat9(300), 1000, { from: 1600, to: 2200 });
    g.cursor.show(null, 1000, { from: 1600, to: 2200 });
    expect(g.running()).toHaveLength(0);
    expect(g.cursor.el.style.visibility).toBe('hidden');
    // Attached to another page, no glide over the last one runs on.
    g.cursor.show(beat9(300), 1000, { from: 1600, to: 2200 });
    expect(g.running()).toHaveLength(1);
    g.cursor.attach(g.svg);
    expect(g.running()).toHaveLength(0);
  });
});

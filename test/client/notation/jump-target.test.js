// A jump's target in the paged views: the full score (score-view.js) draws the target's page once
// the jump is announced, wherever it is in the score, and goes to the target at once (no smooth
// scroll that would show the score from before the jump after its downbeat), while an ordinary
// line change still glides; a part engraved in several layouts (part-view.js) prepares the
// target's line in the pane the player moves to.

import { afterEach, describe, it, expect, vi } from 'vitest';
import { JSDOM } from 'jsdom';
import { createScoreView } from '../../../client/src/notation/score-view.js';
import { createPartView } from '../../../client/src/notation/part-view.js';

/** Four pages of one system each, a bar of two beats a page: beats 2p and 2p + 1 on page p. */
function notation() {
  const pages = [0, 1, 2, 3].map((p) => ({ url: `/p${p + 1}.svg`, width: 800, height: 1100 }));
  const beats = [];
  for (let beat = 0; beat < 8; beat++) {
    const page = Math.floor(beat / 2);
    const x0 = 100 + (beat % 2) * 300;
    beats.push({ beat, page, system: 0, bar: page + 1, x0, x1: x0 + 300, y0: 200, y1: 500 });
  }
  return { pages, beats };
}

/**
 * A page whose pages are never seen near the screen (the observer says nothing), whose system
 * band is always out of sight, and whose scrolls are listed.
 */
function setup() {
  const { window } = new JSDOM('<div id="notation"></div>');
  /** @type {string[]} */
  const loaded = [];
  /** @type {string[]} */
  const scrolls = [];
  const w = /** @type {any} */ (window);
  // The page source parses SVG with the page's DOMParser.
  vi.stubGlobal('DOMParser', w.DOMParser);
  w.IntersectionObserver = class {
    observe() {}
    disconnect() {}
  };
  w.HTMLElement.prototype.scrollIntoView = (/** @type {ScrollIntoViewOptions} */ o) => {
    scrolls.push(String(o?.behavior));
  };
  const rect = w.HTMLElement.prototype.getBoundingClientRect;
  w.HTMLElement.prototype.getBoundingClientRect = function () {
    return this.classList.contains('sc-system-band') ? { top: 5000, bottom: 5300, height: 300 } : rect.call(this);
  };
  const root = /** @type {HTMLElement} */ (window.document.getElementById('notation'));
  const view = createScoreView(root, notation(), {
    reducedMotion: false,
    loadPage: async (url) => {
      loaded.push(url);
      return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 800 1100"><text>${url}</text></svg>`;
    },
  });
  const box = /** @type {HTMLElement} */ (root.querySelector('.sc-score'));
  const pageEl = (/** @type {number} */ i) => /** @type {HTMLElement} */ (box.querySelector(`[data-page="${i}"]`));
  return { view, box, pageEl, loaded, scrolls };
}

afterEach(() => {
  vi.unstubAllGlobals();
});

const settle = () => new Promise((r) => setTimeout(r, 0));

describe('the full score view and a jump', () => {
  it("draws a jump's target page when the jump is announced, and goes to it at once on its downbeat", async () => {
    const { view, box, pageEl, loaded, scrolls } = setup();
    view.update(0, 0, 1);
    await settle();
    // The first page and the next line's; the last page is far off and not drawn.
    expect(pageEl(0).dataset.state).toBe('ready');
    expect(pageEl(3).dataset.state).toBe('idle');
    expect(loaded).not.toContain('/p4.svg');
    scrolls.length = 0;

    // Beat 1 sounds and beat 6 (page 4) is announced to follow: a jump.
    view.update(1, 0.5, 6);
    expect(box.dataset.next).toBe('3');
    await settle();
    expect(pageEl(3).dataset.state, 'drawn before its downbeat').toBe('ready');
    expect(box.dataset.line, 'still on the line playing').toBe('0');
    expect(scrolls, 'the conductor is not pulled away before the jump').toEqual([]);

    // The downbeat: the view is on the target's system at once, drawn, the page before left.
    view.update(6, 0, 7);
    expect(box.dataset.line).toBe('3');
    expect(pageEl(3).dataset.current).toBe('true');
    expect(pageEl(0).dataset.current).toBeUndefined();
    const band = /** @type {HTMLElement} */ (pageEl(3).querySelector('.sc-system-band'));
    expect(band).not.toBeNull();
    // Over the page's one system (its crop), moved there by a transform, not by top and height.
    expect(band.style.top).toBe('');
    expect(band.style.translate).toMatch(/^0 \d+(\.\d+)?%$/);
    expect(pageEl(3).querySelector('.sc-cursor'), 'the cursor on the drawn target').not.toBeNull();
    expect(scrolls).toEqual(['instant']);
    expect(box.dataset.next, 'nothing announced any more').toBeUndefined();
    view.destroy();
  });

  it('glides to the next line when play goes on, and names no jump', async () => {
    const { view, box, scrolls } = setup();
    view.update(0, 0, 1);
    view.update(1, 0, 2);
    await settle();
    scrolls.length = 0;
    view.update(2, 0, 3);
    expect(box.dataset.line).toBe('1');
    expect(box.dataset.next).toBeUndefined();
    expect(scrolls).toEqual(['smooth']);
    view.destroy();
  });

  it('scrolls to the first line shown two frames after the score is laid out, not in that frame (the footer moved: a layout shift)', () => {
    const { view, box, scrolls } = setup();
    const w = /** @type {any} */ (box.ownerDocument.defaultView);
    /** @type {Array<() => void>} */
    let frames = [];
    w.requestAnimationFrame = (/** @type {() => void} */ f) => frames.push(f);
    w.cancelAnimationFrame = () => {};
    const frame = () => {
      const run = frames;
      frames = [];
      for (const f of run) f();
    };
    view.update(4, 0, 5);
    expect(box.dataset.line).toBe('2');
    expect(scrolls).toEqual([]);
    frame();
    expect(scrolls, 'not in the frame that lays the score out').toEqual([]);
    frame();
    expect(scrolls).toEqual(['instant']);
    // Later lines at once, as before.
    view.update(5, 0, 6);
    view.update(6, 0, 7);
    expect(scrolls).toEqual(['instant', 'smooth']);
    view.destroy();
  });
});

describe('a part engraved in several layouts and a jump', () => {
  it("prepares the target's line in the other pane, as a part of one layout does", async () => {
    const { window } = new JSDOM('<div id="notation"></div>');
    const w = /** @type {any} */ (window);
    vi.stubGlobal('DOMParser', w.DOMParser);
    // A width to choose a layout for, said at once.
    w.ResizeObserver = class {
      /** @param {() => void} cb */
      constructor(cb) {
        this.cb = cb;
      }
      observe() {
        this.cb();
      }
      disconnect() {}
    };
    const root = /** @type {HTMLElement} */ (window.document.getElementById('notation'));
    Object.defineProperty(root, 'clientWidth', { value: 800 });
    const data = {
      ...notation(),
      layout: 'page',
      layouts: [{ name: 'page', staff: 60, width: 800, url: '/layouts/page.json' }],
    };
    const view = createPartView(root, data, {
      reducedMotion: true,
      loadPage: async (url) =>
        `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 800 1100"><text>${url}</text></svg>`,
    });
    expect(root.dataset.layout).toBe('page');
    const lineOf = (/** @type {string} */ role) =>
      /** @type {HTMLElement} */ (root.querySelector(`.sc-pane[data-role=${role}]`)).dataset.line;
    view.update(1, 0.5, 2);
    expect([lineOf('active'), lineOf('next')]).toEqual(['0', '1']);
    // Beat 6 (page 4) announced to follow beat 1: the other pane shows its line.
    view.update(1, 0.5, 6);
    expect([lineOf('active'), lineOf('next')]).toEqual(['0', '3']);
    await settle();
    expect(/** @type {HTMLElement} */ (root.querySelector('.sc-pane[data-line="3"]')).dataset.state).toBe('ready');
    view.update(6, 0, 7);
    expect(lineOf('active')).toBe('3');
    // The pane just left (the part ends after line 3) keeps its page, hidden by the style, until a
    // task after the landing: the landing's frame does not take a whole page out of the document.
    const left = /** @type {HTMLElement} */ (root.querySelector('.sc-pane[data-role=next]'));
    expect(left.dataset.state).toBe('empty');
    expect(left.querySelector('svg')?.textContent).toBe('/p1.svg');
    await settle();
    expect(left.querySelector('svg')).toBeNull();
    view.destroy();
  });
});

// The beat cursor: a thin vertical bar over a page's SVG (page-svg.js), placed in page units, so
// it crops and scales with the notation, and a few pixels wide on a phone and on a wall screen
// alike. It is an element of its own over the SVG, not a line inside it, and it moves by a
// transform only: a browser composites it on a layer of its own, so a moving cursor repaints
// nothing of the notation. A line inside the SVG did: Chromium restyled, laid out and painted
// the whole engraved page on every frame (in a trace of six pages on a loaded machine, a part
// view's main thread spent a quarter of its time painting, 2.6 ms a frame at the median, tens of
// ms at worst, and its frames came late or not at all: jumps landed there a frame or more after
// the phones).

/**
 * @typedef {object} BeatCursor
 * @property {HTMLElement} el
 * @property {(svg: SVGSVGElement | null) => void} attach  draw over this page (from page-svg.js
 *   render, cropped, in a positioned parent whose box is the SVG's); null: nowhere
 * @property {(c: import('./systems.js').Cursor | null, pageWidth: number) => void} show
 *   place it; null hides it
 */

/**
 * @param {Document} doc
 * @returns {BeatCursor}
 */
export function createCursor(doc) {
  const el = doc.createElement('div');
  el.className = 'sc-cursor';
  el.setAttribute('aria-hidden', 'true');
  el.style.visibility = 'hidden';
  /** @type {SVGSVGElement | null} */
  let page = null;
  /** The page units the SVG shows (its viewBox: a crop of the page). */
  let view = { x: 0, y: 0, width: 1, height: 1 };
  let beat = NaN;
  let x = NaN;

  return {
    el,
    attach(svg) {
      page = svg;
      beat = NaN;
      x = NaN;
      const parent = svg?.parentElement;
      if (!svg || !parent) {
        el.remove();
        return;
      }
      const [vx, vy, vw, vh] = (svg.getAttribute('viewBox') ?? '')
        .trim()
        .split(/[\s,]+/)
        .map(Number);
      if (vw > 0 && vh > 0) view = { x: vx || 0, y: vy || 0, width: vw, height: vh };
      if (el.parentElement !== parent || el.previousElementSibling !== svg) svg.after(el);
    },
    show(c, pageWidth) {
      if (!c || !page) {
        if (!Number.isNaN(beat) || el.dataset.beat !== undefined) {
          el.style.visibility = 'hidden';
          delete el.dataset.beat;
        }
        beat = NaN;
        return;
      }
      if (c.beat !== beat) {
        beat = c.beat;
        // Reach a little past the outer staff lines (a third of a staff at Verovio's A4 sizes), so
        // the bar reads as crossing the staff; a beat map without height (ZScore full scores
        // give a point) still gets a visible bar.
        const pad = pageWidth * 0.01;
        el.style.top = `${pct((c.y0 - pad - view.y) / view.height)}%`;
        el.style.height = `${pct((c.y1 - c.y0 + 2 * pad) / view.height)}%`;
        el.dataset.beat = String(c.beat);
        el.style.visibility = 'visible';
      }
      const at = round(c.x);
      if (at !== x) {
        x = at;
        // The element is as wide as the SVG: a percentage of its own width is one of the page's.
        el.style.transform = `translateX(${pct((at - view.x) / view.width)}%)`;
        // Where it stands in page units, for tests and tools (no style depends on it).
        el.dataset.x = String(at);
      }
    },
  };
}

/** Tenths of a user unit: sub-pixel on any screen, and fewer writes when still. */
const round = (/** @type {number} */ v) => Math.round(v * 10) / 10;
/** A share as a percentage to a thousandth of a percent (a hundredth of a pixel on a wall screen). */
const pct = (/** @type {number} */ share) => Math.round(share * 100_000) / 1000;

// The beat cursor: a thin vertical bar drawn inside a page's SVG (page-svg.js), in page units, so it crops and
// scales with the notation. Its stroke does not scale (vector-effect), so it stays a few pixels
// wide on a phone and on a wall screen alike. Per animation frame only its transform changes.

import { SVG_NS } from './page-svg.js';

/**
 * @typedef {object} BeatCursor
 * @property {SVGLineElement} el
 * @property {(svg: SVGSVGElement | null) => void} attach  draw into this page (from page-svg.js render; null: nowhere)
 * @property {(c: import('./systems.js').Cursor | null, pageWidth: number) => void} show
 *   place it; null hides it
 */

/**
 * @param {Document} doc
 * @returns {BeatCursor}
 */
export function createCursor(doc) {
  const el = /** @type {SVGLineElement} */ (doc.createElementNS(SVG_NS, 'line'));
  el.setAttribute('class', 'sc-cursor');
  el.setAttribute('vector-effect', 'non-scaling-stroke');
  el.setAttribute('x1', '0');
  el.setAttribute('x2', '0');
  el.setAttribute('visibility', 'hidden');
  el.setAttribute('aria-hidden', 'true');
  /** @type {SVGSVGElement | null} */
  let page = null;
  let beat = NaN;
  let transform = '';

  return {
    el,
    attach(svg) {
      page = svg;
      beat = NaN;
      if (svg) svg.append(el);
      else el.remove();
    },
    show(c, pageWidth) {
      if (!c || !page) {
        if (!Number.isNaN(beat) || el.dataset.beat !== undefined) {
          el.setAttribute('visibility', 'hidden');
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
        el.setAttribute('y1', String(round(c.y0 - pad)));
        el.setAttribute('y2', String(round(c.y1 + pad)));
        el.dataset.beat = String(c.beat);
        el.setAttribute('visibility', 'visible');
      }
      const t = `translate(${round(c.x)} 0)`;
      if (t !== transform) {
        transform = t;
        el.setAttribute('transform', t);
      }
    },
  };
}

/** Tenths of a user unit: sub-pixel on any screen, and fewer attribute writes when still. */
const round = (/** @type {number} */ v) => Math.round(v * 10) / 10;

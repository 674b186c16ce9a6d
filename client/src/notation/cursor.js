// The beat cursor: a thin vertical bar over a page's SVG (page-svg.js), placed in page units, so
// it crops and scales with the notation, and a few pixels wide on a phone and on a wall screen
// alike. It is an element of its own over the SVG, not a line inside it, and it moves by a
// transform only: a browser composites it on a layer of its own, so a moving cursor repaints
// nothing of the notation. A line inside the SVG did: Chromium restyled, laid out and painted
// the whole engraved page on every frame (in a trace of six pages on a loaded machine, a part
// view's main thread spent a quarter of its time painting, 2.6 ms a frame at the median, tens of
// ms at worst, and its frames came late or not at all: jumps landed there a frame or more after
// the phones).
//
// Within a beat it glides by itself: an animation of its transform from the beat's start to its
// end, timed by the beat's own times on the page's clock (the document timeline's), which the
// browser runs on its compositor; started once a beat, and again only when the page's clock
// moves the beat by more than GLIDE_SLACK_MS. A transform written on every frame instead cost a
// part view's main thread about twice its time (Chromium: the page's layers worked out again on
// every frame, 2-3 ms for an engraved page of many glyphs; bench/RESULTS.md, "The cursor's
// glide"). Where elements cannot animate (jsdom), the transform is written each time.
//
// A gliding cursor needs no frames of the page's own: `moving` says whether it does (it stands
// where the frame's fraction of the beat puts it, where it cannot glide), and the page runs its
// frame loop only then (client/src/time/beat-clock.js). An idle main thread between beats lets a
// busy machine draw the next landing on time. `data-glide` says where it glides ("x0 x1 from to",
// page units and timeline ms) and `data-x` where it was when the page last placed it; the place
// in any frame follows from the two (tests and tools; no style depends on either).
//
// Its rows (from above the top staff to below the bottom one) are set by `translate` and `scale`
// (vertical-span.js), which compose with the glide's transform: a new system's cursor moves
// nothing in the layout.

import { pct, spanVertically } from './vertical-span.js';

/**
 * @typedef {object} BeatCursor
 * @property {HTMLElement} el
 * @property {(svg: SVGSVGElement | null) => void} attach  draw over this page (from page-svg.js
 *   render, cropped, in a positioned parent whose box is the SVG's); null: nowhere
 * @property {(c: import('./systems.js').Cursor | null, pageWidth: number, span?: BeatSpan | null) => void} show
 *   place it; null hides it. `span`: the beat's start and end on the page's clock while it plays,
 *   over which the cursor glides from `c.x0` to `c.x1` by itself; null or absent: it stands at `c.x`
 * @property {boolean} moving  placed by the frame's fraction of a beat while playing (it cannot
 *   glide): show it again every frame. False while it glides, stands still or is hidden.
 */

/**
 * A beat's start and end (ms) on the page's clock (`performance.now()`, the document timeline's).
 * @typedef {{ from: number, to: number }} BeatSpan
 */

/**
 * A glide starts again when the page's clock moves the beat's start or end this much (ms) from
 * the running glide's: a corrected clock, or a beat's length learnt from its message. Less than a
 * pixel of glide on a phone.
 */
export const GLIDE_SLACK_MS = 12;

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
  /** The transform written, as a page x (NaN: none since the page was attached). */
  let written = NaN;
  /** @type {{ anim: Animation, x0: number, x1: number, from: number, to: number } | null} the running glide */
  let glide = null;
  let moving = false;
  const timeline = doc.timeline;
  const canGlide = typeof el.animate === 'function' && timeline !== undefined;
  /** @param {number} at page x @returns {string} */
  const transformAt = (at) => `translateX(${pct((at - view.x) / view.width)}%)`;
  const stopGlide = () => {
    if (!glide) return;
    glide.anim.cancel();
    glide = null;
    delete el.dataset.glide;
  };
  /** @param {number} at */
  const stand = (at) => {
    stopGlide();
    if (at === written) return;
    written = at;
    el.style.transform = transformAt(at);
  };
  /**
   * From x0 at span.from to x1 at span.to, unless the running glide already does so; where it is
   * at timeline time `now`.
   * @param {number} x0 @param {number} x1 @param {BeatSpan} span @param {number} now
   */
  const glideOver = (x0, x1, span, now) => {
    const same =
      glide &&
      glide.x0 === x0 &&
      glide.x1 === x1 &&
      Math.abs(glide.from - span.from) <= GLIDE_SLACK_MS &&
      Math.abs(glide.to - span.to) <= GLIDE_SLACK_MS;
    if (!same) {
      const before = glide;
      const anim = el.animate([{ transform: transformAt(x0) }, { transform: transformAt(x1) }], {
        duration: span.to - span.from,
        // Before its start too: a beat is shown from the frame whose middle reaches it.
        fill: 'both',
      });
      // On the beat's own time, not from when the browser first draws it.
      anim.startTime = span.from;
      glide = { anim, x0, x1, from: span.from, to: span.to };
      before?.anim.cancel();
      el.dataset.glide = `${x0} ${x1} ${span.from} ${span.to}`;
    }
    const g = /** @type {NonNullable<typeof glide>} */ (glide);
    return g.x0 + (g.x1 - g.x0) * Math.min(Math.max((now - g.from) / (g.to - g.from), 0), 1);
  };

  return {
    el,
    get moving() {
      return moving;
    },
    attach(svg) {
      page = svg;
      moving = false;
      beat = NaN;
      x = NaN;
      written = NaN;
      stopGlide();
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
    show(c, pageWidth, span = null) {
      if (!c || !page) {
        if (!Number.isNaN(beat) || el.dataset.beat !== undefined) {
          el.style.visibility = 'hidden';
          delete el.dataset.beat;
        }
        stopGlide();
        beat = NaN;
        moving = false;
        return;
      }
      if (c.beat !== beat) {
        beat = c.beat;
        // Reach a little past the outer staff lines (a third of a staff at Verovio's A4 sizes), so
        // the bar reads as crossing the staff; a beat map without height (ZScore full scores
        // give a point) still gets a visible bar.
        const pad = pageWidth * 0.01;
        spanVertically(el, (c.y0 - pad - view.y) / view.height, (c.y1 - c.y0 + 2 * pad) / view.height);
        el.dataset.beat = String(c.beat);
        el.style.visibility = 'visible';
      }
      const now = Number(timeline?.currentTime);
      const glides =
        canGlide && span && Number.isFinite(now) && now < span.to && span.to > span.from && c.x0 !== undefined;
      // Where it is drawn in this frame: the glide's place at the frame's time, else where it stands.
      const at = round(glides ? glideOver(round(/** @type {number} */ (c.x0)), round(c.x1 ?? c.x), span, now) : c.x);
      if (!glides) stand(at);
      // Where it cannot glide, a playing beat's cursor is placed by each frame.
      moving = !glides && span !== null && span.to > span.from && !(Number.isFinite(now) && now >= span.to);
      if (at !== x) {
        x = at;
        // Where it is in page units, for tests and tools (no style depends on it).
        el.dataset.x = String(at);
      }
    },
  };
}

/** Tenths of a user unit: sub-pixel on any screen, and fewer writes when still. */
const round = (/** @type {number} */ v) => Math.round(v * 10) / 10;

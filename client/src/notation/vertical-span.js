// An element over a page's rows (the system band, the beat cursor), placed by the `translate` and
// `scale` properties rather than by its top and height. A box that moves in the layout is a
// layout shift (Layout Instability API; Web Vitals' CLS), and the band going to the next system
// while it was in sight moved 0.05 to 0.24 of the screen a line change: 0.47 to 0.78 over the
// demo played through on a phone, a tablet and a desktop (playwright/score-shift.spec.js). A
// transform moves nothing in the layout. The element is as tall as its positioned parent, from
// its top, scaled from its top edge (notation.css: `top: 0; height: 100%; transform-origin: 0 0`),
// so its shares are of the parent's height, as `top` and `height` in % were.

/** A share as a percentage to a thousandth of a percent (a hundredth of a pixel on a wall screen). */
export const pct = (/** @type {number} */ share) => Math.round(share * 100_000) / 1000;

/**
 * Show `el` from `top` down over `height`, both shares of its parent's height.
 * @param {HTMLElement} el
 * @param {number} top
 * @param {number} height
 */
export function spanVertically(el, top, height) {
  el.style.translate = `0 ${pct(top)}%`;
  el.style.scale = `1 ${Math.round(height * 100_000) / 100_000}`;
}

// The full score view, for conductors and composers: every page stacked, each
// scaled to the width, the current system tinted and the beat cursor across it. When play moves
// to a system that is not wholly in sight it is scrolled into view: on line changes only, never
// per beat, so a conductor who scrolls ahead is not pulled back until the next system begins.
// A jump (a seek, a mark, a loop's next time round) is announced a beat or more ahead: its
// target's page is drawn then, wherever it is in the score (the box's `data-next` names the line
// it lands on); at the jump the view goes there at once, not gliding, so the frame that shows the
// target's first beat shows its system, drawn, and nothing from before the jump.

import { cropTo } from './page-svg.js';
import { mountView } from './view-base.js';
import { spanVertically } from './vertical-span.js';

/**
 * @typedef {object} ScorePage
 * @property {HTMLElement} el
 * @property {'idle' | 'loading' | 'ready' | 'error'} state
 * @property {SVGSVGElement | null} svg
 */

/**
 * @param {HTMLElement} root  the view draws into a new child of root
 * @param {unknown} notation  `{ pages, beats }` from `GET /api/score/views/score`
 * @param {import('./view-base.js').NotationViewOptions} options
 * @returns {import('./view-base.js').NotationView}
 */
export function createScoreView(root, notation, { loadPage, reducedMotion }) {
  if (typeof loadPage !== 'function')
    throw new TypeError('createScoreView: options.loadPage must be a function (url) => Promise<svg text>');
  const mounted = mountView(root, notation, 'score', { loadPage, reducedMotion });
  if (!mounted.ok) return mounted.view;
  const { doc, box, layout, source, cursor, reduce } = mounted;
  const win = doc.defaultView;

  // The current system's band: a faint tint to find the place at a glance, and what is scrolled to.
  const band = doc.createElement('div');
  band.className = 'sc-system-band';
  band.setAttribute('aria-hidden', 'true');

  /** @type {ScorePage[]} */
  const pages = layout.pages.map((page, i) => {
    const el = doc.createElement('div');
    el.className = 'sc-page';
    el.dataset.page = String(i);
    el.dataset.state = 'idle';
    el.setAttribute('role', 'img');
    el.setAttribute('aria-label', `page ${i + 1} of ${layout.pages.length}`);
    // Reserve the page's height before it loads: pages arriving must not shift the score.
    el.style.aspectRatio = `${page.width} / ${page.height}`;
    box.append(el);
    return { el, state: 'idle', svg: null };
  });

  let current = -1;
  /** The line a jump announced lands on, or -1. */
  let prepared = -1;
  let beat = NaN;
  let fraction = 0;
  /** @type {import('./cursor.js').BeatSpan | null} */
  let span = null;
  let destroyed = false;
  /** The frame request of the first line's scroll, while it waits (see `moveTo`), else 0. */
  let firstScroll = 0;

  const place = () => {
    const still = reduce();
    const c = layout.cursorAt(beat, still ? 0 : fraction);
    const line = layout.lines[current];
    cursor.show(c && line && pages[line.page].svg ? c : null, layout.pages[c?.page ?? 0].width, still ? null : span);
  };

  /** @param {number} i */
  const load = (i) => {
    const page = pages[i];
    if (!page || page.state === 'loading' || page.state === 'ready') return;
    page.state = page.el.dataset.state = 'loading';
    source.render(layout.pages[i]).then(
      (p) => {
        if (destroyed) return;
        const { width, height } = layout.pages[i];
        cropTo(p, { x: 0, y: 0, width, height });
        p.setAttribute('aria-hidden', 'true');
        page.el.prepend(p);
        page.svg = p;
        page.state = page.el.dataset.state = 'ready';
        if (layout.lines[current]?.page === i) {
          cursor.attach(p);
          place();
        }
      },
      () => {
        if (destroyed) return;
        page.state = page.el.dataset.state = 'error';
      },
    );
  };

  // Load pages as they come near the screen; where that cannot be observed, all of them.
  const observer =
    win && 'IntersectionObserver' in win
      ? new win.IntersectionObserver(
          (entries) => {
            for (const e of entries)
              if (e.isIntersecting) load(Number(/** @type {HTMLElement} */ (e.target).dataset.page));
          },
          { rootMargin: '50% 0px' },
        )
      : null;
  if (observer) for (const p of pages) observer.observe(p.el);
  else
    pages.forEach((_, i) => {
      load(i);
    });

  /** @param {boolean} jumped  a jump: no smooth scroll, which would show the score before it */
  const keepInView = (jumped) => {
    if (!win) return;
    // What stays on top of the score (the sticky bar and beat, and the musicians' strip in it)
    // is the band's scroll margin: measured, as the header's height depends on what it shows.
    const sticky = win.document.querySelector('.position');
    if (sticky && win.getComputedStyle(sticky).position === 'sticky') {
      band.style.scrollMarginTop = `${Math.ceil(sticky.getBoundingClientRect().height) + 8}px`;
    }
    const r = band.getBoundingClientRect();
    const frame = box.parentElement?.getBoundingClientRect();
    const covered = Number.parseFloat(win.getComputedStyle(band).scrollMarginTop) || 0;
    const top = Math.max(0, frame?.top ?? 0, covered);
    const bottom = Math.min(win.innerHeight, frame?.bottom ?? Infinity);
    const inView = r.top >= top && (r.bottom <= bottom || (r.height > bottom - top && r.top < bottom));
    if (!inView) band.scrollIntoView({ block: 'start', behavior: jumped || reduce() ? 'instant' : 'smooth' });
  };

  /**
   * The line a jump lands on: its page (and the next line's) drawn before the downbeat, the
   * system marked; -1: none announced.
   * @param {number} k
   */
  const prepare = (k) => {
    if (k === prepared) return;
    prepared = k;
    const line = layout.lines[k];
    if (!line) {
      delete box.dataset.next;
      return;
    }
    box.dataset.next = String(k);
    load(line.page);
    const after = layout.lines[k + 1];
    if (after) load(after.page);
  };

  /** @param {number} k @param {boolean} jumped */
  const moveTo = (k, jumped) => {
    const line = layout.lines[k];
    const previous = layout.lines[current];
    current = k;
    box.dataset.line = String(k);
    if (previous && previous.page !== line.page) delete pages[previous.page].el.dataset.current;
    const page = pages[line.page];
    page.el.dataset.current = 'true';
    const { height } = layout.pages[line.page];
    spanVertically(band, line.crop.y / height, line.crop.height / height);
    if (band.parentElement !== page.el) page.el.append(band);
    load(line.page);
    const after = layout.lines[k + 1];
    if (after) load(after.page);
    cursor.attach(page.svg);
    if (firstScroll) win?.cancelAnimationFrame(firstScroll);
    firstScroll = 0;
    // The first line shown is scrolled to two frames on, after the frame that first lays out the
    // score (mounted in the same task): scrolled in that frame, the footer's place before the
    // score came (now in sight, and the score's) counted as the footer moved, a layout shift of
    // 0.05 on a phone opened mid-piece (Lighthouse's mobile audit). Its pages are still loading then.
    if (previous || !win?.requestAnimationFrame) keepInView(jumped);
    else
      firstScroll = win.requestAnimationFrame(() => {
        firstScroll = win.requestAnimationFrame(() => {
          firstScroll = 0;
          if (!destroyed) keepInView(true);
        });
      });
  };

  return {
    error: null,
    get moving() {
      return !destroyed && cursor.moving;
    },
    update(b, f = 0, following = NaN, s = null) {
      if (destroyed || !Number.isFinite(b) || layout.lines.length === 0) return;
      const at = layout.lineOf(b);
      const k = at >= 0 ? at : b < 0 ? 0 : layout.lines.length - 1;
      // The beat announced to follow, when it is not the next in order: a jump's target.
      const to = Number.isFinite(following) && following !== b + 1 ? layout.lineOf(following) : -1;
      prepare(to !== k ? to : -1);
      // Not the next beat: a jump (or the first beat shown), never glided to.
      if (k !== current) moveTo(k, !(Number.isFinite(beat) && b === beat + 1));
      beat = b;
      fraction = f;
      span = s;
      place();
    },
    destroy() {
      destroyed = true;
      if (firstScroll) win?.cancelAnimationFrame(firstScroll);
      observer?.disconnect();
      box.remove();
    },
  };
}

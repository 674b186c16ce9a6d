// The part view: two panes stacked, as in ZScore. While line k plays its pane
// is active and the other pane already shows line k + 1, dimmed and labelled "next" (or, once a
// jump is announced, the line it lands on: its page turned before its downbeat); when play
// reaches it, nothing under the player's eyes moves and only the pane just left is refilled
// (systems.js, panePlan). A beat cursor follows the beat map. Per animation frame only the
// cursor's transform is written; panes change on line changes only. An engraved part comes in
// layouts of several page widths: the view draws the one that suits its width
// (core/layout-choice.js) and changes layout when its width changes, keeping its place. The narrower
// layouts are engraved after the rest: while the view's notation says some are `pending`, the
// view draws the best it has and asks again, and changes to its own layout when it comes, on the
// beat it is at (the bar being played stays in the active pane).

import { panePlan } from './systems.js';
import { chooseLayout, layoutsOf, pendingOf } from '../../../core/layout-choice.js';
import { chosenKey, chosenPages } from './chosen-pages.js';
import { cropTo } from './page-svg.js';
import { mountView } from './view-base.js';

/** @typedef {import('./view-base.js').NotationViewOptions} NotationViewOptions */
/** @typedef {import('./view-base.js').NotationView} NotationView */

/**
 * @typedef {object} Pane
 * @property {HTMLElement} el
 * @property {HTMLElement} paper
 * @property {HTMLElement} label
 * @property {SVGSVGElement | null} page  drawn, or null while loading/empty
 * @property {number} token  bumped on every refill, so a late load does not land in the wrong pane
 */

/**
 * @param {HTMLElement} root  the view draws into a new child of root, and says in its
 *   `data-layout` which layout it draws (and with `data-reflow` that its layouts are engraved for
 *   the width, so that the style may set the panes side by side)
 * @param {unknown} notation  `{ pages, beats, layout?, layouts? }` from `GET /api/score/views/:view`
 * @param {NotationViewOptions} options  loadPage also loads the other layouts' JSON (by their url)
 * @returns {NotationView}
 */
export function createPartView(root, notation, options) {
  if (typeof options?.loadPage !== 'function')
    throw new TypeError('createPartView: options.loadPage must be a function (url) => Promise<svg text>');
  let layouts = layoutsOf(notation);
  if (layouts.length === 0) return createPanes(root, notation, options);
  const given = /** @type {{ layout?: unknown }} */ (notation).layout;
  const win = root.ownerDocument.defaultView;
  // Engraved for the width: the style may set the panes side by side (notation.css).
  root.dataset.reflow = '';

  /** @type {NotationView | null} */
  let inner = null;
  /** @type {string | null} the layout asked for last (shown, or on its way) */
  let wanted = null;
  let token = 0;
  let destroyed = false;
  let beat = NaN;
  let fraction = 0;
  /** @type {import('./cursor.js').BeatSpan | null} */
  let span = null;
  /** The beat announced to follow (a jump's target has its page prepared), or NaN. */
  let following = NaN;
  /** @type {{ chosen: unknown } | null} */
  let pages = null;

  /** @param {string} name @param {unknown} data */
  const show = (name, data) => {
    inner?.destroy();
    inner = createPanes(root, data, options);
    root.dataset.layout = name;
    options.onLayout?.(name);
    if (pages) inner.setPages?.(pages.chosen);
    if (Number.isFinite(beat)) inner.update(beat, fraction, following, span);
  };

  /**
   * Changing layout mid-piece: fetch the new layout's page that holds the beat being played
   * before the panes change (pages are immutable, so the panes then find it in the browser's
   * cache), so that the player is not left looking at an empty pane.
   * @param {unknown} data
   */
  const pageAhead = (data) => {
    const { pages: list, beats } = /** @type {{ pages?: { url?: unknown }[], beats?: { page?: unknown }[] }} */ (
      data ?? {}
    );
    const at = Number.isFinite(beat) && Array.isArray(beats) ? beats[Math.max(0, Math.trunc(beat))]?.page : 0;
    const url = Array.isArray(list) && typeof at === 'number' ? list[at]?.url : undefined;
    return typeof url === 'string' ? options.loadPage(url).catch(() => {}) : Promise.resolve();
  };

  const pick = () => {
    if (destroyed) return;
    const choice = chooseLayout(layouts, paneWidth(root));
    // No width yet (the view is mounted hidden): the observer calls again once it has one.
    if (!choice || choice.name === wanted) return;
    wanted = choice.name;
    const t = ++token;
    if (choice.name === given) {
      show(choice.name, notation);
      return;
    }
    Promise.resolve()
      .then(() => options.loadPage(choice.url))
      .then((text) => JSON.parse(text))
      .then((data) => (inner ? pageAhead(data).then(() => data) : data))
      .then(
        (data) => {
          if (!destroyed && t === token) show(choice.name, data);
        },
        () => {
          // The layout could not be fetched: the one the view came with beats an empty view.
          if (destroyed || t !== token || inner) return;
          wanted = typeof given === 'string' ? given : null;
          show(String(given ?? 'page'), notation);
        },
      );
  };

  const observer = win && 'ResizeObserver' in win ? new win.ResizeObserver(pick) : null;
  if (observer) observer.observe(root);
  else show(String(given ?? 'page'), notation);

  // Layouts still being engraved: ask for the list again (bounded: a server that never finishes
  // leaves the view on the layout it has) and take the better one when it comes.
  /** @type {number | null} */
  let retry = null;
  let asked = 0;
  const list = layouts.find((l) => l.name === 'page')?.url ?? layouts[0].url;
  /** @param {unknown} data */
  const askLater = (data) => {
    const wait = pendingOf(data);
    if (destroyed || !win || wait === null || asked >= MAX_ASKS) return;
    asked++;
    // Jittered, so that a room of phones does not ask in step.
    retry = win.setTimeout(refresh, wait * (0.75 + Math.random() * 0.5));
  };
  const refresh = () => {
    retry = null;
    Promise.resolve()
      .then(() => options.loadPage(list))
      .then((text) => JSON.parse(text))
      .then(
        (data) => {
          if (destroyed) return;
          const now = layoutsOf(data);
          if (now.length > 0) layouts = now;
          pick();
          askLater(data);
        },
        () => askLater(notation),
      );
  };
  askLater(notation);

  return {
    get error() {
      return inner?.error ?? null;
    },
    get moving() {
      return inner?.moving ?? false;
    },
    update(b, f = 0, next = NaN, s = null) {
      beat = b;
      fraction = f;
      following = next;
      span = s;
      inner?.update(b, f, next, s);
    },
    setPages(chosen) {
      pages = { chosen };
      inner?.setPages?.(chosen);
    },
    destroy() {
      destroyed = true;
      if (retry !== null) win?.clearTimeout(retry);
      observer?.disconnect();
      inner?.destroy();
      delete root.dataset.layout;
      delete root.dataset.reflow;
    },
  };
}

/** How many times a view asks again for layouts being engraved (about 10 minutes at 5 s). */
const MAX_ASKS = 120;

/**
 * The width, in whole CSS px, a part view mounted in `root` would draw a pane across, measured
 * before the page asks for its notation (the root may still be hidden then, and without the
 * `data-reflow` that sets a phone on its side in two columns): the page sends it, so that the
 * server answers with the layout the view would choose (core/layout-choice.js). 0 without a width.
 * @param {HTMLElement} root
 */
export function paneWidthAhead(root) {
  const { hidden } = root;
  const reflow = root.dataset.reflow;
  root.hidden = false;
  root.dataset.reflow = '';
  try {
    return Math.round(paneWidth(root));
  } finally {
    root.hidden = hidden;
    if (reflow === undefined) delete root.dataset.reflow;
  }
}

/**
 * The width one pane is drawn across: the root's, or a share of it where the style sets the
 * panes side by side (notation.css, `--sc-pane-columns`: a phone on its side).
 * @param {HTMLElement} root
 */
function paneWidth(root) {
  const win = root.ownerDocument.defaultView;
  const columns = Math.max(
    1,
    Math.round(Number(win?.getComputedStyle(root).getPropertyValue('--sc-pane-columns')) || 1),
  );
  // The panes' gap is 0.5rem (notation.css, .sc-part).
  const rem = Number.parseFloat(win?.getComputedStyle(root.ownerDocument.documentElement).fontSize ?? '') || 16;
  const gap = columns > 1 ? rem * 0.5 : 0;
  return (root.clientWidth - gap * (columns - 1)) / columns;
}

/**
 * The two panes over one layout.
 * @param {HTMLElement} root
 * @param {unknown} notation  `{ pages, beats }`
 * @param {NotationViewOptions} options
 * @returns {NotationView}
 */
function createPanes(root, notation, { loadPage, reducedMotion }) {
  const mounted = mountView(root, notation, 'part', { loadPage, reducedMotion });
  if (!mounted.ok) return mounted.view;
  const { doc, box, layout, source, cursor, reduce } = mounted;
  const { lines } = layout;

  // Both panes keep one size whatever line they show (the tallest crop sets it): a shorter line
  // in the other pane must not move the one being read.
  const aspect = lines.reduce((min, l) => Math.min(min, l.crop.width / l.crop.height), Infinity);
  /** @type {Pane[]} */
  const panes = [0, 1].map((i) => {
    const el = doc.createElement('div');
    el.className = 'sc-pane';
    el.dataset.pane = String(i);
    el.setAttribute('role', 'img');
    if (Number.isFinite(aspect)) el.style.aspectRatio = String(aspect);
    const paper = doc.createElement('div');
    paper.className = 'sc-pane-paper';
    const label = doc.createElement('span');
    label.className = 'sc-pane-label';
    label.setAttribute('aria-hidden', 'true');
    el.append(paper, label);
    box.append(el);
    return { el, paper, label, page: null, token: 0 };
  });

  /** @type {import('./systems.js').PanePlan | null} */
  let plan = null;
  let beat = NaN;
  let fraction = 0;
  /** @type {import('./cursor.js').BeatSpan | null} */
  let span = null;
  let destroyed = false;
  /** Layout page -> page drawn: the audience's page choices (chosen-pages.js). */
  let drawn = chosenPages(null, layout.pages.length);
  let drawnKey = '';

  const place = () => {
    const still = reduce();
    const c = plan && panes[plan.active].page ? layout.cursorAt(beat, still ? 0 : fraction) : null;
    cursor.show(c && c.line === plan?.current ? c : null, layout.pages[c?.page ?? 0].width, still ? null : span);
  };

  /** @param {number} i @param {number} lineIndex */
  const fill = (i, lineIndex) => {
    const pane = panes[i];
    const token = ++pane.token;
    pane.page = null;
    // The page it showed goes, and the new one is copied in (a whole engraved page, every note of
    // it), from a task of its own after the frame that asked for it is drawn: a line change or a
    // jump's landing turns the panes in the frame of its beat, and that frame is not held up by the
    // pane just left (drawn a frame later, where nobody is reading yet). Taking a page out of the
    // document costs as much as putting one in: 8-12 ms at the median in a trace of part views on
    // a loaded machine, up to 49, in the landing's own callback. Until then the style hides it.
    const win = doc.defaultView;
    /** @param {() => any} fn */
    const later = (fn) =>
      win ? new Promise((resolve) => win.setTimeout(() => resolve(fn()), 0)) : Promise.resolve().then(fn);
    if (lineIndex < 0) {
      pane.el.dataset.line = '';
      pane.el.dataset.state = 'empty';
      later(() => {
        if (!destroyed && token === pane.token) pane.paper.replaceChildren();
      });
      return;
    }
    const line = lines[lineIndex];
    pane.el.dataset.line = String(lineIndex);
    pane.el.dataset.state = 'loading';
    pane.el.dataset.page = String(drawn(line.page) + 1);
    const render = () => (destroyed || token !== pane.token ? null : source.render(layout.pages[drawn(line.page)]));
    later(render).then(
      (p) => {
        if (!p || destroyed || token !== pane.token) return;
        cropTo(p, line.crop);
        p.setAttribute('aria-hidden', 'true');
        pane.paper.replaceChildren(p);
        pane.page = p;
        pane.el.dataset.state = 'ready';
        if (plan?.active === i) {
          cursor.attach(p);
          place();
        }
      },
      (/** @type {unknown} */ err) => {
        if (destroyed || token !== pane.token) return;
        pane.el.dataset.state = 'error';
        pane.paper.textContent = `page ${line.page + 1} could not be loaded: ${err instanceof Error ? err.message : String(err)}`;
      },
    );
  };

  /** @param {import('./systems.js').PanePlan} next */
  const apply = (next) => {
    next.changed.forEach((changed, i) => {
      if (changed) fill(i, next.lines[i]);
    });
    plan = next;
    panes.forEach((pane, i) => {
      const l = lines[next.lines[i]];
      const role = i === next.active ? 'active' : 'next';
      pane.el.dataset.role = role;
      pane.label.textContent = role === 'next' ? (l ? `next · bar ${l.firstBar}` : 'end') : '';
      pane.el.setAttribute(
        'aria-label',
        l ? `${role === 'active' ? 'now' : 'next'}: bars ${l.firstBar} to ${l.lastBar}` : 'end of the part',
      );
    });
    cursor.attach(panes[next.active].page);
    // The line after next goes into the pane the player is about to leave: have its page ready.
    const ahead = lines[next.current + 2];
    if (ahead) source.warm(layout.pages[drawn(ahead.page)]);
  };

  return {
    error: null,
    get moving() {
      return !destroyed && cursor.moving;
    },
    update(b, f = 0, following = NaN, s = null) {
      if (destroyed || !Number.isFinite(b) || lines.length === 0) return;
      const at = layout.lineOf(b);
      const current = at >= 0 ? at : b < 0 ? 0 : lines.length - 1;
      // The line a jump announced goes to (not the next in order): prepared in the other pane.
      const to = Number.isFinite(following) && following !== b + 1 ? layout.lineOf(following) : -1;
      const after = to >= 0 && to !== current ? to : current + 1 < lines.length ? current + 1 : -1;
      if (!plan || plan.current !== current || plan.lines[1 - plan.active] !== after)
        apply(panePlan(current, lines.length, plan, to));
      beat = b;
      fraction = f;
      span = s;
      place();
    },
    /**
     * The pages the audience chose for this part (state.pages[part]); panes showing a page
     * whose choice changed are drawn again.
     * @param {unknown} chosen
     */
    setPages(chosen) {
      const key = chosenKey(chosen);
      if (destroyed || key === drawnKey) return;
      const before = drawn;
      drawnKey = key;
      drawn = chosenPages(chosen, layout.pages.length);
      if (!plan) return;
      const shown = plan;
      shown.lines.forEach((l, i) => {
        const line = lines[l];
        if (line && before(line.page) !== drawn(line.page)) fill(i, l);
      });
      const ahead = lines[shown.current + 2];
      if (ahead) source.warm(layout.pages[drawn(ahead.page)]);
    },
    destroy() {
      destroyed = true;
      box.remove();
    },
  };
}

// The preview's bar-line mode: a beat map made without a text editor. The composer picks an
// image view (PDF or image pages), then clicks on its page where each system's first bar starts
// and each bar line after it, left to right; the tempo map says how many beats each bar has, and
// they are spread evenly between its bar lines (core/bar-lines.js). Undo takes back the last
// click; Save is offered once every bar has its position, and the server writes the CSV beat map
// into the package, which then reloads like any saved edit.

import { barPositionsFromClicks, systemsOfClicks } from '../../../core/bar-lines.js';
import { button, h, setText } from '../console/dom.js';
import { saveWithStatus } from './save-status.js';
import { createTapAlong } from './tap-along.js';

const SVG_NS = 'http://www.w3.org/2000/svg';

/**
 * @typedef {object} PlaceableView
 * @property {string} view
 * @property {string} file     the beat map's path in the package
 * @property {boolean} placed  whether it exists
 * @property {{ url: string, width: number, height: number }[]} pages
 */

/**
 * @param {HTMLElement} root  filled with the mode's controls and page
 * @param {{ api: import('../console/control-api.js').ControlApi }} deps
 */
export function createBarLineMode(root, { api }) {
  /** @type {{ bars: import('../../../core/bar-lines.js').WrittenBar[], views: PlaceableView[] }} */
  let score = { bars: [], views: [] };
  /** @type {PlaceableView | null} */
  let current = null;
  /** @type {import('../../../core/bar-lines.js').BarLineClick[]} */
  let clicks = [];
  let pageIndex = 0;

  const el = {
    select: /** @type {HTMLSelectElement} */ (h('select', { id: 'bl-view', 'aria-label': 'View to place bars on' })),
    start: button('bl-start', 'Place bar lines', () => begin()),
    state: h('span', { id: 'bl-state', class: 'muted' }),
    work: h('div', { id: 'bl-work', class: 'bl-work', hidden: true }),
    prompt: h('p', { id: 'bl-prompt', role: 'status' }),
    count: h('span', { id: 'bl-count', class: 'muted' }),
    undo: button('bl-undo', 'Undo', () => undo()),
    prev: button('bl-prev', '◀ Page', () => turn(-1)),
    next: button('bl-next', 'Page ▶', () => turn(1)),
    page: h('span', { id: 'bl-page', class: 'muted' }),
    save: button('bl-save', 'Save beat map', () => save()),
    cancel: button('bl-cancel', 'Close', () => close()),
    result: h('p', { id: 'bl-result', role: 'status' }),
    sheet: h('div', { class: 'bl-sheet' }),
    image: /** @type {HTMLImageElement} */ (h('img', { id: 'bl-image', alt: '', draggable: 'false' })),
    marks: /** @type {SVGSVGElement} */ (document.createElementNS(SVG_NS, 'svg')),
  };
  el.marks.setAttribute('class', 'bl-marks');
  el.marks.setAttribute('aria-hidden', 'true');
  el.sheet.append(el.image, el.marks);
  el.work.append(
    h('div', { class: 'row' }, el.undo, el.prev, el.page, el.next, el.save, el.cancel, el.count),
    el.prompt,
    el.sheet,
  );
  root.append(
    h('div', { class: 'row' }, el.select, el.start, el.state),
    h(
      'p',
      { class: 'muted hint' },
      "Click where each line's first bar starts, then each bar line along it, left to right; the beats are spread evenly within each bar. Ctrl+Z: undo.",
    ),
    el.result,
    el.work,
  );
  const tapAlong = createTapAlong(root.appendChild(h('div', { id: 'tap-along', class: 'ta' })), { api });

  el.sheet.addEventListener('click', (e) => {
    if (!current) return;
    const page = current.pages[pageIndex];
    const box = el.image.getBoundingClientRect();
    if (box.width === 0 || box.height === 0) return;
    const x = ((e.clientX - box.left) / box.width) * page.width;
    const y = ((e.clientY - box.top) / box.height) * page.height;
    if (x < 0 || y < 0 || x > page.width || y > page.height) return;
    if (placed().length >= score.bars.length) return;
    clicks.push({ page: pageIndex, x, y });
    draw();
  });
  root.ownerDocument.addEventListener('keydown', (e) => {
    if (!current || !(e.ctrlKey || e.metaKey) || e.key.toLowerCase() !== 'z') return;
    e.preventDefault();
    undo();
  });

  const sizes = () => (current ? current.pages.map(({ width, height }) => ({ width, height })) : []);
  const placed = () => barPositionsFromClicks(clicks, score.bars, sizes());

  function begin() {
    const view = score.views.find((v) => v.view === el.select.value) ?? null;
    if (!view) return;
    current = view;
    clicks = [];
    pageIndex = 0;
    setText(el.result, '');
    el.work.hidden = false;
    draw();
  }

  function close() {
    current = null;
    clicks = [];
    el.work.hidden = true;
  }

  function undo() {
    const last = clicks.pop();
    if (last && last.page !== pageIndex) pageIndex = last.page;
    draw();
  }

  /** @param {number} by */
  function turn(by) {
    if (!current) return;
    pageIndex = Math.max(0, Math.min(current.pages.length - 1, pageIndex + by));
    draw();
  }

  async function save() {
    if (!current) return;
    const { view } = current;
    const bars = placed();
    const saved = await saveWithStatus(
      el,
      () => api.saveBeatMap(view, bars),
      (r) => `Saved ${r.file}: ${r.bars} bars, ${r.beats} beats. The package reloads with it.`,
    );
    if (saved) close();
  }

  function draw() {
    if (!current) return;
    const page = current.pages[pageIndex];
    if (el.image.getAttribute('src') !== page.url) el.image.src = page.url;
    el.image.dataset.page = String(pageIndex);
    el.marks.setAttribute('viewBox', `0 0 ${page.width} ${page.height}`);
    const bars = placed();
    const total = score.bars.length;
    // The clicks on this page as bar lines, each system's start drawn in another colour.
    const marks = [];
    for (const s of systemsOfClicks(clicks)) {
      if (s.page !== pageIndex) continue;
      for (const [i, c] of s.clicks.entries()) {
        const line = document.createElementNS(SVG_NS, 'line');
        line.setAttribute('x1', String(c.x));
        line.setAttribute('x2', String(c.x));
        line.setAttribute('y1', String(c.y - page.height * 0.02));
        line.setAttribute('y2', String(c.y + page.height * 0.02));
        line.setAttribute('class', i === 0 ? 'bl-start' : 'bl-line');
        marks.push(line);
      }
    }
    for (const b of bars) {
      if (b.page !== pageIndex) continue;
      const label = document.createElementNS(SVG_NS, 'text');
      label.setAttribute('x', String((b.x0 + b.x1) / 2));
      label.setAttribute('y', String(b.y0 + (b.y1 - b.y0) * 0.2));
      label.setAttribute('class', 'bl-bar');
      label.textContent = String(b.bar);
      marks.push(label);
    }
    el.marks.replaceChildren(...marks);
    setText(el.page, `page ${pageIndex + 1} of ${current.pages.length}`);
    el.prev.toggleAttribute('disabled', pageIndex === 0);
    el.next.toggleAttribute('disabled', pageIndex === current.pages.length - 1);
    el.undo.toggleAttribute('disabled', clicks.length === 0);
    el.save.toggleAttribute('disabled', bars.length < total);
    setText(el.count, `${bars.length} of ${total} bars placed`);
    el.count.dataset.placed = String(bars.length);
    const nextBar = score.bars[bars.length]?.bar;
    const systems = systemsOfClicks(clicks);
    const open = systems.length > 0 && systems[systems.length - 1].clicks.length >= 1;
    setText(
      el.prompt,
      bars.length >= total
        ? `Every bar has its position: save the beat map to ${current.file}.`
        : !open
          ? `${current.view}: click where bar ${nextBar} starts.`
          : `${current.view}: click the bar line ending bar ${nextBar}, or where bar ${nextBar} starts on the next line.`,
    );
  }

  return {
    /**
     * Ask again which views can be placed (a new version of the score).
     * @param {unknown} [assets]  GET /api/score's `assets`: the recordings to tap along to
     */
    async refresh(assets) {
      try {
        score = await api.beatMaps();
      } catch {
        score = { bars: [], views: [] };
      }
      const chosen = el.select.value;
      el.select.replaceChildren(
        ...score.views.map((v) =>
          h('option', { value: v.view }, `${v.view} (${v.placed ? v.file : `${v.file}: no positions yet`})`),
        ),
      );
      if (score.views.some((v) => v.view === chosen)) el.select.value = chosen;
      const unplaced = score.views.filter((v) => !v.placed).map((v) => v.view);
      root.hidden = score.views.length === 0;
      tapAlong.set(score.bars, Array.isArray(assets) ? assets : []);
      setText(el.state, unplaced.length > 0 ? `No beat map yet: ${unplaced.join(', ')}` : '');
      // A view being placed keeps its clicks across reloads while its pages stay the same.
      if (current) {
        const again = score.views.find((v) => v.view === current?.view);
        if (!again || JSON.stringify(again.pages) !== JSON.stringify(current.pages)) close();
        else current = again;
      }
    },
  };
}

// The console's panel of page choices (core/page-choice.js): for each page slot decided so far,
// which part plays which page, and which parts rest (drawn from the live state, state.pages); and
// the next choice's tiles, one button each, to force the page played next (as ZScore's composer
// set its playing-next tiles), from GET /api/votes `nextChoice`.

import { button, h } from '../console/dom.js';

/**
 * The decided slots as rows: slot -> [part, page] in part order.
 * @param {unknown} pages  state.pages: { part: { slot: page } }
 * @returns {{ slot: number, plays: [string, number][] }[]}
 */
export function pageChoiceRows(pages) {
  /** @type {Map<number, [string, number][]>} */
  const bySlot = new Map();
  if (pages !== null && typeof pages === 'object' && !Array.isArray(pages)) {
    for (const [part, slots] of Object.entries(pages)) {
      if (slots === null || typeof slots !== 'object') continue;
      for (const [slot, page] of Object.entries(slots)) {
        const s = Number(slot);
        if (!Number.isInteger(s) || !Number.isInteger(page)) continue;
        bySlot.set(s, [...(bySlot.get(s) ?? []), [part, /** @type {number} */ (page)]]);
      }
    }
  }
  return [...bySlot.entries()].sort((a, b) => a[0] - b[0]).map(([slot, plays]) => ({ slot, plays }));
}

/**
 * @param {HTMLElement} box
 * @param {unknown} pages  state.pages, or undefined for a score without page choices
 * @param {string[]} parts  the score's part ids, to name the parts that rest
 */
export function renderPageChoices(box, pages, parts) {
  const section = /** @type {HTMLElement | null} */ (box.closest('section'));
  if (section) section.hidden = pages === undefined;
  if (pages === undefined) return;
  const rows = pageChoiceRows(pages);
  const key = JSON.stringify(rows);
  if (box.dataset.key === key) return;
  box.dataset.key = key;
  if (rows.length === 0) {
    box.replaceChildren(h('p', {}, 'No page chosen yet.'));
    return;
  }
  box.replaceChildren(
    h(
      'table',
      { class: 'page-choices' },
      h('thead', {}, h('tr', {}, h('th', {}, 'page'), h('th', {}, 'plays'), h('th', {}, 'rest'))),
      h(
        'tbody',
        {},
        ...rows.map((r) =>
          h(
            'tr',
            { 'data-slot': String(r.slot) },
            h('td', {}, String(r.slot)),
            h('td', {}, r.plays.map(([part, page]) => `${part}: page ${page}`).join(', ')),
            h('td', {}, parts.filter((p) => !r.plays.some(([x]) => x === p)).join(', ') || '-'),
          ),
        ),
      ),
    ),
  );
}

/**
 * The next choice's tiles as buttons: a tap forces that tile's page (again: back to the votes).
 * @param {HTMLElement} box
 * @param {unknown} next  GET /api/votes `nextChoice`: {slot, tiles: {tile: page}, next: [], forced: []} or null
 * @param {(tiles: string[]) => void} force
 */
export function renderNextChoice(box, next, force) {
  const n = /** @type {{ slot?: unknown, tiles?: unknown, next?: unknown, forced?: unknown } | null} */ (
    next !== null && typeof next === 'object' ? next : null
  );
  const tiles =
    n && n.tiles !== null && typeof n.tiles === 'object'
      ? Object.entries(/** @type {Record<string, unknown>} */ (n.tiles)).filter(([, p]) => Number.isInteger(p))
      : [];
  const forced = Array.isArray(n?.forced) ? n.forced.map(String) : [];
  const composers = Array.isArray(n?.next) ? n.next.map(String) : [];
  const key = JSON.stringify([n?.slot, tiles, forced, composers]);
  if (box.dataset.key === key) return;
  box.dataset.key = key;
  if (!n || tiles.length === 0) {
    box.replaceChildren();
    return;
  }
  box.replaceChildren(
    h(
      'p',
      { class: 'label' },
      `Page ${String(n.slot)} from tile (${composers.length ? `the score's ${composers.join(', ')}` : 'the votes'} unless one is forced here):`,
    ),
    h(
      'div',
      { class: 'row next-tiles' },
      ...tiles.map(([tile, page]) => {
        const on = forced.includes(tile);
        const b = button(`next-${tile}`, `${tile}: page ${page}`, () => force(on ? [] : [tile]));
        b.dataset.tile = tile;
        b.setAttribute('aria-pressed', String(on));
        return b;
      }),
    ),
  );
}

// The console's panel of page choices (core/page-choice.js): for each page slot decided so far,
// which part plays which page, and which parts rest. Drawn from the live state (state.pages).

import { h } from '../dom.js';

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

// Which page image a part view draws for each page of its layout once the audience has chosen
// pages (state.pages[part] = { "<slot>": <page> }, both 1-based; core/page-choice.js). A slot
// nobody chose (or a part that rests) shows its own page. Checked: the state comes from the network.

/**
 * @param {unknown} chosen  state.pages[part]
 * @param {number} pageCount  pages of the view
 * @returns {(index: number) => number}  page index to draw for layout page `index` (0-based)
 */
export function chosenPages(chosen, pageCount) {
  /** @type {Map<number, number>} */
  const map = new Map();
  if (chosen !== null && typeof chosen === 'object' && !Array.isArray(chosen)) {
    for (const [slot, page] of Object.entries(chosen)) {
      const s = Number(slot);
      if (Number.isInteger(s) && s >= 1 && s <= pageCount && Number.isInteger(page) && page >= 1 && page <= pageCount)
        map.set(s - 1, page - 1);
    }
  }
  return (index) => map.get(index) ?? index;
}

/**
 * A key that changes exactly when the choice of pages changes.
 * @param {unknown} chosen
 */
export function chosenKey(chosen) {
  if (chosen === null || typeof chosen !== 'object') return '';
  return JSON.stringify(Object.entries(chosen).sort(([a], [b]) => Number(a) - Number(b)));
}

// The console's open form (score.yaml `openForm`): the section playing, what may follow it and
// who chooses, one button per option (the conductor's choice overrides a player's), and the order
// the sections were taken in. Hidden for a score without sections.

import { button, h } from '../console/dom.js';
import { sectionOf, sectionWords, whoWords } from '../console/section-words.js';

/**
 * @param {HTMLElement} box
 * @param {unknown} state  the state's `section`
 * @param {(id: string, round: number, name: string) => void} choose
 */
export function renderSections(box, state, choose) {
  const s = sectionOf(state);
  const panel = /** @type {HTMLElement | null} */ (box.closest('section'));
  if (panel) panel.hidden = s === null && box.dataset.key === undefined;
  if (s === null) {
    if (box.dataset.key !== undefined && box.dataset.key !== 'ended') {
      box.dataset.key = 'ended';
      box.replaceChildren(h('p', { 'data-testid': 'sections-now' }, 'The piece has ended.'));
    }
    return;
  }
  const words = sectionWords(s);
  const key = JSON.stringify([s.id, s.round, s.options, s.chosen ?? null, s.claimedBy ?? null, s.order ?? []]);
  if (box.dataset.key === key) return;
  box.dataset.key = key;
  const order = (s.order ?? []).map((o) => `${o.name ?? o.section} (${whoWords(o.by)})`).join(' → ');
  box.replaceChildren(
    h('p', { 'data-testid': 'sections-now' }, words.now),
    h('p', { 'data-testid': 'sections-next' }, words.next),
    h(
      'div',
      { class: 'row sections' },
      ...s.options.map((o) => {
        const b = button(`section-${o.id}`, o.name, () => choose(o.id, s.round, o.name));
        b.dataset.section = o.id;
        b.setAttribute('aria-pressed', String(s.chosen?.section === o.id));
        return b;
      }),
    ),
    h('p', { class: 'note', 'data-testid': 'sections-order' }, `Order: ${order}`),
  );
}

// "Go to mark": a button per rehearsal mark of the score (GET /api/score's `marks`), the mark in
// force marked as current. While the piece plays, a jump is what the whole ensemble hears: the
// first press asks "Go to C now?" and only a second press within a few seconds jumps.

import { h } from '../console/dom.js';

/** How long a press waits for its confirming second press while playing (ms). */
export const CONFIRM_MS = 4000;

/**
 * @param {{ go: (mark: string) => void }} o
 */
export function createMarksRow({ go }) {
  const buttons = h('span', { class: 'marks' });
  const box = h('div', { id: 'marks', class: 'row', hidden: '' }, h('span', { class: 'label' }, 'Go to mark'), buttons);
  let playing = false;
  /** The mark in force, as the last state said. @type {unknown} */
  let current = null;
  /** @type {string[]} */
  let shown = [];

  const markCurrent = () => {
    for (const b of /** @type {NodeListOf<HTMLElement>} */ (buttons.querySelectorAll('.mark-go'))) {
      const is = b.dataset.mark === current;
      if ((b.getAttribute('aria-current') === 'true') !== is) {
        if (is) b.setAttribute('aria-current', 'true');
        else b.removeAttribute('aria-current');
      }
    }
  };

  /** @param {HTMLElement} b @param {string} name */
  const disarm = (b, name) => {
    b.dataset.armed = 'false';
    b.textContent = name;
  };

  return {
    box,
    /**
     * The score's marks (each once, in order); an empty list hides the row.
     * @param {unknown} marks  GET /api/score's `marks`
     */
    setMarks(marks) {
      const names = Array.isArray(marks)
        ? marks.map((m) => (typeof m?.name === 'string' ? m.name : '')).filter((n) => n !== '')
        : [];
      if (names.join('\u0000') === shown.join('\u0000')) return;
      shown = names;
      box.hidden = names.length === 0;
      buttons.replaceChildren(
        ...names.map((name) => {
          const b = h(
            'button',
            { type: 'button', class: 'mark-go', 'data-mark': name, 'aria-label': `Go to mark ${name}` },
            name,
          );
          b.addEventListener('click', () => {
            if (playing && b.dataset.armed !== 'true') {
              b.dataset.armed = 'true';
              b.textContent = `${name} now?`;
              setTimeout(() => disarm(b, name), CONFIRM_MS);
              return;
            }
            disarm(b, name);
            go(name);
          });
          return b;
        }),
      );
      markCurrent();
    },
    /**
     * The performance as it is: whether it plays (a jump then asks to be confirmed), and its mark.
     * @param {{ playback?: unknown, mark?: unknown } | null | undefined} state
     */
    showState(state) {
      playing = state?.playback === 'playing';
      current = state?.mark ?? null;
      markCurrent();
    },
  };
}

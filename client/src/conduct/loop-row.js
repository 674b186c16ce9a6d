// "Loop": the passage to repeat, from a bar or a rehearsal mark to a bar or a mark, with a count-in
// (beats) before each time round; Loop sets it (POST /api/control/loop), Off turns it off. The
// loop in force shows as every view shows it ("loop 40-48, 3rd time"). Each end is a bar number
// or, when the score has marks, a mark chosen from a list (a mark "to" ends the loop before it).

import { h, setText } from '../console/dom.js';
import { loopLabel } from '../../../core/loop.js';

/** @typedef {{ bar: number } | { mark: string }} LoopEnd */

/**
 * @param {{ set: (loop: { from: LoopEnd, to: LoopEnd, countIn: number }) => void, off: () => void }} o
 */
export function createLoopRow({ set, off }) {
  /** @param {string} id @param {string} label */
  const barInput = (id, label) =>
    /** @type {HTMLInputElement} */ (
      h('input', { id, type: 'number', min: '0', step: '1', inputmode: 'numeric', 'aria-label': label })
    );
  /** @param {string} id @param {string} label */
  const markSelect = (id, label) =>
    /** @type {HTMLSelectElement} */ (
      h('select', { id, 'aria-label': label, hidden: '' }, h('option', { value: '' }, 'bar'))
    );
  const fromBar = barInput('loop-from-bar', 'Loop from bar');
  const fromMark = markSelect('loop-from-mark', 'Loop from mark');
  const toBar = barInput('loop-to-bar', 'Loop to bar');
  const toMark = markSelect('loop-to-mark', 'Loop to mark');
  const countIn = /** @type {HTMLInputElement} */ (
    h('input', {
      id: 'loop-count-in',
      type: 'number',
      min: '0',
      max: '16',
      step: '1',
      value: '0',
      inputmode: 'numeric',
      'aria-label': 'Count-in beats before each time round',
    })
  );
  const status = h('span', { id: 'loop-status', class: 'loop-status', 'data-testid': 'loop-status' }, '');
  const offButton = /** @type {HTMLButtonElement} */ (
    h('button', { type: 'button', id: 'loop-off', disabled: '' }, 'Off')
  );
  const box = h(
    'form',
    { id: 'loop', class: 'row loop-row' },
    h('span', { class: 'label' }, 'Loop from'),
    h('span', { class: 'loop-end' }, fromMark, fromBar),
    h('span', { class: 'label' }, 'to'),
    h('span', { class: 'loop-end' }, toMark, toBar),
    h('span', { class: 'label' }, 'count-in'),
    countIn,
    h('button', { type: 'submit', id: 'loop-set' }, 'Loop'),
    offButton,
    status,
  );

  /** @param {HTMLSelectElement} mark @param {HTMLInputElement} bar @returns {LoopEnd} */
  const endOf = (mark, bar) => (mark.value !== '' ? { mark: mark.value } : { bar: Number(bar.value) });
  /** A mark chosen: the bar field is not used. */
  for (const [mark, bar] of /** @type {const} */ ([
    [fromMark, fromBar],
    [toMark, toBar],
  ]))
    mark.addEventListener('change', () => {
      bar.hidden = mark.value !== '';
    });

  box.addEventListener('submit', (e) => {
    e.preventDefault();
    set({ from: endOf(fromMark, fromBar), to: endOf(toMark, toBar), countIn: Number(countIn.value || 0) });
  });
  offButton.addEventListener('click', () => off());

  return {
    box,
    /**
     * The score's marks (each once, in order): offered as either end beside a bar number.
     * @param {unknown} marks  GET /api/score's `marks`
     */
    setMarks(marks) {
      const names = Array.isArray(marks)
        ? [...new Set(marks.map((m) => (typeof m?.name === 'string' ? m.name : '')).filter((n) => n !== ''))]
        : [];
      for (const select of [fromMark, toMark]) {
        select.replaceChildren(h('option', { value: '' }, 'bar'), ...names.map((n) => h('option', { value: n }, n)));
        select.hidden = names.length === 0;
      }
      fromBar.hidden = false;
      toBar.hidden = false;
    },
    /**
     * The loop in force, as the last state said.
     * @param {{ loop?: unknown } | null | undefined} state
     */
    showState(state) {
      const label = loopLabel(state?.loop);
      setText(status, label || 'no loop');
      status.dataset.on = label === '' ? 'false' : 'true';
      offButton.disabled = label === '';
    },
  };
}

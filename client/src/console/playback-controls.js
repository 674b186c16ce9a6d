// The playback controls of the console and the composer preview: Play (after the chosen
// count-in), Pause, Stop, the tempo factor, and a line that says what came of the last call.
// Each page lays the parts out its own way; `act` runs its other control calls (seek, votes,
// loads) so that they report on the same line.

import { ControlError } from './control-api.js';
import { controlErrorMessage } from './sign-in.js';
import { button, h, setText } from './dom.js';

/**
 * @param {object} o
 * @param {import('./control-api.js').ControlApi} o.api
 * @param {() => void} o.signOut  called instead of a message when the server refuses the token
 */
export function createPlaybackControls({ api, signOut }) {
  const result = h('p', { id: 'result', class: 'result', role: 'status' });
  const countIn = /** @type {HTMLSelectElement} */ (
    h(
      'select',
      { id: 'count-in-bars', 'aria-label': 'Count-in' },
      h('option', { value: '0' }, 'no count-in'),
      h('option', { value: '1' }, 'count-in 1 bar'),
      h('option', { value: '2' }, 'count-in 2 bars'),
    )
  );
  const rate = /** @type {HTMLInputElement} */ (
    h('input', {
      id: 'rate',
      type: 'number',
      min: '0.25',
      max: '4',
      step: '0.05',
      value: '1',
      'aria-label': 'Tempo factor',
    })
  );

  /**
   * Run a control call and say what came of it.
   * @param {string} what
   * @param {() => Promise<unknown>} call
   */
  const act = async (what, call) => {
    setText(result, `${what}…`);
    try {
      await call();
      setText(result, `${what}: done`);
      result.dataset.ok = 'true';
    } catch (err) {
      if (err instanceof ControlError && err.status === 401) {
        signOut();
        return;
      }
      setText(result, `${what}: ${controlErrorMessage(err)}`);
      result.dataset.ok = 'false';
    }
  };

  const buttons = h(
    'div',
    { class: 'row' },
    button('play', 'Play', () => act('Play', () => api.play({ countIn: Number(countIn.value) }))),
    countIn,
    button('pause', 'Pause', () => act('Pause', () => api.pause())),
    button('stop', 'Stop', () => act('Stop', () => api.stop())),
  );
  const tempoForm = h(
    'form',
    { id: 'tempo-form', class: 'row' },
    h('label', { for: 'rate', class: 'label' }, 'Tempo ×'),
    rate,
    h('button', { type: 'submit' }, 'Set'),
  );
  tempoForm.addEventListener('submit', (e) => {
    e.preventDefault();
    act(`Tempo × ${rate.value}`, () => api.tempo({ rate: Number(rate.value) }));
  });

  return {
    /** Play, the count-in before it, Pause, Stop: one row. */
    buttons,
    tempoForm,
    /** What came of the last call (`data-ok` true or false). */
    result,
    act,
    /**
     * Follow the performance's tempo factor, except while someone is typing a new one.
     * @param {unknown} factor the state's `rate`
     */
    showRate(factor) {
      if (document.activeElement !== rate && typeof factor === 'number') rate.value = String(factor);
    },
  };
}

/** @typedef {ReturnType<typeof createPlaybackControls>} PlaybackControls */

// Save in the preview's beat-map modes (bar lines, tap-along): the status line says "Saving…",
// then what was saved or why not, with data-state "saved" or "refused" (what the browser tests
// wait on); Save is held while the request is out and given back on a refusal, so the composer
// can try again once the reason is fixed.

import { controlErrorMessage } from '../console/sign-in.js';
import { setText } from '../console/dom.js';

/**
 * @template T
 * @param {{ save: HTMLElement, result: HTMLElement }} el  the Save button and the status line
 * @param {() => Promise<T>} send  the request
 * @param {(answer: T) => string} said  the status line's words for what the server saved
 * @returns {Promise<boolean>}  whether it was saved
 */
export async function saveWithStatus({ save, result }, send, said) {
  save.setAttribute('disabled', '');
  setText(result, 'Saving…');
  try {
    const answer = await send();
    setText(result, said(answer));
    result.dataset.state = 'saved';
    return true;
  } catch (err) {
    setText(result, `Not saved: ${controlErrorMessage(err)}`);
    result.dataset.state = 'refused';
    save.removeAttribute('disabled');
    return false;
  }
}

// Sign-in for the token-protected pages: the token from the URL fragment or this tab's storage,
// else a form, checked against the server with GET /api/status before the page shows anything.

import { ControlError, createControlApi, keepToken, takeToken } from './control-api.js';
import { h, setText } from './dom.js';

/**
 * What a refused or failed control call means for the person at the page.
 * @param {unknown} err
 */
export function controlErrorMessage(err) {
  if (!(err instanceof ControlError)) return 'Something went wrong; try again.';
  if (err.status === 401) return 'That token is not right.';
  if (err.status === 429) return 'Too many failed sign-ins from this address: wait a minute, then try again.';
  if (err.status === 0) return err.message;
  return `${err.message} (${err.code})`;
}

/**
 * The control API once the server accepts a token: the one this tab was given if it works, else
 * one entered in a form drawn into `root` (which the caller then replaces).
 * @param {HTMLElement} root
 * @param {{ title: string, storage: Storage | null }} o
 * @returns {Promise<import('./control-api.js').ControlApi>}
 */
export async function signIn(root, { title, storage }) {
  const given = takeToken(location, history, storage);
  let problem = '';
  if (given !== null) {
    const api = createControlApi({ token: given });
    try {
      await api.status();
      return api;
    } catch (err) {
      keepToken(storage, null);
      problem = controlErrorMessage(err);
    }
  }
  return new Promise((resolve) => {
    const input = /** @type {HTMLInputElement} */ (
      h('input', {
        id: 'token',
        name: 'token',
        type: 'password',
        autocomplete: 'current-password',
        required: true,
        spellcheck: 'false',
      })
    );
    const error = h('p', { id: 'sign-in-error', class: 'error', role: 'alert' }, problem);
    const button = /** @type {HTMLButtonElement} */ (h('button', { type: 'submit' }, 'Sign in'));
    const form = h(
      'form',
      { id: 'sign-in', class: 'sign-in' },
      h('h1', {}, title),
      h('p', { class: 'muted' }, 'The token is printed by the server when it starts (or set with SCORECAST_TOKEN).'),
      h('label', { for: 'token' }, 'Token'),
      input,
      button,
      error,
    );
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      const token = input.value.trim();
      if (!token) return;
      setText(error, 'Checking…');
      button.disabled = true;
      const api = createControlApi({ token });
      try {
        await api.status();
      } catch (err) {
        setText(error, controlErrorMessage(err));
        button.disabled = false;
        input.select();
        return;
      }
      keepToken(storage, token);
      resolve(api);
    });
    root.replaceChildren(form);
    input.focus();
  });
}

/**
 * Forget this tab's token and start again at the sign-in form (the Sign out button, or a call
 * the server refused with 401).
 * @param {Storage | null} storage
 */
export function signOut(storage) {
  keepToken(storage, null);
  location.reload();
}

// Sign-in for the token-protected pages: the token from the URL fragment or this tab's storage,
// else a form, checked against the server with GET /api/status before the page shows anything.

import { ControlError, createControlApi, keepToken, takeToken } from './control-api.js';

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
    const doc = root.ownerDocument;
    /** @type {(tag: string, props?: Record<string, string>, ...children: (Node | string)[]) => HTMLElement} */
    const el = (tag, props = {}, ...children) => {
      const node = doc.createElement(tag);
      for (const [k, v] of Object.entries(props)) node.setAttribute(k, v);
      node.append(...children);
      return node;
    };
    const input = /** @type {HTMLInputElement} */ (el('input', {
      id: 'token', name: 'token', type: 'password', autocomplete: 'current-password', required: '', spellcheck: 'false',
    }));
    const error = el('p', { id: 'sign-in-error', class: 'error', role: 'alert' }, problem);
    const button = /** @type {HTMLButtonElement} */ (el('button', { type: 'submit' }, 'Sign in'));
    const form = el('form', { id: 'sign-in', class: 'sign-in' },
      el('h1', {}, title),
      el('p', { class: 'muted' }, 'The token is printed by the server when it starts (or set with SCORECAST_TOKEN).'),
      el('label', { for: 'token' }, 'Token'), input, button, error);
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      const token = input.value.trim();
      if (!token) return;
      error.textContent = 'Checking…';
      button.disabled = true;
      const api = createControlApi({ token });
      try {
        await api.status();
      } catch (err) {
        error.textContent = controlErrorMessage(err);
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

// This device in the conductor's roster (server/live/roster.js): its id, the name its player gives
// it on part and score pages, and the console's actions on it (resync, reload, attention), which
// arrive as `command` messages on the link or in the answer to an HTTP report.

import { DEFAULT_VIEW } from './route.js';
import { appVersion, createDeviceName, deviceId } from './device-status.js';
import { sessionStore } from '../live/browser-env.js';

/** A reload asked of every device spreads the phones' reloads over this long (ms): not 1,500 page loads at once. */
const RELOAD_ALL_SPREAD_MS = 5000;
/** How long the attention flash stays up unless tapped away (ms). */
const ATTENTION_MS = 5000;

/**
 * @param {object} o
 * @param {Window} o.window
 * @param {Document} o.document
 * @param {import('../live/connection.js').Connection} o.connection
 * @param {string} o.view
 * @param {Pick<import('./page-clock.js').PageClock, 'setTimeout' | 'clearTimeout'>} o.timers
 * @param {import('../live/transports/index.js').Log} o.log
 * @param {Storage | null} o.storage  localStorage (the same tablet keeps its name)
 * @param {string} o.entryUrl  the entry module's URL (its content hash is the app's version)
 * @param {() => number} [o.random]
 */
export function createPageDevice({
  window,
  document,
  connection,
  view,
  timers,
  log,
  storage,
  entryUrl,
  random = Math.random,
}) {
  const device = {
    id: deviceId(sessionStore(window)),
    name: createDeviceName(storage),
    app: appVersion(entryUrl),
    attention: 0,
  };
  const attention = /** @type {HTMLElement} */ (document.getElementById('attention'));
  /** @type {unknown} */
  let attentionTimer;
  /**
   * @param {unknown} action
   * @param {boolean} [all]  asked of every device at once
   */
  function obey(action, all = false) {
    log(`the console asks: ${String(action)}`);
    if (action === 'reload')
      timers.setTimeout(
        () => window.location.reload(),
        all && view === DEFAULT_VIEW ? random() * RELOAD_ALL_SPREAD_MS : 0,
      );
    else if (action === 'resync') connection.refresh();
    else if (action === 'attention') {
      device.attention++;
      attention.hidden = false;
      timers.clearTimeout(attentionTimer);
      attentionTimer = timers.setTimeout(() => {
        attention.hidden = true;
      }, ATTENTION_MS);
    }
  }
  connection.on('command', (m) => obey(/** @type {any} */ (m).do, /** @type {any} */ (m).all === true));
  attention.addEventListener('click', () => {
    attention.hidden = true;
  });

  // The device's name, on part and score pages (the audience is summed up, never named).
  const nameForm = /** @type {HTMLFormElement} */ (document.getElementById('device-name-form'));
  const nameInput = /** @type {HTMLInputElement} */ (document.getElementById('device-name'));
  const nameError = /** @type {HTMLElement} */ (document.getElementById('device-name-error'));
  if (view !== DEFAULT_VIEW) {
    nameForm.hidden = false;
    nameInput.value = device.name.value;
    nameForm.addEventListener('submit', (e) => {
      e.preventDefault();
      const refused = device.name.set(nameInput.value);
      nameError.textContent = refused ?? '';
      if (!refused) nameInput.value = device.name.value;
    });
  }
  connection.on('message', (m) => {
    const e = /** @type {any} */ (m);
    if (e.type === 'error' && e.code === 'SC_ERR_BAD_NAME') nameError.textContent = String(e.message);
  });

  return {
    device,
    /** @param {string[]} commands  the actions answered to an HTTP report */
    obeyAll(commands) {
      for (const c of commands) obey(c);
    },
    /** This device as the roster knows it (for browser tests). */
    get roster() {
      return { id: device.id, name: device.name.value, app: device.app, attention: device.attention };
    },
  };
}

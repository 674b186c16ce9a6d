// A page suspended as a phone suspends it, in headless Chromium (checked in Chromium 156):
// - CDP Page.setWebLifecycleState {state: 'frozen'} leaves a visible page running (timers kept
//   firing every 100 ms through a 3 s "freeze") and fires no `freeze` or `resume` event;
// - no CDP command, second tab, minimised window or headful window under Xvfb made
//   document.visibilityState 'hidden'.
// So a suspension is the debugger's pause (CDP Debugger.pause: no task of the page runs, its
// WebSocket's messages wait in the browser, timers fire late on resume, as after a freeze), and
// hiding is emulated in the page: visibilityState and hidden overridden, visibilitychange fired,
// so the page's own listeners run as on a locked phone.

/**
 * Emulate the page being hidden or shown.
 * @param {import('@playwright/test').Page} page
 * @param {'hidden' | 'visible'} state
 */
export const setVisibility = (page, state) =>
  page.evaluate((s) => {
    Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => s });
    Object.defineProperty(document, 'hidden', { configurable: true, get: () => s === 'hidden' });
    document.dispatchEvent(new Event('visibilitychange'));
  }, state);

/**
 * Suspend the page's scripts until `until` settles (its tasks wait, as in a frozen page).
 * @param {import('@playwright/test').CDPSession} cdp  a session of the page
 * @param {() => Promise<void>} until
 */
export async function suspended(cdp, until) {
  await cdp.send('Debugger.enable');
  const paused = new Promise((resolve) => cdp.once('Debugger.paused', resolve));
  await cdp.send('Debugger.pause');
  // The pause takes effect at the page's next script: within a frame or a timer (the page runs
  // its beat clock on every frame).
  await Promise.race([paused, new Promise((resolve) => setTimeout(resolve, 2000))]);
  try {
    await until();
  } finally {
    await cdp.send('Debugger.resume').catch(() => {});
    await cdp.send('Debugger.disable').catch(() => {});
  }
}

/**
 * A phone locked and unlocked: hidden, suspended (and its network cut, `offline`) for `ms`, then
 * shown. Resolves with the wall-clock time (Date.now(), the clock of the page's
 * `performance.timeOrigin + performance.now()` on this machine) at which the page could run again:
 * its return is measured from there, the emulated visibilitychange included.
 * @param {import('@playwright/test').Page} page
 * @param {import('@playwright/test').CDPSession} cdp
 * @param {{ ms: number, offline?: boolean, hide?: boolean }} o
 * @returns {Promise<number>}
 */
export async function lockPhone(page, cdp, { ms, offline = true, hide = true }) {
  const context = page.context();
  if (hide) await setVisibility(page, 'hidden');
  if (offline) await context.setOffline(true);
  await suspended(cdp, async () => {
    await new Promise((resolve) => setTimeout(resolve, ms));
    if (offline) await context.setOffline(false);
  });
  const back = Date.now();
  if (hide) await setVisibility(page, 'visible');
  return back;
}

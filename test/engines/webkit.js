// WebKit as on an iPhone, from Debian: WebKitGTK's MiniBrowser driven by WebKitWebDriver under
// Xvfb (Playwright's own WebKit build cannot be downloaded here).

import { freePort, waitForPort } from '../../server/lib/ports.js';
import { start } from './processes.js';
import { NOWHERE } from './engine.js';
import { newSession } from './webdriver.js';
import { startXvfb } from './xvfb.js';

const MINIBROWSER = '/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser';
/** The driver listens within a second; a session starts the browser in 1-3 s. */
const DRIVER_TIMEOUT_MS = 10_000;
const SESSION_TIMEOUT_MS = 20_000;

/**
 * Start Xvfb, WebKitWebDriver and a MiniBrowser session. Under load a new session has twice in
 * about 30 launches never answered (30 s): then everything is stopped and started again, once.
 * @param {import('./engine.js').LaunchOptions} [options]
 * @returns {Promise<import('./engine.js').EnginePage>}
 */
export async function launchWebKit({ env = {}, venue } = {}) {
  try {
    return await launchOnce(env, venue);
  } catch (err) {
    if (/** @type {{ name?: string }} */ (err)?.name !== 'TimeoutError') throw err;
    return launchOnce(env, venue);
  }
}

/**
 * One try; on any failure, stop what was started.
 * @param {NodeJS.ProcessEnv} env
 * @param {import('./engine.js').Venue} [venue]
 * @returns {Promise<import('./engine.js').EnginePage>}
 */
async function launchOnce(env, venue) {
  /** @type {Array<() => Promise<void>>} */
  const cleanup = [];
  const stopAll = async () => {
    for (const fn of cleanup.splice(0).reverse()) await fn().catch(() => {});
  };
  try {
    const xvfb = await startXvfb();
    cleanup.push(xvfb.stop);
    const port = await freePort();
    // At the venue, the driver and the MiniBrowser it starts in the venue's mount namespace: its
    // /etc/hosts, and the system CA bundle with the test CA in it, which WebKitGTK trusts as it
    // trusts the system's (glib-networking's GnuTLS database).
    const driverArgs = [`--port=${port}`, '--host=127.0.0.1'];
    const driver = start(
      venue ? venue.wrapper : 'WebKitWebDriver',
      venue ? ['WebKitWebDriver', ...driverArgs] : driverArgs,
      {
        env: { ...process.env, ...env, DISPLAY: xvfb.display },
      },
    );
    cleanup.push(driver.stop);
    await waitForPort(port, DRIVER_TIMEOUT_MS, { what: 'WebKitWebDriver' }).catch((err) => {
      throw new Error(`${err.message}\n${driver.output()}`);
    });
    const session = await newSession(
      `http://127.0.0.1:${port}`,
      {
        'webkitgtk:browserOptions': { binary: MINIBROWSER, args: ['--automation'] },
        proxy: {
          proxyType: 'manual',
          httpProxy: NOWHERE,
          sslProxy: NOWHERE,
          noProxy: ['127.0.0.1', ...(venue?.hosts ?? [])],
        },
      },
      { timeoutMs: SESSION_TIMEOUT_MS },
    );
    cleanup.push(session.close);
    return {
      name: 'webkit',
      version: `WebKitGTK ${session.capabilities.browserVersion}`,
      goto: (url) => session.navigate(url),
      evaluate: (fn, ...args) => session.execute(`return (${fn}).apply(null, arguments);`, args),
      async click(css) {
        await session.click(await session.findElement(css));
      },
      close: stopAll,
    };
  } catch (err) {
    await stopAll();
    throw err;
  }
}

// Firefox ESR from Debian over WebDriver BiDi (puppeteer-core: no browser download; Playwright's
// own Firefox build cannot be downloaded here). Headless: Gecko's rendering, timers and frames
// are the same, and it needs no X server.

import puppeteer from 'puppeteer-core';
import { NOWHERE } from './engine.js';

const FIREFOX = '/usr/bin/firefox-esr';
/** A fresh profile starts in 2-4 s on this machine; every BiDi command answers within the second. */
const LAUNCH_TIMEOUT_MS = 30_000;
const COMMAND_TIMEOUT_MS = 30_000;

/**
 * @param {import('./engine.js').LaunchOptions} [options]
 * @returns {Promise<import('./engine.js').EnginePage>}
 */
export async function launchFirefox({ env = {}, venue } = {}) {
  const [host, port] = NOWHERE.split(':');
  const browser = await puppeteer.launch({
    browser: 'firefox',
    // At the venue: Firefox in the venue's mount namespace (its /etc/hosts), with a profile that
    // trusts the test CA (Firefox's own certificate store, NSS, not the system's).
    executablePath: venue ? venue.firefox : FIREFOX,
    ...(venue ? { args: [], userDataDir: venue.firefoxProfile } : {}),
    headless: true,
    env: { ...process.env, ...env },
    timeout: LAUNCH_TIMEOUT_MS,
    protocolTimeout: COMMAND_TIMEOUT_MS,
    extraPrefsFirefox: {
      'network.proxy.type': 1,
      'network.proxy.http': host,
      'network.proxy.http_port': Number(port),
      'network.proxy.ssl': host,
      'network.proxy.ssl_port': Number(port),
      'network.proxy.no_proxies_on': ['127.0.0.1', ...(venue?.hosts ?? [])].join(', '),
      'network.captive-portal-service.enabled': false,
      'network.connectivity-service.enabled': false,
      'network.dns.disablePrefetch': true,
    },
  });
  try {
    const page = await browser.newPage();
    page.setDefaultTimeout(COMMAND_TIMEOUT_MS);
    return {
      name: 'firefox',
      version: `Firefox ${(await browser.version()).replace(/^firefox\//i, '')}`,
      async goto(url) {
        await page.goto(url, { waitUntil: 'load' });
      },
      evaluate: (fn, ...args) => page.evaluate(fn, ...args),
      click: (css) => page.click(css),
      close: () => browser.close(),
    };
  } catch (err) {
    await browser.close();
    throw err;
  }
}

// What an engine test does with a browser, the same for WebKit (classic WebDriver) and Firefox
// (WebDriver BiDi): open a page, run a function in it, click, close.

/**
 * One browser window of an engine under test.
 * @typedef {object} EnginePage
 * @property {'webkit' | 'firefox'} name
 * @property {string} version  the browser's, for the report
 * @property {(url: string) => Promise<void>} goto  returns once the page has loaded
 * @property {<T>(fn: (...args: any[]) => T | Promise<T>, ...args: unknown[]) => Promise<T>} evaluate
 *   runs `fn` in the page (its source only: no closure over test variables) and returns its
 *   JSON-serialisable result
 * @property {(css: string) => Promise<void>} click  the browser's own input events: a user gesture
 * @property {() => Promise<void>} close  the browser and everything started for it
 */

/**
 * Browsers stay on loopback: a proxy where nothing listens for everything else (the engines'
 * own equivalents of Chromium's --host-resolver-rules in playwright/playwright.config.js).
 */
export const NOWHERE = '127.0.0.1:9';

/**
 * How to start an engine under test.
 * @typedef {object} LaunchOptions
 * @property {NodeJS.ProcessEnv} [env]  added to the browser's (the sound card's)
 * @property {Venue} [venue]  reach the server as a phone at the venue does (test/engines/venue-lab.js)
 */

/**
 * What a browser needs to be a phone at the venue: the venue's name resolution and the test CA.
 * @typedef {object} Venue
 * @property {string} wrapper  runs a command (its arguments after) with the venue's /etc/hosts and
 *   the system's CA bundle plus the test CA, in a mount namespace of its own
 * @property {string} firefox  Firefox ESR through that wrapper (an executable for puppeteer)
 * @property {string} firefoxProfile  a Firefox profile whose certificate store trusts the test CA
 * @property {string[]} hosts  names and addresses the browser reaches directly (not the proxy to nowhere)
 */

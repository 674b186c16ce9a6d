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

// A W3C WebDriver client of the few commands the engine tests use, over fetch: WebKitWebDriver
// speaks classic WebDriver only (no BiDi in WebKitGTK 2.50).
//
// Written here rather than taken from webdriverio: webdriverio 9.33 brings 239 packages (cheerio,
// archiver, jszip, and through @wdio/utils the downloaders geckodriver, edgedriver, safaridriver and
// @puppeteer/browsers, which fetch drivers and browsers when a session asks for one it cannot find);
// these tests need seven commands of https://www.w3.org/TR/webdriver2/ and nothing it adds.

/** Every command answers within this, or the test fails naming it (a hung browser). */
const COMMAND_TIMEOUT_MS = 30_000;

/** The W3C name of the key that holds an element reference. */
const ELEMENT_KEY = 'element-6066-11e4-a52e-4f735466cecf';

/**
 * One command: the answer's `value`, or an error with WebDriver's error code and message.
 * @param {string} url
 * @param {'GET' | 'POST' | 'DELETE'} method
 * @param {object} [body]
 * @param {number} [timeoutMs]
 * @returns {Promise<any>}
 */
async function command(url, method, body, timeoutMs = COMMAND_TIMEOUT_MS) {
  const res = await fetch(url, {
    method,
    headers: body ? { 'content-type': 'application/json; charset=utf-8' } : {},
    body: body ? JSON.stringify(body) : undefined,
    signal: AbortSignal.timeout(timeoutMs),
  });
  const answer = /** @type {any} */ (await res.json().catch(() => ({})));
  if (!res.ok || answer?.value?.error) {
    const e = answer?.value ?? {};
    throw new Error(`WebDriver ${method} ${new URL(url).pathname}: ${res.status} ${e.error ?? ''}: ${e.message ?? ''}`);
  }
  return answer.value;
}

/**
 * A browser session on a WebDriver server.
 * @typedef {object} WebDriverSession
 * @property {string} id
 * @property {Record<string, unknown>} capabilities  what the driver granted
 * @property {(url: string) => Promise<void>} navigate  returns once the page has loaded
 * @property {(script: string, args?: unknown[]) => Promise<any>} execute  a function body run in
 *   the page with `arguments`; a promise it returns is awaited (Execute Script, W3C 13.2.1)
 * @property {(css: string) => Promise<string>} findElement  the element's reference
 * @property {(element: string) => Promise<void>} click  a click by the driver's own input events
 *   (a user gesture: it unlocks audio)
 * @property {() => Promise<void>} close  ends the session (and the browser with it)
 */

/**
 * Open a session on the WebDriver server at `base` (http://127.0.0.1:PORT).
 * @param {string} base
 * @param {Record<string, unknown>} capabilities  the alwaysMatch capabilities
 * @param {{ timeoutMs?: number }} [options]  how long the browser may take to start
 * @returns {Promise<WebDriverSession>}
 */
export async function newSession(base, capabilities, { timeoutMs = COMMAND_TIMEOUT_MS } = {}) {
  const created = await command(`${base}/session`, 'POST', { capabilities: { alwaysMatch: capabilities } }, timeoutMs);
  const id = String(created.sessionId);
  const at = `${base}/session/${id}`;
  // A script that never settles fails the command instead of hanging it.
  await command(`${at}/timeouts`, 'POST', { script: COMMAND_TIMEOUT_MS - 5000, pageLoad: COMMAND_TIMEOUT_MS - 5000 });
  return {
    id,
    capabilities: created.capabilities ?? {},
    async navigate(url) {
      await command(`${at}/url`, 'POST', { url });
    },
    execute(script, args = []) {
      return command(`${at}/execute/sync`, 'POST', { script, args });
    },
    async findElement(css) {
      const found = await command(`${at}/element`, 'POST', { using: 'css selector', value: css });
      return String(found[ELEMENT_KEY]);
    },
    async click(element) {
      await command(`${at}/element/${element}/click`, 'POST', {});
    },
    async close() {
      await command(at, 'DELETE', undefined, 10_000);
    },
  };
}

// Pages a test opens with `browser.newPage()` or `browser.newContext()` live in browser contexts
// of their own, which Playwright does not close at the end of the test (it closes only the
// `page` and `context` fixtures). Left open they keep playing: each draws its beats, and once the
// spec's server has gone, reconnects with backoff, on the worker's browser that the next tests
// share. In a full run the functional phase's worker browsers had 20-25 such renderers alive
// after a few minutes, and the tests that shared them ran 40% slower than alone.
//
//   test.afterEach(closeOtherContexts);

/**
 * Close every context of the worker's browser but the test's own `context` fixture.
 * @param {{ browser: import('@playwright/test').Browser, context: import('@playwright/test').BrowserContext }} fixtures
 */
export async function closeOtherContexts({ browser, context }) {
  await Promise.all(
    browser
      .contexts()
      .filter((c) => c !== context)
      .map((c) => c.close().catch(() => {})),
  );
}

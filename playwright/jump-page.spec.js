// A jump while playing on a part of several pages (test/fixtures/paged-part: four pages of eight
// bars): the part view turns to the page that holds the
// jump's target before the target's first beat shows. The view's two panes (client/src/notation/
// part-view.js) show the line playing and the line that follows; once the jump is announced
// (state.next, a beat or more ahead), the line that follows is the target's, drawn ready in the
// pane the player moves to, so the downbeat only moves the reader's eye.

import { test, expect } from '@playwright/test';
import { freePort, startServer } from './server.js';

/** @type {Awaited<ReturnType<typeof startServer>>} */
let server;
test.beforeEach(async () => {
  server = await startServer({ port: await freePort(), score: 'test/fixtures/paged-part' });
});
test.afterEach(async () => {
  await server.stop();
});

// Tagged: it asserts that the page was drawn before a deadline (the target's downbeat).
test("a seek while playing to a bar on another page: the part view's pane shows the target's page, drawn, before the target's first beat shows", {
  tag: '@timing',
}, async ({ page }) => {
  await page.setViewportSize({ width: 820, height: 1180 });
  await page.goto(`${server.base}/view/violin1`);
  await expect(page.locator('#link')).toHaveText('live');
  await expect.poll(() => page.evaluate(() => /** @type {any} */ (window).scorecast.join)).not.toBe('joining');
  await expect(page.locator('.sc-pane[data-role=active][data-state=ready]')).toHaveCount(1);
  // Every change of a pane (its line, page, state, role), with the page's wall clock: the
  // clock `shown` uses.
  await page.evaluate(() => {
    const w = /** @type {any} */ (window);
    w.__panes = [];
    const log = () =>
      w.__panes.push({
        at: Date.now(),
        panes: [...document.querySelectorAll('.sc-pane')].map((p) => ({ .../** @type {HTMLElement} */ (p).dataset })),
      });
    new MutationObserver(log).observe(document.getElementById('notation') ?? document.body, {
      subtree: true,
      attributes: true,
      attributeFilter: ['data-line', 'data-page', 'data-state', 'data-role'],
    });
    log();
  });
  await server.control('seek', { bar: 2 });
  await server.control('play');
  await expect.poll(async () => (await server.snapshot()).state.bar, { timeout: 15_000 }).toBeGreaterThanOrEqual(3);
  const pageBefore = await page.locator('.sc-pane[data-role=active]').getAttribute('data-page');
  // Bar 28: on the fourth page.
  const before = Date.now();
  await server.control('seek', { bar: 28 });
  await expect.poll(async () => (await server.snapshot()).state.bar, { timeout: 15_000 }).toBeGreaterThanOrEqual(28);
  /** The target's first beat (bar 28, beat 1) as the page showed it. */
  const first = await page.evaluate(
    (from) =>
      /** @type {any} */ (window).scorecast.shown.find(
        (/** @type {any} */ s) => s.bar === 28 && s.beatInBar === 1 && s.count === 0 && s.at >= from,
      ),
    before,
  );
  expect(first, 'the target beat was shown').toBeTruthy();
  const after = await page.locator('.sc-pane[data-role=active]').getAttribute('data-page');
  const line = await page.locator('.sc-pane[data-role=active]').getAttribute('data-line');
  expect(after, 'the target is on another page').not.toBe(pageBefore);
  /** @type {Array<{ at: number, panes: Array<Record<string, string>> }>} */
  const log = await page.evaluate(() => /** @type {any} */ (window).__panes);
  // Before the downbeat was shown, a pane held the target's line and page, drawn.
  const ready = log.find(
    (e) => e.at >= before && e.panes.some((p) => p.line === line && p.page === after && p.state === 'ready'),
  );
  expect(ready, 'a pane drew the target line').toBeTruthy();
  expect(/** @type {any} */ (ready).at, 'drawn before the downbeat showed').toBeLessThanOrEqual(first.at);
  console.log(
    `target page drawn ${Math.round(first.at - /** @type {any} */ (ready).at)} ms before its downbeat showed`,
  );
  // And that pane was not drawn again at the downbeat (no 'loading' of the target line after it was ready).
  const reloaded = log.find(
    (e) => e.at > /** @type {any} */ (ready).at && e.panes.some((p) => p.line === line && p.state === 'loading'),
  );
  expect(reloaded, 'not drawn again at the downbeat').toBeUndefined();
  await test.info().attach('after-jump', { body: await page.screenshot(), contentType: 'image/png' });
});

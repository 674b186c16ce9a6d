// A jump while playing on a part of several pages (test/fixtures/paged-part: four pages of eight
// bars): the part view turns to the page that holds the
// jump's target before the target's first beat shows. The view's two panes (client/src/notation/
// part-view.js) show the line playing and the line that follows; once the jump is announced
// (state.next, a beat or more ahead), the line that follows is the target's, drawn ready in the
// pane the player moves to, so the downbeat only moves the reader's eye. The full score (the same
// four pages, client/src/notation/score-view.js), open beside it, draws the target's page, three
// pages below, once the jump is announced, and is on the target's system, drawn and in sight, by
// the time the target's first beat shows; nothing from before the jump after it.

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
test("a seek while playing to a bar on another page: the part view's pane and the full score show the target's page, drawn, before the target's first beat shows", {
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
  // The full score beside it: its last page far below, not drawn.
  const score = await page.context().newPage();
  await score.setViewportSize({ width: 820, height: 1180 });
  await score.goto(`${server.base}/view/score`);
  await expect(score.locator('#link')).toHaveText('live');
  await expect.poll(() => score.evaluate(() => /** @type {any} */ (window).scorecast.join)).not.toBe('joining');
  await expect(score.locator('.sc-page[data-page="0"][data-state=ready]')).toHaveCount(1);
  await expect(score.locator('.sc-page[data-page="3"]')).toHaveAttribute('data-state', 'idle');
  // Every change of the score's line, announced jump and pages, with the beat shown last, whether
  // the current system is in sight and which pages are drawn.
  await score.evaluate(() => {
    const w = /** @type {any} */ (window);
    w.__score = [];
    const log = () => {
      const box = /** @type {HTMLElement | null} */ (document.querySelector('.sc-score'));
      const band = document.querySelector('.sc-system-band')?.getBoundingClientRect();
      const last = w.scorecast.shown.at(-1);
      w.__score.push({
        line: box?.dataset.line,
        next: box?.dataset.next,
        beat: last?.beat,
        bar: last?.bar,
        inSight: !!band && band.top >= 0 && band.bottom <= window.innerHeight,
        ready: [...document.querySelectorAll('.sc-page[data-state=ready]')].map(
          (p) => /** @type {HTMLElement} */ (p).dataset.page,
        ),
      });
    };
    new MutationObserver(log).observe(document.getElementById('notation') ?? document.body, {
      subtree: true,
      attributes: true,
      attributeFilter: ['data-line', 'data-next', 'data-state', 'data-current'],
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

  // The full score: bar 28 is on its fourth page (index 3), its first system (line 6; bars 29-32 are line 7).
  const target = await score.evaluate(() =>
    /** @type {any} */ (window).scorecast.shown.find(
      (/** @type {any} */ s) => s.bar === 28 && s.beatInBar === 1 && s.count === 0,
    ),
  );
  expect(target, "the full score showed the target's first beat").toBeTruthy();
  /** @type {Array<{ line?: string, next?: string, beat?: number, bar?: number, inSight: boolean, ready: string[] }>} */
  const changes = await score.evaluate(() => /** @type {any} */ (window).__score);
  const drawn = changes.findIndex((e) => e.ready.includes('3'));
  expect(drawn, 'the target page was drawn').toBeGreaterThanOrEqual(0);
  expect(changes[drawn].bar, 'drawn while the bars before the jump showed').toBeLessThan(28);
  expect(
    changes.some((e) => e.next === '6' && (e.bar ?? 0) < 28),
    'the jump announced to the view',
  ).toBe(true);
  const landed = changes.findIndex((e) => e.line === '6');
  expect(landed, 'the view went to the target system').toBeGreaterThan(drawn);
  // There by the time the target's first beat showed (in the same frame at the latest), drawn and
  // in sight at once (no glide through the pages between).
  expect(changes[landed].beat ?? 0).toBeLessThanOrEqual(target.beat);
  expect(changes[landed].inSight, 'the target system in sight as it became current').toBe(true);
  expect(changes[landed].ready).toContain('3');
  // Nothing from before the jump after it: the score goes on from the target's system.
  expect(changes.slice(landed).filter((e) => Number(e.line) < 6)).toEqual([]);
  await test.info().attach('score-after-jump', { body: await score.screenshot(), contentType: 'image/png' });
  await score.close();
});

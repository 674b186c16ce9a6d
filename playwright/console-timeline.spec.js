// The console's timeline (client/src/conduct/timeline-panel.js) while the piece plays: a bar
// chosen on it asks "Jump to bar 20, beat 1 now?", and only "Jump" goes there; every view (a
// phone, two part views) then shows bar 20's downbeat for the same server time. A mark's label
// chosen and cancelled goes nowhere. The console drawn at tablet and phone sizes.

import { test, expect } from '@playwright/test';
import { freePort, startServer, TOKEN } from './server.js';
import { closeOtherContexts } from './contexts.js';

/** @type {Awaited<ReturnType<typeof startServer>>} */
let server;
test.beforeEach(async () => {
  server = await startServer({ port: await freePort() });
});
test.afterEach(closeOtherContexts);
test.afterEach(async () => {
  await server.stop();
});

/**
 * The first showing of `bar`'s downbeat on `page` since wall time `from`.
 * @param {import('@playwright/test').Page} page
 * @param {number} bar
 * @param {number} from
 */
async function downbeat(page, bar, from) {
  const find = () =>
    page.evaluate(
      ([b, since]) =>
        /** @type {any} */ (window).scorecast.shown.find(
          (/** @type {any} */ s) => s.bar === b && s.beatInBar === 1 && s.count === 0 && s.at >= since,
        ) ?? null,
      [bar, from],
    );
  await expect.poll(find, { timeout: 20_000 }).not.toBeNull();
  return find();
}

test('a bar chosen on the console timeline while playing: asked, confirmed, and every view lands on its downbeat', async ({
  page,
  browser,
}) => {
  await server.control('seek', { bar: 2 });
  const views = await browser.newContext();
  const phone = await views.newPage();
  await phone.setViewportSize({ width: 390, height: 844 });
  const violin = await views.newPage();
  await violin.setViewportSize({ width: 820, height: 1180 });
  const cello = await views.newPage();
  await cello.setViewportSize({ width: 820, height: 1180 });
  await phone.goto(`${server.base}/`);
  await violin.goto(`${server.base}/view/violin1`);
  await cello.goto(`${server.base}/view/cello`);
  for (const p of [phone, violin, cello]) {
    await expect(p.locator('#link')).toHaveText('live');
    await expect.poll(() => p.evaluate(() => /** @type {any} */ (window).scorecast.join)).not.toBe('joining');
  }

  // The console on a tablet held sideways.
  await page.setViewportSize({ width: 1024, height: 768 });
  await page.goto(`${server.base}/conduct`);
  await page.fill('#token', TOKEN);
  await page.click('#sign-in button[type=submit]');
  await expect(page.locator('#playback-state')).toHaveText('playing');
  // Every bar, the marks, the vote window, and the playhead moving with the performance.
  await expect(page.locator('#timeline .tl-bar')).toHaveCount(32);
  await expect(page.locator('#timeline .tl-section[data-mark]')).toHaveCount(4);
  await expect(page.locator('#timeline .tl-vote')).toHaveCount(1);
  await expect(page.locator('#scrubber')).toHaveAttribute('aria-valuetext', /^Bar [2-9], beat \d$/);
  // A loop set shows as a region on the track; turned off, it goes.
  await server.control('loop', { from: { bar: 2 }, to: { bar: 9 } });
  await expect(page.locator('#timeline .tl-loop')).toBeVisible();
  await test.info().attach('console-timeline-1024x768', { body: await page.screenshot(), contentType: 'image/png' });
  await server.control('loop', { off: true });
  await expect(page.locator('#timeline .tl-loop')).toBeHidden();

  // A mark chosen, then cancelled: nothing moves.
  await page.locator('#timeline .tl-section[data-mark="D"]').click();
  await expect(page.locator('#timeline-question')).toHaveText('Jump to mark D now?');
  await expect(page.locator('#timeline .tl-target')).toBeVisible();
  await page.click('#timeline-cancel');
  await expect(page.locator('#timeline-confirm')).toBeHidden();
  expect((await server.snapshot()).state.bar).toBeLessThan(20);

  // Bar 20 chosen: asked first, the performance going on meanwhile.
  await page.locator('#timeline .tl-bar[data-bar="20"]').click({ force: true });
  await expect(page.locator('#timeline-question')).toHaveText('Jump to bar 20, beat 1 now?');
  expect((await server.snapshot()).state.bar).toBeLessThan(20);
  const before = Date.now();
  await page.click('#timeline-go');
  await expect(page.locator('#result')).toHaveText('Go to bar 20, beat 1: done');
  await expect(page.locator('#timeline-confirm')).toBeHidden();
  const shown = [
    await downbeat(phone, 20, before),
    await downbeat(violin, 20, before),
    await downbeat(cello, 20, before),
  ];
  // The same server time on every view: the jump landed on the beat grid for all of them.
  for (const s of shown.slice(1)) expect(s.due).toBe(shown[0].due);
  await expect(page.locator('#scrubber')).toHaveAttribute('aria-valuetext', /^Bar 2\d, beat \d$/);

  // The console on a phone: the timeline fits the width, the question and its buttons in sight.
  await page.setViewportSize({ width: 390, height: 844 });
  const track = /** @type {{ x: number, width: number }} */ (await page.locator('#scrubber').boundingBox());
  expect(track.x).toBeGreaterThanOrEqual(0);
  expect(track.x + track.width).toBeLessThanOrEqual(390);
  await page.locator('#timeline .tl-bar[data-bar="8"]').click({ force: true });
  await expect(page.locator('#timeline-question')).toHaveText('Jump to bar 8, beat 1 now?');
  await expect(page.locator('#timeline-go')).toBeInViewport();
  await test.info().attach('console-timeline-390x844', { body: await page.screenshot(), contentType: 'image/png' });
  await page.click('#timeline-cancel');
});

// The conductor's roster in a real browser: two part pages and a phone on the console, a part
// whose network is cut shown silent within 2 s, a reload of that one device that brings it back
// while the others never reload, and "play when ready" waiting for a part whose audio is locked.

import { test, expect } from '@playwright/test';
import { freePort, startServer, TOKEN } from './server.js';

/** @typedef {Awaited<ReturnType<typeof startServer>>} Server */

/** @type {Server} */
let server;
test.beforeEach(async () => {
  server = await startServer({ port: await freePort(), score: 'test/fixtures/roster', autoplay: false });
});
test.afterEach(async () => {
  await server.stop();
});

/** How many times a page loaded: a reload counts (the performance API of each navigation). */
const loads = (/** @type {import('@playwright/test').Page} */ page) =>
  page.evaluate(() => {
    const w = /** @type {any} */ (window);
    return w.__loadsSeen ?? 0;
  });
/** Mark a page: a reload forgets the mark. */
const mark = (/** @type {import('@playwright/test').Page} */ page) =>
  page.evaluate(() => {
    /** @type {any} */ (window).__loadsSeen = 1;
  });

// Timed: a cut part shown silent within 2 s is a timing bound.
test('two part pages and a phone; a cut part is silent within 2 s; reloading it alone brings it back; play when ready waits for locked audio', {
  tag: '@timing',
}, async ({ browser }) => {
  test.setTimeout(120_000);
  const contexts = await Promise.all([0, 1, 2, 3].map(() => browser.newContext()));
  const [consoleCtx, violinCtx, celloCtx, phoneCtx] = contexts;
  const conduct = await consoleCtx.newPage();
  await conduct.setViewportSize({ width: 1280, height: 1000 });
  const violin = await violinCtx.newPage();
  const cello = await celloCtx.newPage();
  const phone = await phoneCtx.newPage();
  await violin.goto(`${server.base}/view/violin`);
  await cello.goto(`${server.base}/view/cello`);
  await phone.goto(`${server.base}/`);
  for (const p of [violin, cello, phone]) await mark(p);

  // The violinist names the tablet: too long a name is refused, with the reason; a plain one is taken.
  await violin.fill('[data-testid=device-name]', 'v'.repeat(41));
  await violin.click('[data-testid=device-name-save]');
  await expect(violin.locator('[data-testid=device-name-error]')).toContainText('more than 40');
  await violin.fill('[data-testid=device-name]', '  violin   desk 1 ');
  await violin.click('[data-testid=device-name-save]');
  await expect(violin.locator('[data-testid=device-name-error]')).toHaveText('');

  await conduct.goto(`${server.base}/conduct`);
  await conduct.fill('#token', TOKEN);
  await conduct.click('#sign-in button[type=submit]');
  const row = (/** @type {string} */ view) => conduct.locator(`#roster-devices tr[data-view="${view}"]`);
  await expect(row('violin')).toHaveCount(1);
  await expect(row('cello')).toHaveCount(1);
  await expect(row('violin').locator('td[data-col=name]')).toHaveText('violin desk 1');
  await expect(row('violin')).toHaveAttribute('data-link', 'live');
  await expect(conduct.locator('#roster-audience')).toContainText('1 phones (1 live', { timeout: 15_000 });
  const celloId = await cello.evaluate(() => /** @type {any} */ (window).scorecast.roster.id);
  await test.info().attach('roster', { body: await conduct.screenshot({ fullPage: true }), contentType: 'image/png' });

  // The cellist's link is cut (its WebSocket stays open and silent, as when an access point goes).
  await expect(row('cello')).toHaveAttribute('data-link', 'live');
  await celloCtx.setOffline(true);
  const cutAt = Date.now();
  await expect(row('cello')).toHaveAttribute('data-link', 'silent', { timeout: 2000 });
  test.info().annotations.push({ type: 'silent shown after', description: `${Date.now() - cutAt} ms` });
  await expect(row('violin')).toHaveAttribute('data-link', 'live');
  await test
    .info()
    .attach('roster-silent', { body: await conduct.screenshot({ fullPage: true }), contentType: 'image/png' });

  // The link is back; the conductor reloads that one tablet from the console.
  await celloCtx.setOffline(false);
  await expect(row('cello')).toHaveAttribute('data-link', 'live', { timeout: 15_000 });
  const reloaded = cello.waitForEvent('load', { timeout: 15_000 });
  await row('cello').locator('button[data-action=reload]').click();
  await reloaded;
  await expect(conduct.locator('#result')).toContainText(`Reload ${celloId}: done`);
  expect(await loads(cello)).toBe(0);
  expect(await cello.evaluate(() => /** @type {any} */ (window).scorecast.roster.id)).toBe(celloId);
  await expect(row('cello')).toHaveAttribute('data-link', 'live', { timeout: 10_000 });
  await expect(row('cello')).toHaveCount(1);
  expect(await loads(violin)).toBe(1);
  expect(await loads(phone)).toBe(1);

  // Attention: the violin flashes, the cello does not.
  await row('violin').locator('button[data-action=attention]').click();
  await expect(violin.locator('[data-testid=attention]')).toBeVisible();
  await expect(cello.locator('[data-testid=attention]')).toBeHidden();

  // Play when ready: the violin's audio is unlocked, the cello's (freshly reloaded) is not.
  await violin.click('[data-testid=click-toggle]');
  await expect(conduct.locator('#roster-parts li[data-part=violin]')).toHaveAttribute('data-ready', 'true', {
    timeout: 10_000,
  });
  await expect(conduct.locator('#roster-parts li[data-part=cello]')).toContainText('audio locked');
  await conduct.fill('#ready-timeout', '60');
  await conduct.click('#play-when-ready');
  await expect(conduct.locator('#roster-waiting')).toContainText('waiting for every part');
  // Still waiting a while later, nothing played.
  await conduct.waitForTimeout(1500);
  expect((await server.snapshot()).state.playback).toBe('stopped');
  await expect(conduct.locator('#roster-waiting')).toHaveAttribute('data-waiting', 'true');
  await test
    .info()
    .attach('roster-waiting', { body: await conduct.screenshot({ fullPage: true }), contentType: 'image/png' });
  // The cellist taps: every part ready, the piece plays.
  await cello.click('[data-testid=click-toggle]');
  await expect.poll(async () => (await server.snapshot()).state.playback, { timeout: 10_000 }).toBe('playing');
  await expect(conduct.locator('#roster-waiting')).toHaveAttribute('data-waiting', 'false');
  for (const c of contexts) await c.close();
});

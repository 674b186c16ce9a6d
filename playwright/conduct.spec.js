// The conductor's console in a real browser: sign-in, controls, live panels, two consoles.

import { test, expect } from '@playwright/test';
import { closeOtherContexts } from './contexts.js';
import { freePort, startServer, TOKEN } from './server.js';

// Pages opened with browser.newPage() or newContext() closed after each test (contexts.js).
test.afterEach(closeOtherContexts);

/** @typedef {Awaited<ReturnType<typeof startServer>>} Server */

/** @type {Server} */
let server;
test.beforeEach(async () => {
  server = await startServer({ port: await freePort(), autoplay: false });
});
test.afterEach(async () => {
  await server.stop();
});

/** @param {import('@playwright/test').Page} page */
async function signIn(page, token = TOKEN) {
  await page.goto(`${server.base}/conduct`);
  await page.fill('#token', token);
  await page.click('#sign-in button[type=submit]');
}

test('without the token only a sign-in form; a wrong token is refused; the right one opens the console', async ({
  page,
}) => {
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(`${server.base}/conduct`);
  await expect(page.locator('#sign-in')).toBeVisible();
  await expect(page.locator('#play')).toHaveCount(0);
  await test.info().attach('conduct-sign-in', { body: await page.screenshot(), contentType: 'image/png' });
  await signIn(page, 'not-the-token-123');
  await expect(page.locator('#sign-in-error')).toHaveText('That token is not right.');
  await expect(page.locator('#play')).toHaveCount(0);
  expect((await server.snapshot()).state.playback).toBe('stopped');
  await signIn(page);
  await expect(page.locator('#play')).toBeVisible();
  await expect(page.locator('#score-title')).toHaveText('First Light');
  // A reload of the tab keeps the console signed in (sessionStorage), a new tab would not.
  await page.reload();
  await expect(page.locator('#play')).toBeVisible();
});

test('after five wrong tokens the address must wait, and the page says so; the right token still signs in', async ({
  page,
}) => {
  await page.goto(`${server.base}/conduct`);
  for (let i = 0; i < 5; i++) {
    await page.fill('#token', `wrong-token-${i}`);
    await page.click('#sign-in button[type=submit]');
    await expect(page.locator('#sign-in-error')).toHaveText('That token is not right.');
  }
  await page.fill('#token', 'wrong-token-5');
  await page.click('#sign-in button[type=submit]');
  await expect(page.locator('#sign-in-error')).toHaveText(/Too many failed sign-ins/);
  await page.fill('#token', TOKEN);
  await page.click('#sign-in button[type=submit]');
  await expect(page.locator('#play')).toBeVisible();
});

test('each control changes the performance; two consoles converge', async ({ browser }) => {
  const a = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const b = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await signIn(a);
  await signIn(b);
  await expect(a.locator('#link')).toHaveText(/live/);
  await expect(b.locator('#link')).toHaveText(/live/);

  await a.click('#play');
  await expect.poll(async () => (await server.snapshot()).state.playback).toBe('playing');
  await expect(b.locator('#playback-state')).toHaveText('playing');

  await b.fill('#seek-bar', '9');
  await b.click('#seek button[type=submit]');
  await expect(a.locator('#bar')).toHaveText(/^(9|10)$/);

  await a.fill('#rate', '0.5');
  await a.click('#tempo-form button[type=submit]');
  await expect.poll(async () => (await server.snapshot()).state.rate).toBe(0.5);
  await expect(b.locator('#tempo')).toHaveText(/× 0.5/);

  // Commands from both consoles at once are applied in order; both end on the server's state.
  await Promise.all([a.click('#pause'), b.click('#stop')]);
  const final = (await server.snapshot()).state;
  for (const page of [a, b]) await expect(page.locator('#playback-state')).toHaveText(final.playback);
  await expect
    .poll(() => Promise.all([a, b].map((p) => p.evaluate(() => /** @type {any} */ (window).scorecast.seq))))
    .toEqual([(await server.snapshot()).seq, (await server.snapshot()).seq]);

  // Count-in from the console.
  await a.selectOption('#count-in-bars', '1');
  await a.click('#play');
  await expect(b.locator('#count-in')).toHaveText(/count-in \d\/4/);
  await test.info().attach('conduct-playing', { body: await a.screenshot(), contentType: 'image/png' });
});

test('live panels: the audience by view and transport, their measured latency, the vote tally', async ({ browser }) => {
  const console_ = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await signIn(console_);
  const phone = await browser.newPage({ viewport: { width: 390, height: 844 } });
  await phone.goto(`${server.base}/`);
  const cello = await browser.newPage();
  await cello.goto(`${server.base}/view/cello?transport=poll`);
  await expect(console_.locator('#clients-total')).toHaveText('3 connected');
  await expect(console_.locator('#by-view')).toContainText('audience');
  await expect(console_.locator('#by-view')).toContainText('cello');
  await expect(console_.locator('#by-transport')).toContainText('poll');

  await server.control('seek', { bar: 19 });
  await server.control('play');
  await phone.click('#join-button');
  await phone.click('button.tile[data-tile="soft"]');
  await expect(console_.locator('.tally li[data-tile="soft"]')).toHaveAttribute('data-count', '1');
  await expect(console_.locator('.tally li[data-tile="bright"]')).toHaveAttribute('data-count', '0');
  // Pages report what they measured every 10 s.
  await expect(console_.locator('#latency')).toContainText('ws', { timeout: 15_000 });
  await expect(console_.locator('#latency')).toContainText('poll', { timeout: 15_000 });
  await test.info().attach('conduct-panels', { body: await console_.screenshot(), contentType: 'image/png' });
});

test('load another score from the scores folder (two clicks: it stops the performance)', async ({ page }) => {
  await signIn(page);
  const item = page.locator('#scores li[data-score="seed-profile"]');
  await expect(item).toBeVisible();
  await expect(page.locator('#scores li[data-score="demo"]')).toContainText('(playing)');
  await item.locator('button.load').click();
  await expect(item.locator('button.load')).toHaveText('Stop and load?');
  expect((await server.snapshot()).state.score.id).toBe('demo');
  await item.locator('button.load').click();
  await expect.poll(async () => (await server.snapshot()).state.score.id).toBe('seed-profile');
  await expect(page.locator('#score-title')).not.toHaveText('First Light');
  await expect(page.locator('#scores li[data-score="seed-profile"]')).toContainText('(playing)');
});

test('open a vote window from the console, a phone votes, close it: the winner decides on the next beat', async ({
  browser,
}) => {
  const console_ = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await signIn(console_);
  const phone = await browser.newPage({ viewport: { width: 390, height: 844 } });
  await phone.goto(`${server.base}/`);
  await phone.click('#join-button');
  await server.control('play');
  await console_.click('button.vote-open[data-vote="ending"]');
  const soft = phone.locator('button.tile[data-tile="soft"]');
  await expect(soft).toBeVisible();
  await soft.click();
  await expect(console_.locator('.tally li[data-tile="soft"]')).toHaveAttribute('data-count', '1');
  await console_.click('#vote-close');
  // soft skips to bar 29 (the score's `decides`).
  await expect.poll(async () => (await server.snapshot()).state.bar, { timeout: 5000 }).toBeGreaterThanOrEqual(29);
  await expect(console_.locator('#votes .closed')).toContainText('ending: soft won');
  await expect(phone.locator('button.tile[data-tile="soft"]')).toHaveCount(0);
});

// The Content-Security-Policy in a real browser: the pages run and stay live under it without a
// single violation, and a hostile score package (test/fixtures/hostile) can neither run script nor
// reach the conductor token in the preview, even when its SVG page reaches the browser uncleaned.

import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test, expect } from '@playwright/test';
import { freePort, startPreview, startServer, TOKEN } from './server.js';
import { previewStateFile } from '../server/commands/preview.js';

/** @typedef {import('@playwright/test').Page} Page */

const HOSTILE = fileURLToPath(new URL('../test/fixtures/hostile', import.meta.url));
const HOSTILE_PAGE = path.join(HOSTILE, 'pages', 'score-1.svg');
const DEMO = fileURLToPath(new URL('../scores/demo', import.meta.url));

// page.route does not see requests a service worker answers; these tests replace responses.
test.use({ serviceWorkers: 'block' });

/**
 * Everything a page and its frames report about the policy, and every request of a payload
 * that the browser let go out (a request the policy refuses is reported as failed, by CSP).
 * A payload's request "steals" when it leaves this server or carries the token.
 * @param {Page} page
 */
function watch(page) {
  /** @type {string[]} */
  const violations = [];
  /** @type {string[]} */
  const stolen = [];
  /** @type {string[]} */
  const blocked = [];
  /** @param {import('@playwright/test').Request} req */
  const steals = (req) =>
    /pwned/.test(req.url()) && (!req.url().startsWith(`${new URL(page.url()).origin}/`) || /[?&]t=./.test(req.url()));
  page.on('console', (msg) => {
    if (/Content Security Policy/i.test(msg.text())) violations.push(msg.text());
  });
  page.on('requestfinished', (req) => {
    if (steals(req)) stolen.push(req.url());
  });
  page.on('requestfailed', (req) => {
    if (!steals(req)) return;
    // Chromium names the reason it refused to send a request ("csp", "origin" for a
    // cross-origin <use>); a request that went out and failed on the network is "net::...".
    const why = req.failure()?.errorText ?? '';
    if (why.startsWith('net::')) stolen.push(`${req.url()} (${why})`);
    else blocked.push(`${req.url()} (${why})`);
  });
  return { violations, stolen, blocked };
}

test('the pages, their service worker and the preview of the demo run under the policy without a violation', async ({
  browser,
}) => {
  test.setTimeout(150_000);
  // Service workers allowed here: the worker and the pages it serves from its cache are checked too.
  const context = await browser.newContext({ serviceWorkers: 'allow' });
  const page = await context.newPage();
  const seen = watch(page);
  const server = await startServer({ port: await freePort() });
  const dir = path.join(mkdtempSync(path.join(os.tmpdir(), 'sc-csp-demo-')), 'demo');
  cpSync(DEMO, dir, { recursive: true });
  /** @type {Awaited<ReturnType<typeof startPreview>> | null} */
  let preview = null;
  try {
    for (const url of ['/', '/view/score', '/view/violin1']) {
      await page.goto(`${server.base}${url}`);
      await expect(page.locator('#link')).toHaveText(/live/);
      await expect(page.locator('#bar')).not.toHaveText('–');
      if (url !== '/') await expect(page.locator('#notation g.note').first()).toBeAttached({ timeout: 15_000 });
      else {
        await page.locator('#join-button').click();
        await expect(page.locator('#join')).toBeHidden();
      }
    }
    // The page again, now from the worker's cache.
    await page.goto(`${server.base}/`);
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null, undefined, { timeout: 10_000 });
    await page.reload();
    await expect(page.locator('#link')).toHaveText(/live/);
    await page.goto(`${server.base}/conduct#token=${TOKEN}`);
    await expect(page.locator('#play')).toBeVisible();
    await expect(page.locator('#link')).toHaveText(/live/);
    await page.click('#play');
    await expect(page.locator('#playback-state')).toHaveText('playing');

    preview = await startPreview({ port: await freePort(), dir });
    await page.goto(preview.url);
    await expect(page.locator('#score-title')).toHaveText('First Light');
    await expect(page.locator('.pv-frame')).toHaveCount(6);
    for (const view of ['violin1', 'score']) {
      await expect(
        page.frameLocator(`.pv-frame[data-view="${view}"] iframe`).locator('#notation g.note').first(),
      ).toBeAttached({ timeout: 15_000 });
    }
    await page.locator('#play').click();
    await expect(page.locator('#playback-state')).toHaveText('playing');
    expect(seen.violations).toEqual([]);
  } finally {
    await context.close();
    await server.stop();
    await preview?.stop();
    rmSync(path.dirname(dir), { recursive: true, force: true });
    rmSync(previewStateFile(dir), { force: true });
  }
});

test.describe('a hostile package in the preview', () => {
  let dir = '';
  /** @type {Awaited<ReturnType<typeof startPreview>>} */
  let server;
  test.beforeEach(async () => {
    dir = path.join(mkdtempSync(path.join(os.tmpdir(), 'sc-hostile-')), 'hostile');
    cpSync(HOSTILE, dir, { recursive: true });
    server = await startPreview({ port: await freePort(), dir });
  });
  test.afterEach(async () => {
    await server.stop();
    rmSync(path.dirname(dir), { recursive: true, force: true });
    rmSync(previewStateFile(dir), { force: true });
  });

  /**
   * Open the preview, wait for the score view to draw the hostile page, and set off what a
   * reader would: hover and click its links.
   * @param {Page} page
   */
  async function openAndPoke(page) {
    await page.goto(server.url);
    await expect(page.locator('#score-title')).toHaveText('Hostile package');
    const score = page.frameLocator('.pv-frame[data-view="score"] iframe');
    await expect(score.locator('#notation #legit-text').first()).toBeAttached({ timeout: 15_000 });
    for (const id of ['#tab-link', '#animated-link', '#outside-link', '#handler']) {
      const el = score.locator(`#notation ${id}`).first();
      if ((await el.count()) > 0) {
        await el.dispatchEvent('mouseover');
        await el.dispatchEvent('click');
      }
    }
    // Give whatever a payload started (a frame loading, a fetch) the time to show.
    await page.waitForTimeout(1500);
  }

  test('the cleaned package draws its notation, and nothing in it runs or leaves the server', async ({ page }) => {
    const seen = watch(page);
    await openAndPoke(page);
    const score = page.frameLocator('.pv-frame[data-view="score"] iframe');
    await expect(score.locator('#notation #legit-use').first()).toBeAttached();
    expect(seen.stolen).toEqual([]);
    // Nothing blocked either: the payloads were gone before the browser saw the page.
    expect(seen.violations).toEqual([]);
    expect(await page.title()).not.toMatch(/pwned/i);
  });

  test("the page's <style> styles its page, not the view that shows it (no hidden view, no notice)", async ({
    page,
  }) => {
    await openAndPoke(page);
    const score = page.frameLocator('.pv-frame[data-view="score"] iframe');
    // The hostile page's style hides html, body, main, header, buttons and every sibling of an
    // svg, and writes a notice over the root: none of it reaches the view.
    await expect(score.locator('body')).toBeVisible();
    await expect(score.locator('#notation')).toBeVisible();
    await expect(score.locator('#notation .sc-page-svg').first()).toBeVisible();
    expect(await score.locator('html').evaluate((el) => getComputedStyle(el, '::after').content)).toBe('none');
    expect(await score.locator('body').evaluate((el) => getComputedStyle(el).fontFamily)).not.toMatch(/^"?Segoe UI/);
    // Inside the page its rules still apply: the staff is stroked as the page asks.
    expect(
      await score
        .locator('#notation #legit-staff')
        .first()
        .evaluate((el) => getComputedStyle(el).strokeWidth),
    ).toBe('2px');
  });

  test('with the page served uncleaned, the policy alone keeps the token: without it the same page steals it', async ({
    page,
  }) => {
    // As if the sanitizer missed everything: the raw hostile file for the page.
    await page.route('**/pages/score-1.svg', (route) =>
      route.fulfill({ path: HOSTILE_PAGE, contentType: 'image/svg+xml' }),
    );
    // First without the policy on the score view: the payloads are live and reach the token.
    await page.route('**/view/score', async (route) => {
      const res = await route.fetch();
      const headers = { ...res.headers() };
      delete headers['content-security-policy'];
      await route.fulfill({ response: res, headers });
    });
    const open = watch(page);
    await openAndPoke(page);
    expect(
      open.stolen.some((u) => u.includes(`t=${server.token}`)),
      open.stolen.join('\n'),
    ).toBe(true);

    // Then as served: nothing runs, nothing is fetched, and the browser says what it refused.
    await page.unroute('**/view/score');
    const page2 = await page.context().newPage();
    await page2.route('**/pages/score-1.svg', (route) =>
      route.fulfill({ path: HOSTILE_PAGE, contentType: 'image/svg+xml' }),
    );
    const guarded = watch(page2);
    await openAndPoke(page2);
    expect(guarded.stolen).toEqual([]);
    // What would have read the token was refused before it ran.
    expect(guarded.violations).toEqual(expect.arrayContaining([expect.stringMatching(/inline script/)]));
    expect(guarded.blocked).toEqual(
      expect.arrayContaining([expect.stringMatching(/^http:\/\/127\.0\.0\.2\/.*\(csp\)$/)]),
    );
  });
});

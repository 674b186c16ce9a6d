// The screen stays on: over plain HTTP to a venue address (not a secure context: no Wake Lock, no
// service worker) with the keep-awake video, over a secure origin with the Screen Wake Lock,
// asked for again on every return (client/src/page/awake.js).
//
// Chromium decides "secure context" by the URL's host: http://127.0.0.1 and localhost are secure,
// http://venue.test (mapped to 127.0.0.1 by --host-resolver-rules) is not, as a phone opening the
// venue's LAN address over HTTP.
//
// Hiding is emulated in the page and a freeze is the debugger's pause (playwright/suspend.js says
// why); the lock is released by the test as the browser releases it when a page is hidden. A
// suspended page gets no `resume` event there: it notices the gap itself (wake-watch.js).

import { test, expect } from '@playwright/test';
import config from './playwright.config.js';
import { freePort, startServer } from './server.js';
import { setVisibility, suspended } from './suspend.js';

/** @typedef {Awaited<ReturnType<typeof startServer>>} Server */

/** Chromium's flags of the config, with venue.test resolving to loopback. */
const venueArgs = (config.use?.launchOptions?.args ?? []).map((a) =>
  a.startsWith('--host-resolver-rules=')
    ? '--host-resolver-rules=MAP venue.test 127.0.0.1, MAP * ~NOTFOUND, EXCLUDE 127.0.0.1'
    : a,
);

/** @param {import('@playwright/test').Page} page */
const awake = (page) => page.evaluate(() => /** @type {any} */ (window).scorecast.awake);

/** @param {import('@playwright/test').Page} page */
const videoState = (page) =>
  page.evaluate(() => {
    const v = document.querySelector('video.awake-video');
    if (!(v instanceof HTMLVideoElement)) return null;
    const box = v.getBoundingClientRect();
    return {
      paused: v.paused,
      time: v.currentTime,
      muted: v.muted,
      inline: v.playsInline && v.hasAttribute('playsinline'),
      loop: v.loop,
      controls: v.controls,
      src: new URL(v.currentSrc).pathname,
      sameOrigin: new URL(v.currentSrc).origin === location.origin,
      // Blink holds the screen for a silent video only at 20 % of the viewport or more.
      covers: (box.width * box.height) / (innerWidth * innerHeight),
    };
  });

test.use({ launchOptions: { ...config.use?.launchOptions, args: venueArgs } });

/** @type {Server} */
let server;
let port = 0;
test.beforeEach(async () => {
  port = await freePort();
  // Played from the top by the test, not looping: the end of the piece is the end.
  server = await startServer({ port, autoplay: false });
  await server.control('play');
});
test.afterEach(async () => {
  await server.stop();
});

test.describe('over plain HTTP to a venue address', () => {
  test('the join tap starts the keep-awake video, served by us; the page says it keeps no offline copy; released at the end', async ({
    page,
  }) => {
    await page.goto(`http://venue.test:${port}/`);
    expect(await page.evaluate(() => isSecureContext)).toBe(false);
    expect(await page.evaluate(() => 'wakeLock' in navigator)).toBe(false);
    await expect(page.getByTestId('no-offline')).toBeVisible();
    await expect(page.getByTestId('no-offline')).toHaveText(
      "This page can't keep an offline copy over this connection; keep it open.",
    );
    expect(await awake(page)).toEqual({ method: 'video', held: false });
    await page.click('#join-button');
    await expect.poll(() => awake(page), { timeout: 5000 }).toEqual({ method: 'video', held: true });
    const first = await videoState(page);
    expect(first).toMatchObject({ paused: false, inline: true, loop: false, controls: false, sameOrigin: true });
    expect(first?.src).toMatch(/^\/assets\/awake-[\w-]+\.(mp4|webm)$/);
    expect(first?.covers).toBeGreaterThanOrEqual(0.99);
    // It plays on, past the end of its 2 s file: it loops by seeking back, never pausing.
    const seen = new Set();
    for (let i = 0; i < 12; i++) {
      await page.waitForTimeout(250);
      const v = await videoState(page);
      expect(v?.paused).toBe(false);
      seen.add(Math.round((v?.time ?? 0) * 4));
    }
    expect(seen.size).toBeGreaterThan(2);
    const t = (await videoState(page))?.time ?? 0;
    expect(t).toBeLessThan(2);

    // The last bar (3 beats at q = 72): the piece ends, and the screen may sleep.
    await server.control('seek', { bar: 32 });
    await expect
      .poll(() => page.evaluate(() => /** @type {any} */ (window).scorecast.state?.playback), { timeout: 15_000 })
      .toBe('stopped');
    await expect.poll(() => awake(page), { timeout: 2000 }).toEqual({ method: 'video', held: false });
    expect((await videoState(page))?.paused).toBe(true);
    // Played again: held again.
    await server.control('play');
    await expect.poll(() => awake(page), { timeout: 5000 }).toEqual({ method: 'video', held: true });
  });

  test('the video plays again after a hide and after a freeze', async ({ page, context }) => {
    await page.goto(`http://venue.test:${port}/`);
    await page.click('#join-button');
    await expect.poll(() => awake(page), { timeout: 5000 }).toEqual({ method: 'video', held: true });
    await setVisibility(page, 'hidden');
    expect(await awake(page)).toEqual({ method: 'video', held: false });
    await setVisibility(page, 'visible');
    await expect.poll(() => awake(page), { timeout: 2000 }).toEqual({ method: 'video', held: true });
    // Paused meanwhile (as a browser may pause media of a frozen page): playing again after the freeze.
    await page.evaluate(() => /** @type {HTMLVideoElement} */ (document.querySelector('video.awake-video')).pause());
    const cdp = await context.newCDPSession(page);
    await suspended(cdp, () => new Promise((resolve) => setTimeout(resolve, 4500)));
    await expect.poll(() => awake(page), { timeout: 2000 }).toEqual({ method: 'video', held: true });
    expect((await videoState(page))?.paused).toBe(false);
  });
});

test.describe('over a secure origin (loopback)', () => {
  test('the join tap takes the Screen Wake Lock, asked for again after every return', async ({ page, context }) => {
    // Each lock the page is given, so the test can release it as the browser does on a hide.
    await page.addInitScript(() => {
      const w = /** @type {any} */ (window);
      w.__locks = [];
      const request = navigator.wakeLock.request.bind(navigator.wakeLock);
      navigator.wakeLock.request = async (type) => {
        const s = await request(type);
        w.__locks.push(s);
        return s;
      };
    });
    await page.goto(`${server.base}/`);
    expect(await page.evaluate(() => isSecureContext)).toBe(true);
    await expect(page.getByTestId('no-offline')).toBeHidden();
    await page.click('#join-button');
    // Headless Chromium grants the screen lock without a permission prompt.
    await expect.poll(() => awake(page), { timeout: 5000 }).toEqual({ method: 'wake-lock', held: true });
    expect(await page.evaluate(() => document.querySelector('video.awake-video'))).toBeNull();
    const locks = () => page.evaluate(() => /** @type {any} */ (window).__locks.length);
    const releaseLast = () => page.evaluate(() => /** @type {any} */ (window).__locks.at(-1).release());
    expect(await locks()).toBe(1);

    // Hidden: the browser releases the lock; shown: the page asks again.
    await setVisibility(page, 'hidden');
    await releaseLast();
    expect(await awake(page)).toEqual({ method: 'wake-lock', held: false });
    await setVisibility(page, 'visible');
    await expect.poll(() => awake(page), { timeout: 2000 }).toEqual({ method: 'wake-lock', held: true });
    expect(await locks()).toBe(2);

    // Suspended (a frozen page), the lock lost meanwhile: asked for again when it runs again.
    await releaseLast();
    const cdp = await context.newCDPSession(page);
    await suspended(cdp, () => new Promise((resolve) => setTimeout(resolve, 4500)));
    await expect.poll(() => awake(page), { timeout: 2000 }).toEqual({ method: 'wake-lock', held: true });
    expect(await locks()).toBe(3);
  });

  test('a refused Wake Lock falls back to the video', async ({ page }) => {
    await page.addInitScript(() => {
      navigator.wakeLock.request = () => Promise.reject(new DOMException('refused', 'NotAllowedError'));
    });
    await page.goto(`${server.base}/`);
    await page.click('#join-button');
    await expect.poll(() => awake(page), { timeout: 5000 }).toEqual({ method: 'video', held: true });
    expect((await videoState(page))?.paused).toBe(false);
  });
});

// WebKit and Firefox as phones at the venue (test/engines/venue-lab.js): the server at a private
// address that is not loopback, over plain HTTP (not a secure context: no Wake Lock, no service
// worker; the Join tap keeps the screen on with the silent video) and over HTTPS under the venue
// name with a test CA each engine trusts its own way (a secure context: the Wake Lock, a service
// worker). In both: Join works and beats are shown on their server time. Needs root; elsewhere
// the suite's title says why it did not run.

import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { launchFirefox } from './firefox.js';
import {
  awake,
  beatsOver,
  held,
  ON_TIME_MAX_MS,
  ON_TIME_MEDIAN_MS,
  ON_TIME_P95_MS,
  POLL,
  sleep,
} from './page-state.js';
import { startSoundCard } from './sound-card.js';
import { PORT, startVenue, support, VENUE } from './venue-lab.js';
import { launchWebKit } from './webkit.js';

/** @typedef {import('./engine.js').EnginePage} EnginePage */

/** How long beats are timed on each page: about 19 at twice the demo's tempo (312 ms apart). */
const BEATS_MS = 6000;

/** @type {Array<[string, (options: import('./engine.js').LaunchOptions) => Promise<EnginePage>]>} */
const ENGINES = [
  ['WebKit (WebKitGTK MiniBrowser)', launchWebKit],
  ['Firefox ESR', launchFirefox],
];

const can = support();

/**
 * The page's line about what it cannot do without HTTPS (client/index.html).
 * @param {EnginePage} page
 */
const noOffline = (page) =>
  page.evaluate(() => {
    const p = /** @type {HTMLElement} */ (document.getElementById('no-offline'));
    return { shown: !p.hidden, text: p.textContent };
  });

describe.skipIf(!can.ok)(
  can.ok
    ? 'at the venue address (a network namespace), in WebKit and Firefox'
    : `engines at the venue address: NOT RUN here because ${can.reasons.join('; ')}`,
  () => {
    /** @type {Awaited<ReturnType<typeof startVenue>>} */
    let lab;
    /** @type {Awaited<ReturnType<typeof startSoundCard>>} */
    let sound;
    beforeAll(async () => {
      [lab, sound] = await Promise.all([startVenue(), startSoundCard()]);
      await Promise.all([lab.control('plain', 'tempo', { rate: 2 }), lab.control('secure', 'tempo', { rate: 2 })]);
    });
    afterAll(async () => {
      await sound?.stop();
      await lab?.close();
    });

    describe.each(ENGINES)('%s', (_name, launch) => {
      /** @type {EnginePage} */
      let page;
      beforeAll(async () => {
        page = await launch({ env: sound.env, venue: lab.venue });
      });
      afterAll(async () => {
        await page?.close();
      });

      /**
       * Join on the page open now, and time its beats; the page is live and on time first.
       * @returns {Promise<void>}
       */
      async function joinAndTime() {
        await expect.poll(async () => (await held(page)).link, POLL).toBe('live');
        await expect.poll(async () => (await held(page)).join, POLL).toBe('on-time');
        await page.click('#join-button');
        await expect.poll(() => page.evaluate(() => document.body.dataset.joined ?? null), POLL).toBe('true');
        await sleep(300);
        const { late, median, p95, worst } = await beatsOver(page, BEATS_MS);
        console.info(
          `${page.version} at ${await page.evaluate(() => location.origin)}: ${late.length} beats, median ${median.toFixed(1)} ms, |p95| ${p95.toFixed(1)} ms, worst ${worst.toFixed(1)} ms late`,
        );
        expect(late.length).toBeGreaterThanOrEqual(10);
        // Through the namespace's veth pair, Firefox's median was 5.3 ms in a full npm test on a
        // quiet machine (the loopback cells hold 5 ms): a page off the server's clock, what this
        // guards against, shows as tens of ms, so one 60 Hz frame is the venue cells' bound.
        expect(Math.abs(median)).toBeLessThanOrEqual(Math.max(ON_TIME_MEDIAN_MS, 1000 / 60));
        expect(p95).toBeLessThanOrEqual(ON_TIME_P95_MS);
        expect(worst).toBeLessThanOrEqual(ON_TIME_MAX_MS);
      }

      test('over plain HTTP at the LAN address: not a secure context; Join keeps the screen on with the silent video, and beats are on time', async () => {
        await page.goto(`${lab.plain}/`);
        expect(
          await page.evaluate(() => [
            location.origin,
            window.isSecureContext,
            'wakeLock' in navigator,
            'serviceWorker' in navigator,
          ]),
        ).toEqual([lab.plain, false, false, false]);
        expect(await awake(page)).toEqual({ method: 'video', held: false });
        await joinAndTime();
        await expect.poll(() => awake(page), POLL).toEqual({ method: 'video', held: true });
        // The video plays (muted where the engine refused it with sound), and the page says once
        // what it cannot do over this connection.
        expect(
          await page.evaluate(() => {
            const v = document.querySelector('video');
            return v ? { playing: !v.paused && v.readyState >= 2, loop: v.currentTime >= 0 } : null;
          }),
        ).toEqual({ playing: true, loop: true });
        expect(await noOffline(page)).toEqual({
          shown: true,
          text: "This page can't keep an offline copy over this connection; keep it open.",
        });
      });

      test('over HTTPS under the venue name (the test CA trusted): a secure context with a service worker in control; Join holds the Wake Lock, and beats are on time; plain HTTP redirects there', async () => {
        // The QR code's address, as a phone's camera opens it: port 80 sends it to the venue name.
        await page.goto(`http://${lab.address}:${PORT.http}/?from=qr`);
        expect(await page.evaluate(() => location.href)).toBe(`https://${VENUE}/?from=qr`);
        expect(await page.evaluate(() => [location.origin, window.isSecureContext, 'wakeLock' in navigator])).toEqual([
          lab.secure,
          true,
          true,
        ]);
        const state = await page.evaluate(async () => (await navigator.serviceWorker.ready).active?.state ?? null);
        expect(['activating', 'activated']).toContain(state);
        // Reloaded, the page is served through its service worker (the offline copy).
        await page.goto(`${lab.secure}/`);
        await expect
          .poll(() => page.evaluate(() => navigator.serviceWorker.controller?.scriptURL ?? null), POLL)
          .toBe(`${lab.secure}/sw.js`);
        expect((await noOffline(page)).shown).toBe(false);
        await joinAndTime();
        await expect.poll(() => awake(page), POLL).toEqual({ method: 'wake-lock', held: true });
      });
    });
  },
);

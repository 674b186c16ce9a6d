// A phone locked and unlocked mid-piece: hidden, suspended and cut off from the network for a few
// seconds (playwright/suspend.js says how, in headless Chromium), then shown. Back in beat soon
// after, no change of the state missed or applied twice, no clip replayed or played late, a clip
// due after the return played, and sound that the browser stopped brought back by a tap.

import { rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test, expect } from '@playwright/test';
import { LATE_LIMIT_MS } from '../client/src/sound/audio.js';
import { TRUST_WITHIN_MS } from '../client/src/sound/output-clock.js';
import { freePort, startServer } from './server.js';
import { backInBeat, clickTrackScore, clipFaults, streamFaults } from './sleep-wake.js';
import { lockPhone, setVisibility } from './suspend.js';

/** @typedef {Awaited<ReturnType<typeof startServer>>} Server */

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Back in beat within this of being able to run again (ms): a guard against regressions on a
 * loaded 2-core machine, not the target (bench/sleep-wake.js measures that: p95 under 1 s). A
 * return costs the link check (250 ms), a reconnect, the clock's burst (3 round trips) and up to
 * a beat (500 ms) for the next beat to show on time.
 */
const BACK_IN_BEAT_MS = 3000;

/** @param {import('@playwright/test').Page} page */
const scorecast = (page) =>
  page.evaluate(() => {
    const sc = /** @type {any} */ (window).scorecast;
    return {
      shown: sc.shown,
      events: sc.events,
      audio: sc.audio,
      awake: sc.awake,
      sound: sc.sound,
      link: sc.linkState,
    };
  });

/** @type {Server} */
let server;
/** @type {string} */
let score;
test.beforeEach(async () => {
  score = clickTrackScore();
  // startServer takes the score's folder relative to the repository's root.
  server = await startServer({ port: await freePort(), score: path.relative(ROOT, score) });
});
test.afterEach(async () => {
  await server.stop();
  rmSync(score, { recursive: true, force: true });
});

test('a phone locked mid-piece, offline meanwhile, is back in beat when unlocked: nothing missed, repeated or replayed', {
  tag: '@timing',
}, async ({ page, context }) => {
  await page.goto(`${server.base}/`);
  await page.click('#join-button');
  await expect.poll(async () => (await scorecast(page)).awake.held, { timeout: 5000 }).toBe(true);
  // Playing and sounding: clips started on their beats.
  await expect.poll(async () => (await scorecast(page)).audio.length, { timeout: 10_000 }).toBeGreaterThan(3);
  const cdp = await context.newCDPSession(page);

  for (const ms of [3000, 6000]) {
    const hiddenAt = Date.now();
    const back = await lockPhone(page, cdp, { ms, offline: true });
    await expect
      .poll(async () => backInBeat((await scorecast(page)).shown, back), { timeout: BACK_IN_BEAT_MS })
      .not.toBeNull();
    const took = backInBeat((await scorecast(page)).shown, back);
    test.info().annotations.push({
      type: 'back in beat',
      description: `${ms} ms locked and offline: beat ${took?.beat} on time ${Math.round(took?.afterMs ?? 0)} ms after the return (${Math.round(took?.lateMs ?? 0)} ms off)`,
    });
    const now = await scorecast(page);
    expect(now.awake).toEqual({ method: 'wake-lock', held: true });
    expect(now.sound).toEqual({ state: 'running', tapNeeded: false });
    // No clip of a beat that passed while the phone was locked sounded.
    const during = now.audio.filter(
      (/** @type {any} */ a) => !a.cancelled && a.serverT > hiddenAt + LATE_LIMIT_MS && a.serverT < back,
    );
    expect(during).toEqual([]);
    // A clip due after the return was started.
    await expect
      .poll(
        async () =>
          (await scorecast(page)).audio.some((/** @type {any} */ a) => !a.cancelled && a.serverT > back + 1000),
        { timeout: 4000 },
      )
      .toBe(true);
  }
  const end = await scorecast(page);
  expect(streamFaults(end.events)).toEqual({ missed: 0, repeated: 0 });
  expect(clipFaults(end.audio, LATE_LIMIT_MS / 1000)).toEqual({ replayed: 0, late: 0 });
});

test('a page suspended with no event (no visibilitychange, no resume) notices the gap and is back in beat', {
  tag: '@timing',
}, async ({ page, context }) => {
  await page.goto(`${server.base}/`);
  await page.click('#join-button');
  await expect.poll(async () => (await scorecast(page)).shown.length, { timeout: 10_000 }).toBeGreaterThan(3);
  const cdp = await context.newCDPSession(page);
  const back = await lockPhone(page, cdp, { ms: 4000, offline: true, hide: false });
  await expect
    .poll(async () => backInBeat((await scorecast(page)).shown, back), { timeout: BACK_IN_BEAT_MS })
    .not.toBeNull();
  const end = await scorecast(page);
  expect(end.link).toBe('live');
  expect(streamFaults(end.events)).toEqual({ missed: 0, repeated: 0 });
  expect(clipFaults(end.audio, LATE_LIMIT_MS / 1000)).toEqual({ replayed: 0, late: 0 });
});

test('sound the browser will not resume by itself: "Tap to resume sound" until tapped, then gone', async ({ page }) => {
  // Each AudioContext the page makes, so the test can stop it as iOS does on a lock, and have it
  // refuse to resume until the next tap, as iOS does after an interruption. (Not by
  // navigator.userActivation: Playwright's evaluate counts as a gesture.)
  await page.addInitScript(() => {
    const w = /** @type {any} */ (window);
    const Native = w.AudioContext;
    w.__contexts = [];
    w.addEventListener(
      'click',
      () => {
        w.__needGesture = false;
      },
      { capture: true },
    );
    w.AudioContext = class extends Native {
      /** @param {AudioContextOptions} [o] */
      constructor(o) {
        super(o);
        w.__contexts.push(this);
      }
      resume() {
        if (w.__needGesture) {
          return Promise.reject(new DOMException('needs a gesture', 'NotAllowedError'));
        }
        return super.resume();
      }
    };
  });
  await page.goto(`${server.base}/`);
  await page.click('#join-button');
  const button = page.getByRole('button', { name: 'Tap to resume sound' });
  await expect.poll(async () => (await scorecast(page)).sound.state, { timeout: 5000 }).toBe('running');
  await expect(button).toBeHidden();

  await setVisibility(page, 'hidden');
  await page.evaluate(async () => {
    const w = /** @type {any} */ (window);
    w.__needGesture = true;
    await w.__contexts[0].suspend();
  });
  await page.waitForTimeout(1000);
  await setVisibility(page, 'visible');
  await expect(button).toBeVisible({ timeout: 3000 });
  expect((await scorecast(page)).sound).toEqual({ state: 'suspended', tapNeeded: true });
  await button.click();
  await expect(button).toBeHidden({ timeout: 3000 });
  expect((await scorecast(page)).sound).toEqual({ state: 'running', tapNeeded: false });
  // Clips sound again, at the next cue (clips are not held back while the resumed context's
  // mapping forms; clicks are, TRUST_WITHIN_MS at most: output-clock.js). The wait allows that much
  // and more on a loaded machine.
  const before = (await scorecast(page)).audio.filter((/** @type {any} */ a) => !a.cancelled).length;
  await expect
    .poll(async () => (await scorecast(page)).audio.filter((/** @type {any} */ a) => !a.cancelled).length, {
      timeout: TRUST_WITHIN_MS + 5000,
    })
    .toBeGreaterThan(before);
});

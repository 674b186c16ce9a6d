// Timing in a real browser: no beat before the page's clock is good enough, the
// joining state meanwhile, again after a lost link and a return from the background; and sound
// scheduled early by the output latency the AudioContext reports.

import { test, expect } from '@playwright/test';
import { freePort, startServer } from './server.js';

/** @typedef {Awaited<ReturnType<typeof startServer>>} Server */

/** @type {Server} */
let server;
test.beforeEach(async () => {
  server = await startServer({ port: await freePort() });
});
test.afterEach(async () => {
  await server.stop();
});

/** @param {import('@playwright/test').Page} page */
const sc = (page) =>
  page.evaluate(() => {
    const s = /** @type {any} */ (window).scorecast;
    return {
      join: s.join,
      clock: s.clock,
      shown: s.shown,
      audio: s.audio,
      state: s.state,
      link: s.linkState,
      latency: s.audioLatency,
    };
  });

/**
 * Every clock round trip of this page takes `ms` longer, half on the way out and half on the way
 * back (a slow link, not a lopsided one: the round trips of a lopsided link bound the offset
 * tightly between them, core/clock-sync.js): HTTP time requests are held before and after the
 * server, the WebSocket's pings and pongs are passed on late (everything else at once).
 * @param {import('@playwright/test').Page} page
 * @param {{ ms: number }} slow  read on every round trip, so a test can change it
 */
async function slowClock(page, slow) {
  const wait = () => new Promise((r) => setTimeout(r, slow.ms / 2));
  await page.route(/\/api\/time/, async (route) => {
    await wait();
    // A round trip still held when the test ends finds the server gone: it fails as on a
    // network, not as the test.
    const response = await route.fetch().catch(() => null);
    if (!response) {
      await route.abort().catch(() => {});
      return;
    }
    await wait();
    await route.fulfill({ response }).catch(() => {});
  });
  await page.routeWebSocket(/\/live/, (ws) => {
    const upstream = ws.connectToServer();
    ws.onMessage((m) => {
      if (typeof m === 'string' && m.includes('"type":"ping"')) wait().then(() => upstream.send(m));
      else upstream.send(m);
    });
    upstream.onMessage((m) => {
      if (typeof m === 'string' && m.includes('"type":"pong"')) wait().then(() => ws.send(m));
      else ws.send(m);
    });
  });
}

test('joining until the clock is good enough: no beat shown meanwhile, then beats', { tag: '@timing' }, async ({
  page,
}) => {
  // Round trips of 60 ms and more: an error bound of 30 ms, over the 10 ms the gate asks for.
  const slow = { ms: 60 };
  await slowClock(page, slow);
  await page.goto(`${server.base}/`);
  await expect(page.locator('#link')).toHaveText('live');
  await expect(page.locator('#joining')).toBeVisible();
  await expect(page.locator('#joining')).toHaveText(/Joining/);
  // The performance is playing and the page holds it, but shows no beat while joining.
  for (let i = 0; i < 5; i++) {
    const s = await sc(page);
    expect(s.state?.playback).toBe('playing');
    expect(s.join).toBe('joining');
    await expect(page.locator('#beat')).toHaveText('–');
    expect(s.shown).toEqual([]);
    await page.waitForTimeout(300);
  }
  // Quick round trips again: the gate opens on them, and beats are shown.
  slow.ms = 0;
  await expect.poll(async () => (await sc(page)).join, { timeout: 10_000 }).toMatch(/on-time|approximate/);
  await expect(page.locator('#joining')).toBeHidden();
  await expect(page.locator('#beat')).not.toHaveText('–');
  const s = await sc(page);
  expect(s.clock.fresh).toBeGreaterThanOrEqual(3);
});

test('a link that never gets quick round trips still shows beats after the longest wait, as approximate', {
  tag: '@timing',
}, async ({ page }) => {
  await slowClock(page, { ms: 60 });
  await page.goto(`${server.base}/`);
  await expect.poll(async () => (await sc(page)).join, { timeout: 10_000 }).toBe('approximate');
  await expect(page.locator('#beat')).not.toHaveText('–');
  expect((await sc(page)).clock.error).toBeGreaterThan(10);
});

test('on a good link the page is on time within a second, and each beat it shows was measured on that clock', {
  tag: '@timing',
}, async ({ page }) => {
  await page.goto(`${server.base}/`);
  await expect.poll(async () => (await sc(page)).join, { timeout: 5000 }).toBe('on-time');
  await expect.poll(async () => (await sc(page)).shown.length, { timeout: 5000 }).toBeGreaterThan(2);
  const s = await sc(page);
  expect(s.clock.error).toBeLessThanOrEqual(10);
  // The page's wall clock is the server's here: each change was shown at its beat's time
  // (a frame or two on a loaded machine), the first one included, none seconds off.
  for (const r of s.shown.slice(1)) expect(Math.abs(r.at - r.due)).toBeLessThan(250);
});

test('after a return from the background, joining again until the clock is measured afresh; while a link is lost, joining, and on time when it is back', {
  tag: '@timing',
}, async ({ page, context }) => {
  await page.goto(`${server.base}/`);
  await expect.poll(async () => (await sc(page)).join, { timeout: 5000 }).toBe('on-time');
  // The tab goes to the background and comes back.
  await page.evaluate(() => {
    Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => 'hidden' });
    document.dispatchEvent(new Event('visibilitychange'));
  });
  expect((await sc(page)).join).toBe('joining');
  await expect(page.locator('#joining')).toBeVisible();
  await expect(page.locator('#beat')).toHaveText('–');
  await page.evaluate(() => {
    Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => 'visible' });
    document.dispatchEvent(new Event('visibilitychange'));
  });
  await expect.poll(async () => (await sc(page)).join, { timeout: 5000 }).toBe('on-time');
  await expect(page.locator('#beat')).not.toHaveText('–');
  // The access point vanishes: once the page notices, it is joining; back on time after (the tab
  // stayed visible: its clock estimate serves again at once, join-gate.js).
  await context.setOffline(true);
  await expect(page.locator('#joining')).toBeVisible({ timeout: 15_000 });
  await context.setOffline(false);
  await expect.poll(async () => (await sc(page)).join, { timeout: 15_000 }).toBe('on-time');
  await expect(page.locator('#beat')).not.toHaveText('–');
});

// (A report of 0 is no report: audio-latency.js assumes the fallback then, as WebKitGTK gives 0.)
for (const ms of [3, 40, 200]) {
  test(`sound: an AudioContext reporting ${ms} ms of output latency gets its clip started ${ms} ms early`, {
    tag: '@timing',
  }, async ({ page }) => {
    // A stand-in AudioContext: its clock is the page's (s), it reports the latency, has no
    // output timestamp, and records each clip's start.
    await page.addInitScript((latency) => {
      const w = /** @type {any} */ (window);
      w.__starts = [];
      w.AudioContext = class {
        state = 'suspended';
        outputLatency = latency;
        baseLatency = 0;
        destination = {};
        get currentTime() {
          return performance.now() / 1000;
        }
        async resume() {
          this.state = 'running';
        }
        async decodeAudioData() {
          return {};
        }
        createBufferSource() {
          return {
            buffer: null,
            connect() {},
            start(/** @type {number} */ when) {
              w.__starts.push({ when, at: performance.now() / 1000 });
            },
          };
        }
      };
    }, ms / 1000);
    await page.goto(`${server.base}/`);
    await page.locator('#join-button').click();
    await expect.poll(async () => (await sc(page)).join, { timeout: 5000 }).toBe('on-time');
    // The bell is on bar 32, beat 1.
    await server.control('seek', { bar: 30 });
    await expect.poll(async () => (await sc(page)).audio.length, { timeout: 10_000 }).toBeGreaterThan(0);
    const s = await sc(page);
    expect(s.latency).toEqual({ source: 'reported', seconds: ms / 1000, offsetMs: 0 });
    const [clip] = s.audio;
    // The page time of the bell's server time, on this page's clock, less the output latency.
    const local = (clip.serverT - s.clock.offset) / 1000;
    expect(clip.when).toBeCloseTo(local - ms / 1000, 2);
    expect(clip.offset).toBe(0);
  });
}

test("the musicians' click: a part's Click toggle sounds every beat once, on its server time less the output delay, the downbeat higher", {
  tag: '@timing',
}, async ({ page }) => {
  // A stand-in AudioContext on the page's clock, reporting 40 ms of output latency, recording each
  // tone's pitch and start.
  await page.addInitScript(() => {
    const w = /** @type {any} */ (window);
    w.__tones = [];
    w.AudioContext = class {
      state = 'suspended';
      outputLatency = 0.04;
      baseLatency = 0;
      destination = {};
      get currentTime() {
        return performance.now() / 1000;
      }
      async resume() {
        this.state = 'running';
      }
      createGain() {
        return { gain: { value: 1, setValueAtTime() {}, exponentialRampToValueAtTime() {} }, connect() {} };
      }
      createOscillator() {
        const tone = {
          frequency: { value: 0 },
          connect() {},
          start(/** @type {number} */ at) {
            w.__tones.push({ hz: tone.frequency.value, at });
          },
          stop() {},
        };
        return tone;
      }
    };
  });
  await page.goto(`${server.base}/view/violin1`);
  await expect.poll(async () => (await sc(page)).join, { timeout: 5000 }).toBe('on-time');
  const toggle = page.locator('#click-toggle');
  await expect(toggle).toHaveAttribute('aria-pressed', 'false');
  await toggle.click();
  await expect(toggle).toHaveAttribute('aria-pressed', 'true');
  await expect
    .poll(async () => page.evaluate(() => /** @type {any} */ (window).__tones.length), { timeout: 10_000 })
    .toBeGreaterThanOrEqual(6);
  const s = await sc(page);
  const clicks = s.audio.filter((/** @type {any} */ a) => a.url.startsWith('click'));
  /** @type {{ hz: number, at: number }[]} */
  const tones = await page.evaluate(() => /** @type {any} */ (window).__tones);
  // One tone per beat, never twice the same beat; each scheduled 40 ms before its beat's page time.
  expect(new Set(clicks.map((/** @type {any} */ c) => c.serverT)).size).toBe(clicks.length);
  for (const c of clicks) expect(c.when).toBeCloseTo((c.serverT - s.clock.offset) / 1000 - 0.04, 2);
  // The demo is in 4/4: one high tone in every four, on the bars' first beats.
  const accents = tones.filter((t) => t.hz > 1000).length;
  expect(accents).toBeGreaterThanOrEqual(1);
  expect(accents).toBeLessThanOrEqual(Math.ceil(tones.length / 4));
  await toggle.click();
  await expect(toggle).toHaveAttribute('aria-pressed', 'false');
  const stoppedAt = tones.length;
  await page.waitForTimeout(1500);
  // Off: at most the beat already announced still sounds.
  expect(await page.evaluate(() => /** @type {any} */ (window).__tones.length)).toBeLessThanOrEqual(stoppedAt + 2);
});

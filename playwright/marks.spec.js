// Rehearsal marks in a real browser: the demo's engraved marks (A-D, from the MusicXML's
// <rehearsal>) shown in the views' headers, and "go to C" while playing landing a phone and a
// part view on C's downbeat together.

import { test, expect } from '@playwright/test';
import { freePort, startServer, TOKEN } from './server.js';

/** @type {Awaited<ReturnType<typeof startServer>>} */
let server;
test.beforeEach(async () => {
  server = await startServer({ port: await freePort() });
});
test.afterEach(async () => {
  await server.stop();
});

// Timed: the two pages' downbeats within 100 ms of each other is a timing bound.
test("a jump to a mark while playing: a phone and a part view show the mark's downbeat at the same server time, the mark boxed in their headers", {
  tag: '@timing',
}, async ({ browser }) => {
  const score = await (await fetch(`${server.base}/api/score`)).json();
  expect(score.marks.map((/** @type {any} */ m) => m.name)).toEqual(['A', 'B', 'C', 'D']);
  const c = score.marks.find((/** @type {any} */ m) => m.name === 'C');
  const context = await browser.newContext();
  const phone = await context.newPage();
  await phone.setViewportSize({ width: 390, height: 844 });
  const part = await context.newPage();
  await part.setViewportSize({ width: 820, height: 1180 });
  await phone.goto(`${server.base}/`);
  await part.goto(`${server.base}/view/violin1`);
  for (const page of [phone, part]) {
    await expect(page.locator('#link')).toHaveText('live');
    await expect.poll(() => page.evaluate(() => /** @type {any} */ (window).scorecast.join)).not.toBe('joining');
  }
  const before = Date.now();
  await server.control('seek', { mark: 'C' });
  for (const page of [phone, part]) {
    await expect(page.locator('#mark')).toHaveText('C');
    await expect(page.locator('#mark')).toBeVisible();
  }
  // C's downbeat (bar 25, beat 1): both pages drew it, for the same server time, within a few
  // frames of each other: a bound for a loaded 2-core machine, where in twelve runs it was drawn
  // 0.4 to 6.8 ms apart but once 42.7 ms (beside other browser tests, a load of 17); the spread
  // is printed, so that a full run's figures can tighten it.
  /** @param {import('@playwright/test').Page} page */
  const downbeat = async (page) => {
    await expect
      .poll(() =>
        page.evaluate(
          ([at, from]) =>
            /** @type {any} */ (window).scorecast.shown.some((/** @type {any} */ s) => s.beat === at && s.at >= from),
          [c.at, before],
        ),
      )
      .toBe(true);
    return page.evaluate(
      ([at, from]) =>
        /** @type {any} */ (window).scorecast.shown.find((/** @type {any} */ s) => s.beat === at && s.at >= from),
      [c.at, before],
    );
  };
  const [a, b] = [await downbeat(phone), await downbeat(part)];
  expect(a.due).toBe(b.due);
  console.log(`mark C's downbeat drawn ${Math.abs(a.at - b.at).toFixed(1)} ms apart across the views`);
  expect(Math.abs(a.at - b.at)).toBeLessThan(100);
  await test.info().attach('mark-C-part', { body: await part.screenshot(), contentType: 'image/png' });
  await context.close();
});

test("the console's marks: one press goes to a mark while stopped; while playing the first press asks and the second jumps", async ({
  page,
}) => {
  await page.setViewportSize({ width: 820, height: 1180 });
  await server.control('stop');
  await page.goto(`${server.base}/conduct`);
  await page.fill('#token', TOKEN);
  await page.click('#sign-in button[type=submit]');
  const marks = page.locator('#marks .mark-go');
  await expect(marks).toHaveText(['A', 'B', 'C', 'D']);
  await expect(page.locator('#marks .mark-go[aria-current="true"]')).toHaveText('A');
  // Stopped: one press.
  await page.getByRole('button', { name: 'Go to mark B' }).click();
  await expect.poll(async () => (await server.snapshot()).state.mark).toBe('B');
  await expect(page.locator('#marks .mark-go[aria-current="true"]')).toHaveText('B');
  // Playing: the first press only asks.
  await server.control('play');
  await expect.poll(async () => (await server.snapshot()).state.playback).toBe('playing');
  const d = page.getByRole('button', { name: 'Go to mark D' });
  await d.click();
  await expect(d).toHaveText('D now?');
  expect((await server.snapshot()).state.mark).not.toBe('D');
  await d.click();
  await expect.poll(async () => (await server.snapshot()).state.mark).toBe('D');
  await expect(page.locator('#marks .mark-go[aria-current="true"]')).toHaveText('D');
  await test.info().attach('console-marks', { body: await page.screenshot(), contentType: 'image/png' });
});

test("a jump to a mark while playing: the part view's cursor is drawn at the mark's downbeat on the landing frame, never gliding there from where it was", async ({
  page,
}) => {
  const score = await (await fetch(`${server.base}/api/score`)).json();
  const c = score.marks.find((/** @type {any} */ m) => m.name === 'C');
  await page.setViewportSize({ width: 820, height: 1180 });
  await page.goto(`${server.base}/view/violin1`);
  const active = page.locator('div.sc-pane[data-role="active"]');
  await expect(active.locator('.sc-cursor')).toHaveAttribute('data-beat', /\d+/);
  const layout = await page.locator('#notation').getAttribute('data-layout');
  const map = await (
    await fetch(`${server.base}/api/score/views/violin1${!layout || layout === 'page' ? '' : `?layout=${layout}`}`)
  ).json();
  // Every frame for 3 s, after the page's own frame work: the beat the active pane's cursor is at
  // and where it is drawn, in page units (the SVG's viewBox), with a pixel in page units.
  const sampling = page.evaluate(
    () =>
      new Promise((resolve) => {
        /** @type {Array<{ beat: number, x: number, px: number, t: number }>} */
        const samples = [];
        const end = performance.now() + 3000;
        const next = () => requestAnimationFrame(() => setTimeout(sample, 0));
        const sample = () => {
          const cur = document.querySelector('div.sc-pane[data-role="active"] .sc-cursor');
          const svg = cur?.previousElementSibling;
          const beat = cur?.getAttribute('data-beat');
          if (cur && svg && beat && getComputedStyle(cur).visibility === 'visible') {
            const [vx, , vw] = (svg.getAttribute('viewBox') ?? '').split(/\s+/).map(Number);
            const box = svg.getBoundingClientRect();
            const drawn = cur.getBoundingClientRect().left;
            samples.push({
              beat: Number(beat),
              x: vx + ((drawn - box.left) / box.width) * vw,
              px: vw / box.width,
              t: Number(document.timeline.currentTime),
            });
          }
          if (performance.now() < end) next();
          else resolve(samples);
        };
        next();
      }),
  );
  await page.waitForTimeout(300);
  await server.control('seek', { mark: 'C' });
  const samples = /** @type {Array<{ beat: number, x: number, px: number, t: number }>} */ (await sampling);
  const landed = samples.findIndex((s) => s.beat === c.at);
  expect(landed).toBeGreaterThan(0);
  // The landing frame: at the downbeat's start (a glide from it, begun at most a frame or two ago).
  const beatOf = (/** @type {number} */ n) => map.beats.find((/** @type {any} */ b) => b.beat === n);
  const target = beatOf(c.at);
  const first = samples[landed];
  expect(first.x).toBeGreaterThanOrEqual(target.x0 - first.px);
  expect(first.x).toBeLessThanOrEqual(target.x0 + (target.x1 - target.x0) / 4);
  // Every frame, before the jump and after: the cursor within the beat it says, never between.
  for (const s of samples) {
    const b = beatOf(s.beat);
    expect(s.x, `beat ${s.beat} at ${s.t.toFixed(1)} ms`).toBeGreaterThanOrEqual(b.x0 - s.px);
    expect(s.x, `beat ${s.beat} at ${s.t.toFixed(1)} ms`).toBeLessThanOrEqual(b.x1 + s.px);
  }
  await test.info().attach('mark-C-landing', { body: await page.screenshot(), contentType: 'image/png' });
});

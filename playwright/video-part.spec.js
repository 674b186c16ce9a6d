// A video part (test/fixtures/video-part: a 40 s VP9/Opus guide for every part) kept in step
// with the score: the video's time against the page's synced score time, sampled every 40 ms in
// the page, through a start, a seek while playing, and a pause and resume. The aim is one frame of
// a 25 fps video (40 ms) at p95 (doc/score-format.md, "Video parts"), judged by bench:video; the
// bound here (60 ms) catches a regression without failing on a run's tail.

import { test, expect } from '@playwright/test';
import { freePort, startServer } from './server.js';

/** @typedef {Awaited<ReturnType<typeof startServer>>} Server */

/** @type {Server} */
let server;
test.beforeEach(async () => {
  server = await startServer({ port: await freePort(), score: 'test/fixtures/video-part', autoplay: false });
});
test.afterEach(async () => {
  await server.stop();
});

/**
 * Drift samples (video minus score, seconds) taken in the page every 40 ms for `ms`, while the
 * performance plays.
 * @param {import('@playwright/test').Page} page
 * @param {number} ms
 * @returns {Promise<number[]>}
 */
function sampleDrift(page, ms) {
  return page.evaluate(
    (ms) =>
      new Promise((resolve) => {
        /** @type {number[]} */
        const out = [];
        const h = setInterval(() => {
          const s = /** @type {any} */ (window).scorecast.video;
          if (s?.playing && s.scoreTime !== null) out.push(s.currentTime - s.scoreTime);
        }, 40);
        setTimeout(() => {
          clearInterval(h);
          resolve(out);
        }, ms);
      }),
    ms,
  );
}

/** @param {number[]} xs @param {number} q */
function quantile(xs, q) {
  const s = xs.map(Math.abs).sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
}

test('the video is served with byte ranges as a media element asks', async () => {
  const view = await (await fetch(`${server.base}/api/score/views/violin`)).json();
  expect(view.video).toMatchObject({ type: 'video/webm', width: 192, height: 108, start: 0 });
  expect(view.tempo[0]).toMatchObject({ beat: 0, ms: 0, bpm: 120 });
  const res = await fetch(`${server.base}${view.video.url}`, { headers: { range: 'bytes=0-99' } });
  expect(res.status).toBe(206);
  expect(res.headers.get('content-type')).toBe('video/webm');
  expect(res.headers.get('content-range')).toMatch(/^bytes 0-99\/\d+$/);
  expect((await res.arrayBuffer()).byteLength).toBe(100);
  // `all` gives the cello the same file; the score view has none (nothing to draw: 204).
  const cello = await (await fetch(`${server.base}/api/score/views/cello`)).json();
  expect(cello.video.url).toBe(view.video.url);
  expect((await fetch(`${server.base}/api/score/views/score`)).status).toBe(204);
});

test('a video part stays in step with the score (p95 within 60 ms; bench:video judges the 40 ms frame) through a start, a seek and a pause', {
  tag: '@timing',
}, async ({ page }) => {
  const warnings = /** @type {string[]} */ ([]);
  page.on('console', (m) => {
    if (m.type() === 'error') warnings.push(m.text());
  });
  await page.goto(`${server.base}/view/violin`);
  const video = page.locator('video.sc-video');
  await expect(video).toHaveCount(1);
  await expect.poll(() => video.evaluate((v) => /** @type {HTMLVideoElement} */ (v).readyState)).toBeGreaterThan(1);
  // The clock measured (the join gate open): the page knows the score's time.
  await expect
    .poll(() => page.evaluate(() => /** @type {any} */ (window).scorecast.video?.scoreTime), { timeout: 15_000 })
    .toBe(0);

  await server.control('play');
  const start = await sampleDrift(page, 6000);
  // A jump while playing: bar 12 is 22 s into the video.
  await server.control('seek', { bar: 12 });
  const seek = await sampleDrift(page, 5000);
  await server.control('pause');
  await expect.poll(() => video.evaluate((v) => /** @type {HTMLVideoElement} */ (v).paused)).toBe(true);
  const held = await page.evaluate(() => /** @type {any} */ (window).scorecast.video);
  expect(Math.abs(held.currentTime - held.scoreTime)).toBeLessThan(0.04);
  await page.waitForTimeout(1000);
  await server.control('play');
  const resume = await sampleDrift(page, 5000);

  const all = [...start, ...seek, ...resume];
  const report = {
    samples: all.length,
    p50: quantile(all, 0.5),
    p95: quantile(all, 0.95),
    max: quantile(all, 1),
    start: quantile(start, 0.95),
    seek: quantile(seek, 0.95),
    resume: quantile(resume, 0.95),
    status: await page.evaluate(() => /** @type {any} */ (window).scorecast.video),
    // The first second of each phase, in ms: how fast the video came into step.
    first: [start, seek, resume].map((xs) => xs.slice(0, 25).map((x) => Math.round(x * 1000))),
  };
  await test.info().attach('video-drift', { body: JSON.stringify(report, null, 2), contentType: 'application/json' });
  console.log('video drift (s):', JSON.stringify(report));
  expect(start.length).toBeGreaterThan(100);
  expect(seek.length).toBeGreaterThan(80);
  expect(resume.length).toBeGreaterThan(80);
  // The figure (a 25 fps frame, 40 ms, at p95) is bench:video's to judge over two minutes.
  // Here a bound that only a regression crosses: on a quiet machine this test read p95 25-33 ms,
  // and 42.3 ms once (2026-11-27, the seek's landing 48 ms behind for its first half second); a
  // seek left uncorrected, a start a frame and a half off or a rate that runs away crosses 60 ms.
  expect(report.p95).toBeLessThanOrEqual(0.06);
  expect(warnings).toEqual([]);
});

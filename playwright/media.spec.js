// Score audio in a real media element: Chromium's <audio> asks for byte ranges (as Safari's does,
// which plays nothing without 206 answers), here with the service worker controlling the page
// (client/src/sw.js leaves range requests to the network). The server runs in this process so
// the test sees every request and its answer.

import { test, expect } from '@playwright/test';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildApp, CACHE_DIR } from '../server/app.js';
import { loadPackage } from '../server/score-package.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

test('an <audio> element plays a score asset, fetched with Range and answered 206', async ({ page }) => {
  const score = await loadPackage(path.join(ROOT, 'scores', 'demo'), { cacheDir: CACHE_DIR });
  const { app } = await buildApp({ score, token: 'media-token', autoplay: false });
  /** @type {{ url: string, range: string | undefined, status: number }[]} */
  const seen = [];
  const [fastifyHandler] = /** @type {((req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => void)[]} */ (app.server.listeners('request'));
  app.server.removeAllListeners('request');
  app.server.on('request', (/** @type {import('node:http').IncomingMessage} */ req, /** @type {import('node:http').ServerResponse} */ res) => {
    res.on('finish', () => seen.push({ url: req.url ?? '', range: req.headers.range, status: res.statusCode }));
    fastifyHandler.call(app.server, req, res);
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  try {
    const { port } = /** @type {import('node:net').AddressInfo} */ (app.server.address());
    const base = `http://127.0.0.1:${port}`;
    await page.goto(base);
    await page.evaluate(() => navigator.serviceWorker.register('/sw.js', { scope: '/' }).then(() => undefined));
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null, undefined, { timeout: 10_000 });
    // The page has preloaded the asset, so the HTTP cache would answer the element: another
    // query string is another cache key for the same file.
    const asset = /** @type {{ assets: { url: string }[] }} */ (await (await fetch(`${base}/api/score`)).json()).assets[0].url;
    const url = `${asset}?media`;

    /** @type {string[]} */
    const contentRanges = [];
    page.on('response', (r) => { if (r.url().endsWith(url)) contentRanges.push(r.headers()['content-range']); });
    const played = await page.evaluate((src) => new Promise((resolve) => {
      const audio = document.createElement('audio');
      audio.muted = true; // autoplay without a gesture
      audio.preload = 'auto';
      audio.addEventListener('timeupdate', () => { if (audio.currentTime > 0) resolve({ ok: true, duration: audio.duration }); });
      audio.addEventListener('error', () => resolve({ ok: false, error: audio.error?.code }));
      audio.src = src;
      audio.play().catch((err) => resolve({ ok: false, error: String(err) }));
      setTimeout(() => resolve({ ok: false, error: 'no progress in 15 s' }), 15_000);
    }), url);
    expect(played).toMatchObject({ ok: true });

    const media = seen.filter((s) => s.url === url && s.range !== undefined);
    expect(media.length, JSON.stringify(seen.filter((s) => s.url === url))).toBeGreaterThan(0);
    for (const m of media) expect(m.status).toBe(206);
    expect(contentRanges.length).toBeGreaterThan(0);
    for (const c of contentRanges) expect(c).toMatch(/^bytes \d+-\d+\/\d+$/);
  } finally {
    await app.close();
  }
});

// Score audio in a real media element: Chromium's <audio> asks for byte ranges (as Safari's does,
// which plays nothing without 206 answers), here with the service worker controlling the page
// (client/src/page/sw.js leaves range requests to the network). The server runs in this process so
// the test sees every request and its answer.

import { test, expect } from '@playwright/test';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildApp, CACHE_DIR } from '../server/app.js';
import { loadPackage } from '../server/package/load.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Play `src` in a new muted <audio> element (autoplay without a gesture) until its time moves.
 * @param {import('@playwright/test').Page} page
 * @param {string} src
 */
const play = (page, src) =>
  page.evaluate(
    (u) =>
      new Promise((resolve) => {
        const audio = document.createElement('audio');
        audio.muted = true;
        audio.preload = 'auto';
        audio.addEventListener('timeupdate', () => {
          if (audio.currentTime > 0) resolve({ ok: true });
        });
        audio.addEventListener('error', () => resolve({ ok: false, error: audio.error?.code }));
        audio.src = u;
        audio.play().catch((err) => resolve({ ok: false, error: String(err) }));
        setTimeout(() => resolve({ ok: false, error: 'no progress in 15 s' }), 15_000);
      }),
    src,
  );

test('an <audio> element plays a score asset, fetched with Range and answered 206', async ({ page }) => {
  const score = await loadPackage(path.join(ROOT, 'scores', 'demo'), { cacheDir: CACHE_DIR });
  const { app } = await buildApp({ score, token: 'media-token', autoplay: false });
  /** @type {{ url: string, range: string | undefined, status: number }[]} */
  const seen = [];
  const [fastifyHandler] =
    /** @type {((req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => void)[]} */ (
      app.server.listeners('request')
    );
  app.server.removeAllListeners('request');
  app.server.on(
    'request',
    (/** @type {import('node:http').IncomingMessage} */ req, /** @type {import('node:http').ServerResponse} */ res) => {
      res.on('finish', () => seen.push({ url: req.url ?? '', range: req.headers.range, status: res.statusCode }));
      fastifyHandler.call(app.server, req, res);
    },
  );
  await app.listen({ port: 0, host: '127.0.0.1' });
  try {
    const { port } = /** @type {import('node:net').AddressInfo} */ (app.server.address());
    const base = `http://127.0.0.1:${port}`;
    await page.goto(base);
    await page.evaluate(() => navigator.serviceWorker.register('/sw.js', { scope: '/' }).then(() => undefined));
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null, undefined, { timeout: 10_000 });
    // The page has preloaded the asset, so the HTTP cache would answer the element: another
    // query string is another cache key for the same file.
    const asset = /** @type {{ assets: { url: string }[] }} */ (await (await fetch(`${base}/api/score`)).json())
      .assets[0].url;
    const url = `${asset}?media`;

    /** @type {string[]} */
    const contentRanges = [];
    page.on('response', (r) => {
      if (r.url().endsWith(url)) contentRanges.push(r.headers()['content-range']);
    });
    const played = await play(page, url);
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

test('off the network, an <audio> element plays a score asset the worker keeps, its ranges cut from the cache', async ({
  page,
  context,
}) => {
  const score = await loadPackage(path.join(ROOT, 'scores', 'demo'), { cacheDir: CACHE_DIR });
  const { app } = await buildApp({ score, token: 'media-token', autoplay: false });
  await app.listen({ port: 0, host: '127.0.0.1' });
  try {
    const { port } = /** @type {import('node:net').AddressInfo} */ (app.server.address());
    const base = `http://127.0.0.1:${port}`;
    await page.goto(base);
    await page.evaluate(() => navigator.serviceWorker.register('/sw.js', { scope: '/' }).then(() => undefined));
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null, undefined, { timeout: 10_000 });
    const url = /** @type {{ assets: { url: string }[] }} */ (await (await fetch(`${base}/api/score`)).json()).assets[0]
      .url;
    // The worker keeps the preloaded asset (at install, or when the page fetches it).
    await page.waitForFunction(
      async (u) => (await (await caches.open('scorecast-scores-v1')).match(u)) !== undefined,
      url,
      { timeout: 10_000 },
    );
    // Only the worker's copy is left: not the HTTP cache's.
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.clearBrowserCache');
    await context.setOffline(true);
    expect(await play(page, url)).toMatchObject({ ok: true });
    const parts = await page.evaluate(
      async (u) =>
        Promise.all(
          ['bytes=0-9', 'bytes=-4', 'bytes=99999999-'].map(async (range) => {
            const r = await fetch(u, { headers: { range } });
            return {
              status: r.status,
              contentRange: r.headers.get('content-range'),
              bytes: (await r.arrayBuffer()).byteLength,
            };
          }),
        ),
      url,
    );
    const size = Number(/\/(\d+)$/.exec(String(parts[0].contentRange))?.[1]);
    expect(parts).toEqual([
      { status: 206, contentRange: `bytes 0-9/${size}`, bytes: 10 },
      { status: 206, contentRange: `bytes ${size - 4}-${size - 1}/${size}`, bytes: 4 },
      { status: 416, contentRange: `bytes */${size}`, bytes: 0 },
    ]);
  } finally {
    await context.setOffline(false);
    await app.close();
  }
});

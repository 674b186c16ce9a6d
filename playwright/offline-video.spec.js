// A video part in the service worker's offline copy (client/src/page/sw.js, doc/client-caching.md
// "Videos"): the media element's first byte range has the whole video fetched and kept, and with
// the network gone (or silent past the worker's timeout) the worker answers the element's ranges
// from it, so the part still plays.

import { test, expect } from '@playwright/test';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildApp, CACHE_DIR } from '../server/app.js';
import { loadPackage } from '../server/package/load.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** @type {{ base: string, seen: string[], hold: (on: boolean) => void, close: () => Promise<void> } | undefined} */
let server;
test.afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start() {
  const score = await loadPackage(path.join(ROOT, 'test/fixtures/video-part'), { cacheDir: CACHE_DIR });
  const { app } = await buildApp({ score, token: 'offline-video-token', autoplay: false });
  /** @type {string[]} */
  const seen = [];
  // A silent WiFi cut: while held, byte ranges reach the server and are never answered.
  let holding = false;
  /** @type {Array<() => void>} */
  const held = [];
  app.addHook('onRequest', async (req) => {
    seen.push(`${req.method} ${req.url}${req.headers.range ? ` ${req.headers.range}` : ''}`);
    if (holding && req.headers.range) await new Promise((resolve) => held.push(() => resolve(undefined)));
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = /** @type {import('node:net').AddressInfo} */ (app.server.address());
  const release = () => {
    for (const go of held.splice(0)) go();
  };
  return {
    base: `http://127.0.0.1:${address.port}`,
    seen,
    hold: (/** @type {boolean} */ on) => {
      holding = on;
      if (!on) release();
    },
    close: () => {
      release();
      return app.close();
    },
  };
}

test('a video part is kept whole by the service worker after its first range, and plays from it with the network gone', async ({
  page,
  context,
}) => {
  server = await start();
  const view = await (await fetch(`${server.base}/api/score/views/violin`)).json();
  const url = /** @type {string} */ (view.video.url);
  const size = Number((await fetch(`${server.base}${url}`, { method: 'HEAD' })).headers.get('content-length'));
  expect(size).toBeGreaterThan(100_000);

  await page.goto(`${server.base}/view/violin`);
  await page.evaluate(() => navigator.serviceWorker.register('/sw.js', { scope: '/' }).then(() => undefined));
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null, undefined, { timeout: 10_000 });
  // The page's video started before the worker controlled it: a reload asks through the worker.
  await page.reload();
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null);
  const kept = () =>
    page.evaluate(async () => {
      const cache = await caches.open('scorecast-videos-v1');
      return (await cache.keys()).map((r) => new URL(r.url).pathname);
    });
  await expect.poll(kept, { timeout: 15_000 }).toEqual([url]);

  // With the network up, a range is still the network's (past the HTTP cache here): Chromium's
  // element that began from the network fails on a range the worker cut from its copy.
  server.seen.length = 0;
  const online = await page.evaluate(async (u) => {
    const res = await fetch(u, { headers: { range: 'bytes=100-199' }, cache: 'no-store' });
    return { status: res.status, bytes: (await res.arrayBuffer()).byteLength };
  }, url);
  expect(online).toEqual({ status: 206, bytes: 100 });
  expect(server.seen).toEqual([`GET ${url} bytes=100-199`]);
  // A silent cut (the request sent, no answer ever): after the worker's timeout its copy answers.
  server.seen.length = 0;
  server.hold(true);
  const cut = await page.evaluate(async (u) => {
    const res = fetch(u, { headers: { range: 'bytes=200-299' }, cache: 'no-store' }).then(async (r) => ({
      status: r.status,
      range: r.headers.get('content-range'),
      bytes: (await r.arrayBuffer()).byteLength,
    }));
    return Promise.race([res, new Promise((resolve) => setTimeout(resolve, 15_000, 'no answer'))]);
  }, url);
  server.hold(false);
  expect(cut).toEqual({ status: 206, range: `bytes 200-299/${size}`, bytes: 100 });
  // It went to the network first (the browser may also have checked /sw.js for an update).
  expect(server.seen.filter((r) => r.startsWith(`GET ${url}`))).toEqual([`GET ${url} bytes=200-299`]);

  await context.setOffline(true);
  try {
    /** @param {string} range */
    const ranged = (range) =>
      page.evaluate(
        async ([u, r]) => {
          const res = await fetch(u, { headers: { range: r } });
          return {
            status: res.status,
            range: res.headers.get('content-range'),
            type: res.headers.get('content-type'),
            bytes: (await res.arrayBuffer()).byteLength,
          };
        },
        [url, range],
      );
    expect(await ranged('bytes=100-199')).toEqual({
      status: 206,
      range: `bytes 100-199/${size}`,
      type: 'video/webm',
      bytes: 100,
    });
    expect(await ranged('bytes=-50')).toMatchObject({ status: 206, range: `bytes ${size - 50}-${size - 1}/${size}` });
    expect(await ranged(`bytes=${size}-`)).toMatchObject({ status: 416 });
    // A media element asks for its ranges with the network gone: the worker's copy answers them
    // (an open part whose link drops, or whose element drops its buffer, keeps its video).
    server.seen.length = 0;
    const played = await page.evaluate(async (u) => {
      const v = document.createElement('video');
      v.muted = true;
      v.preload = 'auto';
      v.src = `${u}#fresh`;
      document.body.append(v);
      await new Promise((resolve, reject) => {
        v.addEventListener('canplay', resolve, { once: true });
        v.addEventListener('error', () => reject(new Error(`media error ${v.error?.code}`)), { once: true });
      });
      v.currentTime = 30;
      await new Promise((resolve) => v.addEventListener('seeked', resolve, { once: true }));
      return { duration: v.duration, readyState: v.readyState };
    }, url);
    expect(played.duration).toBeGreaterThan(30);
    expect(played.readyState).toBeGreaterThanOrEqual(2);
    expect(server.seen).toEqual([]);
  } finally {
    await context.setOffline(false);
  }
});

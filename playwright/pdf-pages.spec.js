// A part given as a PDF (test/fixtures/pdf-part: the demo's engraving as a PDF book, beat maps
// in PDF points) plays as image pages do: at phone and tablet sizes the part view draws the
// rendering made for that screen's width, both panes ready, the next line prepared, and the
// cursor on the bar the performance is at, as the beat map places it.

import { test, expect } from '@playwright/test';
import { freePort, startServer } from './server.js';

/** @typedef {Awaited<ReturnType<typeof startServer>>} Server */

/** @type {Server} */
let server;
test.beforeEach(async () => {
  server = await startServer({ port: await freePort(), score: 'test/fixtures/pdf-part', timeoutMs: 60_000 });
});
test.afterEach(async () => {
  await server.stop();
});

const SIZES = /** @type {const} */ ([
  { name: 'phone', viewport: { width: 390, height: 844 }, deviceScaleFactor: 3, image: 1080 },
  { name: 'tablet', viewport: { width: 768, height: 1024 }, deviceScaleFactor: 2, image: 1600 },
]);

for (const size of SIZES) {
  test.describe(`${size.name} (${size.viewport.width}x${size.viewport.height} at ${size.deviceScaleFactor}x)`, () => {
    test.use({ viewport: size.viewport, deviceScaleFactor: size.deviceScaleFactor, hasTouch: true });

    test(`a PDF part: the ${size.image} px rendering, two panes, the cursor on the beat map's bar, the next line as play moves on`, async ({
      page,
    }) => {
      const map = await (await fetch(`${server.base}/api/score/views/violin1`)).json();
      expect(map.pages[0]).toMatchObject({ width: 595.28, height: 841.89 });
      await server.control('pause');
      await server.control('seek', { bar: 3, beat: 2 });
      /** @type {string[]} */
      const images = [];
      page.on('response', (r) => {
        if (r.url().endsWith('.png') && r.ok()) images.push(new URL(r.url()).pathname);
      });
      await page.goto(`${server.base}/view/violin1`);
      await expect(page.locator('#bar')).toHaveText('3');
      const active = page.locator('div.sc-pane[data-role="active"]');
      const next = page.locator('div.sc-pane[data-role="next"]');
      await expect(active).toHaveAttribute('data-state', 'ready');
      await expect(next).toHaveAttribute('data-state', 'ready');
      // The book's page 5 is violin I's page, drawn at the width made for this screen.
      const href = await active.locator('image').getAttribute('href');
      expect(href).toMatch(new RegExp(`/page-5-${size.image}w\\.png$`));
      await expect.poll(() => images.includes(/** @type {string} */ (href))).toBe(true);
      expect(Number(await next.getAttribute('data-line'))).toBe(Number(await active.getAttribute('data-line')) + 1);

      // Bar 3, beat 2 is beat 9: the cursor in that beat's x-range, in the line of its system.
      const b = map.beats.find((/** @type {any} */ x) => x.beat === 9);
      expect(b.bar).toBe(3);
      expect(Number(await active.getAttribute('data-line'))).toBe(b.system);
      const cursor = active.locator('.sc-cursor');
      await expect(cursor).toHaveAttribute('data-beat', '9');
      const x = Number(await cursor.getAttribute('data-x'));
      expect(x).toBeGreaterThanOrEqual(b.x0 - 0.1);
      expect(x).toBeLessThanOrEqual(b.x1 + 0.1);
      // On the glass too: the cursor's bar (its element's left edge) within the pane.
      const box = await active.boundingBox();
      const line = await cursor.boundingBox();
      expect(box && line).toBeTruthy();
      if (box && line) {
        expect(line.x).toBeGreaterThanOrEqual(box.x);
        expect(line.x).toBeLessThanOrEqual(box.x + box.width);
      }
      await test.info().attach(`pdf-part-${size.name}`, { body: await page.screenshot(), contentType: 'image/png' });

      // Played on across the line's end: the pane that was prepared becomes the one being read.
      const nextPane = await next.getAttribute('data-pane');
      const firstOfNext = map.beats.find((/** @type {any} */ x) => x.system === b.system + 1)?.beat;
      expect(firstOfNext).toBeGreaterThan(9);
      await server.control('seek', { beat: firstOfNext - 1 });
      await server.control('play');
      await expect(page.locator(`div.sc-pane[data-pane="${nextPane}"]`)).toHaveAttribute('data-role', 'active', {
        timeout: 5000,
      });
      const bar = map.beats.find((/** @type {any} */ x) => x.beat === firstOfNext).bar;
      await expect
        .poll(async () => Number(await page.locator('#bar').textContent()), { timeout: 5000 })
        .toBeGreaterThanOrEqual(bar);
    });
  });
}

test.describe('full score', () => {
  test.use({ viewport: { width: 768, height: 1024 }, deviceScaleFactor: 2 });

  test('the full score from pages 1-4 of the book on a tablet: a page turn shows the next page', async ({ page }) => {
    const map = await (await fetch(`${server.base}/api/score/views/score`)).json();
    expect(map.pages).toHaveLength(4);
    const onPage2 = map.beats.find((/** @type {any} */ x) => x.page === 1);
    await server.control('pause');
    await server.control('seek', { beat: onPage2.beat });
    await page.goto(`${server.base}/view/score`);
    await expect(page.locator('#bar')).toHaveText(String(onPage2.bar));
    const cursor = page.locator('.sc-cursor');
    await expect(cursor).toHaveAttribute('data-beat', String(onPage2.beat));
    // The cursor is drawn over the book's page 2.
    const drawnOn = await cursor.evaluate((el) =>
      el.parentElement?.querySelector('svg.sc-page-svg image')?.getAttribute('href'),
    );
    expect(drawnOn).toMatch(/\/page-2-1600w\.png$/);
  });
});

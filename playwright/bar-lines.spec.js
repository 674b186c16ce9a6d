// A beat map made in the composer preview's bar-line mode, not in a text editor: the PDF part of
// test/fixtures/pdf-part (made by scores/tools/make-pdf-part.js from the demo's engraving) with
// its violin I beat map removed; the composer clicks where each line starts and each bar line
// on the page (taken from where the fixture's own map puts the bars), undoes a stray click,
// saves, and the part then plays at phone and tablet sizes with the cursor on the right bar.

import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test, expect } from '@playwright/test';
import { freePort, startPreview } from './server.js';
import { closeOtherContexts } from './contexts.js';
import { previewStateFile } from '../server/commands/preview.js';

/** @typedef {Awaited<ReturnType<typeof startPreview>>} Preview */

const FIXTURE = fileURLToPath(new URL('../test/fixtures/pdf-part', import.meta.url));
const PAGE = { width: 595.28, height: 841.89 };

/** Where the fixture's own beat map draws each bar of violin I: the bar lines to click. */
function barsOfFixture() {
  const rows = readFileSync(path.join(FIXTURE, 'beatmaps/violin1.csv'), 'utf8').trim().split('\n').slice(1);
  /** @type {Map<number, { bar: number, system: number, x0: number, x1: number, y: number }>} */
  const bars = new Map();
  for (const row of rows) {
    const [, , system, bar, x0, x1, y0, y1] = row.split(',').map(Number);
    const known = bars.get(bar);
    if (known) known.x1 = x1;
    else bars.set(bar, { bar, system, x0, x1, y: (y0 + y1) / 2 });
  }
  return [...bars.values()];
}

/** @type {Preview} */
let server;
let dir = '';
test.beforeEach(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'sc-bar-lines-'));
  cpSync(FIXTURE, dir, { recursive: true });
  rmSync(path.join(dir, 'beatmaps/violin1.csv'));
  server = await startPreview({ port: await freePort(), dir });
});
test.afterEach(async ({ browser, context }) => {
  await closeOtherContexts({ browser, context });
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
  rmSync(previewStateFile(dir), { force: true });
});

const SIZES = /** @type {const} */ ([
  { name: 'phone', viewport: { width: 390, height: 844 }, deviceScaleFactor: 3 },
  { name: 'tablet', viewport: { width: 768, height: 1024 }, deviceScaleFactor: 2 },
]);

test('bar-line mode: the composer clicks the bar lines of a PDF part, undoes a slip, saves; the part plays with the cursor on the right bar at phone and tablet sizes', async ({
  page,
  browser,
}) => {
  test.setTimeout(120_000);
  const bars = barsOfFixture();
  expect(bars).toHaveLength(32);
  await page.setViewportSize({ width: 1280, height: 1000 });
  await page.goto(server.url);
  const section = page.locator('#beatmap');
  await expect(section).toBeVisible();
  await expect(page.locator('#bl-state')).toHaveText('No beat map yet: violin1');
  await page.locator('#bl-view').selectOption('violin1');
  await page.locator('#bl-start').click();
  const image = page.locator('#bl-image');
  await expect
    .poll(() => image.evaluate((img) => /** @type {HTMLImageElement} */ (img).naturalWidth))
    .toBeGreaterThan(0);
  await expect(page.locator('#bl-prompt')).toHaveText('violin1: click where bar 1 starts.');

  /** @param {number} x @param {number} y  in PDF points */
  const clickAt = async (x, y) => {
    const box = await image.boundingBox();
    if (!box) throw new Error('the page is not drawn');
    await image.click({ position: { x: (x / PAGE.width) * box.width, y: (y / PAGE.height) * box.height } });
  };
  for (const [i, b] of bars.entries()) {
    if (i === 0 || bars[i - 1].system !== b.system) await clickAt(b.x0, b.y);
    await clickAt(b.x1, b.y);
    if (b.bar === 5) {
      // A slip: a click back on the left starts a new line too early; undo takes it back.
      await clickAt(b.x0 - 40, b.y + 60);
      await expect(page.locator('#bl-prompt')).toHaveText(/where bar 6 starts on the next line/);
      await page.locator('#bl-undo').click();
    }
    if (b.bar === 12) {
      await clickAt(300, 700);
      await page.keyboard.press('Control+z');
    }
  }
  await expect(page.locator('#bl-count')).toHaveText('32 of 32 bars placed');
  await expect(page.locator('#bl-prompt')).toHaveText(/Every bar has its position/);
  await test.info().attach('bar-lines', { body: await page.screenshot({ fullPage: true }), contentType: 'image/png' });
  await page.locator('#bl-save').click();
  await expect(page.locator('#bl-result')).toHaveText(
    'Saved beatmaps/violin1.csv: 32 bars, 120 beats. The package reloads with it.',
  );
  expect(existsSync(path.join(dir, 'beatmaps/violin1.csv'))).toBe(true);
  // The package reloads with the map: the view now has a beat for every beat of the piece.
  await expect
    .poll(async () => (await (await fetch(`${server.base}/api/score/views/violin1`)).json()).beats?.length ?? 0, {
      timeout: 30_000,
    })
    .toBe(120);
  await expect(page.locator('#bl-state')).toHaveText('');
  const map = await (await fetch(`${server.base}/api/score/views/violin1`)).json();

  await server.control('pause');
  await server.control('seek', { bar: 3, beat: 2 });
  const bar3 = /** @type {(typeof bars)[number]} */ (bars.find((b) => b.bar === 3));
  for (const size of SIZES) {
    const context = await browser.newContext({
      viewport: size.viewport,
      deviceScaleFactor: size.deviceScaleFactor,
      hasTouch: true,
    });
    const view = await context.newPage();
    await view.goto(`${server.base}/view/violin1`);
    await expect(view.locator('#bar')).toHaveText('3');
    const active = view.locator('div.sc-pane[data-role="active"]');
    await expect(active).toHaveAttribute('data-state', 'ready');
    // Bar 3, beat 2 is beat 9: the cursor in the second quarter of bar 3 as it was clicked,
    // which lies within where the engraving drew bar 3.
    const b = map.beats.find((/** @type {any} */ x) => x.beat === 9);
    expect(b).toMatchObject({ bar: 3, system: 0 });
    const cursor = active.locator('line.sc-cursor');
    await expect(cursor).toHaveAttribute('data-beat', '9');
    const x = Number(/translate\(([-\d.]+)/.exec((await cursor.getAttribute('transform')) ?? '')?.[1]);
    expect(x).toBeGreaterThanOrEqual(b.x0 - 0.1);
    expect(x).toBeLessThanOrEqual(b.x1 + 0.1);
    expect(x).toBeGreaterThan(bar3.x0 + 1);
    expect(x).toBeLessThan(bar3.x1 - 1);
    await test.info().attach(`bar-lines-${size.name}`, { body: await view.screenshot(), contentType: 'image/png' });
    await context.close();
  }
});

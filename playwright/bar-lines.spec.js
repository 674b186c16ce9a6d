// A beat map made in the composer preview's bar-line mode, not in a text editor: the PDF part of
// test/fixtures/pdf-part (made by scores/tools/make-pdf-part.js from the demo's engraving) with
// its violin I beat map removed; the composer clicks where each line starts and each bar line
// on the page (taken from where the fixture's own map puts the bars), undoes a stray click,
// saves, and the part then plays at phone and tablet sizes with the cursor on the right bar.
// Then the composer taps along to a recording (a WAV of clicks made here, at each bar's
// downbeat, picked as a file on this computer): the taps become score.yaml's meter.

import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test, expect } from '@playwright/test';
import { freePort, startPreview } from './server.js';
import { closeOtherContexts } from './contexts.js';
import { parse } from 'yaml';
import { previewStateFile } from '../server/commands/preview.js';
import { createTempoMap } from '../core/tempo-map.js';

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

/**
 * The recording to tap along to: half a second of silence, then a click at every bar's
 * downbeat and one at the end, bars 1-16 0.32 s long (4/4, 750 beats a minute), 17-24 0.44 s
 * (545), 25-32 0.33 s (3/4, 545): faster than the score's own tempo, so that tapping it takes
 * 12 s, and slow enough that a press 80 ms late beside one on time stays under 1000.
 */
const CLICKS = (() => {
  const out = [0.5];
  for (let bar = 1; bar <= 32; bar++) out.push(out[out.length - 1] + (bar <= 16 ? 0.32 : bar <= 24 ? 0.44 : 0.33));
  return out;
})();

/**
 * A mono 16-bit WAV with a short click at each of `clicks` (seconds).
 * @param {number[]} clicks
 */
function clickWav(clicks, rate = 16_000) {
  const n = Math.ceil((clicks[clicks.length - 1] + 0.5) * rate);
  const wav = Buffer.alloc(44 + n * 2);
  wav.write('RIFF', 0, 'latin1');
  wav.writeUInt32LE(36 + n * 2, 4);
  wav.write('WAVEfmt ', 8, 'latin1');
  wav.writeUInt32LE(16, 16);
  wav.writeUInt16LE(1, 20);
  wav.writeUInt16LE(1, 22);
  wav.writeUInt32LE(rate, 24);
  wav.writeUInt32LE(rate * 2, 28);
  wav.writeUInt16LE(2, 32);
  wav.writeUInt16LE(16, 34);
  wav.write('data', 36, 'latin1');
  wav.writeUInt32LE(n * 2, 40);
  for (const c of clicks) {
    const at = Math.round(c * rate);
    for (let i = 0; i < rate * 0.02 && at + i < n; i++)
      wav.writeInt16LE(
        Math.round(20_000 * Math.sin((2 * Math.PI * 1000 * i) / rate) * (1 - i / (rate * 0.02))),
        44 + (at + i) * 2,
      );
  }
  return wav;
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
    const cursor = active.locator('.sc-cursor');
    await expect(cursor).toHaveAttribute('data-beat', '9');
    const x = Number(await cursor.getAttribute('data-x'));
    expect(x).toBeGreaterThanOrEqual(b.x0 - 0.1);
    expect(x).toBeLessThanOrEqual(b.x1 + 0.1);
    expect(x).toBeGreaterThan(bar3.x0 + 1);
    expect(x).toBeLessThan(bar3.x1 - 1);
    await test.info().attach(`bar-lines-${size.name}`, { body: await view.screenshot(), contentType: 'image/png' });
    await context.close();
  }
});

// Timed: what it checks is where the presses land in the recording's time (a press that reaches
// a starved page late moves its tap), so it runs with the timed tests, not beside other work.
test("tap-along: a tap before Play is ignored; a doubled tap at bar 5 is flagged (seen while paused) and undone; tapped again from bar 4; every bar and the end tapped, saved as score.yaml's meter, the bars where the taps were", {
  tag: '@timing',
}, async ({ page }) => {
  test.setTimeout(90_000);
  await page.setViewportSize({ width: 1280, height: 1000 });
  await page.goto(server.url);
  await expect(page.locator('#beatmap')).toBeVisible();
  await page.locator('#ta-recording').selectOption('');
  await page.locator('#ta-file').setInputFiles({ name: 'take-1.wav', mimeType: 'audio/wav', buffer: clickWav(CLICKS) });
  await page.locator('#ta-start').click();
  const count = page.locator('#ta-count');
  await expect(page.locator('#ta-prompt')).toHaveText('Press Play, then tap bar 1.');
  await page.keyboard.press(' ');
  await expect(count).toHaveText('0 of 32 bars tapped');
  /**
   * Taps the clicks from `from` on, `at` ms on this clock being second `second` of the
   * recording, each at its click or, when the one before was sent late, that much later (a
   * loaded machine sends some presses late: the intervals then only grow, never shrink to a
   * tempo over 1000). Notes the second each press was sent at, and how late it was.
   * @type {number[]}
   */
  const sent = [];
  let late = 0;
  let last = 0;
  const tapFrom = async (
    /** @type {number} */ from,
    /** @type {number} */ at,
    /** @type {number} */ second,
    until = CLICKS.length,
  ) => {
    for (let i = from; i < until; i++) {
      const due = Math.max(at + (CLICKS[i] - second) * 1000, i > 0 ? last + (CLICKS[i] - CLICKS[i - 1]) * 1000 : 0);
      const wait = due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      last = performance.now();
      late = Math.max(late, (last - due) / 1000);
      sent[i] = second + (last - at) / 1000;
      await page.keyboard.press(' ');
    }
  };
  await page.locator('#ta-play').click();
  await tapFrom(0, performance.now(), 0, 5);
  await page.keyboard.press('t'); // bar 5 tapped twice
  await page.locator('#ta-play').click(); // pause
  // (A press sent late on a loaded machine may flag bar 5 as well: only bar 6's flag is asserted.)
  const doubled = page.locator('#ta-flags li', { hasText: /^bar 6: tapped after \d+% .*a doubled tap/ });
  await expect(doubled).toHaveCount(1);
  await expect(page.locator('#ta-save')).toBeDisabled();
  await page.keyboard.press('Backspace');
  await expect(count).toHaveText('5 of 32 bars tapped');
  await expect(page.locator('#ta-flags li', { hasText: /^bar 6:/ })).toHaveCount(0);
  const paused = Number.parseFloat((await page.locator('#ta-time').textContent()) ?? '');
  expect(paused).toBeGreaterThan(CLICKS[4]); // paused after bar 5's tap (before bar 6's, unless late)
  // Back to bar 4: bar 3's tap kept and the recording at it (where its press was sent); bars 4
  // and 5 tapped again.
  await page.locator('#ta-from-bar').fill('4');
  await page.locator('#ta-from').click();
  await expect(count).toHaveText('3 of 32 bars tapped');
  const resumed = Number.parseFloat((await page.locator('#ta-time').textContent()) ?? '');
  expect(Math.abs(resumed - sent[2])).toBeLessThan(0.15);
  await page.locator('#ta-play').click();
  await tapFrom(3, performance.now(), resumed);
  await expect(page.locator('#ta-prompt')).toHaveText(/^Every bar and the end are tapped/);
  // Taps sent on time (within 100 ms) are never flagged; a machine too loaded to send them so
  // gets flags it caused (an interval over 175% of its neighbours'), which "keep" then accepts.
  test.info().annotations.push({ type: 'latest tap sent', description: `${Math.round(late * 1000)} ms` });
  if (late < 0.1) await expect(page.locator('#ta-flags li')).toHaveCount(0);
  else if ((await page.locator('#ta-flags li').count()) > 0) await page.locator('#ta-keep').check();
  await page.locator('#ta-save').click();
  await expect(page.locator('#ta-result')).toHaveText(
    /^Saved the tempo map in score\.yaml: 32 bars, \d+ meter entries; bar 1 at \d+\.\d\d s of take-1\.wav/,
  );
  // The meter plays the bars as tapped: 5.12 s to bar 17, 3.52 s to bar 25, 2.64 s to the end,
  // when the machine kept up.
  const yamlText = readFileSync(path.join(dir, 'score.yaml'), 'utf8');
  expect(yamlText).toMatch(/^# meter tapped along to take-1\.wav: bar 1 at [\d.]+ s of it\nmeter:\n/m);
  const { meter } = parse(yamlText);
  expect(meter).toContainEqual(expect.objectContaining({ bar: 25, time: '3/4' }));
  const tempo = createTempoMap({
    bars: 32,
    changes: meter.map((/** @type {any} */ c) => ({
      ...c,
      ...(c.time ? { time: c.time.split('/').map(Number) } : {}),
    })),
  });
  const at = (/** @type {number} */ bar) => tempo.timeAt(tempo.bars[bar - 1].startBeat) / 1000;
  // Bars 17 and 25 and the end, from bar 1, where the taps were sent (within 0.15 s: the press's
  // way to the page), and so within 0.15 s of the clicks when they were sent on time.
  expect(Math.abs(at(17) - at(1) - (sent[16] - sent[0]))).toBeLessThan(0.15);
  expect(Math.abs(at(25) - at(1) - (sent[24] - sent[0]))).toBeLessThan(0.15);
  expect(Math.abs(tempo.durationMs / 1000 - at(1) - (sent[32] - sent[0]))).toBeLessThan(0.15);
  // Bar 1's second in the recording, from the tap's timeStamp: where its press was sent.
  const first = Number(/bar 1 at ([\d.]+) s of it/.exec(yamlText)?.[1]);
  expect(Math.abs(first - sent[0])).toBeLessThan(0.15);
});

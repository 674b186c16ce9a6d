// Parts a player can read on any screen: at phone, tablet and desktop sizes the part
// view draws the layout whose staff is at least 40 CSS px tall (core/layout-choice.js), both
// panes are in sight without scrolling (on a phone on its side, side by side), nothing of the
// notation is cut off at the pane's edges, and the cursor stands on the beat the performance is
// at, in the layout drawn.

import { test, expect } from '@playwright/test';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
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

/** Where the screenshots go besides the report, to be looked at. */
const SHOTS = path.resolve('test-results', 'part-layout');

const SIZES = /** @type {const} */ ([
  { name: 'phone', width: 390, height: 844, layout: 'narrow' },
  { name: 'phone-landscape', width: 844, height: 390, layout: 'narrow' },
  { name: 'tablet', width: 768, height: 1024, layout: 'medium' },
  { name: 'tablet-landscape', width: 1024, height: 768, layout: 'medium' },
  { name: 'desktop', width: 1280, height: 800, layout: 'page' },
]);

/** The least staff height (five lines) in CSS px; 40 px is about 7 mm on a phone's glass. */
const MIN_STAFF_PX = 40;

for (const size of SIZES) {
  test(`part view at ${size.width}x${size.height} (${size.name}): one request for its notation, a staff of at least ${MIN_STAFF_PX} px, nothing clipped, the cursor on the beat`, async ({
    page,
  }) => {
    await page.setViewportSize({ width: size.width, height: size.height });
    await server.control('pause');
    await server.control('seek', { bar: 3, beat: 2 });
    const asked = askedFor(page);
    await page.goto(`${server.base}/view/violin1`);
    await expect(page.locator('#bar')).toHaveText('3');
    const active = page.locator('div.sc-pane[data-role="active"]');
    const next = page.locator('div.sc-pane[data-role="next"]');
    await expect(active).toHaveAttribute('data-state', 'ready');
    await expect(next).toHaveAttribute('data-state', 'ready');
    await expect(page.locator('#notation')).toHaveAttribute('data-layout', size.layout);
    // A first visit (nothing remembered): one request for the view's notation, which the server
    // answers with the layout that suits the width the page says it has.
    expect(asked, 'requests for the notation').toHaveLength(1);
    expect(asked[0]).toMatch(/^\/api\/score\/views\/violin1\?width=\d+$/);

    const measured = await page.evaluate(() => {
      const rect = (/** @type {Element} */ el) => el.getBoundingClientRect();
      /** @type {{ pane: string, systems: number, staff: number, outside: string[], box: number[] }[]} */
      const panes = [];
      for (const pane of document.querySelectorAll('div.sc-pane')) {
        const box = rect(pane);
        // The pane holds its whole page, cropped: the system it shows is the one whose staff
        // is in it.
        const shown = [...pane.querySelectorAll('g.system')].filter((sys) => {
          const lines = [...sys.querySelectorAll('g.staff > path')].map(rect);
          const mid = (Math.min(...lines.map((r) => r.top)) + Math.max(...lines.map((r) => r.bottom))) / 2;
          return mid > box.top && mid < box.bottom;
        });
        // The five lines of each staff: the height from the top line to the bottom one.
        const heights = shown
          .flatMap((sys) => [...sys.querySelectorAll('g.staff')])
          .map((s) => {
            const lines = [...s.querySelectorAll(':scope > path')].map(rect);
            return Math.max(...lines.map((r) => r.bottom)) - Math.min(...lines.map((r) => r.top));
          });
        /** @type {string[]} */
        const outside = [];
        // Staves, notes with their stems, beams, slurs, ties, dynamics, hairpins and rehearsal
        // marks' boxes: drawn wholly inside the pane. (Not text: a browser measures it by the
        // font's line box, well beyond the letters, 8 staff spaces high for the metronome note.)
        for (const el of shown.flatMap((sys) => [
          ...sys.querySelectorAll('g.staff > path, g.note, g.beam, g.slur, g.tie, g.dynam, g.hairpin, g.reh > rect'),
        ])) {
          const r = rect(el);
          if (r.width === 0 && r.height === 0) continue;
          if (r.left < box.left - 1 || r.right > box.right + 1 || r.top < box.top - 1 || r.bottom > box.bottom + 1) {
            outside.push(
              `${el.getAttribute('class')} ${el.id} ${Math.round(r.left)},${Math.round(r.top)}-${Math.round(r.right)},${Math.round(r.bottom)} in ${Math.round(box.left)},${Math.round(box.top)}-${Math.round(box.right)},${Math.round(box.bottom)}`,
            );
          }
        }
        panes.push({
          pane: pane.getAttribute('data-role') ?? '',
          systems: shown.length,
          staff: Math.min(...heights),
          outside,
          box: [box.left, box.top, box.right, box.bottom].map(Math.round),
        });
      }
      return {
        panes,
        scrollWidth: document.documentElement.scrollWidth,
        innerWidth: window.innerWidth,
        innerHeight: window.innerHeight,
        scrollY: window.scrollY,
      };
    });
    mkdirSync(SHOTS, { recursive: true });
    const shot = await page.screenshot({ path: path.join(SHOTS, `${size.name}.png`) });
    await test.info().attach(`part-violin1-${size.name}`, { body: shot, contentType: 'image/png' });

    for (const p of measured.panes) {
      expect(p.systems, `${p.pane} pane's systems`).toBe(1);
      expect(p.staff, `${p.pane} pane's staff height`).toBeGreaterThanOrEqual(MIN_STAFF_PX);
      expect(p.outside, `${p.pane} pane`).toEqual([]);
      // In sight as the page opens: whichever pane is active, the player reads it without scrolling.
      const [left, top, right, bottom] = p.box;
      expect(left, `${p.pane} pane's left`).toBeGreaterThanOrEqual(0);
      expect(top, `${p.pane} pane's top`).toBeGreaterThanOrEqual(0);
      expect(right, `${p.pane} pane's right`).toBeLessThanOrEqual(measured.innerWidth);
      expect(bottom, `${p.pane} pane's bottom`).toBeLessThanOrEqual(measured.innerHeight);
    }
    expect(measured.scrollY).toBe(0);
    expect(measured.scrollWidth).toBeLessThanOrEqual(measured.innerWidth);

    // The cursor stands in the x-range the drawn layout's beat map gives bar 3 beat 2 (beat 9).
    const map = await (
      await fetch(`${server.base}/api/score/views/violin1${size.layout === 'page' ? '' : `?layout=${size.layout}`}`)
    ).json();
    const b = map.beats.find((/** @type {any} */ x) => x.beat === 9);
    const cursor = active.locator('.sc-cursor');
    await expect(cursor).toHaveAttribute('data-beat', '9');
    const x = Number(await cursor.getAttribute('data-x'));
    expect(x).toBeGreaterThanOrEqual(b.x0 - 0.1);
    expect(x).toBeLessThanOrEqual(b.x1 + 0.1);
    expect(Number(await active.getAttribute('data-line'))).toBe(lineOf(map.beats, 9));
  });
}

test('part view: turning a phone from portrait to landscape sets the panes side by side, in sight, and keeps the place', async ({
  page,
}) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await server.control('pause');
  await server.control('seek', { bar: 5 });
  await page.goto(`${server.base}/view/violin1`);
  await expect(page.locator('#notation')).toHaveAttribute('data-layout', 'narrow');
  const active = page.locator('div.sc-pane[data-role="active"]');
  const next = page.locator('div.sc-pane[data-role="next"]');
  await expect(active).toHaveAttribute('data-state', 'ready');
  const map = await (await fetch(`${server.base}/api/score/views/violin1?layout=narrow`)).json();
  const beat = map.beats.find((/** @type {any} */ x) => x.bar === 5).beat;
  await expect(active.locator('.sc-cursor')).toHaveAttribute('data-beat', String(beat));
  const stacked = [await active.boundingBox(), await next.boundingBox()];
  expect(stacked[0]?.x).toBe(stacked[1]?.x);

  await page.setViewportSize({ width: 844, height: 390 });
  await expect(page.locator('div.sc-pane')).toHaveCount(2);
  await expect(active).toHaveAttribute('data-state', 'ready');
  await expect(active.locator('.sc-cursor')).toHaveAttribute('data-beat', String(beat));
  // Both boxes read in one go: two reads apart could straddle the header settling into one line.
  const boxes = () =>
    page.evaluate(() =>
      [...document.querySelectorAll('div.sc-pane')].map((e) => {
        const r = e.getBoundingClientRect();
        return { x: r.x, y: r.y, bottom: r.bottom };
      }),
    );
  // Side by side, one row: the same top, apart across the width, both inside the screen.
  await expect.poll(async () => boxes().then(([a, n]) => a.y === n.y && Math.abs(a.x - n.x) > 300)).toBe(true);
  for (const b of await boxes()) expect(b.bottom).toBeLessThanOrEqual(390);
});

test('part view on a phone: one request on a first visit, the layout it drew last at that width asked for at once when it comes back, and one not served falls back', async ({
  page,
}) => {
  await page.setViewportSize({ width: 390, height: 844 });
  const asked = askedFor(page);
  const notation = page.locator('#notation');
  const ready = page.locator('div.sc-pane[data-role="active"][data-state="ready"]');
  await page.goto(`${server.base}/view/violin1`);
  await expect(notation).toHaveAttribute('data-layout', 'narrow');
  await expect(ready).toHaveCount(1);
  // A first visit: the answer for the pane's width (390 less the page's 1 rem margins), the narrow
  // layout's.
  expect(asked).toEqual(['/api/score/views/violin1?width=358']);

  // Back (a reload, as after a roam or a sleep): one answer, the narrow layout's.
  asked.length = 0;
  await page.reload();
  await expect(notation).toHaveAttribute('data-layout', 'narrow');
  await expect(ready).toHaveCount(1);
  expect(asked).toEqual(['/api/score/views/violin1?layout=narrow']);

  // A remembered layout this score does not serve (another score's): then the answer for the
  // pane's width, drawn as on a first visit.
  await page.evaluate(() =>
    localStorage.setItem('scorecast:layouts:violin1', JSON.stringify([{ width: 390, name: 'gone' }])),
  );
  asked.length = 0;
  await page.reload();
  await expect(notation).toHaveAttribute('data-layout', 'narrow');
  await expect(ready).toHaveCount(1);
  expect(asked).toEqual(['/api/score/views/violin1?layout=gone', '/api/score/views/violin1?width=358']);
});

test('part view: a tablet turned, then a desktop, changes the layout and keeps the place', async ({ page }) => {
  await page.setViewportSize({ width: 768, height: 1024 });
  await server.control('pause');
  await server.control('seek', { bar: 5 });
  await page.goto(`${server.base}/view/violin1`);
  await expect(page.locator('#notation')).toHaveAttribute('data-layout', 'medium');
  await page.setViewportSize({ width: 1280, height: 800 });
  await expect(page.locator('#notation')).toHaveAttribute('data-layout', 'page');
  await expect(page.locator('div.sc-pane')).toHaveCount(2);
  const active = page.locator('div.sc-pane[data-role="active"]');
  await expect(active).toHaveAttribute('data-state', 'ready');
  const map = await (await fetch(`${server.base}/api/score/views/violin1`)).json();
  const beat = map.beats.find((/** @type {any} */ x) => x.bar === 5).beat;
  await expect(active.locator('.sc-cursor')).toHaveAttribute('data-beat', String(beat));
});

test('part view on a phone: draws the A4 layout while the narrow one is engraved, then changes to it on the same beat', async ({
  page,
}) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await server.control('pause');
  await server.control('seek', { bar: 5, beat: 2 });
  // The view's answer as the server gives it while the layouts are being engraved (right after a
  // start with a new score), until `engraved`: then the server's own answer, which lists them.
  // Meanwhile the answer for a width is the A4 layout's, the one there is.
  let engraved = false;
  let asked = 0;
  const described = (/** @type {URL} */ u) =>
    u.pathname === '/api/score/views/violin1' && !u.searchParams.has('layout');
  await page.route(described, async (route) => {
    asked++;
    if (engraved) return route.fulfill({ response: await route.fetch() });
    const res = await route.fetch({ url: `${server.base}/api/score/views/violin1` });
    const body = await res.json();
    return route.fulfill({
      response: res,
      json: { ...body, layouts: body.layouts.slice(0, 1), pending: ['medium', 'narrow'], retryMs: 1000 },
    });
  });
  await page.goto(`${server.base}/view/violin1`);
  const notation = page.locator('#notation');
  const active = page.locator('div.sc-pane[data-role="active"]');
  await expect(notation).toHaveAttribute('data-layout', 'page');
  await expect(active).toHaveAttribute('data-state', 'ready');
  const a4 = await (await fetch(`${server.base}/api/score/views/violin1`)).json();
  const beat = a4.beats.find((/** @type {any} */ x) => x.bar === 5).beat + 1;
  await expect(active.locator('.sc-cursor')).toHaveAttribute('data-beat', String(beat));
  /** The smallest staff height (top line to bottom line) in the active pane, in CSS px. */
  const staff = () =>
    active.evaluate((pane) => {
      const box = pane.getBoundingClientRect();
      const heights = [...pane.querySelectorAll('g.staff')]
        .map((s) => [...s.querySelectorAll(':scope > path')].map((l) => l.getBoundingClientRect()))
        .filter((lines) => lines.some((r) => r.top > box.top && r.bottom < box.bottom))
        .map((lines) => Math.max(...lines.map((r) => r.bottom)) - Math.min(...lines.map((r) => r.top)));
      return Math.min(...heights);
    });
  // The A4 page across a phone: the staff a player cannot read, which is why the narrow one comes.
  expect(await staff()).toBeLessThan(MIN_STAFF_PX);
  // The view asks again while layouts are pending.
  await expect.poll(() => asked, { timeout: 5000 }).toBeGreaterThan(1);

  engraved = true;
  await expect(notation).toHaveAttribute('data-layout', 'narrow', { timeout: 5000 });
  await expect(active).toHaveAttribute('data-state', 'ready');
  expect(await staff()).toBeGreaterThanOrEqual(MIN_STAFF_PX);
  // Still on the beat the performance is at, and on the line that plays it in the narrow layout.
  const narrow = await (await fetch(`${server.base}/api/score/views/violin1?layout=narrow`)).json();
  await expect(active.locator('.sc-cursor')).toHaveAttribute('data-beat', String(beat));
  expect(Number(await active.getAttribute('data-line'))).toBe(lineOf(narrow.beats, beat));
  const b = narrow.beats[beat];
  const cursor = active.locator('.sc-cursor');
  const x = Number(await cursor.getAttribute('data-x'));
  expect(x).toBeGreaterThanOrEqual(b.x0 - 0.1);
  expect(x).toBeLessThanOrEqual(b.x1 + 0.1);
  // And it stops asking once it has them.
  const settled = asked;
  await page.waitForTimeout(2500);
  expect(asked).toBe(settled);
});

/**
 * The requests the page makes for the view's notation description (`/api/score/views/...`), with
 * their query, as they are sent.
 * @param {import('@playwright/test').Page} page
 */
function askedFor(page) {
  /** @type {string[]} */
  const asked = [];
  page.on('request', (r) => {
    const u = new URL(r.url());
    if (u.pathname.startsWith('/api/score/views/')) asked.push(u.pathname + u.search);
  });
  return asked;
}

/**
 * The line (a stretch of beats on one system) that plays `beat`, counted as the view counts them.
 * @param {{ page: number, system: number }[]} beats
 * @param {number} beat
 */
function lineOf(beats, beat) {
  let line = 0;
  for (let i = 1; i <= beat; i++)
    if (beats[i].page !== beats[i - 1].page || beats[i].system !== beats[i - 1].system) line++;
  return line;
}

// The full score a conductor can read on a tablet: in portrait (768 px) and on its side
// (1024 px) the current system's staves are at least 28 CSS px from top line to bottom line
// (about 5.5 mm on a 10-inch tablet, a printed chamber score's size; server/package/engrave/options.js,
// scoreLayout), the whole system is in sight below the bar and beat, and nothing scrolls sideways.

import { test, expect } from '@playwright/test';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { freePort, startServer } from './server.js';
import { settledBox } from './settle.js';

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
const SHOTS = path.resolve('test-results', 'score-layout');

/** The least staff height (five lines) a conductor reads at a stand, in CSS px. */
const MIN_STAFF_PX = 28;

const SIZES = /** @type {const} */ ([
  { name: 'tablet', width: 768, height: 1024 },
  { name: 'tablet-landscape', width: 1024, height: 768 },
  { name: 'desktop', width: 1280, height: 800 },
]);

for (const size of SIZES) {
  test(`full score at ${size.width}x${size.height} (${size.name}): staves of at least ${MIN_STAFF_PX} px, the current system in sight`, async ({
    page,
  }) => {
    await page.setViewportSize({ width: size.width, height: size.height });
    await server.control('pause');
    await server.control('seek', { bar: 9 });
    await page.goto(`${server.base}/view/score`);
    await expect(page.locator('#bar')).toHaveText('9');
    await expect(page.locator('.sc-page[data-current="true"]')).toHaveAttribute('data-state', 'ready');
    const band = page.locator('.sc-system-band');
    // The band is scrolled to (smoothly): wait until it stops moving.
    await settledBox(page, band);

    const measured = await page.evaluate(() => {
      const rect = (/** @type {Element} */ el) => el.getBoundingClientRect();
      const bandBox = rect(/** @type {Element} */ (document.querySelector('.sc-system-band')));
      const svg = /** @type {Element} */ (document.querySelector('.sc-page[data-current="true"] svg'));
      // The current system: the one whose staves lie in the band. Verovio draws a staff's lines
      // bar by bar: one row of them per instrument.
      const staves = [...svg.querySelectorAll('g.staff')]
        .map((s) => [...s.querySelectorAll(':scope > path')].map(rect))
        .filter((lines) => lines.length === 5)
        .map((lines) => ({
          top: Math.min(...lines.map((r) => r.top)),
          bottom: Math.max(...lines.map((r) => r.bottom)),
          left: Math.min(...lines.map((r) => r.left)),
          right: Math.max(...lines.map((r) => r.right)),
        }))
        .filter((s) => s.top >= bandBox.top - 1 && s.bottom <= bandBox.bottom + 1);
      const rows = [...new Set(staves.map((s) => Math.round(s.top)))].map((top) => {
        const row = staves.filter((s) => Math.round(s.top) === top);
        return {
          height: Math.min(...row.map((s) => s.bottom - s.top)),
          left: Math.min(...row.map((s) => s.left)),
          right: Math.max(...row.map((s) => s.right)),
        };
      });
      const header = rect(/** @type {Element} */ (document.querySelector('.position')));
      return {
        rows,
        band: { top: bandBox.top, bottom: bandBox.bottom },
        header: header.bottom,
        innerWidth: window.innerWidth,
        innerHeight: window.innerHeight,
        scrollWidth: document.documentElement.scrollWidth,
      };
    });
    mkdirSync(SHOTS, { recursive: true });
    const shot = await page.screenshot({ path: path.join(SHOTS, `${size.name}.png`) });
    await test.info().attach(`score-${size.name}`, { body: shot, contentType: 'image/png' });

    // Violin I, violin II, viola, cello.
    expect(measured.rows).toHaveLength(4);
    for (const s of measured.rows) {
      expect(s.height).toBeGreaterThanOrEqual(MIN_STAFF_PX);
      expect(s.left).toBeGreaterThanOrEqual(0);
      expect(s.right).toBeLessThanOrEqual(measured.innerWidth);
    }
    expect(measured.scrollWidth).toBeLessThanOrEqual(measured.innerWidth);
    // The whole system below the sticky bar and beat, above the screen's bottom.
    expect(measured.band.top).toBeGreaterThanOrEqual(measured.header - 1);
    expect(measured.band.bottom).toBeLessThanOrEqual(measured.innerHeight);
  });
}

// Runs INSIDE the WiFi client namespace (roam.js starts it with `ip netns exec scl-wifi`):
// Chromium with N audience pages, each in its own browser context like a separate phone; the
// radio link is cut silently (nftables drops in the access point namespace) for each duration,
// then each page's log of shown beats tells when it was back on time. Prints one JSON object.
//
//   node infra/lab/roam-pages.js --target URL --pages 10 --cuts 2000,5000,... [--settle 4000] [--netlog FILE]

import { parseArgs } from 'node:util';
import { chromium } from '@playwright/test';
import { CHROMIUM, quietArgs } from '../../playwright/chromium.js';
import { cut, restore } from './lab.js';

/** A beat shown at most this long after it was due (server time) is on time. */
export const ON_TIME_MS = 250;

const { values: o } = parseArgs({
  options: {
    target: { type: 'string' },
    pages: { type: 'string', default: '10' },
    cuts: { type: 'string' },
    settle: { type: 'string', default: '4000' },
    seed: { type: 'string', default: '18' },
    console: { type: 'boolean' },
    netlog: { type: 'string' },
  },
});
const sleep = (/** @type {number} */ ms) => new Promise((r) => setTimeout(r, ms));
let rand = Number(o.seed);
/** Deterministic gaps between cuts, so that cuts fall at every phase of the beat. */
const random = () => {
  rand = (rand * 1103515245 + 12345) % 2147483648;
  return rand / 2147483648;
};

const browser = await chromium.launch({
  executablePath: CHROMIUM,
  args: [
    ...quietArgs({ exclude: new URL(String(o.target)).hostname }),
    // Chromium's own log of its network stack (socket pools, connect jobs, requests), to read what
    // the pages' requests waited for.
    ...(o.netlog ? [`--log-net-log=${o.netlog}`, '--net-log-capture-mode=Default'] : []),
  ],
});
const result = {
  target: o.target,
  pages: Number(o.pages),
  onTimeMs: ON_TIME_MS,
  cuts: /** @type {any[]} */ ([]),
  integrity: /** @type {any[]} */ ([]),
};
try {
  const pages = [];
  for (let i = 0; i < Number(o.pages); i++) {
    const context = await browser.newContext();
    const page = await context.newPage();
    const n = i;
    // --console: what each page's connection logs, with the time, for a page that does not come back.
    if (o.console) {
      // The page's own time of each line: console events reach this process in batches.
      await page.addInitScript(() => {
        const info = console.info.bind(console);
        console.info = (...args) => info(`@${Date.now()}`, ...args);
      });
      page.on('console', (m) => process.stderr.write(`${Date.now()} page ${n}: ${m.text()}\n`));
    }
    await page.goto(`${o.target}/`, { timeout: 30_000 });
    pages.push(page);
  }
  for (const page of pages)
    await page.waitForFunction(() => /** @type {any} */ (window).scorecast?.linkState === 'live', null, {
      timeout: 30_000,
    });
  // When each page's link went live again (its own clock is this machine's): polled, since the
  // page exposes the state and no event.
  for (const page of pages)
    await page.evaluate(() => {
      const w = /** @type {any} */ (window);
      w.__lab_live = [];
      let last = w.scorecast.linkState;
      setInterval(() => {
        const now = w.scorecast.linkState;
        if (now !== last && now === 'live') w.__lab_live.push(Date.now());
        last = now;
      }, 10);
    });
  await sleep(3000);
  for (const cutMs of (o.cuts ?? '').split(',').map(Number)) {
    await sleep(1000 + Math.round(random() * 1500));
    const tCut = Date.now();
    cut();
    if (o.console) process.stderr.write(`${tCut} cut\n`);
    await sleep(cutMs);
    restore();
    if (o.console) process.stderr.write(`${Date.now()} restored\n`);
    const tBack = Date.now();
    await sleep(Number(o.settle));
    const perPage = [];
    for (const page of pages) {
      const shown =
        /** @type {{ at: number, server: number, due: number | null, predicted: boolean, beat: number | null }[]} */ (
          await page.evaluate(() => /** @type {any} */ (window).scorecast.shown)
        );
      const after = shown.filter((s) => s.at >= tBack && s.due !== null && s.beat !== null);
      const first = after.find((s) => s.server - /** @type {number} */ (s.due) <= ON_TIME_MS);
      const link = await page.evaluate(() => /** @type {any} */ (window).scorecast.linkState);
      const lives = /** @type {number[]} */ (await page.evaluate(() => /** @type {any} */ (window).__lab_live));
      const live = lives.find((t) => t >= tBack);
      perPage.push({
        backMs: first ? Math.round(first.at - tBack) : null,
        // Link live again (within 10 ms), and the first beat shown at all (on time or late).
        liveMs: live === undefined ? null : live - tBack,
        shownMs: after.length ? Math.round(after[0].at - tBack) : null,
        lateBefore: after.filter((s) => first && s.at < first.at).length,
        // The first beats shown after the return: when (ms after it), how late, and whether
        // shown from the state's `next` before their own message.
        firstShown: after.slice(0, 4).map((s) => ({
          at: Math.round(s.at - tBack),
          late: Math.round(s.server - /** @type {number} */ (s.due)),
          beat: s.beat,
          predicted: s.predicted,
        })),
        link,
      });
    }
    result.cuts.push({ cutMs, tCut, tBack, perPage });
    process.stderr.write(`cut ${cutMs} ms: back on time after ${perPage.map((p) => p.backMs).join(', ')} ms\n`);
  }
  // Nothing missed or applied twice: deltas run +1 within an epoch; a snapshot only moves forward.
  for (const page of pages) {
    const events = /** @type {{ epoch: string, seq: number, type: string }[]} */ (
      await page.evaluate(() => /** @type {any} */ (window).scorecast.events)
    );
    let gaps = 0;
    let repeats = 0;
    let snapshots = 0;
    for (let i = 1; i < events.length; i++) {
      const [a, b] = [events[i - 1], events[i]];
      if (b.type === 'snapshot') {
        snapshots++;
        if (b.epoch === a.epoch && b.seq <= a.seq) repeats++;
        continue;
      }
      if (b.epoch !== a.epoch || b.seq > a.seq + 1) gaps++;
      else if (b.seq <= a.seq) repeats++;
    }
    result.integrity.push({
      events: events.length,
      gaps,
      repeats,
      snapshots,
      transport: await page.evaluate(() => /** @type {any} */ (window).scorecast.transport),
    });
  }
} finally {
  restore();
  await browser.close();
}
process.stdout.write(`${JSON.stringify(result)}\n`);

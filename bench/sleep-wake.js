#!/usr/bin/env node
// Phones that sleep and wake mid-piece (bench/RESULTS.md, "Sleep and wake"). A scorecast server
// on loopback plays a click-track score (q = 120, a clip on every beat, looping); N audience pages
// in headless Chromium join it (one browser context each, so each has its own network to cut).
// Each round locks every page at once as a phone is locked: hidden, suspended and offline for
// --away, then shown (playwright/suspend.js says how, in headless Chromium). Measured per page and
// round: from "able to run again" to the first beat shown on time (within 50 ms of its due time,
// on this machine's wall clock, which the page and the server share); at the end, per page, the
// changes missed or applied twice (window.scorecast.events) and the clips replayed or started
// late (window.scorecast.audio). The last line of output is one JSON object.
//
//   node bench/sleep-wake.js [--pages 5] [--rounds 3] [--away 30s] [--settle 8s] [--online]
//
// Traffic goes to loopback only. Bounded: pages at most 20, rounds at most 20, away at most
// 10 minutes, and the whole run at most 40 minutes (then it stops and says so).

import os from 'node:os';
import path from 'node:path';
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium } from '@playwright/test';
import { quantile } from '../core/stats.js';
import { LATE_LIMIT_MS } from '../client/src/sound/audio.js';
import { parseDuration } from './latency-stats.js';
import { CHROMIUM, quietArgs } from '../playwright/chromium.js';
import { freePort, startServer } from '../playwright/server.js';
import { backInBeat, clickTrackScore, clipFaults, streamFaults } from '../playwright/sleep-wake.js';
import { lockPhone } from '../playwright/suspend.js';
import { benchArgs } from './cli-args.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const HARD_LIMIT_MS = 40 * 60_000;
/** A page not back in beat this long after its return counts as not back (ms). */
const GIVE_UP_MS = 15_000;

const { values: flags } = benchArgs(import.meta.url, {
  options: {
    pages: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '3' },
    away: { type: 'string', default: '30s' },
    settle: { type: 'string', default: '8s' },
    online: { type: 'boolean', default: false },
  },
});
const pages = Math.min(20, Math.max(1, Number(flags.pages)));
const rounds = Math.min(20, Math.max(1, Number(flags.rounds)));
const awayMs = Math.min(600_000, parseDuration(flags.away));
const settleMs = Math.min(120_000, parseDuration(flags.settle));
const offline = !flags.online;

const hardStop = setTimeout(() => {
  console.error(`sleep-wake: stopped after ${HARD_LIMIT_MS / 60_000} minutes`);
  process.exit(2);
}, HARD_LIMIT_MS);
hardStop.unref();

const loadBefore = os.loadavg();
const score = clickTrackScore({ bars: 120 });
const server = await startServer({ port: await freePort(), score: path.relative(ROOT, score), timeoutMs: 60_000 });
const browser = await chromium.launch({
  executablePath: CHROMIUM,
  args: quietArgs(),
});

/** @type {number[]} */
const recoveries = [];
let notBack = 0;
/** @type {Array<{ round: number, ms: Array<number | null> }>} */
const byRound = [];
let result;
try {
  const tabs = await Promise.all(
    Array.from({ length: pages }, async () => {
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.goto(`${server.base}/`);
      await page.click('#join-button');
      const cdp = await context.newCDPSession(page);
      return { page, cdp };
    }),
  );
  /** @param {import('@playwright/test').Page} page */
  const read = (page) =>
    page.evaluate(() => {
      const sc = /** @type {any} */ (window).scorecast;
      return { shown: sc.shown, events: sc.events, audio: sc.audio };
    });
  // Everyone in beat before the first lock.
  await new Promise((resolve) => setTimeout(resolve, settleMs));

  for (let round = 1; round <= rounds; round++) {
    const ms = await Promise.all(
      tabs.map(async ({ page, cdp }) => {
        const back = await lockPhone(page, cdp, { ms: awayMs, offline });
        const deadline = back + GIVE_UP_MS;
        while (Date.now() < deadline) {
          const found = backInBeat((await read(page)).shown, back);
          if (found) return found.afterMs;
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        return null;
      }),
    );
    byRound.push({ round, ms });
    for (const m of ms) {
      if (m === null) notBack += 1;
      else recoveries.push(m);
    }
    console.log(
      `round ${round}: away ${awayMs / 1000} s${offline ? ', offline' : ''}; back in beat after (ms): ${ms
        .map((m) => (m === null ? `not within ${GIVE_UP_MS / 1000} s` : Math.round(m)))
        .join(', ')}`,
    );
    if (round < rounds) await new Promise((resolve) => setTimeout(resolve, settleMs));
  }

  let missed = 0;
  let repeated = 0;
  let replayed = 0;
  let late = 0;
  let clips = 0;
  for (const { page } of tabs) {
    const end = await read(page);
    const s = streamFaults(end.events);
    const c = clipFaults(end.audio, LATE_LIMIT_MS / 1000);
    missed += s.missed;
    repeated += s.repeated;
    replayed += c.replayed;
    late += c.late;
    clips += end.audio.filter((/** @type {any} */ a) => !a.cancelled).length;
  }
  const r = (/** @type {number} */ x) => (Number.isFinite(x) ? Math.round(x) : null);
  result = {
    bench: 'sleep-wake',
    pages,
    rounds,
    awayMs,
    offline,
    returns: recoveries.length + notBack,
    backInBeatMs: {
      p50: r(quantile(recoveries, 0.5)),
      p95: r(quantile(recoveries, 0.95)),
      max: r(Math.max(...recoveries)),
    },
    notBackWithinMs: { count: notBack, limit: GIVE_UP_MS },
    eventsMissed: missed,
    eventsRepeated: repeated,
    clipsStarted: clips,
    clipsReplayed: replayed,
    clipsLate: late,
    load: {
      before: loadBefore.map((x) => Math.round(x * 10) / 10),
      after: os.loadavg().map((x) => Math.round(x * 10) / 10),
    },
    cpus: os.cpus().length,
  };
  console.log(
    `back in beat (ms): p50 ${result.backInBeatMs.p50}, p95 ${result.backInBeatMs.p95}, max ${result.backInBeatMs.max} over ${recoveries.length} returns; not back within ${GIVE_UP_MS / 1000} s: ${notBack}`,
  );
  console.log(
    `changes missed ${missed}, applied twice ${repeated}; clips started ${clips}, replayed ${replayed}, late ${late}`,
  );
} finally {
  await browser.close();
  await server.stop();
  rmSync(score, { recursive: true, force: true });
}
console.log(JSON.stringify(result));

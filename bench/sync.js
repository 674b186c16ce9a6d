// Sync benchmark: N audience pages in Chromium join a playing performance one after
// another, and a script the bench puts in each page records when the page changed the beat it
// shows: the wall-clock time it wrote it into the DOM ("written"), and the display frame it is
// drawn in ("drawn": the frame whose callbacks wrote it, else the next one). For every beat, the
// spread is the last page's time minus the first's. A page's first record is the position it showed on joining (the middle
// of a beat, not a change); from its second on, every change counts, so each page's first beat
// is in the figures. Each page also samples its clock error (its estimate of server time minus
// the machine's clock), reported as `clock`. Profiles: loopback, and through bench/lag-proxy.js (latency and jitter on
// each direction, in order). `--root DIR` runs another checkout's server and client (built there)
// for a same-run baseline. `--jumps N` and `--loops R` then measure landings (bench/sync-landings.js):
// jumps to marks and a loop's time rounds, each one's first beat across the pages. Loopback only;
// every wait is bounded.
//
//   node bench/sync.js [--pages 10] [--seconds 30] [--stagger 700] [--profiles loopback,wifi-light,wifi-busy]
//                      [--jumps N] [--loops R] [--views LIST] [--root DIR] [--label NAME] [--out FILE]
//                      [--trace FILE]

import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeFileSync, mkdirSync } from 'node:fs';
import { chromium } from '@playwright/test';
import { CHROMIUM, quietArgs } from '../playwright/chromium.js';
import { startServer, stopChild, waitFor } from './servers.js';
import { startLagProxy } from './lag-proxy.js';
import { quantileSorted as quantile } from '../core/stats.js';
import { LANDING_VIEWS, driveLandings, landingFigures, viewPage } from './sync-landings.js';
import { benchArgs } from './cli-args.js';
import { startTrace } from './landing-trace.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** One-way latency ± jitter (ms) of each profile; WiFi: 5-60 ms of jitter. */
export const PROFILES = {
  loopback: null,
  'wifi-light': { latencyMs: 10, jitterMs: 5 },
  'wifi-busy': { latencyMs: 35, jitterMs: 25 },
};

const HELP = `Usage: node bench/sync.js [options]   (npm run bench:sync)

N audience pages join a playing performance one after another; reports the spread (last page
minus first) of the time each beat changed, p50/p95/p99/max, from each page's first beat on.

  --pages N         pages (default 10)
  --seconds S       measured after the last page joined (default 30)
  --stagger MS      between two pages joining (default 700)
  --rejoins N       then N joins in a row: page 1, 2, ... reloaded in turn, --rejoin-gap apart;
                    each one's first beat is compared with the other pages' (default 0)
  --rejoin-gap MS   between two rejoins (default 3000)
  --jumps N         then, while playing, N jumps to the score's marks (A, B, C, D, A, ...),
                    --jump-gap apart (default 0)
  --jump-gap MS     between two jumps (default 3000)
  --loops R         then a loop of bars 5-6 with a count-in of two beats, R times round (default 0)
                    Each landing (a jump's target, a round's first beat): the spread across pages
                    of the time it was drawn and each page's lateness against the server time it
                    was due, p50/p95/p99/max, in \`landings\` (sameFrame: spreads under 16.7 ms;
                    otherDue: drawn for another server time; missed: not drawn; clock: the
                    pages' |clock error| then; drawn: the spread of the display frames the
                    bench saw them drawn in, the same frame under half a frame apart, and
                    fromTimer: written from a timer, outside a frame). --out adds each landing:
                    per page its lateness, frame, clock error and main-thread lag (busy)
  --views LIST      the pages' views in turn: phone (/, 390x844) or a part (/view/NAME, 820x1180)
                    (default: / at the browser's size; with --jumps or --loops phone,violin1,cello)
  --profiles LIST   loopback, wifi-light (10 ± 5 ms each way), wifi-busy (35 ± 25 ms)
                    (default all three)
  --root DIR        the checkout whose server and built client run (default this one)
  --label NAME      name in the output (default: the root's folder name)
  --out FILE        also write the results as JSON
  --trace FILE      with --jumps or --loops: a Chromium trace over the landings, written to FILE,
                    and per page its main thread's CPU by kind of work (bench/landing-trace.js)
  -h, --help        this text
`;

/**
 * Installed in every page before its own scripts: records each change of the beat shown, when it
 * was written into the DOM and in which display frame it is drawn: the frame whose
 * requestAnimationFrame callbacks wrote it, or else (a write from a timer or a message) the next
 * frame. The same measurement for any version of the client.
 */
function recordBeats() {
  const w = /** @type {any} */ (window);
  /** @type {Array<{ key: string, write: number, frame: number }>} */
  const log = [];
  w.__beats = log;
  const origin = performance.timeOrigin;
  // The page's clock error, twice a second once it shows beats: its estimate of server time minus
  // the machine's clock (the server's clock here), to tell the sync's share of a spread from the
  // renderers' (a starved renderer draws late on a right clock).
  /** @type {number[]} */
  const clockErrors = [];
  w.__clockErrors = clockErrors;
  setInterval(() => {
    const s = w.scorecast;
    if (s && s.join !== 'joining' && s.clock?.samples > 0) clockErrors.push(s.clock.offset - origin);
  }, 500);
  const raf = window.requestAnimationFrame.bind(window);
  /** @type {number | null} */
  let inFrame = null;
  // Frames whose callbacks ran more than half a frame after the frame began (the main thread was
  // busy): when, and how late (ms). The last 2,000.
  /** @type {Array<{ frame: number, lag: number }>} */
  const lateFrames = [];
  w.__lateFrames = lateFrames;
  let lastLate = NaN;
  window.requestAnimationFrame = (cb) =>
    raf((ts) => {
      const lag = performance.now() - ts;
      if (lag > 8 && ts !== lastLate) {
        lastLate = ts;
        lateFrames.push({ frame: origin + ts, lag });
        if (lateFrames.length > 2000) lateFrames.shift();
      }
      inFrame = ts;
      try {
        cb(ts);
      } finally {
        // Mutation records of this callback are delivered before this microtask runs.
        queueMicrotask(() => {
          inFrame = null;
        });
      }
    });
  // Every change of bar, beat or count-in click, for the landings (a loop's first beat after its
  // count-in changes only the click): bar.beat.click, the click empty on a beat.
  /** @type {Array<{ key: string, write: number, frame: number }>} */
  const changes = [];
  w.__changes = changes;
  const start = () => {
    const bar = document.getElementById('bar');
    const beat = document.getElementById('beat');
    const count = document.getElementById('count-in');
    if (!bar || !beat) return;
    let last = `${bar.textContent}.${beat.textContent}`;
    let lastChange = '';
    new MutationObserver(() => {
      const change = `${bar.textContent}.${beat.textContent}.${count?.textContent ?? ''}`;
      if (change !== lastChange) {
        lastChange = change;
        const rec = { key: change, write: origin + performance.now(), frame: NaN };
        if (inFrame !== null) rec.frame = origin + inFrame;
        else
          raf((ts) => {
            rec.frame = origin + ts;
          });
        changes.push(rec);
      }
      const key = `${bar.textContent}.${beat.textContent}`;
      if (key === last) return;
      last = key;
      if (bar.textContent === '–' || beat.textContent === '–') return;
      const rec = { key, write: origin + performance.now(), frame: NaN };
      if (inFrame !== null) rec.frame = origin + inFrame;
      else
        raf((ts) => {
          rec.frame = origin + ts;
        });
      log.push(rec);
    }).observe(document.body, { subtree: true, childList: true, characterData: true });
  };
  document.addEventListener('DOMContentLoaded', start);
}

/**
 * Spread per beat across pages. `pages[i]` is page i's log; its first record is its join (the
 * position shown on arrival, not a change). A beat is a position key; the same key met again
 * more than 2 s later (the piece looped) is another beat.
 * @param {Array<Array<{ key: string, write: number, frame: number }>>} pages
 * @param {'write' | 'frame'} field
 */
export function spreads(pages, field) {
  /** @type {Array<{ key: string, t: number, page: number, first: boolean }>} */
  const recs = [];
  pages.forEach((log, page) => {
    log.slice(1).forEach((r, i) => {
      if (Number.isFinite(r[field])) recs.push({ key: r.key, t: r[field], page, first: i === 0 });
    });
  });
  recs.sort((a, b) => a.t - b.t);
  /** @type {Array<{ key: string, ts: number[], first: boolean }>} */
  const beats = [];
  /** @type {Map<string, { key: string, ts: number[], first: boolean }>} */
  const open = new Map();
  for (const r of recs) {
    let b = open.get(r.key);
    if (!b || r.t - b.ts[0] > 2000) {
      b = { key: r.key, ts: [], first: false };
      open.set(r.key, b);
      beats.push(b);
    }
    b.ts.push(r.t);
    if (r.first) b.first = true;
  }
  const counted = beats.filter((b) => b.ts.length >= 2);
  const all = counted.map((b) => Math.max(...b.ts) - Math.min(...b.ts)).sort((a, b) => a - b);
  const firsts = counted.filter((b) => b.first).map((b) => Math.max(...b.ts) - Math.min(...b.ts));
  if (process.env.SYNC_DEBUG) {
    for (const b of counted) {
      const lo = Math.min(...b.ts);
      if (Math.max(...b.ts) - lo > 17)
        console.error(field, b.key, b.first ? 'first' : '', b.ts.map((t) => Math.round(t - lo)).join(' '));
    }
  }
  const r1 = (/** @type {number} */ x) => Math.round(x * 10) / 10;
  return {
    beats: all.length,
    p50: r1(quantile(all, 0.5)),
    p95: r1(quantile(all, 0.95)),
    p99: r1(quantile(all, 0.99)),
    max: r1(all[all.length - 1] ?? NaN),
    // The worst spread of a beat that was some page's first change.
    firstBeatMax: r1(firsts.length ? Math.max(...firsts) : NaN),
  };
}

/**
 * How late each join showed its first beat: its first change minus the median time the other
 * pages showed that beat (the same key within 2 s). A page that joined and showed no change has
 * nothing here. `logs[i]` is one document's log (a page reloaded is two documents); only those
 * `judged` are judged, against all the others.
 * @param {Array<Array<{ key: string, write: number, frame: number }>>} logs
 * @param {'write' | 'frame'} field
 * @param {boolean[]} [judged]  default all
 * @returns {{ joins: number, p50: number, max: number, overOneFrame: number, late: number[] }}
 */
export function firstBeatLateness(logs, field, judged = logs.map(() => true)) {
  /** @type {number[]} */
  const late = [];
  logs.forEach((log, i) => {
    if (!judged[i]) return;
    const first = log[1];
    if (!first || !Number.isFinite(first[field])) return;
    /** @type {number[]} */
    const peers = [];
    logs.forEach((other, j) => {
      if (j === i) return;
      for (const r of other.slice(1))
        if (r.key === first.key && Number.isFinite(r[field]) && Math.abs(r[field] - first[field]) < 2000)
          peers.push(r[field]);
    });
    if (peers.length === 0) return;
    peers.sort((a, b) => a - b);
    const mid = peers.length >> 1;
    const median = peers.length % 2 ? peers[mid] : (peers[mid - 1] + peers[mid]) / 2;
    late.push(first[field] - median);
  });
  const sorted = [...late].sort((a, b) => a - b);
  const r1 = (/** @type {number} */ x) => Math.round(x * 10) / 10;
  return {
    joins: late.length,
    p50: r1(quantile(sorted, 0.5)),
    max: r1(sorted[sorted.length - 1] ?? NaN),
    // One 60 Hz frame, and a little for the frame timestamps' rounding.
    overOneFrame: late.filter((x) => x > 1000 / 60 + 0.5).length,
    late: late.map(r1),
  };
}

/**
 * How far the pages' clocks were from the server's (ms): |error| over every page's samples.
 * @param {number[][]} pages
 */
export function clockError(pages) {
  const all = pages
    .flat()
    .map((e) => Math.abs(e))
    .sort((a, b) => a - b);
  const r1 = (/** @type {number} */ x) => Math.round(x * 10) / 10;
  return {
    samples: all.length,
    p50: r1(quantile(all, 0.5)),
    p95: r1(quantile(all, 0.95)),
    p99: r1(quantile(all, 0.99)),
    max: r1(all[all.length - 1] ?? NaN),
  };
}

/**
 * One profile: a server, perhaps a proxy, N pages joining in turn, then `rejoins` joins in a row,
 * then the landings (`jumps`, `loops`).
 * @param {{ root: string, pages: number, seconds: number, stagger: number, profile: keyof typeof PROFILES,
 *   browser: import('@playwright/test').Browser, rejoins?: number, rejoinGap?: number,
 *   views?: string[] | null, jumps?: number, jumpGap?: number, loops?: number,
 *   trace?: string | null }} o  trace: with landings, the file a Chromium trace over them goes to
 */
async function runProfile({
  root,
  pages,
  seconds,
  stagger,
  profile,
  browser,
  rejoins = 0,
  rejoinGap = 3000,
  views = null,
  jumps = 0,
  jumpGap = 3000,
  loops = 0,
  trace = null,
}) {
  const child = startServer({ target: 'base', root, scoreDir: path.join(root, 'scores', 'demo'), schedule: null });
  /** @type {import('./lag-proxy.js').LagProxy | null} */
  let proxy = null;
  /** @type {import('@playwright/test').BrowserContext[]} */
  const contexts = [];
  try {
    const { port } = await waitFor(child, 'listening', 30_000, 'server');
    const lag = PROFILES[profile];
    if (lag) proxy = await startLagProxy({ target: port, ...lag });
    const base = `http://127.0.0.1:${proxy ? proxy.port : port}`;
    // Let the performance get going (autoplay), then pages join one by one, mid-piece.
    await new Promise((r) => setTimeout(r, 1500));
    /** @type {import('@playwright/test').Page[]} */
    const opened = [];
    for (let i = 0; i < pages; i++) {
      // A context each: its own renderer, like a phone of its own.
      const view = views ? viewPage(views[i % views.length]) : { path: '/', viewport: null };
      const context = await browser.newContext(view.viewport ? { viewport: view.viewport } : {});
      contexts.push(context);
      const page = await context.newPage();
      await page.addInitScript(recordBeats);
      await page.goto(`${base}${view.path}`, { timeout: 30_000 });
      opened.push(page);
      await new Promise((r) => setTimeout(r, stagger));
    }
    // Joins in a row: each page in turn reloaded (a phone that comes back), its old document's
    // records kept as a log of their own.
    /** @type {Array<Array<{ key: string, write: number, frame: number }>>} */
    const before = [];
    /** @type {number[][]} */
    const clockBefore = [];
    for (let k = 0; k < rejoins; k++) {
      const page = opened[k % pages];
      const { beats, clock } = await page.evaluate(() => ({
        beats: /** @type {any} */ (window).__beats,
        clock: /** @type {any} */ (window).__clockErrors,
      }));
      before.push(beats);
      clockBefore.push(clock);
      await page.reload({ timeout: 30_000 });
      await new Promise((r) => setTimeout(r, rejoinGap));
    }
    await new Promise((r) => setTimeout(r, seconds * 1000));
    const logs = [
      ...before,
      ...(await Promise.all(opened.map((p) => p.evaluate(() => /** @type {any} */ (window).__beats)))),
    ];
    /** @type {number[][]} */
    const clockErrors = [
      ...clockBefore,
      ...(await Promise.all(opened.map((p) => p.evaluate(() => /** @type {any} */ (window).__clockErrors)))),
    ];
    // The documents a rejoin began: those replaced after each page's first, and each reloaded
    // page's last.
    const isRejoin = [...before.map((_, k) => k >= pages), ...opened.map((_, i) => i < rejoins)];
    const landings =
      jumps > 0 || loops > 0
        ? await measureLandings({
            origin: `http://127.0.0.1:${port}`,
            opened,
            views,
            jumps,
            jumpGap,
            loops,
            browser,
            trace,
          })
        : null;
    // The machine is shared: the load average over the last minute says how noisy the run was.
    return {
      profile,
      load1: Math.round(os.loadavg()[0] * 10) / 10,
      written: spreads(logs, 'write'),
      drawn: spreads(logs, 'frame'),
      clock: clockError(clockErrors),
      ...(rejoins > 0
        ? {
            // Each rejoin's first beat against the other pages' (drawn frames).
            rejoins: firstBeatLateness(logs, 'frame', isRejoin),
          }
        : {}),
      ...(landings ? { landings } : {}),
    };
  } finally {
    for (const c of contexts) await c.close().catch(() => {});
    await proxy?.close();
    await stopChild(child);
  }
}

/**
 * The landings on pages already joined: once every page shows beats, the jumps and loop rounds
 * are driven, then each page's `scorecast.shown` is read; jumps and rounds reported apart.
 * @param {{ origin: string, opened: import('@playwright/test').Page[], views: string[] | null,
 *   jumps: number, jumpGap: number, loops: number, browser: import('@playwright/test').Browser,
 *   trace: string | null }} o  trace: the file a Chromium trace over the landings goes to
 */
async function measureLandings({ origin, opened, views, jumps, jumpGap, loops, browser, trace }) {
  const joined = Date.now() + 30_000;
  for (const page of opened)
    while ((await page.evaluate(() => /** @type {any} */ (window).scorecast?.join ?? 'joining')) === 'joining') {
      if (Date.now() > joined) throw new Error('a page still joining after 30 s');
      await new Promise((r) => setTimeout(r, 200));
    }
  const stopTrace = trace ? await startTrace(browser, opened) : null;
  const landings = await driveLandings({ origin, jumps, loops, jumpGap });
  /** @type {ReturnType<typeof import('./landing-trace.js').summarize> | null} */
  let traced = null;
  if (stopTrace && trace) {
    const { text, summary } = await stopTrace();
    mkdirSync(path.dirname(trace), { recursive: true });
    writeFileSync(trace, text);
    traced = summary;
  }
  const shown = await Promise.all(opened.map((p) => p.evaluate(() => /** @type {any} */ (window).scorecast.shown)));
  const changes = await Promise.all(opened.map((p) => p.evaluate(() => /** @type {any} */ (window).__changes)));
  const lateFrames = await Promise.all(opened.map((p) => p.evaluate(() => /** @type {any} */ (window).__lateFrames)));
  // The page keeps its last 500 changes: a log full and begun after the first landing lost some.
  const first = Math.min(...landings.map((l) => l.from));
  if (shown.some((log) => log.length >= 500 && log[0].at > first))
    console.error('sync: a page dropped changes older than its last 500: fewer --jumps or --loops');
  const pageViews = opened.map((_, i) => (views ? views[i % views.length] : 'phone'));
  /** @param {'jump' | 'round'} kind */
  const of = (kind) =>
    landingFigures(
      landings.filter((l) => l.kind === kind),
      shown,
      pageViews,
      changes,
      lateFrames,
    );
  return {
    ...(jumps > 0 ? { jumps: of('jump') } : {}),
    ...(loops > 0 ? { rounds: of('round') } : {}),
    ...(traced ? { trace: { ...traced, pages: traced.pages.map((p, i) => ({ view: pageViews[i], ...p })) } } : {}),
  };
}

async function main() {
  const { values } = benchArgs(import.meta.url, {
    options: {
      pages: { type: 'string', default: '10' },
      seconds: { type: 'string', default: '30' },
      stagger: { type: 'string', default: '700' },
      profiles: { type: 'string', default: 'loopback,wifi-light,wifi-busy' },
      root: { type: 'string', default: ROOT },
      label: { type: 'string' },
      rejoins: { type: 'string', default: '0' },
      'rejoin-gap': { type: 'string', default: '3000' },
      jumps: { type: 'string', default: '0' },
      'jump-gap': { type: 'string', default: '3000' },
      loops: { type: 'string', default: '0' },
      views: { type: 'string' },
      out: { type: 'string' },
      trace: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    process.stdout.write(HELP);
    return;
  }
  const profiles = /** @type {Array<keyof typeof PROFILES>} */ (values.profiles.split(','));
  for (const p of profiles)
    if (!(p in PROFILES)) throw new Error(`unknown profile ${p}: use ${Object.keys(PROFILES).join(', ')}`);
  const jumps = Number(values.jumps);
  const loops = Number(values.loops);
  const views = values.views ? values.views.split(',') : jumps > 0 || loops > 0 ? LANDING_VIEWS : null;
  const root = path.resolve(values.root);
  const label = values.label ?? path.basename(root);
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: quietArgs(),
  });
  const results = [];
  try {
    for (const profile of profiles) {
      const r = await runProfile({
        root,
        pages: Number(values.pages),
        seconds: Number(values.seconds),
        stagger: Number(values.stagger),
        profile,
        browser,
        rejoins: Number(values.rejoins),
        rejoinGap: Number(values['rejoin-gap']),
        views,
        jumps,
        jumpGap: Number(values['jump-gap']),
        loops,
        trace: values.trace ? path.resolve(values.trace) : null,
      });
      const row = { label, pages: Number(values.pages), ...(views ? { views } : {}), ...r };
      results.push(row);
      // Each landing's own figures go to --out only: the line stays one row of figures.
      console.log(JSON.stringify(row, (k, v) => (k === 'each' ? undefined : v)));
    }
  } finally {
    await browser.close();
  }
  if (values.out) {
    mkdirSync(path.dirname(values.out), { recursive: true });
    writeFileSync(values.out, `${JSON.stringify({ at: new Date().toISOString(), results }, null, 2)}\n`);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}

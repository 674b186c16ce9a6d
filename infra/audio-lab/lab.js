// The audio onset lab: N browser processes (each its own renderer and audio stack, as phones
// are) play scorecast's click on the beats of a performance, each into a channel of its own of one
// multi-channel virtual sound device (device.js), recorded in one stream: one sample clock for
// all. The lab's own reference track, on one more channel, ties the recording to the server's
// clock, and the onsets found in the recording (onsets.js) are compared across pages and with the
// beat times the server scheduled.
//
// The tie, link by link:
// - reference clicks: the recording and the reference track are on the null sink's clock, so a
//   click written at sample p of the track is at sample p + D of the recording, for one D;
// - pacat's playback position, 20 times a second, stamped on arrival with the lab's clock: the
//   earliest arrivals say when track sample 0 was heard (later ones only waited longer);
// - the lab's clock and the server's: GET /api/time, the round trip with the shortest time.
// `tie` in the result says how well each link held.

import path from 'node:path';
import os from 'node:os';
import { existsSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { chromium } from '@playwright/test';
import { startServer, stopChild, waitFor } from '../../bench/servers.js';
import { startLagProxy } from '../../bench/lag-proxy.js';
import { startXvfb } from '../../test/engines/xvfb.js';
import { launchFirefox } from '../../test/engines/firefox.js';
import { launchWebKit } from '../../test/engines/webkit.js';
import { RATE, realtimeAudioThreads, startSoundDevice } from './device.js';
import { channelOf, compare, findOnsets, matchReference, summary, trackClock } from './onsets.js';
import { cpuBetween, readCpu } from './proc-cpu.js';
import { joinFigures, packClick, packReading } from './readings.js';
import { quantileSorted } from '../../core/stats.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** The lab's clock, defined as the server's is (server/live/hub.js): comparable to it to a fraction of a ms. */
const now = () => performance.timeOrigin + performance.now();
/** Reference clicks this far apart (ms): 2 a second. */
const REFERENCE_EVERY_MS = 500;
/** Pages opening at one time (ten Chromiums starting at once on two cores would starve each other). */
const OPEN_AT_ONCE = 3;
/** The pages' clocks' error bound (ms) that the measurement waits for, and for how long at most. */
const SETTLED_MS = 5;
const SETTLE_TIMEOUT_MS = 15_000;
/** The part views whose pages click (the audience view has no click). */
const VIEWS = ['violin1', 'violin2', 'viola', 'cello', 'score'];

/** One-way latency ± jitter (ms) of the network profiles (bench/sync.js's). */
export const PROFILES = {
  loopback: null,
  'wifi-light': { latencyMs: 10, jitterMs: 5 },
  'wifi-busy': { latencyMs: 35, jitterMs: 25 },
};

const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1',
  // The audio service's sandbox keeps it off PulseAudio's socket.
  '--disable-features=AudioServiceSandbox',
  // Pages in windows of one X server: none is hidden or throttled behind another.
  '--disable-backgrounding-occluded-windows',
  '--disable-renderer-backgrounding',
  '--disable-background-timer-throttling',
  // Small windows: ten pages of notation painted in software on two cores leave little for the
  // rest (the 10-page run at 1280x900 took the machine to load 65).
  '--window-size=480,360',
  // Each page's output stream buffered 1024 frames a callback (23 ms at 44.1 kHz; Chromium's own
  // 512 on PulseAudio), as a phone's speaker path buffers 20-40 ms. Ten browsers on two shared
  // cores stall together for 5-40 ms at a time (other sessions' work, the machine's own): with 512
  // frames each stall underran the streams in the daemon, several pages at once, and every step
  // of a page's output came with one (bench/RESULTS.md, "Audio: the device's steps are
  // underruns"). A phone's audio path does not wait on nine other phones. The pages still report
  // their output delay and the client compensates it as before.
  '--audio-buffer-size=1024',
];

/** @param {string} cmd */
const have = (cmd) => spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0;

/**
 * Whether the lab can run here, and if not, why.
 * @returns {{ ok: boolean, reasons: string[] }}
 */
export function audioLabSupport() {
  const reasons = [];
  if (process.platform !== 'linux') reasons.push(`PulseAudio and Xvfb need Linux (this is ${process.platform})`);
  else {
    // Real-time priority for the audio path (device.js): without it a loaded machine measures
    // its own underruns, not scorecast.
    if (typeof process.getuid === 'function' && process.getuid() !== 0)
      reasons.push('the lab needs root (real-time priority for the audio threads, chrt)');
    if (!existsSync('/usr/bin/chromium')) reasons.push("Debian's chromium is not installed");
    for (const [cmd, pkg] of [
      ['Xvfb', 'xvfb'],
      ['pulseaudio', 'pulseaudio'],
      ['parec', 'pulseaudio-utils'],
      ['pacat', 'pulseaudio-utils'],
      ['chrt', 'util-linux'],
    ])
      if (!have(cmd)) reasons.push(`${cmd} is not installed (apt-get install -y ${pkg})`);
  }
  return { ok: reasons.length === 0, reasons };
}

/**
 * Server time minus the lab's clock, from the round trip with the shortest time.
 * @param {string} base
 * @param {number} [n]
 */
async function serverOffset(base, n = 30) {
  let best = { rtt: Infinity, offset: 0 };
  for (let i = 0; i < n; i++) {
    const t0 = now();
    const res = await fetch(`${base}/api/time`);
    const { t } = /** @type {{ t: number }} */ (await res.json());
    const t1 = now();
    if (t1 - t0 < best.rtt) best = { rtt: t1 - t0, offset: t - (t0 + t1) / 2 };
  }
  return best;
}

/**
 * @typedef {object} LabOptions
 * @property {number} [pages]       browser processes, one channel each (default 10)
 * @property {number} [seconds]     recorded after the last page clicks (default 60)
 * @property {keyof typeof PROFILES} [profile]
 * @property {string} [root]        checkout whose server and built client run
 * @property {string} [scoreDir]
 * @property {boolean} [notation]  the pages paint their notation (default false: `?notation=off`,
 *   client/src/page/route.js). The click is the same code on the same clock either way; ten pages
 *   painting notation in software on two cores took the machine to load 35-38 by themselves (each
 *   renderer 10-30% of a core), and the sound device fell 200 ms behind with them
 * @property {number} [settleOutputS]  seconds each page's sound has run before the measurement
 *   starts (default 0). In a page's first seconds of sound Chromium's output timestamps here
 *   disagree with its later ones by tens of ms: a page that had just joined clicked 40-97 ms
 *   early for 8 s, then 5-13 ms late until 20 s, before it waited for a trusted mapping
 *   (audio-latency.js, ready). The bench waits 30 s to measure the steady state
 * @property {boolean} [realtime]  the browsers' audio services real-time, as a phone's audio path
 *   is (device.js, realtimeAudioThreads; default true)
 * @property {Array<'chromium' | 'firefox' | 'webkit'>} [engines]  each page's browser, in turn
 *   (default chromium only). Firefox ESR (test/engines/firefox.js, headless) assumes the 40 ms
 *   fallback latency on desktop Linux (audio-latency.js, outputReadsMayHang). WebKitGTK's
 *   MiniBrowser (test/engines/webkit.js: WebKitWebDriver, an Xvfb of its own) plays through
 *   GStreamer's pulsesink, which takes PULSE_SINK from the environment the driver passes on; its
 *   audio threads (in its web process) are made real-time as Chromium's audio service's are.
 *   Firefox's are left at normal priority (which of its threads carry the sound is not known)
 * @property {boolean} [joins]  record from before the first page clicks, so that each page's first
 *   clicks are measured (`joins` in the result: each page's offsets over its first seconds of
 *   sound); the settle wait is skipped
 * @property {string} [dump]  keep the recording (DUMP.raw: s16le, 48 kHz, one channel per page
 *   and the reference last) and what the analysis needs (DUMP.json), to look at again
 * @property {string} [pulseWatch]  a file prefix: the lab's PulseAudio logs at debug level and its
 *   latencies are sampled 5 times a second, on the lab's clock (pulse-watch.js); the daemon's
 *   start on that clock is written to PREFIX-started.json
 * @property {(msg: string) => void} [log]
 */

/**
 * What the lab does with a page (a Playwright page is one; a Firefox page is wrapped to be one).
 * @typedef {object} LabPage
 * @property {(url: string, o?: { timeout?: number }) => Promise<unknown>} goto
 * @property {(fn: any, arg?: any) => Promise<any>} evaluate
 * @property {(fn: any, arg: any, o: { timeout: number }) => Promise<unknown>} waitForFunction
 * @property {(css: string) => { click: () => Promise<void> }} locator
 */

/**
 * One run of the lab. The browsers, the device and the server are gone before the analysis: on a
 * loaded 2-core machine it took 6-8 s beside them.
 * @param {LabOptions} [o]
 */
export async function runAudioLab(o = {}) {
  const { input, stopped } = await capture(o);
  try {
    const result = analyse(input);
    (o.log ?? (() => {}))('analysed');
    return result;
  } finally {
    await stopped;
  }
}

/**
 * The lab's recording and what its analysis needs, and the stop of everything it started,
 * under way (the browsers close while the recording is analysed).
 * @param {LabOptions} o
 * @returns {Promise<{ input: Parameters<typeof analyse>[0], stopped: Promise<void> }>}
 */
async function capture({
  pages = 10,
  seconds = 60,
  profile = 'loopback',
  root = ROOT,
  scoreDir = path.join(root, 'scores', 'demo'),
  realtime = true,
  notation = false,
  settleOutputS = 0,
  joins = false,
  engines = ['chromium'],
  dump,
  pulseWatch,
  log = () => {},
} = {}) {
  const refChannel = pages;
  /** @type {Array<() => Promise<void>>} */
  const cleanup = [];
  const stop = async () => {
    for (const c of cleanup.reverse()) await c().catch(() => {});
    log('stopped');
  };
  try {
    // Xvfb, the sound device and the server start side by side, and the browsers launch while
    // the server is still starting.
    const server = startServer({ target: 'ours', root, scoreDir, schedule: null });
    cleanup.push(() => stopChild(server));
    /** Where the pages go (through the lag proxy for a network profile), once the server listens. */
    const addresses = waitFor(server, 'listening', 30_000, 'server').then(async ({ port }) => {
      const lag = PROFILES[profile];
      const proxy = lag ? await startLagProxy({ target: port, ...lag }) : null;
      if (proxy) cleanup.push(proxy.close);
      const direct = `http://127.0.0.1:${port}`;
      // The lab's clock and the server's, measured again at the end: the shorter round trip counts.
      const offset = await serverOffset(direct);
      log('server ready');
      return { direct, base: proxy ? `http://127.0.0.1:${proxy.port}` : direct, offset };
    });
    addresses.catch(() => {}); // awaited below, where a failure is thrown
    const started = await Promise.allSettled([
      startXvfb({ size: '1024x768x24' }).then((x) => {
        cleanup.push(x.stop);
        return x;
      }),
      startSoundDevice({ channels: pages + 1, watch: pulseWatch, now }).then((d) => {
        cleanup.push(d.stop);
        return d;
      }),
    ]);
    for (const s of started) if (s.status === 'rejected') throw s.reason;
    const [xvfb, device] = /** @type {[{ display: string }, import('./device.js').SoundDevice]} */ (
      started.map((s) => /** @type {PromiseFulfilledResult<any>} */ (s).value)
    );
    log('device ready');
    if (pulseWatch) writeFileSync(`${pulseWatch}-started.json`, JSON.stringify({ startedAt: device.startedAt }));

    // The reference plays from before the recording to after it: the sink never idles. (The
    // recording starts after the pages join: by then the reference has played for seconds.)
    const joinBudgetS = 20 + pages * 6 + settleOutputS;
    const reference = device.reference({
      channel: refChannel,
      seconds: joinBudgetS + seconds + 30,
      everyMs: REFERENCE_EVERY_MS,
      now,
    });
    cleanup.push(reference.stop);

    // The pages open side by side, OPEN_AT_ONCE at a time (one after another, three took 20 s at
    // load 20); their browsers close side by side too.
    /** @type {Array<{ close: () => Promise<void> }>} */
    const browsers = [];
    cleanup.push(() => Promise.all(browsers.map((b) => b.close().catch(() => {}))).then(() => {}));
    /** @param {number} i */
    const open = async (i) => {
      const engine = engines[i % engines.length];
      const page = engine === 'chromium' ? await openChromium(i) : await openEngine(i, engine);
      const { base } = await addresses;
      await page.goto(`${base}/view/${VIEWS[i % VIEWS.length]}${notation ? '' : '?notation=off'}`, {
        timeout: 60_000,
      });
      // Joined ('on-time', or 'approximate' when the clock's error bound is still wide after 3 s).
      await page.waitForFunction(
        () => {
          const join = /** @type {any} */ (window).scorecast?.join;
          return join !== undefined && join !== 'joining';
        },
        null,
        { timeout: 90_000 },
      );
      await page.locator('#click-toggle').click();
      await page.waitForFunction(() => /** @type {any} */ (window).scorecast?.sound?.state === 'running', null, {
        timeout: 30_000,
      });
      const soundSince = now();
      const threads = realtime && engine !== 'firefox' ? await realtimeAudioThreads(`ch${i}`, engine) : 0;
      // The page clicks once its output mapping is trusted (client/src/sound/audio-latency.js,
      // ready: a few seconds of sound, at most 8 s): a page still silent is not measured as one
      // that lost its clicks. An older checkout clicks at once.
      await page
        .waitForFunction(
          () => /** @type {any} */ (window).scorecast.audio.some((/** @type {any} */ e) => e.url.startsWith('click')),
          null,
          { timeout: 20_000 },
        )
        .catch(() => log(`page ${i} placed no click in 20 s`));
      log(`page ${i} clicking (${engine}, view ${VIEWS[i % VIEWS.length]})`);
      return { page, threads, soundSince };
    };
    /** @param {number} i */
    const openChromium = async (i) => {
      const browser = await chromium.launch({
        executablePath: '/usr/bin/chromium',
        headless: false,
        ignoreDefaultArgs: ['--mute-audio'],
        args: CHROMIUM_ARGS,
        env: { ...process.env, DISPLAY: xvfb.display, ...device.envFor(i) },
        timeout: 60_000,
      });
      browsers.push(browser);
      return /** @type {LabPage} */ (await browser.newPage());
    };
    /**
     * Firefox (WebDriver BiDi) or WebKitGTK (classic WebDriver), with the few calls the lab makes
     * of a Playwright page.
     * @param {number} i
     * @param {'firefox' | 'webkit'} engine
     */
    const openEngine = async (i, engine) => {
      const launch = engine === 'webkit' ? launchWebKit : launchFirefox;
      const ep = await launch({ env: device.envFor(i) });
      browsers.push({ close: ep.close });
      /** @type {LabPage} */
      const page = {
        goto: (url) => ep.goto(url),
        evaluate: (fn, arg) => ep.evaluate(fn, arg),
        async waitForFunction(fn, arg, { timeout }) {
          const until = Date.now() + timeout;
          while (!(await ep.evaluate(fn, arg))) {
            if (Date.now() > until) throw new Error(`${engine} page ${i}: not so within ${timeout} ms`);
            await new Promise((r) => setTimeout(r, 200));
          }
        },
        locator: (css) => ({ click: () => ep.click(css) }),
      };
      return page;
    };
    /** @type {Array<{ page: LabPage, threads: number, soundSince: number }>} */
    const joined = [];
    // Each page's clicks as scheduled (server time): its history keeps the last 100, so it is read
    // every 5 s; and the output mapping's raw readings, read as often.
    /** @type {Array<Map<number, any>>} */
    const scheduled = Array.from({ length: pages }, () => new Map());
    /** @type {Array<Array<Array<number | null>>>} */
    const readings = Array.from({ length: pages }, () => []);
    /** Each page's clock error (its estimate of server time minus the machine's clock), ms. */
    /** @type {number[]} */
    const clockErrors = [];
    /** Each page's performance.timeOrigin (the lab's clock at its page time 0). */
    /** @type {number[]} */
    const origins = [];
    const collect = async () => {
      await Promise.all(
        joined.map(async ({ page }, i) => {
          const since = readings[i].at(-1)?.[0] ?? -Infinity;
          const { h, err, origin, rd } = await page.evaluate((/** @type {number} */ since) => {
            const s = /** @type {any} */ (window).scorecast;
            return {
              h: s.audio,
              err: s.clock.offset - performance.timeOrigin,
              origin: performance.timeOrigin,
              // An older checkout's client keeps none.
              rd: s.outputReadings?.(since) ?? [],
            };
          }, since);
          origins[i] = origin;
          clockErrors.push(Math.abs(err));
          for (const e of h) if (String(e.url).startsWith('click') && !e.cancelled) scheduled[i].set(e.serverT, e);
          for (const r of rd) readings[i].push(packReading(r));
        }),
      );
    };
    // Joins measured: the recording runs from before the first page clicks, and the pages' clicks
    // are collected as they join.
    const early = joins ? { recording: device.record(), from: now() } : null;
    let joining = joins;
    const joinCollector = (async () => {
      while (joining) {
        await new Promise((r) => setTimeout(r, 5000));
        if (joining) await collect();
      }
    })();
    let next = 0;
    const opener = async () => {
      for (let i = next++; i < pages; i = next++) joined[i] = await open(i);
    };
    await Promise.all(Array.from({ length: Math.min(OPEN_AT_ONCE, pages) }, opener));
    joining = false;
    await joinCollector;
    const opened = joined.map((j) => j.page);
    const { direct, offset: offsetAtStart } = await addresses;
    // Every page's clock within ±SETTLED_MS of the server's before the measurement (a page that
    // joined 'approximate' at load 40 sounded 34 ms late until its next good round trip); a page
    // that never gets there is measured as it is.
    await Promise.all(
      opened.map((page) =>
        page
          .waitForFunction(
            (/** @type {number} */ ms) => /** @type {any} */ (window).scorecast.clock.error <= ms,
            SETTLED_MS,
            {
              timeout: SETTLE_TIMEOUT_MS,
            },
          )
          .catch(() => log('a page clock did not settle')),
      ),
    );
    log('clocks settled');
    const soundSettled = Math.max(...joined.map((j) => j.soundSince)) + (joins ? 0 : settleOutputS * 1000);
    if (now() < soundSettled) {
      log(`every page's sound running ${settleOutputS} s`);
      // now() moves on between the check and here: never a negative delay (Node warns of one).
      await new Promise((r) => setTimeout(r, Math.max(0, soundSettled - now())));
    }
    // Real-time again just before the measurement: a thread the audio service starts after the
    // page's join (its count at the join is the smaller) stays at normal priority otherwise, and
    // that page's stream underruns. In one 10-page run, page 0 had 10 threads made real-time
    // against 11 for every other page: its context clock fell 1.3 s behind the page's over the
    // 150 s, in steps of 10-40 ms, its onsets ±20 ms (p99 67 ms) while the nine others held 1-8.
    const rtThreads = realtime
      ? await Promise.all(
          joined.map(async (j, i) => {
            const engine = engines[i % engines.length];
            if (engine === 'firefox') return j.threads;
            return Math.max(j.threads, await realtimeAudioThreads(`ch${i}`, engine));
          }),
        )
      : [];
    // Recorded from here: the sink has played the reference all along, so the recording has no
    // gap from its first sample; the pages' joins are not recorded (nothing to analyse there).
    const recording = early?.recording ?? device.record();
    await new Promise((r) => setTimeout(r, 500));
    const streams = await device.streams();
    if (streams.length < pages + 1)
      throw new Error(`${streams.length} streams play into the device, not ${pages + 1}: ${JSON.stringify(streams)}`);
    const sinks = opened.map((_, i) => `ch${i}`);
    const cpuFrom = readCpu(sinks);
    const measureFrom = early?.from ?? now();
    log('measuring');
    const until = now() + seconds * 1000;
    while (now() < until) {
      await new Promise((r) => setTimeout(r, Math.max(0, Math.min(5000, until - now()))));
      await collect();
    }
    const latencies = await Promise.all(
      opened.map((p) => p.evaluate(() => /** @type {any} */ (window).scorecast.audioLatency)),
    );
    const cpuTo = readCpu(sinks);
    const measureTo = now();
    // Each page's browser, process by process (% of one core over the measurement).
    const cpuBySink = cpuBetween(cpuFrom, cpuTo, (measureTo - measureFrom) / 1000);
    const cpuPerPage = sinks.map((sink) => cpuBySink[sink] ?? { total: 0 });
    const offsetAtEnd = await serverOffset(direct);
    const offset = offsetAtEnd.rtt < offsetAtStart.rtt ? offsetAtEnd : offsetAtStart;
    const raw = await recording.stop();
    log('recorded');
    const reports = reference.reports();
    const load1 = Math.round(os.loadavg()[0] * 10) / 10;

    // Each page's clock error when it placed each click (the click's page time minus the page
    // time at which the server's clock read the beat's time): the part of an onset's offset that
    // is the clock sync's. Pages whose client does not say (an older checkout) give none.
    /** @type {number[]} */
    const clockAtClick = [];
    // How far ahead of its start on the context's clock each click was placed (its start time
    // minus the context's currentTime when it was placed, ms): the main thread's share of an
    // onset is over once the click is placed, the audio thread plays it on its own clock.
    /** @type {number[]} */
    const aheadOfContext = [];
    scheduled.forEach((m, i) => {
      for (const e of m.values()) {
        if (typeof e.local === 'number' && typeof origins[i] === 'number')
          clockAtClick.push(Math.abs(e.local - (e.serverT - offset.offset - origins[i])));
        if (typeof e.map?.currentTime === 'number') aheadOfContext.push((e.when - e.map.currentTime) * 1000);
      }
    });

    const input = {
      raw,
      channels: pages + 1,
      refChannel,
      refPositions: reference.positions,
      reports,
      serverMinusLab: offset.offset,
      scheduled: scheduled.map((m) => [...m.keys()]),
      window: /** @type {[number, number]} */ ([measureFrom + offset.offset, measureTo + offset.offset]),
      extra: {
        profile,
        load1,
        notation,
        settleOutputS,
        cpuPerPage,
        cpuPercent: {
          renderer: summary(cpuPerPage.map((c) => c.renderer ?? 0)),
          total: summary(cpuPerPage.map((c) => c.total)),
        },
        realtimeThreads: rtThreads,
        tie: { serverRttMs: Math.round(offset.rtt * 100) / 100 },
        latency: latencies.map((l) => (l ? { source: l.source, ms: Math.round(l.seconds * 10000) / 10 } : null)),
        clockErrorMs: summary(clockErrors),
        clockErrorAtClickMs: summary(clockAtClick),
        scheduledAheadMs: lowSummary(aheadOfContext),
        contextBehindMs: readings.map((r, i) => contextBehind(r, measureFrom - origins[i], measureTo - origins[i])),
        // What a mapping can be replayed from offline (readings.js, bench/audio-replay.js): each
        // page's raw readings and its clicks, beside the onsets in `series`.
        pagesRaw: joined.map((j, i) => ({
          soundSince: j.soundSince + offset.offset,
          origin: origins[i],
          readings: readings[i],
          clicks: [...scheduled[i].values()].map(packClick),
        })),
        joins,
      },
    };
    if (dump) {
      writeFileSync(`${dump}.raw`, raw);
      writeFileSync(
        `${dump}.json`,
        JSON.stringify({ ...input, raw: undefined, origins, entries: scheduled.map((m) => [...m.values()]) }),
      );
    }
    return { input, stopped: stop() };
  } catch (err) {
    await stop();
    throw err;
  }
}

/**
 * How far a page's context clock fell behind its page clock over the measurement (ms): its
 * currentTime less performance.now(), the median of the first ten readings from `from` less that
 * of the last ten before `to` (page times). Every page's moves alike with the device (in three
 * 10-page runs of 150 s each page's context clock gained 65-103 ms: -65 to -103 here); a page far
 * above the others had its audio starved (one page +1,315 ms, when one of its audio threads had
 * not been made real-time: its onsets p99 67 ms, the others' 1-8).
 * @param {Array<Array<number | null>>} readings  packReading's
 * @param {number} from @param {number} to
 * @returns {number | null}
 */
export function contextBehind(readings, from, to) {
  const lead = readings
    .filter((r) => typeof r[0] === 'number' && typeof r[1] === 'number' && r[1] > 0 && r[0] >= from && r[0] <= to)
    .map((r) => /** @type {number} */ (r[1]) * 1000 - /** @type {number} */ (r[0]));
  if (lead.length < 20) return null;
  const mid = (/** @type {number[]} */ v) =>
    quantileSorted(
      [...v].sort((a, b) => a - b),
      0.5,
    );
  return Math.round((mid(lead.slice(0, 10)) - mid(lead.slice(-10))) * 10) / 10;
}

/**
 * The low end of some values (where small is what matters), rounded to 0.01.
 * @param {number[]} values
 */
function lowSummary(values) {
  const s = [...values].sort((a, b) => a - b);
  const r = (/** @type {number} */ v) => (Number.isFinite(v) ? Math.round(v * 100) / 100 : null);
  return { n: s.length, min: r(s[0] ?? Number.NaN), p1: r(quantileSorted(s, 0.01)), p50: r(quantileSorted(s, 0.5)) };
}

/**
 * From the recording to the figures.
 * @param {object} o
 * @param {Buffer} o.raw
 * @param {number} o.channels
 * @param {number} o.refChannel
 * @param {number[]} o.refPositions       sample index of each reference click in its track
 * @param {Array<{ streamMs: number, at: number }>} o.reports
 * @param {number} o.serverMinusLab
 * @param {number[][]} o.scheduled        each page's clicks, server times
 * @param {[number, number]} o.window     server times: beats in it count
 * @param {Record<string, any>} o.extra
 */
export function analyse(o) {
  // When each track position was heard, on the lab's clock (the first second is left out: the
  // stream starts).
  const track = trackClock(o.reports.filter((r) => r.streamMs > 1000));
  // Recording sample ↔ track sample: reference clicks.
  const ref = findOnsets(channelOf(o.raw, o.channels, o.refChannel), RATE);
  if (ref.length < 10) throw new Error(`only ${ref.length} reference clicks in the recording`);
  const { shift: D, residual } = matchReference(
    ref.map((r) => r.at),
    o.refPositions,
  );
  /** Server time of recording sample j. */
  const toServer = (/** @type {number} */ j) => track.at(((j - D) / RATE) * 1000) + o.serverMinusLab;

  const [from, to] = o.window;
  // Every beat scheduled is a candidate for an onset (one just outside the window is no stray
  // sound); onsets count from the window's start to its end.
  /** @type {Set<number>} */
  const beatSet = new Set();
  for (const list of o.scheduled) for (const t of list) beatSet.add(t);
  const beats = [...beatSet];
  /** @type {number[][]} */
  const pageOnsets = [];
  /** @type {Array<{ clicks: number, missed: number, score: number | null }>} */
  const perPage = [];
  for (let c = 0; c < o.channels; c++) {
    if (c === o.refChannel) continue;
    const found = findOnsets(channelOf(o.raw, o.channels, c), RATE);
    const times = found.map((f) => toServer(f.at)).filter((t) => t >= from && t <= to);
    pageOnsets.push(times);
    const own = o.scheduled[pageOnsets.length - 1].filter((t) => t >= from && t <= to);
    const heard = own.filter((b) => times.some((t) => Math.abs(t - b) < 100)).length;
    const scores = found.map((f) => f.score).sort((a, b) => a - b);
    perPage.push({
      clicks: own.length,
      missed: own.length - heard,
      score: scores.length ? Math.round(scores[0] * 1000) / 1000 : null,
    });
  }
  const result = compare({ beats, pages: pageOnsets });
  /** @type {Record<number, number[]>} */
  const perPageOffsets = {};
  for (const r of result.rows) (perPageOffsets[r.page] ??= []).push(r.offset);
  const { rows, ...figures } = result;
  return {
    pages: pageOnsets.length,
    ...figures,
    scheduledBeats: beats.filter((t) => t >= from && t <= to).length,
    perPage: perPage.map((p, i) => ({ ...p, offsetMs: summary(perPageOffsets[i] ?? []) })),
    ...o.extra,
    ...(o.extra.joins ? { joinOffsets: joinFigures(result.rows, o.extra.pagesRaw) } : {}),
    tie: {
      ...o.extra.tie,
      referenceClicks: ref.length,
      referenceResidualMs: Math.round((residual / RATE) * 1000 * 1000) / 1000,
      // One shift for the whole track: else the track itself underran (or the recording lost
      // samples), and the figures above are not to be trusted.
      valid: residual / RATE < 0.0005,
      pacatReports: o.reports.length,
      // How far the sound device's clock fell behind the wall clock over the run (a starved
      // virtual sink renders late; a real speaker does not).
      sinkLagMs: Math.round(track.lagMs * 100) / 100,
    },
    series: rows.map((r) => ({ page: r.page, t: Math.round(r.beat), offset: Math.round(r.offset * 100) / 100 })),
  };
}

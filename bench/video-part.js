// Video parts (doc/score-format.md, "Video parts"): how far a video part's time is from the
// score's time over a run with a start, a seek and a pause, and what the page costs in CPU with
// a video part against an image part of the same piece, in the same run.
//
//   node bench/video-part.js [--engine chromium|webkit|firefox] [--seconds 60] [--trials 2]
//                            [--out bench/results/video-part[-ENGINE].json]
//                            [--size 640x360] [--fps 25] [--parts video,image] [--trace]
//
// A package is made in a temporary folder: a 640x360 25 fps VP9/Opus video (ffmpeg) for the
// part `video`, and PNG pages with a beat map for the part `image`; both parts play the same
// meter. Each trial opens one page per part in turn (video, then image), plays for --seconds: a
// seek to a third of the way in, at half a pause of 2 s, then on. The drift is sampled in the
// page every 40 ms while the performance plays (video.currentTime against the page's synced
// score time: window.scorecast.video); the CPU is that of the whole browser (every process of
// it: the renderer, the GPU and the media decoders) from /proc, over the same span. Ratios within
// a run, as bench/RESULTS.md asks on a shared machine: the image part is the base.
//
// --engine: Debian's Chromium through Playwright (the default), WebKitGTK's MiniBrowser through
// WebKitWebDriver under Xvfb (its CPU counted with the X server's), or Firefox ESR headless over
// WebDriver BiDi, launched as the engine tests launch them (test/engines/), each with a sound card
// of its own (a PulseAudio null sink), as every phone has one. WebKitGTK decodes through
// GStreamer: Debian's plugins-base/good give it WebM, VP9 and Opus (the package's format), not
// H.264. Beside the drift, each video trial says where the video's own seeks came (seeksBy), the
// share of samples with the score playing and the video paused (pausedShare: a video held still
// and sought to the score's time every frame also shows a small drift), and the play() calls the
// part made and those the browser refused, by the error's name.

import { promisify } from 'node:util';
import { execFile } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { chromium } from '@playwright/test';
import { CHROMIUM, quietArgs } from '../playwright/chromium.js';
import { launchFirefox } from '../test/engines/firefox.js';
import { startSoundCard } from '../test/engines/sound-card.js';
import { launchWebKit } from '../test/engines/webkit.js';
import { freePort, startServer } from '../playwright/server.js';
import { cpuMs, parentPid } from './proc-stats.js';
import { quantileSorted as quantile } from '../core/stats.js';
import { benchArgs } from './cli-args.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const run = promisify(execFile);
const TEMPO = 120;
const PAGE = { width: 1000, height: 1400 };

/**
 * The bench's package: a video part and an image part of `seconds` + 10 s.
 * @param {number} seconds
 */
async function makePackage(seconds, { size = '640x360', fps = 25 } = {}) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sc-video-bench-'));
  const length = seconds + 10;
  const bars = Math.ceil((length * TEMPO) / 60 / 4);
  mkdirSync(path.join(dir, 'video'));
  await run('ffmpeg', [
    ...['-hide_banner', '-loglevel', 'error', '-y'],
    ...['-f', 'lavfi', '-i', `testsrc2=size=${size}:rate=${fps}:duration=${length}`],
    ...['-f', 'lavfi', '-i', `sine=frequency=440:beep_factor=4:duration=${length}`],
    ...['-c:v', 'libvpx-vp9', '-b:v', '400k', '-deadline', 'realtime', '-cpu-used', '8', '-g', '50'],
    ...['-c:a', 'libopus', '-b:a', '48k'],
    path.join(dir, 'video', 'guide.webm'),
  ]);
  // Ten systems of four bars on a page, the beats spread across each; as many pages as that takes.
  const pages = Math.ceil(bars / 40);
  const files = Array.from({ length: pages }, (_, i) => `page-${i + 1}.png`);
  await run('ffmpeg', [
    ...['-hide_banner', '-loglevel', 'error', '-y'],
    ...['-f', 'lavfi', '-i', `color=white:size=${PAGE.width}x${PAGE.height}`, '-frames:v', '1'],
    path.join(dir, files[0]),
  ]);
  for (const f of files.slice(1)) copyFileSync(path.join(dir, files[0]), path.join(dir, f));
  const rows = ['beat,page,system,bar,x0,x1,y0,y1'];
  for (let b = 0; b < bars * 4; b++) {
    const bar = Math.floor(b / 4);
    const page = Math.floor(bar / 40);
    const system = Math.floor(bar / 4) % 10;
    const x0 = 50 + (b % 16) * 56;
    rows.push(`${b},${page},${system},${bar + 1},${x0},${x0 + 56},${60 + system * 130},${160 + system * 130}`);
  }
  writeFileSync(path.join(dir, 'image.csv'), `${rows.join('\n')}\n`);
  writeFileSync(
    path.join(dir, 'score.yaml'),
    [
      'id: video-bench',
      'title: Video part bench',
      'parts:',
      '  - { id: video }',
      '  - { id: image }',
      `bars: ${bars}`,
      'meter:',
      `  - { bar: 1, time: 4/4, tempo: ${TEMPO} }`,
      'pages:',
      `  image: { files: [${files.join(', ')}], beatmap: image.csv }`,
      'video:',
      '  video: { file: video/guide.webm }',
      '',
    ].join('\n'),
  );
  return dir;
}

/** Every process under `root` (itself included), from /proc. @param {number} root */
function treeOf(root) {
  /** @type {number[]} */
  const out = [];
  for (const name of readdirSync('/proc')) {
    const pid = Number(name);
    if (!Number.isInteger(pid)) continue;
    for (let p = pid, hops = 0; p > 1 && hops < 8; p = parentPid(p) || 0, hops++)
      if (p === root) {
        out.push(pid);
        break;
      }
  }
  return out;
}

/**
 * CPU ms of every process of the browser this bench started: the children of this process whose
 * command line matches `which`, and everything under them (the server, also a child, is not counted).
 * @param {RegExp} which
 */
function browserCpuMs(which) {
  let sum = 0;
  for (const name of readdirSync('/proc')) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || parentPid(pid) !== process.pid) continue;
    let cmd = '';
    try {
      cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    } catch {
      continue;
    }
    if (which.test(cmd)) for (const p of treeOf(pid)) sum += cpuMs(p) || 0;
  }
  return sum;
}

/**
 * A page of one engine for one trial.
 * @typedef {object} BenchPage
 * @property {(url: string) => Promise<void>} goto
 * @property {<T>(fn: () => T) => Promise<T>} evaluate  `fn`'s source run in the page
 * @property {() => Promise<void>} close
 */

/**
 * An engine to run the trials in. Chromium: one browser, a page per trial. WebKit and Firefox:
 * the engine tests' launchers (one window each), a browser per trial, closed after it.
 * @param {string} engine
 * @returns {Promise<{ page: () => Promise<BenchPage>, close: () => Promise<void>, processes: RegExp }>}
 */
async function openEngine(engine) {
  if (engine === 'chromium') {
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: quietArgs() });
    return {
      async page() {
        const page = await browser.newPage({ viewport: { width: 768, height: 1024 } });
        return {
          goto: async (url) => void (await page.goto(url)),
          evaluate: (fn) => page.evaluate(fn),
          close: () => page.close(),
        };
      },
      close: () => browser.close(),
      processes: /chromium/,
    };
  }
  if (engine === 'webkit' || engine === 'firefox') {
    const launch = engine === 'webkit' ? launchWebKit : launchFirefox;
    // An output device, as every phone has: without one WebKitGTK's GStreamer pipeline for a
    // video with a sound track never reaches PLAYING, and Firefox's audio never leaves suspended.
    const sound = await startSoundCard();
    return {
      page: async () => launch({ env: sound.env }),
      close: () => sound.stop(),
      // WebKit: the driver, the MiniBrowser and its web and network processes under it, and the X
      // server it draws into; Firefox: its parent process and its content processes.
      processes: engine === 'webkit' ? /WebKitWebDriver|Xvfb/ : /firefox/,
    };
  }
  throw new Error(`--engine ${engine}: chromium, webkit or firefox`);
}

/**
 * Resolves once `fn` is true in the page; rejects after `ms`.
 * @param {BenchPage} page
 * @param {() => boolean} fn
 * @param {number} ms
 * @param {string} what
 */
async function until(page, fn, ms, what) {
  const end = performance.now() + ms;
  while (!(await page.evaluate(fn))) {
    if (performance.now() > end) throw new Error(`${what}: not after ${ms} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * One part played for `seconds` with a seek and a pause.
 * @param {object} o
 * @param {Awaited<ReturnType<typeof openEngine>>} o.engine
 * @param {Awaited<ReturnType<typeof startServer>>} o.server
 * @param {string} o.part
 * @param {number} o.seconds
 * @param {boolean} [o.trace]  keep the page's sample series in the result
 */
async function trial({ engine, server, part, seconds, trace = false }) {
  await server.control('stop');
  const page = await engine.page();
  try {
    return await played({ engine, server, part, seconds, page, trace });
  } finally {
    await page.close();
  }
}

/**
 * @param {object} o
 * @param {Awaited<ReturnType<typeof openEngine>>} o.engine
 * @param {Awaited<ReturnType<typeof startServer>>} o.server
 * @param {string} o.part
 * @param {number} o.seconds
 * @param {BenchPage} o.page
 * @param {boolean} o.trace
 */
async function played({ engine, server, part, seconds, page, trace }) {
  await page.goto(`${server.base}/view/${part}`);
  if (part === 'video') {
    await until(page, () => /** @type {any} */ (window).scorecast?.video?.scoreTime === 0, 30_000, 'the video part');
  } else {
    await until(page, () => document.querySelector('div.sc-pane[data-state="ready"]') !== null, 30_000, 'the page');
  }
  // The page's drift samples, kept in the page (nothing crosses to the bench while it plays).
  await page.evaluate(() => {
    const w = /** @type {any} */ (window);
    w.__drift = [];
    w.__stillVideo = 0;
    // Samples with the element seeking, below HAVE_FUTURE_DATA, or at a nudged rate; and the
    // series itself (time, drift, readyState, seeking, rate, seeks, paused, waiting and playing
    // events so far, the seek and start aims in ms) for --trace.
    w.__busy = { seeking: 0, lowData: 0, nudged: 0 };
    w.__series = [];
    // Every play() the part asks for, and how the browser answered the ones it refused.
    w.__plays = { asked: 0, refused: /** @type {Record<string, number>} */ ({}) };
    const play = HTMLMediaElement.prototype.play;
    HTMLMediaElement.prototype.play = function () {
      w.__plays.asked++;
      const p = play.call(this);
      p.catch((/** @type {Error} */ e) => {
        w.__plays.refused[e.name] = (w.__plays.refused[e.name] ?? 0) + 1;
        w.__plays.first ??= e.message;
      });
      return p;
    };
    // The element's own waiting and playing events, counted, for --trace: whether a video that
    // stands still after a seek was told to wait, or played and stopped.
    w.__events = { waiting: 0, playing: 0 };
    const el = document.querySelector('video.sc-video');
    el?.addEventListener('waiting', () => w.__events.waiting++);
    el?.addEventListener('playing', () => w.__events.playing++);
    w.__sampler = setInterval(() => {
      const s = w.scorecast.video;
      if (s?.playing && s.scoreTime !== null) {
        w.__drift.push(s.currentTime - s.scoreTime);
        if (s.paused) w.__stillVideo++;
        const v = /** @type {HTMLVideoElement | null} */ (document.querySelector('video.sc-video'));
        if (v) {
          if (v.seeking) w.__busy.seeking++;
          if (v.readyState < 3) w.__busy.lowData++;
          if (Math.abs(v.playbackRate - 1) > 0.01) w.__busy.nudged++;
          w.__series.push([
            Math.round(performance.now()),
            Math.round((s.currentTime - s.scoreTime) * 1000),
            v.readyState,
            v.seeking ? 1 : 0,
            Math.round(v.playbackRate * 1000) / 1000,
            s.seeks,
            v.paused ? 1 : 0,
            w.__events.waiting,
            w.__events.playing,
            Math.round(s.seekLead * 1000),
            Math.round(s.startLead * 1000),
          ]);
        }
      }
    }, 40);
  });
  const cpu0 = browserCpuMs(engine.processes);
  const t0 = performance.now();
  const sleep = (/** @type {number} */ ms) => new Promise((r) => setTimeout(r, ms));
  // The video's own seeks by the end of each phase (start, after the seek, paused, to the end):
  // where a browser's seeks go when its figure is off.
  /** @type {Record<string, number | null>} */
  const seeksBy = {};
  const count = async (/** @type {string} */ phase) => {
    seeksBy[phase] = await page.evaluate(() => /** @type {any} */ (window).scorecast.video?.seeks ?? null);
  };
  await server.control('play');
  await sleep((seconds * 1000) / 3);
  await count('start');
  await server.control('seek', { bar: Math.round((seconds * TEMPO) / 60 / 4 / 3) + 4 });
  await sleep((seconds * 1000) / 6);
  await count('seek');
  await server.control('pause');
  await sleep(2000);
  await count('pause');
  await server.control('play');
  await sleep(Math.max(0, seconds * 1000 - (performance.now() - t0)));
  await count('end');
  const cpu = browserCpuMs(engine.processes) - cpu0;
  const wall = performance.now() - t0;
  await server.control('pause');
  const drift = /** @type {number[]} */ (
    await page.evaluate(() => {
      const w = /** @type {any} */ (window);
      clearInterval(w.__sampler);
      return w.__drift;
    })
  );
  const still = /** @type {number} */ (await page.evaluate(() => /** @type {any} */ (window).__stillVideo ?? 0));
  const plays = await page.evaluate(() => {
    const w = /** @type {any} */ (window);
    const v = /** @type {HTMLVideoElement | null} */ (document.querySelector('video.sc-video'));
    const r = v?.getBoundingClientRect();
    return {
      ...w.__plays,
      video:
        v && r
          ? { muted: v.muted, width: Math.round(r.width), height: Math.round(r.height), top: Math.round(r.top) }
          : null,
      videos: document.querySelectorAll('video').length,
      viewport: [window.innerWidth, window.innerHeight],
      visibility: document.visibilityState,
    };
  });
  const status = await page.evaluate(() => /** @type {any} */ (window).scorecast.video);
  const busy = await page.evaluate(() => /** @type {any} */ (window).__busy ?? null);
  const series = trace ? await page.evaluate(() => /** @type {any} */ (window).__series ?? []) : undefined;
  const abs = drift.map(Math.abs).sort((a, b) => a - b);
  return {
    part,
    cpuMs: Math.round(cpu),
    cpuShare: Math.round((cpu / wall) * 1000) / 1000,
    samples: drift.length,
    driftMs:
      abs.length > 0
        ? {
            p50: Math.round(quantile(abs, 0.5) * 10000) / 10,
            p95: Math.round(quantile(abs, 0.95) * 10000) / 10,
            p99: Math.round(quantile(abs, 0.99) * 10000) / 10,
            max: Math.round(abs[abs.length - 1] * 10000) / 10,
          }
        : null,
    seeks: status?.seeks ?? null,
    seeksBy,
    // Loads again: after the element failed, or stood still after a revival (video-sync.js).
    reloads: status?.reloads ?? null,
    // Samples where the score played and the video stood paused (a play() not yet taken).
    pausedShare: drift.length > 0 ? Math.round((still / drift.length) * 1000) / 1000 : null,
    // Shares of the samples with the element seeking, below HAVE_FUTURE_DATA, at a nudged rate.
    busyShare:
      busy && drift.length > 0
        ? Object.fromEntries(Object.entries(busy).map(([k, n]) => [k, Math.round((n / drift.length) * 1000) / 1000]))
        : null,
    plays,
    rate: status?.rate ?? null,
    seekLead: status?.seekLead ?? null,
    startLead: status?.startLead ?? null,
    nudges: status?.nudges ?? null,
    series,
  };
}

async function main() {
  const { values } = benchArgs(import.meta.url, {
    options: {
      engine: { type: 'string', default: 'chromium' },
      seconds: { type: 'string', default: '60' },
      trials: { type: 'string', default: '2' },
      out: { type: 'string' },
      // The video's size and frame rate (the default is a phone guide's; smaller tells the
      // decoder's cost from the sync's), the parts played (video,image) and the sample series.
      size: { type: 'string', default: '640x360' },
      fps: { type: 'string', default: '25' },
      parts: { type: 'string', default: 'video,image' },
      trace: { type: 'boolean', default: false },
    },
  });
  const name = values.engine;
  const out =
    values.out ??
    path.join(ROOT, 'bench', 'results', name === 'chromium' ? 'video-part.json' : `video-part-${name}.json`);
  const seconds = Number(values.seconds);
  const trials = Number(values.trials);
  const dir = await makePackage(seconds, { size: values.size, fps: Number(values.fps) });
  const server = await startServer({ port: await freePort(), score: path.relative(ROOT, dir), autoplay: false });
  const engine = await openEngine(name).catch(async (err) => {
    await server.stop();
    throw err;
  });
  const load0 = os.loadavg()[0];
  /** @type {Awaited<ReturnType<typeof trial>>[]} */
  const results = [];
  try {
    for (let i = 0; i < trials; i++)
      for (const part of values.parts.split(',')) {
        const r = await trial({ engine, server, part, seconds, trace: values.trace });
        console.log(
          JSON.stringify({ trial: i + 1, ...r, series: r.series ? `${r.series.length} samples` : undefined }),
        );
        results.push(r);
      }
  } finally {
    await engine.close();
    await server.stop();
  }
  const videos = results.filter((r) => r.part === 'video');
  const images = results.filter((r) => r.part === 'image');
  const sum = (/** @type {typeof results} */ xs) => xs.reduce((a, r) => a + r.cpuMs, 0);
  const summary = {
    engine: name,
    seconds,
    video: { size: values.size, fps: Number(values.fps) },
    trials,
    load: [Math.round(load0 * 100) / 100, Math.round(os.loadavg()[0] * 100) / 100],
    driftP95Ms: videos.map((r) => r.driftMs?.p95),
    cpuVideoOverImage: images.length > 0 ? Math.round((sum(videos) / Math.max(1, sum(images))) * 100) / 100 : null,
    results,
  };
  console.log(
    `video part in ${name} over ${seconds} s (${trials} trials, load ${summary.load.join(' -> ')}): drift p95 ${summary.driftP95Ms.join(', ')} ms; browser CPU video/image ${summary.cpuVideoOverImage}x`,
  );
  mkdirSync(path.dirname(out), { recursive: true });
  writeFileSync(out, `${JSON.stringify(summary, null, 2)}\n`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}

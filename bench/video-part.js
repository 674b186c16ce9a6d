// Video parts (doc/score-format.md, "Video parts"): how far a video part's time is from the
// score's time over a run with a start, a seek and a pause, and what the page costs in CPU with
// a video part against an image part of the same piece, in the same run.
//
//   node bench/video-part.js [--seconds 60] [--trials 2] [--out bench/results/video-part.json]
//
// A package is made in a temporary folder: a 640x360 25 fps VP9/Opus video (ffmpeg) for the
// part `video`, and one PNG page with a beat map for the part `image`; both parts play the same
// meter. Each trial opens one Chromium page per part in turn (video, then image), plays for
// --seconds: a seek to a third of the way in, at half a pause of 2 s, then on. The drift is
// sampled in the page every 40 ms while the performance plays (video.currentTime against the
// page's synced score time: window.scorecast.video); the CPU is that of the whole browser (every
// process of it: the renderer, the GPU and the media decoders) from /proc, over the same span.
// Ratios within a run, as bench/RESULTS.md asks on a shared machine: the image part is the base.

import { parseArgs, promisify } from 'node:util';
import { execFile } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { chromium } from '@playwright/test';
import { CHROMIUM, quietArgs } from '../playwright/chromium.js';
import { freePort, startServer } from '../playwright/server.js';
import { cpuMs, parentPid } from './proc-stats.js';
import { quantileSorted as quantile } from '../core/stats.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const run = promisify(execFile);
const TEMPO = 120;
const PAGE = { width: 1000, height: 1400 };

/**
 * The bench's package: a video part and an image part of `seconds` + 10 s.
 * @param {number} seconds
 */
async function makePackage(seconds) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sc-video-bench-'));
  const length = seconds + 10;
  const bars = Math.ceil((length * TEMPO) / 60 / 4);
  mkdirSync(path.join(dir, 'video'));
  await run('ffmpeg', [
    ...['-hide_banner', '-loglevel', 'error', '-y'],
    ...['-f', 'lavfi', '-i', `testsrc2=size=640x360:rate=25:duration=${length}`],
    ...['-f', 'lavfi', '-i', `sine=frequency=440:beep_factor=4:duration=${length}`],
    ...['-c:v', 'libvpx-vp9', '-b:v', '400k', '-deadline', 'realtime', '-cpu-used', '8', '-g', '50'],
    ...['-c:a', 'libopus', '-b:a', '48k'],
    path.join(dir, 'video', 'guide.webm'),
  ]);
  await run('ffmpeg', [
    ...['-hide_banner', '-loglevel', 'error', '-y'],
    ...['-f', 'lavfi', '-i', `color=white:size=${PAGE.width}x${PAGE.height}`, '-frames:v', '1'],
    path.join(dir, 'page.png'),
  ]);
  // Ten systems of four bars on the page, the beats spread across each.
  const rows = ['beat,page,system,bar,x0,x1,y0,y1'];
  for (let b = 0; b < bars * 4; b++) {
    const bar = Math.floor(b / 4);
    const system = Math.floor(bar / 4) % 10;
    const x0 = 50 + (b % 16) * 56;
    rows.push(`${b},0,${system},${bar + 1},${x0},${x0 + 56},${60 + system * 130},${160 + system * 130}`);
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
      '  image: { files: [page.png], beatmap: image.csv }',
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

/** CPU ms of every Chromium process this bench started (the server, also a child, is not counted). */
function browserCpuMs() {
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
    if (cmd.includes('chromium')) for (const p of treeOf(pid)) sum += cpuMs(p) || 0;
  }
  return sum;
}

/**
 * One part played for `seconds` with a seek and a pause.
 * @param {object} o
 * @param {import('@playwright/test').Browser} o.browser
 * @param {Awaited<ReturnType<typeof startServer>>} o.server
 * @param {string} o.part
 * @param {number} o.seconds
 */
async function trial({ browser, server, part, seconds }) {
  await server.control('stop');
  const page = await browser.newPage({ viewport: { width: 768, height: 1024 } });
  await page.goto(`${server.base}/view/${part}`);
  if (part === 'video') {
    await page.waitForFunction(() => /** @type {any} */ (window).scorecast.video?.scoreTime === 0, null, {
      timeout: 30_000,
    });
  } else {
    await page.waitForSelector('div.sc-pane[data-state="ready"]', { timeout: 30_000 });
  }
  // The page's drift samples, kept in the page (nothing crosses to the bench while it plays).
  await page.evaluate(() => {
    const w = /** @type {any} */ (window);
    w.__drift = [];
    w.__sampler = setInterval(() => {
      const s = w.scorecast.video;
      if (s?.playing && s.scoreTime !== null) w.__drift.push(s.currentTime - s.scoreTime);
    }, 40);
  });
  const cpu0 = browserCpuMs();
  const t0 = performance.now();
  const sleep = (/** @type {number} */ ms) => new Promise((r) => setTimeout(r, ms));
  await server.control('play');
  await sleep((seconds * 1000) / 3);
  await server.control('seek', { bar: Math.round((seconds * TEMPO) / 60 / 4 / 3) + 4 });
  await sleep((seconds * 1000) / 6);
  await server.control('pause');
  await sleep(2000);
  await server.control('play');
  await sleep(Math.max(0, seconds * 1000 - (performance.now() - t0)));
  const cpu = browserCpuMs() - cpu0;
  const wall = performance.now() - t0;
  await server.control('pause');
  const drift = /** @type {number[]} */ (
    await page.evaluate(() => {
      const w = /** @type {any} */ (window);
      clearInterval(w.__sampler);
      return w.__drift;
    })
  );
  const status = await page.evaluate(() => /** @type {any} */ (window).scorecast.video);
  await page.close();
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
            max: Math.round(abs[abs.length - 1] * 10000) / 10,
          }
        : null,
    seeks: status?.seeks ?? null,
  };
}

async function main() {
  const { values } = parseArgs({
    options: {
      seconds: { type: 'string', default: '60' },
      trials: { type: 'string', default: '2' },
      out: { type: 'string', default: path.join(ROOT, 'bench', 'results', 'video-part.json') },
    },
  });
  const seconds = Number(values.seconds);
  const trials = Number(values.trials);
  const dir = await makePackage(seconds);
  const server = await startServer({ port: await freePort(), score: path.relative(ROOT, dir), autoplay: false });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: quietArgs() });
  const load0 = os.loadavg()[0];
  /** @type {Awaited<ReturnType<typeof trial>>[]} */
  const results = [];
  try {
    for (let i = 0; i < trials; i++)
      for (const part of ['video', 'image']) {
        const r = await trial({ browser, server, part, seconds });
        console.log(JSON.stringify({ trial: i + 1, ...r }));
        results.push(r);
      }
  } finally {
    await browser.close();
    await server.stop();
  }
  const videos = results.filter((r) => r.part === 'video');
  const images = results.filter((r) => r.part === 'image');
  const sum = (/** @type {typeof results} */ xs) => xs.reduce((a, r) => a + r.cpuMs, 0);
  const summary = {
    seconds,
    trials,
    load: [Math.round(load0 * 100) / 100, Math.round(os.loadavg()[0] * 100) / 100],
    driftP95Ms: videos.map((r) => r.driftMs?.p95),
    cpuVideoOverImage: Math.round((sum(videos) / Math.max(1, sum(images))) * 100) / 100,
    results,
  };
  console.log(
    `video part over ${seconds} s (${trials} trials, load ${summary.load.join(' -> ')}): drift p95 ${summary.driftP95Ms.join(', ')} ms; browser CPU video/image ${summary.cpuVideoOverImage}x`,
  );
  mkdirSync(path.dirname(values.out), { recursive: true });
  writeFileSync(values.out, `${JSON.stringify(summary, null, 2)}\n`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}

#!/usr/bin/env node
// PDF pages benchmark (`npm run bench:pdf`): a 20-page A4 part given as a PDF, against Verovio
// engraving a part of the same length, in the same run.
//
//   node bench/pdf-pages.js [--bars 1000] [--repeat 3] [--beats-ms 8000]
//
// The part: violin of bench/make-large-score.js (the other parts left out), engraved by Verovio
// with the part layout of server/package/engrave/options.js (A4, 7.2 mm staff); its pages are
// made into a PDF by rsvg-convert (librsvg2-bin), as a composer's program would export them.
// Cases, each the median of --repeat:
//   verovio   Verovio's engraving of the part in a worker thread at nice 10, as the server's
//             engraver runs it: loadData, every page's SVG and the timemap (the toolkit's
//             start-up, about 0.6 s, not counted)
//   cold      server/package/pdf/render-pdf.js into an empty cache: pdfinfo, pdfdetach, and
//             pdftoppm at both widths (1080 and 1600 px, side by side, at nice 10) for every page
//   warm      loadPackage of a package with that PDF whose renderings are in the cache (what a
//             restart or a reload costs), and renderPdf alone from the cache
// Also the size of every phone-width (1080 px) image, and the beat: a timer due every 100 ms on
// this thread (as server/performance/beat-grid.js schedules beats), its lateness while
// packages with that PDF load cold, one after another, against the same timer idle, in
// alternating windows of --beats-ms, as p99 and max, and their ratio; and while the package loads
// warm, one load after another (the load's own cost to the beat, without rendering).
// CPU time of both beside their wall times (Poppler's processes and the PDF helper's against
// Verovio's thread), which the machine's other load does not swell.
// Targets (PDF pages, the tracker's): cold <= 1.5x verovio; warm < 200 ms; each phone image < 150 KB; the
// beat's p99 lateness while loading within 1.5x of idle. Writes bench/out/pdf-pages.json.

import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { rm } from 'node:fs/promises';
import { Worker } from 'node:worker_threads';
import { makeLargeScore } from './make-large-score.js';
import { PART_LAYOUT } from '../server/package/engrave/options.js';
import { renderPdf } from '../server/package/pdf/render-pdf.js';
import { loadPackage } from '../server/package/load.js';
import { medianSorted, quantileSorted } from '../core/stats.js';
import { benchArgs } from './cli-args.js';

const BENCH = path.dirname(fileURLToPath(import.meta.url));
const OUT = path.join(BENCH, 'out');
const BEAT_MS = 100;

const { values } = benchArgs(import.meta.url, {
  options: {
    bars: { type: 'string', default: '1000' },
    repeat: { type: 'string', default: '3' },
    'beats-ms': { type: 'string', default: '8000' },
  },
});
const repeat = Number(values.repeat);
const windowMs = Number(values['beats-ms']);

const median = (/** @type {number[]} */ xs) => medianSorted([...xs].sort((a, b) => a - b));
const round = (/** @type {number} */ n, d = 1) => Math.round(n * 10 ** d) / 10 ** d;
const load = () => os.loadavg()[0].toFixed(1);

/** The violin part alone, as a one-part MusicXML score. */
function violinPart(/** @type {number} */ bars) {
  const xml = makeLargeScore({ bars });
  return xml
    .replace(/<score-part id="P(?!3")\d+">[\s\S]*?<\/score-part>/g, '')
    .replace(/<part id="P(?!3")\d+">[\s\S]*?<\/part>/g, '');
}

const tmp = mkdtempSync(path.join(os.tmpdir(), 'sc-bench-pdf-'));
mkdirSync(OUT, { recursive: true });
console.log(`bench:pdf  ${os.cpus().length} cores, load ${load()} at start`);

// Verovio: the baseline, and the pages that become the PDF. It runs as the server runs it: in a
// worker thread at nice 10 (server/package/engrave/worker.js), as pdftoppm runs at nice 10.
const VEROVIO_WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
try { require('node:os').setPriority(10); } catch {}
(async () => {
  const { default: createVerovioModule } = await import(workerData.module);
  const { VerovioToolkit } = await import(workerData.toolkit);
  const toolkit = new VerovioToolkit(await createVerovioModule());
  toolkit.setOptions(workerData.options);
  const ms = [];
  const cpu = [];
  let svgs = [];
  for (let i = 0; i < workerData.repeat; i++) {
    const t0 = performance.now();
    const c0 = process.threadCpuUsage();
    if (!toolkit.loadData(workerData.xml)) throw new Error('Verovio could not load the part');
    const pages = toolkit.getPageCount();
    svgs = [];
    for (let p = 1; p <= pages; p++) svgs.push(toolkit.renderToSVG(p));
    toolkit.renderToTimemap();
    ms.push(performance.now() - t0);
    const c = process.threadCpuUsage(c0);
    cpu.push((c.user + c.system) / 1000);
  }
  parentPort.postMessage({ ms, cpu, svgs });
})();
`;
const xml = violinPart(Number(values.bars));
const engraved = await new Promise((resolve, reject) => {
  const worker = new Worker(VEROVIO_WORKER, {
    eval: true,
    workerData: {
      module: import.meta.resolve('verovio/wasm'),
      toolkit: import.meta.resolve('verovio/esm'),
      options: { ...PART_LAYOUT },
      xml,
      repeat,
    },
  });
  worker.once('message', (m) => {
    resolve(m);
    worker.terminate();
  });
  worker.once('error', reject);
});
const {
  ms: verovioMs,
  cpu: verovioCpuMs,
  svgs,
} = /** @type {{ ms: number[], cpu: number[], svgs: string[] }} */ (engraved);
const svgFiles = svgs.map((svg, i) => {
  const file = path.join(tmp, `p${i + 1}.svg`);
  writeFileSync(file, svg);
  return file;
});
const pdfFile = path.join(tmp, 'part.pdf');
const A4 = ['-w', '210mm', '-h', '297mm', '--page-width', '210mm', '--page-height', '297mm'];
execFileSync('rsvg-convert', ['-f', 'pdf', ...A4, '-o', pdfFile, ...svgFiles]);
const bytes = readFileSync(pdfFile);
console.log(
  `part: ${values.bars} bars, ${svgs.length} A4 pages; PDF ${round(bytes.length / 1024, 0)} KiB; verovio ${round(median(verovioMs), 0)} ms (runs ${verovioMs.map((m) => round(m, 0)).join(', ')}), load ${load()}`,
);

/** utime + stime of a /proc/<pid>/stat line, and its parent's pid: fields 14, 15 and 4. */
function statTimes(/** @type {string} */ stat) {
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { ppid: Number(f[1]), ticks: Number(f[11]) + Number(f[12]), childTicks: Number(f[13]) + Number(f[14]) };
}

/**
 * CPU time of this process's children, in ms (clock ticks, 100 a second on Linux): those that
 * have ended and been waited for (/proc/self/stat's cutime and cstime) and those still running
 * (the PDF helper process, which outlives a render), with the children they have waited for
 * (pdfinfo, pdfdetach, pdftoppm, which the helper starts).
 */
function childCpuMs() {
  let ticks = statTimes(readFileSync('/proc/self/stat', 'utf8')).childTicks;
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const t = statTimes(readFileSync(`/proc/${pid}/stat`, 'utf8'));
      if (t.ppid === process.pid) ticks += t.ticks + t.childTicks;
    } catch {
      // ended meanwhile
    }
  }
  return ticks * 10;
}

// Cold renders, each into an empty cache. Also their CPU time (this process's threads, Poppler's
// processes and the PDF helper's), against Verovio's thread's: a measure that the
// machine's other load does not swell as it swells the wall time.
/** @type {number[]} */
const coldMs = [];
/** @type {number[]} */
const coldCpuMs = [];
/** @type {Awaited<ReturnType<typeof renderPdf>> | null} */
let rendered = null;
for (let i = 0; i < repeat; i++) {
  const cacheDir = path.join(tmp, `cold-${i}`);
  const t0 = performance.now();
  const p0 = process.cpuUsage();
  const k0 = childCpuMs();
  rendered = await renderPdf({ bytes, wanted: null, cacheDir });
  coldMs.push(performance.now() - t0);
  const p = process.cpuUsage(p0);
  coldCpuMs.push((p.user + p.system) / 1000 + childCpuMs() - k0);
  if (!rendered.ok) throw new Error(rendered.reason);
}
if (!rendered?.ok) throw new Error('no render');
const dir = rendered.value.dir;
const phone = rendered.value.pages.map((p) => statSync(path.join(dir, p.images[0].file)).size);
const tablet = rendered.value.pages.map((p) => statSync(path.join(dir, p.images[1].file)).size);
console.log(
  `cold render ${round(median(coldMs), 0)} ms (runs ${coldMs.map((m) => round(m, 0)).join(', ')}), ratio to verovio ${round(median(coldMs) / median(verovioMs), 2)}, load ${load()}`,
);
console.log(
  `CPU time: cold render ${round(median(coldCpuMs), 0)} ms, verovio ${round(median(verovioCpuMs), 0)} ms, ratio ${round(median(coldCpuMs) / median(verovioCpuMs), 2)}`,
);
console.log(
  `phone images (1080 px): max ${round(Math.max(...phone) / 1024)} KiB, median ${round(median(phone) / 1024)} KiB; tablet (1600 px): max ${round(Math.max(...tablet) / 1024)} KiB`,
);

// Warm: a package with that PDF, its renderings in the cache.
const pkgDir = path.join(tmp, 'pkg');
mkdirSync(pkgDir);
writeFileSync(path.join(pkgDir, 'part.pdf'), bytes);
writeFileSync(
  path.join(pkgDir, 'score.yaml'),
  'id: pdf-bench\ntitle: PDF bench\nbars: 1\nparts:\n  - { id: violin, name: Violin }\nmeter:\n  - { bar: 1, time: 4/4, tempo: 60 }\npages:\n  violin: { pdf: { file: part.pdf }, beatmap: violin.csv }\n',
);
writeFileSync(
  path.join(pkgDir, 'violin.csv'),
  `beat,page,system,bar,x0,x1,y0,y1\n${[0, 1, 2, 3].map((b) => `${b},0,0,1,${100 + b * 50},${150 + b * 50},100,140`).join('\n')}\n`,
);
const warmCache = path.join(tmp, 'cold-0');
await loadPackage(pkgDir, { cacheDir: warmCache });
/** @type {number[]} */
const warmMs = [];
/** @type {number[]} */
const warmRenderMs = [];
for (let i = 0; i < Math.max(5, repeat); i++) {
  let t0 = performance.now();
  await loadPackage(pkgDir, { cacheDir: warmCache });
  warmMs.push(performance.now() - t0);
  t0 = performance.now();
  await renderPdf({ bytes, wanted: null, cacheDir: warmCache });
  warmRenderMs.push(performance.now() - t0);
}
console.log(
  `warm: loadPackage ${round(median(warmMs))} ms (max ${round(Math.max(...warmMs))}), renderPdf from the cache ${round(median(warmRenderMs))} ms, load ${load()}`,
);

/**
 * Beats due every BEAT_MS on this thread for `ms`, while `work` runs (again and again) if given:
 * each beat's lateness past its due time.
 * @param {number} ms
 * @param {(() => Promise<unknown>) | null} work
 */
async function beats(ms, work) {
  /** @type {number[]} */
  const late = [];
  let loads = 0;
  let stop = false;
  const busy = (async () => {
    while (work && !stop) {
      await work();
      loads++;
    }
  })();
  await new Promise((resolve) => {
    const start = performance.now();
    let n = 1;
    const tick = () => {
      const now = performance.now();
      late.push(now - (start + n * BEAT_MS));
      n++;
      if (now - start >= ms) return resolve(undefined);
      setTimeout(tick, Math.max(0, start + n * BEAT_MS - performance.now()));
    };
    setTimeout(tick, BEAT_MS);
  });
  stop = true;
  await busy;
  return { late, loads };
}

/** @type {number[]} */
const idle = [];
/** @type {number[]} */
const loading = [];
/** @type {number[]} */
const warmLoading = [];
let loads = 0;
let warmLoads = 0;
let k = 0;
for (let round2 = 0; round2 < 2; round2++) {
  idle.push(...(await beats(windowMs, null)).late);
  const r = await beats(windowMs, async () => {
    const cacheDir = path.join(tmp, `beat-${k++}`);
    await loadPackage(pkgDir, { cacheDir });
    // Not rmSync: the beat's thread must not wait on the disk for the bench's own cleaning.
    await rm(cacheDir, { recursive: true, force: true });
  });
  loading.push(...r.late);
  loads += r.loads;
  // The same package loaded from the cache, again and again: what the load costs the beat without
  // any rendering (reading and checking the package and the cache's entry; the page images are
  // read at their first request, and an unchanged PDF is not read again).
  const w = await beats(windowMs, () => loadPackage(pkgDir, { cacheDir: warmCache }));
  warmLoading.push(...w.late);
  warmLoads += w.loads;
}
const stats = (/** @type {number[]} */ xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return {
    beats: s.length,
    p50: round(quantileSorted(s, 0.5), 2),
    p99: round(quantileSorted(s, 0.99), 2),
    max: round(s[s.length - 1], 2),
  };
};
const beatIdle = stats(idle);
const beatLoading = stats(loading);
const beatWarmLoading = stats(warmLoading);
const ratio = round(beatLoading.p99 / Math.max(beatIdle.p99, 0.5), 2);
const warmRatio = round(beatWarmLoading.p99 / Math.max(beatIdle.p99, 0.5), 2);
console.log(
  `beat lateness idle: p50 ${beatIdle.p50} ms, p99 ${beatIdle.p99} ms, max ${beatIdle.max} ms (${beatIdle.beats} beats)`,
);
console.log(
  `beat lateness while ${loads} cold loads of the PDF package ran: p50 ${beatLoading.p50} ms, p99 ${beatLoading.p99} ms, max ${beatLoading.max} ms (${beatLoading.beats} beats); p99 ratio ${ratio} (idle p99 floored at 0.5 ms), load ${load()}`,
);
console.log(
  `beat lateness while ${warmLoads} warm loads (from the cache, nothing rendered) ran: p50 ${beatWarmLoading.p50} ms, p99 ${beatWarmLoading.p99} ms, max ${beatWarmLoading.max} ms (${beatWarmLoading.beats} beats); p99 ratio ${warmRatio}`,
);

const result = {
  when: new Date().toISOString(),
  loadAverage: os.loadavg(),
  bars: Number(values.bars),
  pages: svgs.length,
  pdfBytes: bytes.length,
  verovioMs,
  coldMs,
  coldRatio: median(coldMs) / median(verovioMs),
  verovioCpuMs,
  coldCpuMs,
  coldCpuRatio: median(coldCpuMs) / median(verovioCpuMs),
  warmLoadMs: warmMs,
  warmRenderMs,
  phoneImageBytes: phone,
  tabletImageBytes: tablet,
  beatIdle,
  beatLoading,
  beatP99Ratio: ratio,
  loads,
  beatWarmLoading,
  beatWarmP99Ratio: warmRatio,
  warmLoads,
};
writeFileSync(path.join(OUT, 'pdf-pages.json'), `${JSON.stringify(result, null, 2)}\n`);
rmSync(tmp, { recursive: true, force: true });
const ok = result.coldRatio <= 1.5 && median(warmMs) < 200 && Math.max(...phone) < 150 * 1024 && ratio <= 1.5;
console.log(ok ? 'targets met' : 'a target missed (see above)');

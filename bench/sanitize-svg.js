#!/usr/bin/env node
// What cleaning an SVG page costs (server/package/svg/sanitize.js): on real Verovio-engraved
// pages of the demo (the full score's first page and a part's), against two baselines measured
// in the same run: Verovio rendering the same page (renderToSVG, what the engraving pipeline
// already spends on it) and jsdom reading and writing the page as XML (the floor of any
// DOM-based cleaning). Then the whole batch as the loader runs it, in a worker thread (worker
// start included), with the longest event-loop stall of the calling thread meanwhile, against
// cleaning the same pages on that thread.
//
//   node bench/sanitize-svg.js [--repeat 15]

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { JSDOM } from 'jsdom';
import { loadPackage } from '../server/package/load.js';
import { closeEngraver } from '../server/package/engrave/index.js';
import { scoreLayout } from '../server/package/engrave/options.js';
import { sanitizeSvg } from '../server/package/svg/sanitize.js';
import { sanitizeSvgPages } from '../server/package/svg/sanitize-pages.js';
import { median } from './latency-stats.js';
import { benchArgs } from './cli-args.js';

// By a computed name, as server/package/engrave/worker.js does: a static import makes tsc check
// Verovio's 7 MB emscripten bundle.
const VEROVIO = { module: 'verovio/wasm', toolkit: 'verovio/esm' };

const { values } = benchArgs(import.meta.url, { options: { repeat: { type: 'string', default: '15' } } });
const REPEAT = Number(values.repeat);

/**
 * Median wall time of `fn` over REPEAT runs, after one warm-up run.
 * @param {() => unknown} fn
 */
function time(fn) {
  fn();
  const ms = [];
  for (let i = 0; i < REPEAT; i++) {
    const t0 = performance.now();
    fn();
    ms.push(performance.now() - t0);
  }
  return median(ms);
}

const cacheDir = mkdtempSync(path.join(os.tmpdir(), 'sc-bench-sanitize-'));
try {
  const demo = await loadPackage('scores/demo', { cacheDir });
  const source = readFileSync(path.join(demo.dir, /** @type {{ file: string }} */ (demo.model.notation).file), 'utf8');
  const [{ default: createVerovioModule }, { VerovioToolkit }] = await Promise.all([
    import(VEROVIO.module),
    import(VEROVIO.toolkit),
  ]);
  /** @type {import('../server/package/engrave/tasks.js').Toolkit} */
  const tk = new VerovioToolkit(await createVerovioModule());
  const { window } = new JSDOM('');
  const roundTrip = (/** @type {string} */ text) =>
    new window.XMLSerializer().serializeToString(
      new window.DOMParser().parseFromString(text, 'image/svg+xml').documentElement,
    );

  console.log(
    `Node ${process.version}, ${os.cpus().length} cores, load average ${os.loadavg()[0].toFixed(1)} at the start, median of ${REPEAT} runs\n`,
  );
  console.log(
    '| page | size | clean (sanitizeSvg) | Verovio renderToSVG | clean / render | XML parse + write | clean / parse + write |',
  );
  console.log(
    '|------|------|---------------------|---------------------|----------------|-------------------|------------------------|',
  );
  for (const [view, layout] of /** @type {const} */ ([
    ['score', scoreLayout(4)],
    ['violin1', null],
  ])) {
    const served = demo.files.get(demo.views[view].pages[0].url);
    const text = readFileSync(/** @type {{ file: string }} */ (served).file, 'utf8');
    const clean = time(() => sanitizeSvg(text));
    const parse = time(() => roundTrip(text));
    // Parts are engraved from an extracted MEI (server/package/engrave/parts.js): only the full score's
    // page is rendered here from the source, as the pipeline does.
    let render = NaN;
    if (view === 'score') {
      tk.setOptions(/** @type {Record<string, unknown>} */ (layout));
      tk.loadData(source);
      render = time(() => tk.renderToSVG(1));
    }
    const r = (/** @type {number} */ n, /** @type {string} */ unit = ' ms') =>
      Number.isFinite(n) ? `${n.toFixed(unit ? 1 : 2)}${unit}` : '–';
    console.log(
      `| ${view} 1 | ${(text.length / 1024).toFixed(0)} KB | ${r(clean)} | ${r(render)} | ${r(clean / render, '')} | ${r(parse)} | ${r(clean / parse, '')} |`,
    );
  }

  const pages = Object.values(demo.views)
    .flatMap((v) => v.pages)
    .map((p) => readFileSync(/** @type {{ file: string }} */ (demo.files.get(p.url)).file));
  const kb = pages.reduce((n, p) => n + p.length, 0) / 1024;
  /**
   * Wall time of `fn`, and the longest gap between ticks of a 1 ms timer meanwhile (work done on
   * this thread shows as one long gap).
   * @param {() => Promise<unknown> | unknown} fn
   */
  const stall = async (fn) => {
    let last = performance.now();
    let longest = 0;
    const tick = setInterval(() => {
      const now = performance.now();
      longest = Math.max(longest, now - last);
      last = now;
    }, 1);
    await new Promise((r) => setTimeout(r, 20));
    const t0 = performance.now();
    await fn();
    const ms = performance.now() - t0;
    await new Promise((r) => setTimeout(r, 20));
    clearInterval(tick);
    return { ms, stallMs: longest };
  };
  const inThread = await stall(() => pages.map((p) => sanitizeSvg(p.toString('utf8'))));
  const inWorker = await stall(() => sanitizeSvgPages(pages));
  console.log(`\nThe demo's ${pages.length} engraved pages (${kb.toFixed(0)} KB), once each:\n`);
  console.log('| how | wall time | longest event-loop stall of the calling thread |');
  console.log('|-----|-----------|-------------------------------------------------|');
  console.log(`| on the calling thread | ${inThread.ms.toFixed(0)} ms | ${inThread.stallMs.toFixed(0)} ms |`);
  console.log(
    `| sanitizeSvgPages (worker, start included) | ${inWorker.ms.toFixed(0)} ms | ${inWorker.stallMs.toFixed(0)} ms |`,
  );
  const again = await stall(() => sanitizeSvgPages(pages));
  console.log(
    `| sanitizeSvgPages again (cached by content) | ${again.ms.toFixed(1)} ms | ${again.stallMs.toFixed(0)} ms |`,
  );
  console.log(`\nload average ${os.loadavg()[0].toFixed(1)} at the end`);
} finally {
  await closeEngraver();
  rmSync(cacheDir, { recursive: true, force: true });
}

#!/usr/bin/env node
// A musician's phone opening a part view for the first time (a fresh browser context: no
// localStorage, no cache, no service worker) on a slow network: how long from navigation to the
// notation drawn (the first pane with its line in it, and the layout it is in), with the page's
// `scorecast:notation` mark (the view mounted: for a part drawn in a layout it fetches after, before
// anything is drawn) and `scorecast:first-render` (the first state) beside it, and when the
// page's script was in (its last script's responseEnd); and the requests it made for the view's
// notation description (`/api/score/views/<view>`, with their start). The latency is Chromium's
// own emulation (Network.emulateNetworkConditions), added to every request.
//
//   node bench/part-first-visit.js [--root DIR] [--runs 9] [--latency 150] [--view violin1]
//                                  [--size 390x844] [--label NAME]
//
// --root: the checkout whose server and built client are measured (default this one; build it
// first: npm run build); the demo score is engraved there with every layout first (`scorecast
// check`), as the browser tests do, so that the phone's narrow layout is served at once. Prints
// one line a load and the medians. Run it under flock /tmp/bench.lock on a shared machine, the
// two sides interleaved.

import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from '@playwright/test';
import { forkServer } from '../artillery/lib/server.js';
import { freePort } from '../server/lib/ports.js';
import { CHROMIUM, quietArgs } from '../playwright/chromium.js';
import { median } from './latency-stats.js';
import { benchArgs } from './cli-args.js';

const HERE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values } = benchArgs(import.meta.url, {
  options: {
    root: { type: 'string', default: HERE },
    runs: { type: 'string', default: '9' },
    latency: { type: 'string', default: '150' },
    view: { type: 'string', default: 'violin1' },
    size: { type: 'string', default: '390x844' },
    label: { type: 'string', default: '' },
  },
});
const root = path.resolve(values.root);
const runs = Number(values.runs);
const latency = Number(values.latency);
const [width, height] = values.size.split('x').map(Number);
const label = values.label || path.basename(root);

execFileSync(process.execPath, [path.join(root, 'server', 'commands', 'cli.js'), 'check', 'scores/demo'], {
  cwd: root,
  stdio: 'ignore',
  timeout: 120_000,
});
const port = await freePort();
const server = await forkServer({
  root,
  args: ['--port', String(port), '--host', '127.0.0.1', '--score', 'scores/demo', '--autoplay', '--log-level', 'warn'],
  env: { SCORECAST_TOKEN: `bench-${port}`, SCORECAST_RESUME: '0' },
});
const browser = await chromium.launch({ executablePath: CHROMIUM, args: quietArgs() });
/** @typedef {{ notation: number, ready: number, layout: string, firstRender: number, script: number, requests: string, asked: number }} Load */
/** @type {Load[]} */
const loads = [];
try {
  for (let i = 0; i < runs; i++) {
    const context = await browser.newContext({ serviceWorkers: 'block', viewport: { width, height } });
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency,
      downloadThroughput: -1,
      uploadThroughput: -1,
    });
    let asked = 0;
    page.on('request', (r) => {
      if (new URL(r.url()).pathname.startsWith('/api/score/views/')) asked++;
    });
    // The first moment a pane shows its line, and the layout it is drawn in.
    await page.addInitScript(() => {
      new MutationObserver((_, observer) => {
        if (!document.querySelector('div.sc-pane[data-role="active"][data-state="ready"]')) return;
        observer.disconnect();
        performance.mark('bench:ready', { detail: document.getElementById('notation')?.dataset.layout });
      }).observe(document, { subtree: true, attributes: true, childList: true });
    });
    await page.goto(`${server.url}/view/${encodeURIComponent(values.view)}`);
    const marks = /** @type {Omit<Load, 'asked'>} */ (
      await page.evaluate(
        () =>
          new Promise((resolve) => {
            const check = () => {
              const at = (/** @type {string} */ n) => performance.getEntriesByName(n)[0];
              const ready = /** @type {PerformanceMark | undefined} */ (at('bench:ready'));
              const notation = at('scorecast:notation')?.startTime;
              if (notation === undefined || !ready) return setTimeout(check, 20);
              const views = performance
                .getEntriesByType('resource')
                .filter((e) => new URL(e.name).pathname.startsWith('/api/score/views/'));
              resolve({
                notation,
                ready: ready.startTime,
                layout: String(ready.detail),
                firstRender: at('scorecast:first-render')?.startTime ?? Number.NaN,
                script: Math.max(
                  ...performance
                    .getEntriesByType('resource')
                    .filter((e) => /** @type {PerformanceResourceTiming} */ (e).initiatorType === 'script')
                    .map((e) => /** @type {PerformanceResourceTiming} */ (e).responseEnd),
                ),
                requests: views
                  .map((e) => `${new URL(e.name).search || '(default)'} ${e.startTime.toFixed(0)}`)
                  .join(', '),
              });
            };
            check();
          }),
      )
    );
    const load = { ...marks, asked };
    loads.push(load);
    console.log(
      `${label} load ${i + 1}: notation mark ${load.notation.toFixed(0)} ms, pane ready ${load.ready.toFixed(0)} ms (${load.layout}), first state ${load.firstRender.toFixed(0)} ms, script in ${load.script.toFixed(0)} ms, ${asked} description request(s): ${load.requests}`,
    );
    await context.close();
  }
} finally {
  await browser.close();
  await server.stop();
}
const med = (/** @type {(l: typeof loads[number]) => number} */ f) => median(loads.map(f)).toFixed(0);
console.log(
  `${label}: ${runs} first visits at ${width}x${height}, ${latency} ms latency: notation mark median ${med((l) => l.notation)} ms, pane ready median ${med((l) => l.ready)} ms (${Math.min(...loads.map((l) => l.ready)).toFixed(0)}-${Math.max(...loads.map((l) => l.ready)).toFixed(0)}), first state median ${med((l) => l.firstRender)} ms, script in median ${med((l) => l.script)} ms, description requests ${[...new Set(loads.map((l) => l.asked))].join('/')}`,
);

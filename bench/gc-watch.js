// Preloaded into a benchmark's server (`node --import ./bench/gc-watch.js`, bench/heap-probe.js
// --gc): counts its garbage collections by kind, with their total pause and the V8 heap spaces,
// into $GC_WATCH_DIR/gc-PID.json every second, for the probe to read before and after its window.

import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { PerformanceObserver, constants } from 'node:perf_hooks';
import v8 from 'node:v8';

const dir = process.env.GC_WATCH_DIR;
if (dir) {
  /** @type {Record<string, string>} */
  const KINDS = {
    [constants.NODE_PERFORMANCE_GC_MINOR]: 'scavenge',
    [constants.NODE_PERFORMANCE_GC_MAJOR]: 'mark-compact',
    [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
    [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weak',
  };
  /** @type {Record<string, { n: number, ms: number }>} */
  const gc = {};
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      const kind = KINDS[/** @type {any} */ (e).detail?.kind] ?? 'other';
      const k = (gc[kind] ??= { n: 0, ms: 0 });
      k.n++;
      k.ms += e.duration;
    }
  }).observe({ entryTypes: ['gc'] });
  const file = path.join(dir, `gc-${process.pid}.json`);
  setInterval(() => {
    /** @type {Record<string, number>} */
    const spaces = {};
    for (const s of v8.getHeapSpaceStatistics()) spaces[s.space_name] = s.space_size;
    writeFileSync(file, JSON.stringify({ gc, spaces, mem: process.memoryUsage() }));
  }, 1000).unref();
}

// A fixed piece of work, timed inside a server (`node --import ./bench/work-probe.js`, which
// bench/cluster.js --probe adds to the one process and every cluster node). This machine's
// virtual CPUs have no performance counters (`perf stat -e instructions,cycles` reports them not
// supported), so whether two processes pay the same price for the same instructions is measured
// here instead: four times a second each probed process runs the same instructions, once on
// registers alone and once chasing pointers through 256 KB (the size of a core's L2 half over),
// and times each on the monotonic clock. The median run costing more in one process than in
// another, in the same seconds, is the same work made dearer there (caches refilled after other
// processes ran, a core shared), not more work. The clock, not the thread's CPU time: Linux
// brings a running thread's CPU time (getrusage, schedstat) up to date only at a tick or a
// switch, so a 50 µs run read that way shows 0 or the milliseconds before it; a run that loses
// its core part way lasts longer by the wall clock, and the median leaves it out.
//
// The totals go to SCORECAST_PROBE_DIR/<pid>.json once a second: { runs, computeUs, memoryUs,
// recent }, recent holding the last 240 runs as [ms since the epoch, compute µs, memory µs]. A
// reader takes the median of the runs in its window: a run that V8 interrupts (a GC step asked
// for at a loop's back edge) or that outlasts a slice is an outlier, not the price of the work.

import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { isMainThread } from 'node:worker_threads';

const DIR = process.env.SCORECAST_PROBE_DIR;
const SLOTS = 1 << 16; // 65,536 Uint32: 256 KB
const STEPS = 20_000;
const SPINS = 200_000;

/**
 * One cycle through every slot in a random order (Sattolo's shuffle), so that each step's load
 * depends on the last and the prefetcher cannot guess it.
 * @param {number} n
 */
function cycle(n) {
  const next = new Uint32Array(n);
  for (let i = 0; i < n; i++) next[i] = i;
  let seed = 0x9e3779b9;
  for (let i = n - 1; i > 0; i--) {
    seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
    const j = seed % i;
    const t = next[i];
    next[i] = next[j];
    next[j] = t;
  }
  return next;
}

/** @param {Uint32Array} next @param {number} steps */
function chase(next, steps) {
  let at = 0;
  for (let k = 0; k < steps; k++) at = next[at];
  return at;
}

/**
 * Register-only work whose values stay small integers: a loop whose sum can pass 2^31 (as
 * `Math.imul(x, c) + k` does) is deoptimized by Maglev on the overflow, and which tier it then runs
 * in varies from process to process (medians 290 or 1,300 µs for the same loop, helper h30p):
 * it timed V8's choice, not the machine.
 * @param {number} spins
 */
function spin(spins) {
  let x = 1;
  for (let k = 0; k < spins; k++) x = (x * 5 + k) & 0xffff;
  return x;
}

/** The monotonic clock in µs. */
const nowUs = () => Number(process.hrtime.bigint()) / 1000;

// A server's worker threads (engraving, SVG cleaning) load it too: only the event loop's thread runs it.
if (DIR && isMainThread) {
  const next = cycle(SLOTS);
  const totals = { runs: 0, computeUs: 0, memoryUs: 0 };
  /** @type {[number, number, number][]} */
  const recent = [];
  let sink = 0;
  const file = path.join(DIR, `${process.pid}.json`);
  setInterval(() => {
    const t0 = nowUs();
    sink ^= spin(SPINS);
    const t1 = nowUs();
    sink ^= chase(next, STEPS);
    const t2 = nowUs();
    totals.runs++;
    totals.computeUs += t1 - t0;
    totals.memoryUs += t2 - t1;
    recent.push([Date.now(), t1 - t0, t2 - t1]);
    if (recent.length > 240) recent.shift();
    if (totals.runs % 4 === 0) writeFileSync(file, JSON.stringify({ ...totals, recent, sink: sink & 1 }));
  }, 250).unref();
}

// The trace summary of bench/sync.js --trace: each page's renderer found by its mark, its main
// thread's CPU by kind of work (thread time, not wall time) and its raster workers'.

import { describe, it, expect } from 'vitest';
import { summarize } from '../../bench/landing-trace.js';

describe('landing trace summary', () => {
  it("sums each page's main-thread CPU by kind and its raster CPU, found by the page's mark", () => {
    const events = [
      { name: 'bench-page-0', cat: 'blink.user_timing', ph: 'R', pid: 10, tid: 10, ts: 1_000_000 },
      { name: 'bench-page-1', cat: 'blink.user_timing', ph: 'R', pid: 20, tid: 20, ts: 1_000_000 },
      { name: 'RunTask', ph: 'X', pid: 10, tid: 10, ts: 1_100_000, dur: 30_000, tdur: 5_000 },
      { name: 'Paint', ph: 'X', pid: 10, tid: 10, ts: 1_100_000, dur: 20_000, tdur: 3_000 },
      { name: 'Paint', ph: 'X', pid: 10, tid: 11, ts: 1_100_000, dur: 20_000, tdur: 3_000 },
      { name: 'RasterTask', ph: 'X', pid: 10, tid: 12, ts: 1_100_000, dur: 9_000, tdur: 2_000 },
      { name: 'RunTask', ph: 'X', pid: 20, tid: 20, ts: 3_500_000, dur: 1_000, tdur: 1_000 },
      { name: 'RunTask', ph: 'X', pid: 30, tid: 30, ts: 1_100_000, dur: 1_000, tdur: 1_000 },
    ];
    const s = summarize(events, 2);
    expect(s.seconds).toBe(2.5);
    expect(s.pages[0]).toMatchObject({ wall: 30, raster: 2 });
    expect(s.pages[0].cpu).toMatchObject({ RunTask: 5, Paint: 3, Layout: 0 });
    expect(s.pages[1].cpu.RunTask).toBe(1);
  });
});

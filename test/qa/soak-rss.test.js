// The soak's memory rule: RSS growth is counted from when the server is warm.

import { describe, expect, it } from 'vitest';
import { soakRssOf } from '../../artillery/lib/soak.js';

const MB = 2 ** 20;
const T0 = 1_800_000_000_000;

/**
 * One sample every 5 s for `minutes`: phase, RSS and history from the given functions of the minute.
 * @param {number} minutes @param {number} warmupMin
 * @param {(m: number) => number} rssMb @param {(m: number) => number} history
 */
function samples(minutes, warmupMin, rssMb, history) {
  const out = [];
  for (let s = 0; s <= minutes * 60; s += 5) {
    const m = s / 60;
    out.push({
      ts: T0 + s * 1000,
      phase: m < warmupMin ? 'warmup' : 'measured',
      serverProc: { rss: rssMb(m) * MB },
      server: { historyDeltas: history(m) },
    });
  }
  return out;
}

/** 80 bpm: the 512-delta history is full at 6.4 min. */
const filling = (/** @type {number} */ m) => Math.min(512, Math.floor(m * 80));

describe('soak RSS rule', () => {
  it('counts from when the history is full, so filling a bounded buffer is not growth', () => {
    // RSS rises with the history, then holds.
    const r = soakRssOf(samples(60, 5, (m) => 130 + (30 * Math.min(m, 6.4)) / 6.4, filling));
    expect(r.historyFullAt).toBe(T0 + Math.ceil((6.4 * 60) / 5) * 5000);
    expect(r.baselineFrom).toBe(r.historyFullAt);
    expect(r.growthPct).toBeCloseTo(0, 5);
  });

  it('still finds growth after the history is full', () => {
    const r = soakRssOf(samples(60, 5, (m) => 150 + 0.5 * m, filling));
    // from ~153.5 MB (first minute after 6.4 min) to ~179.5 MB (last minute)
    expect(r.growthPct).toBeGreaterThan(15);
    expect(r.growthPct).toBeLessThan(18);
  });

  it('a run too short for the history to fill compares from the end of the warm-up', () => {
    const r = soakRssOf(samples(6, 2, (m) => 100 + m, filling));
    expect(r.baselineFrom).toBe(T0 + 120_000);
    expect(r.historyFilled).toBe(false);
    expect(r.growthPct).toBeGreaterThan(2);
  });

  it('without history samples (an older server) it counts from the end of the warm-up', () => {
    const r = soakRssOf(
      samples(
        20,
        5,
        () => 120,
        () => 0,
      ),
    );
    expect(r.historyFullAt).toBeNull();
    expect(r.baselineFrom).toBe(T0 + 300_000);
    expect(r.growthPct).toBe(0);
  });
});

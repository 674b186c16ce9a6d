import { describe, expect, it } from 'vitest';
import { joinFigures, packClick, packReading, replayRun, seriesFigures } from '../../infra/audio-lab/readings.js';
import { createOutputCompensation } from '../../client/src/sound/audio-latency.js';
import { contextBehind } from '../../infra/audio-lab/lab.js';

/**
 * A page as the lab records it: its mapping's every reading, and the clicks it placed (a beat
 * every 650 ms, 500 ms ahead), on a device whose timestamps are `wrong(t)` ms off.
 * @param {(t: number) => number} wrong
 */
function recordedPage(wrong) {
  const page = { t: 0 };
  /** @type {any[]} */
  const readings = [];
  const ctx = {
    get currentTime() {
      return 5 + page.t / 1000;
    },
    outputLatency: 0.032,
    baseLatency: 0.01,
    getOutputTimestamp: () => ({ contextTime: 5 + (page.t - 40 + wrong(page.t)) / 1000, performanceTime: page.t }),
  };
  const out = createOutputCompensation();
  /** @type {any[]} */
  const clicks = [];
  for (page.t = 0; page.t < 20_000; page.t += 650) {
    const when = out.contextTimeFor(ctx, page.t + 500, page.t);
    const map = out.trace;
    readings.push(packReading({ ...map, now: page.t, currentTime: ctx.currentTime, baseLatency: 0.01 }));
    clicks.push(packClick({ serverT: 1000 + page.t + 500, when, local: page.t + 500, map }));
  }
  // The sound as it came out: the truth is 40 ms behind the context's clock, so an onset's offset
  // is where the mapping put it less that.
  const series = clicks.map((c) => ({ page: 0, t: Math.round(c[0]), offset: (c[1] - 5) * 1000 - (c[2] - 40) }));
  return { soundSince: 1000, readings, clicks, series };
}

describe('the audio lab kept readings, replayed', () => {
  it("moves each onset by what this checkout's mapping moves its click, and leaves out what it would not play", () => {
    // As run, the mapping took the newest (wrong) timestamp for the first second: 45 ms early.
    const p = recordedPage((t) => (t < 1000 ? 45 : 0));
    const run = { series: p.series, pagesRaw: [p] };
    expect(Math.max(...p.series.map((x) => Math.abs(x.offset)))).toBeGreaterThan(40);
    const r = replayRun(run);
    // Replayed through today's mapping: silent until trusted, then on time.
    expect(r.silenced).toBeGreaterThan(3);
    expect(r.replayed + r.silenced).toBe(p.series.length);
    expect(seriesFigures(r.series).offsetMs.max).toBeLessThan(0.5);
    const rows = (/** @type {typeof p.series} */ s) => s.map((x) => ({ page: x.page, beat: x.t, offset: x.offset }));
    const before = joinFigures(rows(p.series), [p]);
    const after = joinFigures(rows(r.series), [p]);
    expect(before.perPage[0].firstHeardS).toBeLessThan(1);
    expect(before.first10s.max).toBeGreaterThan(40);
    expect(after.perPage[0].firstHeardS).toBeGreaterThan(2.5);
    expect(after.first10s.max).toBeLessThan(0.5);
  });

  it('moves the clicks already placed when the output steps before they sound, as the page now does', () => {
    // The output steps 20 ms later at 10 s, timestamps and sound alike. The page as run placed each
    // click 600 ms ahead and left it there; its status report reads the output every 250 ms.
    const page = { t: 0 };
    const step = (/** @type {number} */ t) => (t >= 10_000 ? 20 : 0);
    const ctx = {
      get currentTime() {
        return 5 + page.t / 1000;
      },
      outputLatency: 0.032,
      baseLatency: 0.01,
      getOutputTimestamp: () => ({ contextTime: 5 + (page.t - 40 - step(page.t)) / 1000, performanceTime: page.t }),
    };
    const out = createOutputCompensation();
    /** @type {any[]} */
    const readings = [];
    /** @type {any[]} */
    const clicks = [];
    for (page.t = 0; page.t < 20_000; page.t += 250) {
      if (page.t % 1000 === 0) {
        const when = out.contextTimeFor(ctx, page.t + 600, page.t);
        clicks.push(packClick({ serverT: 1000 + page.t + 600, when, local: page.t + 600, map: out.trace }));
      } else out.describe(ctx, page.t);
      readings.push(packReading({ ...out.trace, now: page.t, currentTime: ctx.currentTime, baseLatency: 0.01 }));
    }
    // Heard where the context's clock met the speaker then: 40 ms behind, 60 from 10 s on.
    const heard = (/** @type {number} */ when) => {
      const p = (when - 5) * 1000 + 40;
      return p >= 10_000 ? p + 20 : p;
    };
    const series = clicks.map((c) => ({ page: 0, t: Math.round(c[0]), offset: heard(c[1]) - c[2] }));
    const late = series.filter((x) => x.offset > 10).map((x) => x.t - 1000);
    // As run: the clicks placed before the page had followed the step came 20 ms late.
    expect(late.length).toBeGreaterThanOrEqual(1);
    const r = replayRun({ series, pagesRaw: [{ soundSince: 1000, readings, clicks }] });
    // Replayed: those placed before the step but sounding after it was followed moved with it.
    const after = new Map(r.series.map((x) => [x.t - 1000, x.offset]));
    const moved = late.filter((t) => Math.abs(/** @type {number} */ (after.get(t))) < 1);
    expect(moved.length).toBeGreaterThanOrEqual(1);
    expect(Math.max(...r.series.map((x) => Math.abs(x.offset)))).toBeLessThanOrEqual(20.5);
  });

  it("tells how far a page's context clock fell behind its page clock over the measurement", () => {
    // Readings every 500 ms; the context loses 8 ms a second (a starved audio thread) from 10 s on.
    const lost = (/** @type {number} */ t) => (t > 10_000 ? (t - 10_000) * 0.008 : 0);
    const readings = [];
    for (let t = 0; t <= 60_000; t += 500)
      readings.push(packReading({ now: t, currentTime: 5 + (t - lost(t)) / 1000 }));
    expect(contextBehind(readings, 0, 8_000)).toBeCloseTo(0, 6);
    expect(contextBehind(readings, 10_000, 60_000)).toBeCloseTo(382 - 18, 0); // the middle of the last ten less that of the first ten
    expect(contextBehind(readings.slice(0, 10), 0, 60_000)).toBeNull(); // too few to say
  });
});

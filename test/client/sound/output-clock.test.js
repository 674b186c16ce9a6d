import { readFileSync } from 'node:fs';
import { describe, it, expect } from 'vitest';
import {
  createHeldMapping,
  repeatedMedianLine,
  HOLD_WINDOW_MS,
  REMAP_STEP_MS,
  STEP_READINGS,
  TRUST_WITHIN_MS,
} from '../../../client/src/sound/output-clock.js';
import { createOutputCompensation } from '../../../client/src/sound/audio-latency.js';

/**
 * An audio device whose clock drifts from the page's by `ppm` and whose output is `delayMs`
 * behind what is rendered; its timestamps (Chromium's: rendered frames minus the delay the audio
 * server reports) read `swell(t)` ms more delay than there is, and its outputLatency reads that
 * delay too (as the audio lab saw: 32-40 ms, then 48-64 ms for 5-10 s, the timestamp falling by
 * as much, the sound unmoved); `jump(t)` ms is a real step of the sound (the device took frames:
 * the timestamp moves, the reported delay does not); `report(t)` ms moves the reported delay
 * alone; `wrong(t)` ms is a timestamp that is plainly off (a context's first ones: 20-70 ms ahead
 * of the later ones for up to a second in the audio lab). A callback every 10 ms.
 * @param {{ ppm: number, delayMs?: number, swell?: (t: number) => number, jump?: (t: number) => number,
 *   report?: (t: number) => number, wrong?: (t: number) => number }} o
 */
function device({ ppm, delayMs = 40, swell = () => 0, jump = () => 0, report = () => 0, wrong = () => 0 }) {
  /** Context time (s) the speaker plays at page time t (ms): the truth. */
  const heard = (/** @type {number} */ t) => (10_000 + t * (1 + ppm / 1e6) - delayMs - jump(t)) / 1000;
  const page = { t: 0 };
  // The last callback, 0-10 ms ago (a pattern that never lines up with the readings).
  const callback = () => page.t - ((page.t * 7.3) % 10);
  const ctx = {
    get currentTime() {
      return heard(page.t) + delayMs / 1000;
    },
    get outputLatency() {
      const at = callback();
      return (delayMs + swell(at) + report(at)) / 1000;
    },
    baseLatency: 0,
    getOutputTimestamp() {
      const at = callback();
      return { contextTime: heard(at) + (wrong(at) - swell(at)) / 1000, performanceTime: at };
    },
  };
  return { ctx, page, heard };
}

/**
 * Clicks every 650 ms for 90 s, each placed 500 ms ahead: each one's error (ms) at its page time.
 * @param {ReturnType<typeof device>} d
 */
function clickErrors({ ctx, page, heard }) {
  const out = createOutputCompensation();
  /** @type {Array<{ t: number, error: number }>} */
  const errors = [];
  for (page.t = 1000; page.t < 90_000; page.t += 650) {
    const when = out.contextTimeFor(ctx, page.t + 500, page.t);
    errors.push({ t: page.t + 500, error: (when - heard(page.t + 500)) * 1000 });
  }
  return errors;
}

describe('repeatedMedianLine', () => {
  it('a line through points, whatever a third of them say', () => {
    const pts = Array.from({ length: 30 }, (_, i) => ({ t: i * 100, y: 5 + 0.002 * i * 100 }));
    for (const i of [3, 4, 5, 11, 12, 20, 21, 22, 23, 29]) pts[i] = { ...pts[i], y: pts[i].y - 25 };
    const line = repeatedMedianLine(pts);
    expect(line.slope).toBeCloseTo(0.002, 9);
    expect(line.y0 + line.slope * (0 - line.t0)).toBeCloseTo(5, 9);
  });
});

describe('the held output mapping', () => {
  it('follows an audio clock drifting 500 ppm either way: each sound within 0.05 ms of the speaker once the line stands', () => {
    for (const ppm of [500, -500, 0]) {
      const { ctx, page, heard } = device({ ppm });
      const out = createOutputCompensation();
      let first = 0;
      let worst = 0;
      // A click every 600 ms for 2 minutes, each placed 500 ms ahead.
      for (page.t = 1000; page.t < 121_000; page.t += 600) {
        const when = out.contextTimeFor(ctx, page.t + 500, page.t);
        const error = Math.abs(when - heard(page.t + 500)) * 1000;
        if (page.t < 5000) first = Math.max(first, error);
        else worst = Math.max(worst, error);
      }
      // The first seconds, on the newest timestamp alone: the drift over the 500-510 ms ahead.
      expect(first, `${ppm} ppm`).toBeLessThan(0.3);
      expect(worst, `${ppm} ppm`).toBeLessThan(0.05);
    }
  });

  it("does not follow the reported delay's swells (25 ms for 8 s, 15 ms for 6 s), on a clock drifting 370 ppm: sounds stay within 0.5 ms, where the newest timestamp alone put them 25 ms early", () => {
    // As the audio lab saw a page at load 30 (output-clock.js); a swell that lasts more than half
    // the window is taken for a change of route, and followed.
    const swell = (/** @type {number} */ t) => (t > 30_000 && t < 38_000 ? 25 : t > 60_000 && t < 66_000 ? 15 : 0);
    const { ctx, page, heard } = device({ ppm: 370, swell });
    const out = createOutputCompensation();
    let worst = 0;
    let freshWorst = 0;
    for (page.t = 1000; page.t < 90_000; page.t += 650) {
      const when = out.contextTimeFor(ctx, page.t + 500, page.t);
      worst = Math.max(worst, Math.abs(when - heard(page.t + 500)) * 1000);
      const ts = ctx.getOutputTimestamp();
      const fresh = ts.contextTime + (page.t + 500 - ts.performanceTime) / 1000;
      freshWorst = Math.max(freshWorst, Math.abs(fresh - heard(page.t + 500)) * 1000);
    }
    expect(freshWorst).toBeGreaterThan(24);
    expect(worst).toBeLessThan(0.5);
  });

  it('follows a real step of the sound (12 ms, then 5 ms back) within a few readings, where the held line kept the old level 10-15 s', () => {
    // The audio lab's loopback run: a page's onsets stepped 12 ms and the line held them late
    // until its median flipped; here the step comes with the reported delay swelling at its edge
    // (16 ms for 2 s, as there), which alone must not be followed.
    const jump = (/** @type {number} */ t) => (t > 40_000 ? 12 : 0) - (t > 65_000 ? 5 : 0);
    const swell = (/** @type {number} */ t) => (t > 38_500 && t < 40_500 ? 16 : 0);
    const errors = clickErrors(device({ ppm: 300, jump, swell }));
    // Clicks placed before the step sound before it is seen; from STEP_READINGS + 1 readings on
    // (a click a beat ahead of the third departing reading), each within a millisecond.
    const settled = (/** @type {number} */ from) =>
      errors.filter((e) => e.t > from + (STEP_READINGS + 2) * 650 && e.t < from + 25_000);
    for (const from of [40_000, 65_000]) {
      expect(settled(from).length).toBeGreaterThan(30);
      for (const e of settled(from)) expect(Math.abs(e.error), `${e.t}`).toBeLessThan(1);
    }
    // Before the step, the swell at its edge held.
    for (const e of errors.filter((x) => x.t > 5000 && x.t < 40_000)) expect(Math.abs(e.error)).toBeLessThan(0.5);
  });

  it('follows a jump of the output whole (62 ms, the reported delay 8 ms up with it), not by the smaller departure', () => {
    // The audio lab: the output jumped 62 ms later and outputLatency read 40 ms from 32. The
    // timestamp plus the delay moved 54 ms: taken as the step, it left the clicks 8 ms late for 15 s.
    const jump = (/** @type {number} */ t) => (t > 40_000 ? 62 : 0);
    const report = (/** @type {number} */ t) => (t > 40_000 ? 8 : 0);
    const errors = clickErrors(device({ ppm: 300, jump, report }));
    const settled = errors.filter((e) => e.t > 40_000 + (STEP_READINGS + 2) * 650 && e.t < 60_000);
    expect(settled.length).toBeGreaterThan(20);
    for (const e of settled) expect(Math.abs(e.error), `${e.t}`).toBeLessThan(1);
  });

  it('holds when only the reported delay moves (8 ms up for 20 s, the timestamp and the sound unmoved)', () => {
    const report = (/** @type {number} */ t) => (t > 30_000 && t < 50_000 ? 8 : 0);
    const errors = clickErrors(device({ ppm: -200, report }));
    for (const e of errors.filter((x) => x.t > 5000)) expect(Math.abs(e.error)).toBeLessThan(0.5);
  });

  it('follows a change that stays (a longer route) within half its window, and a step (a suspended context) at once', () => {
    const m = createHeldMapping();
    let t = 0;
    for (; t < 20_000; t += 500) m.add((10_000 + t) / 1000, t);
    expect(m.offsetAt(t)).toBeCloseTo(10_000, 6);
    // The speaker 30 ms further behind from now on.
    let followedAfter = Number.POSITIVE_INFINITY;
    for (const start = t; t < start + HOLD_WINDOW_MS; t += 500) {
      m.add((10_000 + t - 30) / 1000, t);
      if (Math.abs(/** @type {number} */ (m.offsetAt(t)) - (10_000 - 30)) < 0.5) {
        followedAfter = Math.min(followedAfter, t - start);
      }
    }
    expect(followedAfter).toBeLessThanOrEqual(HOLD_WINDOW_MS / 2 + 1000);
    expect(m.restarts).toBe(0);
    // The context stood still 2 s (suspended): the next reading is the mapping.
    m.add((10_000 + t - 30 - 2000) / 1000, t);
    expect(m.restarts).toBe(1);
    expect(m.offsetAt(t)).toBeNull();
    expect(REMAP_STEP_MS).toBeLessThan(2000);
  });

  it.each([
    // Timestamps wandering in 5-7 ms steps over the join: with every held reading moved by each
    // step (those that had departed too), 65 steps in 150 s, the line 1.6 ms off at p50, 5.5 at most.
    ['output-readings-page.json'],
    // The first readings 65 ms above the later ones: the line formed at -25 ms/s and held -6 ms/s
    // through its steps (MAX_SLOPE), 2-13 ms off its readings all run.
    ['output-readings-join.json'],
  ])("a page's recorded join leaves the line on its readings once it is over (%s)", (file) => {
    // A Chromium page's output readings from a 10-page lab run (fixture: page ms, offset ms,
    // outputLatency ms). Once the join was over its sound followed a steady line within 1 ms.
    const { readings } = JSON.parse(readFileSync(new URL(`../../fixtures/audio-lab/${file}`, import.meta.url), 'utf8'));
    const m = createHeldMapping();
    /** @type {number[]} */
    const off = [];
    for (const [t, y, ol] of readings) {
      m.add((100_000 + t + y) / 1000, 100_000 + t, ol);
      if (t > 40_000) off.push(Math.abs(y - /** @type {number} */ (m.offsetAt(100_000 + t))));
    }
    off.sort((a, b) => a - b);
    expect(m.steps).toBeLessThan(20);
    expect(off[Math.floor(off.length / 2)]).toBeLessThan(0.5);
    expect(off[Math.floor(off.length * 0.9)]).toBeLessThan(2.5);
    expect(off.at(-1)).toBeLessThan(3.5);
  });

  it('the newest timestamp alone until five readings span 3 s; a new context starts afresh', () => {
    const a = device({ ppm: 0 });
    const out = createOutputCompensation();
    a.page.t = 1000;
    expect(out.contextTimeFor(a.ctx, 1500, 1000)).toBeCloseTo(a.heard(1500), 9);
    for (a.page.t = 1000; a.page.t < 10_000; a.page.t += 600) out.contextTimeFor(a.ctx, a.page.t, a.page.t);
    // Another context (the page made a new one) whose speaker is 100 ms further behind.
    const b = device({ ppm: 0, delayMs: 140 });
    b.page.t = a.page.t;
    expect(out.contextTimeFor(b.ctx, b.page.t + 500, b.page.t)).toBeCloseTo(b.heard(b.page.t + 500), 9);
    expect(out.describe(b.ctx, b.page.t).seconds).toBeCloseTo(0.14, 2);
  });
});

describe('a joining page: silent until its output mapping is trusted', () => {
  it("a context's first timestamps 45 ms off for 0.9 s: no sound placed until the line stands on the good ones (about 3-4 s), then each within 0.5 ms", () => {
    const d = device({ ppm: 400, wrong: (t) => (t < 900 ? 45 : 0) });
    const out = createOutputCompensation();
    /** @type {number[]} */
    const placed = [];
    let firstAt = Number.NaN;
    // The page asks at each state (a beat every 650 ms) and in between (its reports).
    for (d.page.t = 0; d.page.t < 40_000; d.page.t += 325) {
      if (!out.ready(d.ctx, d.page.t)) continue;
      if (Number.isNaN(firstAt)) firstAt = d.page.t;
      const when = out.contextTimeFor(d.ctx, d.page.t + 500, d.page.t);
      placed.push(Math.abs(when - d.heard(d.page.t + 500)) * 1000);
    }
    expect(firstAt).toBeGreaterThanOrEqual(3000);
    expect(firstAt).toBeLessThan(4500);
    expect(Math.max(...placed)).toBeLessThan(0.5);
  });

  it('readings that never agree (the reported delay swelling all along): sound after TRUST_WITHIN_MS at most', () => {
    const d = device({ ppm: 0, swell: (t) => (Math.floor(t / 650) % 2) * 9 });
    const out = createOutputCompensation();
    let firstAt = Number.NaN;
    for (d.page.t = 0; d.page.t < 20_000 && Number.isNaN(firstAt); d.page.t += 325)
      if (out.ready(d.ctx, d.page.t)) firstAt = d.page.t;
    expect(firstAt).toBeGreaterThanOrEqual(TRUST_WITHIN_MS);
    expect(firstAt).toBeLessThan(TRUST_WITHIN_MS + 1000);
  });

  it('a mapping that keeps restarting before it is trusted is used after TRUST_WITHIN_MS from its first reading all the same', () => {
    const m = createHeldMapping();
    let firstAt = Number.NaN;
    // Readings 5 ms either side of their line by turns (never trusted; one kept per 650 ms), the
    // line 100 ms on every 4 s (a restart each time).
    for (let t = 0; t < 30_000 && Number.isNaN(firstAt); t += 325) {
      const y = (Math.floor(t / 650) % 2 ? 5 : -5) + Math.floor(t / 4000) * 100;
      m.add((t + y) / 1000, t);
      if (m.trustedAt(t)) firstAt = t;
    }
    expect(m.restarts).toBeGreaterThan(0);
    expect(firstAt).toBeGreaterThanOrEqual(TRUST_WITHIN_MS);
    expect(firstAt).toBeLessThan(TRUST_WITHIN_MS + 1000);
  });

  it('a context that came back (its clock 2 s behind: a new mapping) is silent again until trusted; no timestamps at all: the currentTime line, trusted as soon', () => {
    const d = device({ ppm: 0 });
    const out = createOutputCompensation();
    for (d.page.t = 0; d.page.t < 10_000; d.page.t += 325) out.ready(d.ctx, d.page.t);
    expect(out.ready(d.ctx, d.page.t)).toBe(true);
    const back = device({ ppm: 0, jump: () => 2000 });
    Object.defineProperty(d.ctx, 'currentTime', { get: () => back.ctx.currentTime });
    d.ctx.getOutputTimestamp = () => {
      back.page.t = d.page.t;
      return back.ctx.getOutputTimestamp();
    };
    expect(out.ready(d.ctx, d.page.t)).toBe(false);
    const bare = device({ ppm: 0 });
    const c = /** @type {any} */ (bare.ctx);
    delete c.getOutputTimestamp;
    const out2 = createOutputCompensation();
    let firstAt = Number.NaN;
    for (bare.page.t = 0; bare.page.t < 10_000 && Number.isNaN(firstAt); bare.page.t += 325)
      if (out2.ready(c, bare.page.t)) firstAt = bare.page.t;
    expect(firstAt).toBeLessThan(4500);
  });
});

describe('trust: why the mapping holds sounds back, read without taking a reading', () => {
  it("a page's recorded join: settling until the line stands, then trusted; asking changes nothing", () => {
    // The fixture above (output-readings-join.json): the first readings 65 ms above the later ones.
    const { readings } = JSON.parse(
      readFileSync(new URL('../../fixtures/audio-lab/output-readings-join.json', import.meta.url), 'utf8'),
    );
    const asked = createHeldMapping();
    const left = createHeldMapping();
    /** @type {string[]} */
    const whys = [];
    for (const [t, y, ol] of readings) {
      for (const m of [asked, left]) m.add((100_000 + t + y) / 1000, 100_000 + t, ol);
      // Asked again and again between readings, as a page polling it would.
      for (let k = 0; k < 5; k++) {
        const now = 100_000 + t + k * 50;
        const trust = asked.trust(now);
        expect(trust.trusted).toBe(asked.trustedAt(now));
        if (whys.at(-1) !== trust.why) whys.push(trust.why);
      }
      expect(asked.offsetAt(100_000 + t)).toBe(left.offsetAt(100_000 + t));
    }
    expect(whys).toEqual(['settling', 'trusted']);
    expect([asked.readings, asked.restarts, asked.steps]).toEqual([left.readings, left.restarts, left.steps]);
  });

  it("readings that restart the window (a context that came back): 'stepped' until the new line is trusted", () => {
    const m = createHeldMapping();
    let t = 0;
    for (; t < 6000; t += 500) m.add((10_000 + t) / 1000, t);
    expect(m.trust(t)).toEqual({ trusted: true, why: 'trusted' });
    // The context stood still 2 s: a new mapping, no longer trusted.
    const from = t;
    m.add((10_000 + t - 2000) / 1000, t);
    expect(m.trust(t)).toEqual({ trusted: false, why: 'stepped' });
    for (t += 500; !m.trust(t).trusted; t += 500) {
      expect(m.trust(t).why).toBe('stepped');
      m.add((10_000 + t - 2000) / 1000, t);
    }
    expect(m.trust(t)).toEqual({ trusted: true, why: 'trusted' });
    expect(t - from).toBeLessThan(TRUST_WITHIN_MS);
  });

  it("readings that never agree: 'settling', then used as they are ('waited') after TRUST_WITHIN_MS", () => {
    const m = createHeldMapping();
    /** @type {Array<[number, string]>} */
    const changes = [];
    for (let t = 0; t < 12_000; t += 325) {
      // 5 ms either side of their line by turns (one kept per 650 ms).
      m.add((t + (Math.floor(t / 650) % 2 ? 5 : -5)) / 1000, t);
      const { why } = m.trust(t);
      if (changes.at(-1)?.[1] !== why) changes.push([t, why]);
    }
    expect(changes.map(([, why]) => why)).toEqual(['settling', 'waited']);
    expect(changes[1][0]).toBeGreaterThanOrEqual(TRUST_WITHIN_MS);
    expect(changes[1][0]).toBeLessThan(TRUST_WITHIN_MS + 500);
  });
});

describe('the output compensation: trust beside ready', () => {
  it('agrees with ready at every moment of a join (first timestamps 45 ms off), and takes no reading itself', () => {
    const d = device({ ppm: 400, wrong: (t) => (t < 900 ? 45 : 0) });
    const out = createOutputCompensation();
    // Before any reading of this context.
    expect(out.trust(d.ctx, 0)).toEqual({ trusted: false, why: 'settling' });
    let read = 0;
    const { getOutputTimestamp } = d.ctx;
    d.ctx.getOutputTimestamp = () => {
      read += 1;
      return getOutputTimestamp.call(d.ctx);
    };
    /** @type {string[]} */
    const whys = [];
    for (d.page.t = 0; d.page.t < 10_000; d.page.t += 325) {
      const ready = out.ready(d.ctx, d.page.t);
      const before = read;
      const trust = out.trust(d.ctx, d.page.t);
      expect(read).toBe(before);
      expect(trust.trusted).toBe(ready);
      if (whys.at(-1) !== trust.why) whys.push(trust.why);
    }
    // The first timestamp, at page time 0, is not on the page's clock (performanceTime 0, like
    // Chromium's first after a resume): that reading went to the currentTime line.
    expect(whys).toEqual(['no-timestamps', 'settling', 'trusted']);
    expect(out.readingsSince().length).toBe(read);
    // Another context, never read: its mapping is still to form.
    expect(out.trust(device({ ppm: 0 }).ctx, d.page.t)).toEqual({ trusted: false, why: 'settling' });
  });

  it("no timestamps on the page's clock: 'no-timestamps' while the currentTime line forms; an output never read: 'unmeasured'", () => {
    const bare = device({ ppm: 0 });
    const c = /** @type {any} */ (bare.ctx);
    delete c.getOutputTimestamp;
    const out = createOutputCompensation();
    /** @type {string[]} */
    const whys = [];
    for (bare.page.t = 0; bare.page.t < 6000; bare.page.t += 325) {
      out.ready(c, bare.page.t);
      const { why } = out.trust(c, bare.page.t);
      if (whys.at(-1) !== why) whys.push(why);
    }
    expect(whys).toEqual(['no-timestamps', 'trusted']);
    expect(createOutputCompensation({ readOutput: false }).trust(c, 0)).toEqual({ trusted: true, why: 'unmeasured' });
  });
});

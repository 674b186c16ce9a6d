import { describe, it, expect } from 'vitest';
import {
  createOutputCompensation,
  outputReadsMayHang,
  reportedLatency,
  tapAlongOffset,
  FALLBACK_OUTPUT_LATENCY_S,
  OFFSET_KEY,
  MAX_OFFSET_MS,
  SLOW_OUTPUT_MS,
  slowOutputNotice,
} from '../../../client/src/sound/audio-latency.js';

/**
 * An AudioContext stand-in at page time `page.t` (ms): currentTime is page time / 1000 + 50;
 * the speaker plays `latency` s behind it.
 * @param {{ t: number }} page
 * @param {{ outputLatency?: number, baseLatency?: number, timestamp?: boolean }} o
 */
function context(page, { outputLatency, baseLatency = 0, timestamp = false }) {
  const latency = (outputLatency ?? 0) + baseLatency;
  return {
    get currentTime() {
      return 50 + page.t / 1000;
    },
    outputLatency,
    baseLatency,
    ...(timestamp
      ? { getOutputTimestamp: () => ({ contextTime: 50 + page.t / 1000 - latency, performanceTime: page.t }) }
      : {}),
  };
}

/** A localStorage stand-in. */
function storage(/** @type {Record<string, string>} */ init = {}) {
  const m = new Map(Object.entries(init));
  return {
    getItem: (/** @type {string} */ k) => m.get(k) ?? null,
    setItem: (/** @type {string} */ k, /** @type {string} */ v) => {
      m.set(k, v);
    },
    m,
  };
}

describe('output latency compensation', () => {
  it('a sound for 500 ms from now starts earlier by what the browser reports: 3, 40 and 200 ms', () => {
    const page = { t: 1000 };
    for (const ms of [3, 40, 200]) {
      const ctx = context(page, { outputLatency: ms / 1000, baseLatency: 0.005 });
      const out = createOutputCompensation();
      expect(out.contextTimeFor(ctx, 1500, page.t)).toBeCloseTo(ctx.currentTime + 0.5 - ms / 1000 - 0.005, 9);
      expect(out.describe(ctx, page.t)).toEqual({ source: 'reported', seconds: ms / 1000 + 0.005, offsetMs: 0 });
    }
  });

  it('getOutputTimestamp, where the browser has it, gives the same start without counting the delay twice', () => {
    const page = { t: 1000 };
    for (const ms of [3, 40, 200]) {
      const reported = createOutputCompensation().contextTimeFor(
        context(page, { outputLatency: ms / 1000 }),
        1500,
        page.t,
      );
      const ctx = context(page, { outputLatency: ms / 1000, timestamp: true });
      expect(createOutputCompensation().contextTimeFor(ctx, 1500, page.t)).toBeCloseTo(reported, 9);
      expect(createOutputCompensation().describe(ctx, page.t)).toMatchObject({ source: 'timestamp' });
      expect(createOutputCompensation().describe(ctx, page.t).seconds).toBeCloseTo(ms / 1000, 9);
    }
  });

  it("a timestamp off the page's clock (ahead of it, or stale) is not used: the reported latency is", () => {
    const page = { t: 10_000 };
    const reported = context(page, { outputLatency: 0.04 });
    const want = createOutputCompensation().contextTimeFor(reported, 10_500, page.t);
    // WebKitGTK 2.50: performanceTime runs at twice performance.now(); a stopped output's is old.
    for (const performanceTime of [2 * page.t, page.t + 60, page.t - 1500]) {
      const ctx = {
        ...reported,
        getOutputTimestamp: () => ({ contextTime: reported.currentTime - 0.04, performanceTime }),
      };
      const out = createOutputCompensation();
      expect(out.contextTimeFor(ctx, 10_500, page.t)).toBeCloseTo(want, 9);
      expect(out.describe(ctx, page.t)).toEqual({ source: 'reported', seconds: 0.04, offsetMs: 0 });
    }
    // Chromium's lags now by a few ms: used.
    const chromium = {
      ...reported,
      getOutputTimestamp: () => ({ contextTime: reported.currentTime - 0.048, performanceTime: page.t - 8 }),
    };
    expect(createOutputCompensation().describe(chromium, page.t)).toMatchObject({ source: 'timestamp' });
    expect(createOutputCompensation().describe(chromium, page.t).seconds).toBeCloseTo(0.04, 9);
  });

  it('an outputLatency of 0 (WebKitGTK 2.50: no output has none) is not a report: the 40 ms fallback', () => {
    const page = { t: 1000 };
    const ctx = context(page, { outputLatency: 0, baseLatency: 0.0029 });
    expect(reportedLatency(ctx)).toEqual({ seconds: 0.0029 + FALLBACK_OUTPUT_LATENCY_S, source: 'fallback' });
    const out = createOutputCompensation();
    expect(out.contextTimeFor(ctx, 1500, page.t)).toBeCloseTo(
      ctx.currentTime + 0.5 - 0.0029 - FALLBACK_OUTPUT_LATENCY_S,
      9,
    );
    expect(out.describe(ctx, page.t)).toMatchObject({ source: 'fallback' });
  });

  it('currentTime read in a render burst (WebKitGTK: 60 ms ahead one read in five) moves no sound: the line of its readings maps', () => {
    // The context's clock runs 100 ppm fast against the page's; a read in a burst finds currentTime
    // 60 ms further on (as the audio lab measured WebKitGTK 2.50 doing).
    const page = { t: 0, n: 0 };
    const steady = (/** @type {number} */ t) => 7 + (t * (1 + 100e-6)) / 1000;
    const ctx = {
      get currentTime() {
        return steady(page.t) + (page.n % 5 === 4 ? 0.06 : 0);
      },
      outputLatency: 0.03,
      baseLatency: 0,
    };
    const out = createOutputCompensation();
    /** @type {number[]} */
    const errors = [];
    for (page.n = 0, page.t = 1000; page.t < 20_000; page.n += 1, page.t += 625) {
      const at = out.contextTimeFor(ctx, page.t + 600, page.t);
      if (page.t > 5000) errors.push(Math.abs(at - (steady(page.t + 600) - 0.03)) * 1000);
    }
    // Each sound where the steady clock puts it, to a small part of a millisecond, the burst
    // reads included (mapped afresh, those came 60 ms late).
    expect(Math.max(...errors)).toBeLessThan(0.05);
    expect(errors.length).toBeGreaterThan(20);
  });

  it('currentTime that stood still (a starved audio thread: 30 ms; a suspended context: 2 s) is the mapping at once', () => {
    for (const stall of [30, 2000]) {
      const page = { t: 1000 };
      let stood = 0;
      const ctx = {
        get currentTime() {
          return 7 + (page.t - stood) / 1000;
        },
        baseLatency: 0,
      };
      const out = createOutputCompensation();
      for (; page.t < 12_000; page.t += 500) out.contextTimeFor(ctx, page.t + 500, page.t);
      stood = stall;
      expect(out.contextTimeFor(ctx, page.t + 500, page.t)).toBeCloseTo(
        ctx.currentTime + 0.5 - FALLBACK_OUTPUT_LATENCY_S,
        9,
      );
    }
  });

  it('no outputLatency (Safari before 18.4): the 40 ms fallback', () => {
    const page = { t: 0 };
    expect(reportedLatency(context(page, {}))).toEqual({ seconds: FALLBACK_OUTPUT_LATENCY_S, source: 'fallback' });
    expect(reportedLatency({ currentTime: 0, outputLatency: Number.NaN, baseLatency: -1 })).toEqual({
      seconds: FALLBACK_OUTPUT_LATENCY_S,
      source: 'fallback',
    });
  });

  it('readOutput false (Firefox on desktop Linux) never touches outputLatency or getOutputTimestamp: the 40 ms fallback, the offset on top', () => {
    const page = { t: 2000 };
    /** @type {string[]} */
    const touched = [];
    const ctx = {
      get currentTime() {
        return 50 + page.t / 1000;
      },
      baseLatency: 0.005,
      get outputLatency() {
        touched.push('outputLatency');
        return 0.2;
      },
      getOutputTimestamp() {
        touched.push('getOutputTimestamp');
        return { contextTime: 50 + page.t / 1000 - 0.2, performanceTime: page.t };
      },
    };
    const out = createOutputCompensation({ readOutput: false, storage: storage({ [OFFSET_KEY]: '30' }) });
    expect(out.contextTimeFor(ctx, 2500, page.t)).toBeCloseTo(
      ctx.currentTime + 0.5 - 0.005 - FALLBACK_OUTPUT_LATENCY_S - 0.03,
      9,
    );
    expect(out.describe(ctx, page.t)).toEqual({
      source: 'fallback',
      seconds: 0.005 + FALLBACK_OUTPUT_LATENCY_S,
      offsetMs: 30,
    });
    expect(touched).toEqual([]);
  });

  it('every reading of the output, whoever takes it, is told to the watchers: where a page time now lands', () => {
    const page = { t: 1000 };
    const ctx = context(page, { outputLatency: 0.04, timestamp: true });
    const out = createOutputCompensation();
    /** @type {Array<{ ctx: unknown, at: (local: number) => number }>} */
    const told = [];
    const stop = out.onMapping((m) => {
      told.push(m);
      // A watcher that asks for a context time itself is not told again from inside.
      out.contextTimeFor(ctx, page.t + 500, page.t);
    });
    for (; page.t <= 5000; page.t += 500) out.describe(ctx, page.t);
    expect(told.length).toBe(9); // once per reading, not again from inside
    expect(told.every((m) => m.ctx === ctx)).toBe(true);
    const last = /** @type {(typeof told)[number]} */ (told.at(-1));
    stop();
    // The speaker plays 40 ms behind currentTime: the same start contextTimeFor gives.
    expect(last.at(page.t + 500)).toBeCloseTo(out.contextTimeFor(ctx, page.t + 500, page.t), 9);
    expect(last.at(page.t + 500)).toBeCloseTo(ctx.currentTime + 0.5 - 0.04, 6);
    expect(told.length).toBe(9); // none told once stopped
    // readOutput false: currentTime read afresh each time, nothing to follow, no one told.
    const fallback = createOutputCompensation({ readOutput: false });
    let calls = 0;
    fallback.onMapping(() => {
      calls += 1;
    });
    fallback.describe(ctx, page.t);
    expect(calls).toBe(0);
  });

  it('outputReadsMayHang: Firefox on desktop Linux only', () => {
    const ua = {
      firefoxLinux: 'Mozilla/5.0 (X11; Linux x86_64; rv:153.0) Gecko/20100101 Firefox/153.0',
      firefoxAndroid: 'Mozilla/5.0 (Android 15; Mobile; rv:153.0) Gecko/153.0 Firefox/153.0',
      firefoxMac: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10.15; rv:153.0) Gecko/20100101 Firefox/153.0',
      chromeLinux:
        'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Safari/537.36',
      webkitGtk:
        'Mozilla/5.0 (X11; Ubuntu; Linux x86_64) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Safari/605.1.15',
      iphone:
        'Mozilla/5.0 (iPhone; CPU iPhone OS 18_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) FxiOS/140.0 Mobile/15E148 Safari/605.1.15',
    };
    expect(Object.fromEntries(Object.entries(ua).map(([k, v]) => [k, outputReadsMayHang(v)]))).toEqual({
      firefoxLinux: true,
      firefoxAndroid: false,
      firefoxMac: false,
      chromeLinux: false,
      webkitGtk: false,
      iphone: false,
    });
  });

  it("the device's calibration offset starts sounds earlier still, and is kept for the next visit", () => {
    const page = { t: 1000 };
    const ctx = context(page, { outputLatency: 0.04 });
    const kept = storage();
    const out = createOutputCompensation({ storage: kept });
    const before = out.contextTimeFor(ctx, 1500, page.t);
    out.setOffset(80);
    expect(out.contextTimeFor(ctx, 1500, page.t)).toBeCloseTo(before - 0.08, 9);
    expect(kept.m.get(OFFSET_KEY)).toBe('80');
    expect(createOutputCompensation({ storage: kept }).offsetMs).toBe(80);
    expect(() => out.setOffset(MAX_OFFSET_MS + 1)).toThrow(/within ±1000/);
    expect(() => out.setOffset(Number.NaN)).toThrow(RangeError);
    // A kept value that is not one is ignored.
    expect(createOutputCompensation({ storage: storage({ [OFFSET_KEY]: 'loud' }) }).offsetMs).toBe(0);
  });
});

describe('tapAlongOffset', () => {
  it('the median lateness of taps near the clicks; too few taps measure nothing', () => {
    const clicks = [1000, 1600, 2200, 2800, 3400, 4000];
    const taps = [1085, 1672, 2290, 2881, 3478, 9000];
    expect(tapAlongOffset(clicks, taps)).toBe(81);
    expect(tapAlongOffset(clicks, [1080, 1680, 2280])).toBeNull();
  });
});

describe('slowOutputNotice', () => {
  it('tells the player when the output is over 100 ms behind (a Bluetooth headset), not before', () => {
    const page = { t: 1000 };
    const out = createOutputCompensation();
    const bluetooth = out.describe(context(page, { timestamp: true, outputLatency: 0.14, baseLatency: 0.01 }), page.t);
    expect(slowOutputNotice(bluetooth)).toMatch(/150 ms behind \(Bluetooth\?\)/);
    const wired = out.describe(context(page, { timestamp: true, outputLatency: 0.035, baseLatency: 0.01 }), page.t);
    expect(slowOutputNotice(wired)).toBeNull();
    expect(slowOutputNotice({ source: 'reported', seconds: SLOW_OUTPUT_MS / 1000, offsetMs: 0 })).toBeNull();
    expect(slowOutputNotice({ source: 'reported', seconds: 0.101, offsetMs: 0 })).toMatch(/101 ms/);
  });

  it("counts the device's calibration offset: a headset the browser under-reports is flagged once calibrated", () => {
    const fallback = { source: /** @type {const} */ ('fallback'), seconds: 0.04, offsetMs: 0 };
    expect(slowOutputNotice(fallback)).toBeNull();
    expect(slowOutputNotice({ ...fallback, offsetMs: 120 })).toMatch(/160 ms/);
  });
});

import { describe, it, expect } from 'vitest';
import { createTapAlong, TAP_CLICKS, TAP_EVERY_MS } from '../../../client/src/sound/tap-along.js';
import { createOutputCompensation } from '../../../client/src/sound/audio-latency.js';
import { FakeClock } from '../fakes.js';

/** An AudioContext stand-in that records when each click starts. */
function clickContext(/** @type {FakeClock} */ page) {
  /** @type {number[]} */
  const starts = [];
  const node = () => ({ connect: (/** @type {any} */ n) => n });
  return {
    starts,
    state: 'running',
    get currentTime() {
      return page.now() / 1000;
    },
    outputLatency: 0.04,
    destination: {},
    createOscillator: () => ({
      ...node(),
      frequency: { value: 0 },
      start: (/** @type {number} */ w) => starts.push(w),
      stop() {},
    }),
    createGain: () => ({ ...node(), gain: { setValueAtTime() {}, exponentialRampToValueAtTime() {} } }),
  };
}

describe('tap-along calibration', () => {
  it("clicks through the compensated path; taps 90 ms late raise the device's offset by 90 ms", async () => {
    const page = new FakeClock();
    page.t = 5000;
    const ctx = clickContext(page);
    /** @type {Map<string, (e: any) => void>} */
    const listeners = new Map();
    const target = {
      addEventListener: (/** @type {string} */ t, /** @type {any} */ fn) => listeners.set(t, fn),
      removeEventListener: (/** @type {string} */ t) => listeners.delete(t),
    };
    const output = createOutputCompensation();
    const run = createTapAlong({ getContext: () => ctx, output, now: page.now, target, timers: page })();
    expect(ctx.starts).toHaveLength(TAP_CLICKS);
    // Each click starts 40 ms (the reported output latency) before it is meant to be heard.
    const heard = ctx.starts.map((w) => w * 1000 + 40);
    expect(heard[1] - heard[0]).toBeCloseTo(TAP_EVERY_MS, 6);
    for (const h of heard) {
      page.advance(h + 90 - page.now());
      listeners.get('keydown')?.({ timeStamp: page.now() });
    }
    page.advance(5000);
    expect(await run).toEqual({ measuredMs: 90, offsetMs: 90 });
    expect(listeners.size).toBe(0);
  });

  it('before the join tap there is no sound to calibrate', async () => {
    const page = new FakeClock();
    const run = createTapAlong({
      getContext: () => null,
      output: createOutputCompensation(),
      now: page.now,
      target: { addEventListener() {}, removeEventListener() {} },
      timers: page,
    });
    expect(await run()).toMatchObject({ error: expect.stringMatching(/Join/) });
  });
});

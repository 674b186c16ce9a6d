import { describe, it, expect } from 'vitest';
import {
  createFrameScheduler,
  DEFAULT_FRAME_MS,
  FALLBACK_MS,
  WAKE_AHEAD_MS,
  PROMPT_STREAK,
} from '../../../client/src/time/frame-scheduler.js';
import { createBeatClock } from '../../../client/src/time/beat-clock.js';
import { FakeClock } from '../fakes.js';

/**
 * A page on a display with frames every `period` ms starting at `phase`, whose timers fire
 * `lateness` ms late (a busy main thread) and whose frame callbacks run `cbDelay` ms into the
 * frame. `visible: false`: no frames at all (a hidden tab). `trustByFrame`: a page with no frame
 * loop between changes (a part view).
 * @param {{ period?: number, phase?: number, lateness?: number, cbDelay?: number, visible?: boolean, every?: number, trustByFrame?: boolean }} [o]
 */
function display({
  period = DEFAULT_FRAME_MS,
  phase = 0,
  lateness = 0,
  cbDelay = 1,
  visible = true,
  every = 1,
  trustByFrame = false,
} = {}) {
  const shown = { visible };
  const clock = new FakeClock();
  const timers = {
    /** @param {() => void} fn @param {number} ms */
    setTimeout: (fn, ms) => clock.setTimeout(fn, ms + lateness),
    /** @param {any} h */
    clearTimeout: (h) => clock.clearTimeout(h),
  };
  /** @param {(ts: number) => void} fn */
  const requestFrame = (fn) => {
    if (!shown.visible) return;
    // `every`: only one frame in so many reaches this page (a throttled background tab).
    const k = Math.ceil((Math.floor((clock.now() - phase) / period) + 1) / every) * every;
    const v = phase + k * period;
    clock.setTimeout(() => fn(v), v - clock.now() + cbDelay);
  };
  const frames = createFrameScheduler({ requestFrame, now: clock.now, timers, trustByFrame });
  return { clock, timers, frames, requestFrame, shown };
}

/**
 * A few changes, one every 500 ms up to `until`, so the page learns whether its frames come promptly.
 * @param {ReturnType<typeof display>} d
 * @param {number} until
 */
function warm(d, until) {
  for (let i = 0; i < PROMPT_STREAK + 1; i++) {
    d.frames.at(until - 1000 - 500 * (PROMPT_STREAK - i), () => {});
    d.clock.advance(until - 1000 - 500 * (PROMPT_STREAK - i) + 200 - d.clock.now());
  }
}

describe('frame scheduler', () => {
  it('runs a change on the frame nearest its due time', () => {
    for (const due of [1000, 1003, 1008.3, 1012, 1016]) {
      const d = display();
      /** @type {number[]} */
      const ran = [];
      d.frames.at(due, (ts) => ran.push(ts));
      d.clock.advance(due + 200);
      expect(ran).toHaveLength(1);
      expect(Math.abs(ran[0] - due), `due ${due}`).toBeLessThanOrEqual(DEFAULT_FRAME_MS / 2 + 1e-9);
    }
  });

  it('pages whose timers fire late by different amounts still change on the same frame', () => {
    /** @type {number[]} */
    const chosen = [];
    for (const lateness of [0, 7, 19, WAKE_AHEAD_MS - 12]) {
      const d = display({ lateness, phase: 3.1 });
      warm(d, 5000); // frames come promptly on this page
      expect(d.frames.prompt).toBe(true);
      d.frames.at(5000, (ts) => chosen.push(ts));
      d.clock.advance(6000);
    }
    expect(new Set(chosen).size).toBe(1);
  });

  it("measures the display's frame length (a 120 Hz screen)", () => {
    const d = display({ period: 1000 / 120 });
    d.frames.at(2000, () => {});
    d.clock.advance(3000);
    expect(d.frames.frameMs).toBeCloseTo(1000 / 120, 6);
  });

  it("a busy page that misses most frames still measures the display's frame, and takes the frame nearest a change for it", () => {
    const period = DEFAULT_FRAME_MS;
    const clock = new FakeClock();
    const timers = {
      /** @param {() => void} fn @param {number} ms */
      setTimeout: (fn, ms) => clock.setTimeout(fn, ms),
      /** @param {any} h */
      clearTimeout: (h) => clock.clearTimeout(h),
    };
    // Of every five frames the page gets three (0, 2, 4): two intervals in three are two frames long.
    const gets = (/** @type {number} */ k) => k % 5 !== 1 && k % 5 !== 3;
    /** @param {(ts: number) => void} fn */
    const requestFrame = (fn) => {
      let k = Math.floor(clock.now() / period) + 1;
      while (!gets(k)) k++;
      const v = k * period;
      clock.setTimeout(() => fn(v), v - clock.now() + 1);
    };
    const frames = createFrameScheduler({ requestFrame, now: clock.now, timers });
    const loop = () => {
      if (clock.now() < 1000) frames.everyFrame?.(loop);
    };
    frames.everyFrame?.(loop);
    clock.advance(1200);
    expect(frames.frameMs).toBeCloseTo(period, 6);
    // A change due 5 ms before frame 100 is shown on it, not on frame 99 (11.7 ms before it).
    const due = 100 * period - 5;
    expect(frames.shownAt(99 * period)).toBeLessThan(due);
    expect(frames.shownAt(100 * period)).toBeGreaterThanOrEqual(due);
  });

  it('a page hidden after its frames came promptly still runs the change, from a timer', () => {
    const d = display();
    d.clock.t = 5000;
    warm(d, 9000);
    expect(d.frames.prompt).toBe(true);
    d.shown.visible = false;
    /** @type {number[]} */
    const ran = [];
    d.frames.at(9000, () => ran.push(d.clock.now()));
    d.clock.advance(2000);
    expect(ran).toEqual([9000 + FALLBACK_MS]);
    // And the next change does not wait for frames that may not come.
    expect(d.frames.prompt).toBe(false);
  });

  it('a page whose frames come rarely (a tab behind another) runs each change from its timer, on time', () => {
    const d = display({ every: 60 });
    /** @type {number[]} */
    const ran = [];
    for (const due of [1000, 1600, 2200, 2800]) {
      d.clock.advance(due - 200 - d.clock.now());
      d.frames.at(due, () => ran.push(d.clock.now()));
    }
    d.clock.advance(1000);
    expect(d.frames.prompt).toBe(false);
    expect(ran).toEqual([1000, 1600, 2200, 2800]);
  });

  /**
   * One stall (no frame for a change: run from its timer), then one wake whose frames came
   * promptly, then a change due 3 ms after a frame begins whose callbacks run 6 ms into it. What
   * ran it: [frame time, fromTimer].
   * @param {{ trustByFrame: boolean }} o
   */
  function afterOneStall({ trustByFrame }) {
    const d = display({ cbDelay: 6, trustByFrame });
    warm(d, 5000);
    expect(d.frames.prompt).toBe(true);
    d.shown.visible = false;
    d.frames.at(5000, () => {});
    d.clock.advance(5100 - d.clock.now());
    expect(d.frames.prompt).toBe(false);
    d.shown.visible = true;
    d.frames.at(5500, () => {});
    d.clock.advance(5600 - d.clock.now());
    const trustedAgain = d.frames.prompt;
    /** @type {Array<[number, boolean | undefined]>} */
    const ran = [];
    d.frames.at(360 * DEFAULT_FRAME_MS + 3, (ts, fromTimer) => ran.push([ts, fromTimer]));
    d.clock.advance(6200 - d.clock.now());
    return { trustedAgain, ran };
  }

  it('a page with no frame loop between changes (trustByFrame) trusts its frames again after one wake of prompt frames: the next change on the frame nearest it, not from its timer a frame later', () => {
    const { trustedAgain, ran } = afterOneStall({ trustByFrame: true });
    expect(trustedAgain).toBe(true);
    expect(ran).toHaveLength(1);
    expect(ran[0][1]).toBeFalsy();
    expect(ran[0][0]).toBeCloseTo(360 * DEFAULT_FRAME_MS, 6); // 6000: the frame 3 ms before it
  });

  it('with trustByFrame, a change armed while frames were not trusted waits for its frame when its own wake brought prompt frames', () => {
    const d = display({ cbDelay: 6, trustByFrame: true });
    warm(d, 5000);
    d.shown.visible = false;
    d.frames.at(5000, () => {});
    d.clock.advance(5100 - d.clock.now());
    d.shown.visible = true;
    expect(d.frames.prompt).toBe(false);
    // Armed now, untrusted (as a beat is armed when the one before it is drawn); due 3 ms after
    // frame 360 begins, whose callbacks run 6 ms into it.
    /** @type {Array<[number, boolean | undefined]>} */
    const ran = [];
    d.frames.at(360 * DEFAULT_FRAME_MS + 3, (ts, fromTimer) => ran.push([ts, fromTimer]));
    d.clock.advance(6200 - d.clock.now());
    expect(ran).toEqual([[360 * DEFAULT_FRAME_MS, false]]);
  });

  it('an audience page (trust counted by wake) still runs the change after one stall from its timer, at its time', () => {
    const { trustedAgain, ran } = afterOneStall({ trustByFrame: false });
    expect(trustedAgain).toBe(false);
    expect(ran).toEqual([[360 * DEFAULT_FRAME_MS + 3, true]]);
  });

  it('a frame loop (a moving cursor) on a page with rare frames does not spin on timers', () => {
    const d = display({ every: 60 });
    let runs = 0;
    const loop = () => {
      runs++;
      if (d.clock.now() < 2000) d.frames.everyFrame?.(loop);
    };
    d.frames.everyFrame?.(loop);
    d.clock.advance(2000);
    expect(runs).toBeLessThanOrEqual(2000 / FALLBACK_MS + 2);
  });

  it('a cancelled change does not run', () => {
    const d = display();
    let ran = 0;
    const cancel = d.frames.at(1000, () => {
      ran++;
    });
    d.clock.advance(980);
    cancel();
    d.clock.advance(1000);
    expect(ran).toBe(0);
    expect(d.clock.timers.size).toBe(0);
  });
});

describe('beat clock on animation frames, behind the join gate', () => {
  const T = 1_700_000_000_000;
  /**
   * A page with a server clock `offset` ahead, on a display, joining until `ready` is set.
   * @param {{ offset: number, lateness: number, cbDelay?: number }} o
   */
  function page({ offset, lateness, cbDelay }) {
    const d = display({ lateness, phase: 5, cbDelay });
    const server = /** @type {any} */ ({
      serverNow: () => d.clock.now() + offset,
      toLocal: (/** @type {number} */ t) => t - offset,
    });
    const gate = { ready: false };
    /** @type {any} */
    let state = null;
    /** @type {Array<{ beat: number | null, joining: boolean, frame: number }>} */
    const shown = [];
    /** What a moving cursor was given, frame by frame (beat, page time). */
    /** @type {Array<[number | null, number]>} */
    const frames = [];
    const beats = createBeatClock({
      onFrame: (pos) => frames.push([pos.beat, d.clock.now()]),
      getState: () => state,
      clock: server,
      timers: d.timers,
      now: d.clock.now,
      frames: d.frames,
      ready: () => gate.ready,
      onChange: (pos) => shown.push({ beat: pos.beat, joining: pos.joining === true, frame: d.clock.now() + offset }),
    });
    return {
      d,
      gate,
      shown,
      frames,
      beats,
      offset,
      receive(/** @type {any} */ s) {
        state = s;
        beats.update();
      },
    };
  }
  /** @param {number} n */
  const beatState = (n) => ({
    playback: 'playing',
    beat: n,
    bar: 1 + Math.floor(n / 4),
    beatInBar: (n % 4) + 1,
    tempo: 120,
    beatT: T + n * 500,
    cues: {},
    next: { beat: n + 1, bar: 1 + Math.floor((n + 1) / 4), beatInBar: ((n + 1) % 4) + 1, t: T + (n + 1) * 500 },
  });

  it('shows joining, not a beat, until the gate opens; then every beat within half a frame of its time', () => {
    const p = page({ offset: T - 100_000, lateness: 23 });
    p.d.clock.t = 99_000; // server time T - 1000
    // Each beat's message arrives 40 ms after the beat; the gate opens during beat 2.
    const serverNow = () => p.d.clock.now() + p.offset;
    for (let n = 0; n < 9; n++) {
      p.d.clock.advance(T + n * 500 + 40 - serverNow());
      p.receive(beatState(n));
      if (n === 2) {
        expect(p.shown.map((s) => s.joining)).toEqual([true]);
        p.gate.ready = true;
        p.beats.update();
      }
    }
    p.d.clock.advance(100);
    const beats = p.shown.filter((s) => !s.joining);
    expect(beats[0].beat).toBe(2); // the beat sounding when the gate opened
    for (const s of beats.slice(1)) {
      const due = T + /** @type {number} */ (s.beat) * 500;
      // Taken 1 ms into the frame (the fake's callback delay): within half a frame + 1 ms.
      expect(Math.abs(s.frame - due), `beat ${s.beat}`).toBeLessThanOrEqual(DEFAULT_FRAME_MS / 2 + 1 + 1e-6);
    }
    expect(beats.map((s) => s.beat)).toEqual([2, 3, 4, 5, 6, 7, 8]);
  });

  it('the gate closing (link lost, tab hidden) takes the beat off at the next frame', () => {
    const p = page({ offset: 0, lateness: 0 });
    p.d.clock.t = T;
    p.gate.ready = true;
    p.receive(beatState(0));
    p.d.clock.advance(600);
    p.gate.ready = false;
    p.beats.update();
    p.d.clock.advance(2000);
    expect(p.shown.map((s) => (s.joining ? 'joining' : s.beat))).toEqual([0, 1, 'joining']);
  });

  it("a change its own callback reaches late (its timers late) is shown by the moving cursor's frame nearest it: the text and the cursor change together", () => {
    // Timers fire 130 ms late: the change's wake comes after its time, its frame later still,
    // while the cursor's frames come every frame.
    const p = page({ offset: 0, lateness: 130 });
    p.d.clock.t = T;
    p.gate.ready = true;
    p.receive(beatState(0));
    p.d.clock.advance(300);
    p.receive({ ...beatState(9), beatT: T, next: { beat: 108, bar: 28, beatInBar: 1, t: T + 500 } });
    p.d.clock.advance(700);
    const landed = p.shown.find((s) => s.beat === 108);
    expect(landed).toBeDefined();
    const at = /** @type {{ frame: number }} */ (landed).frame;
    // The frame nearest the beat's time (callbacks run 1 ms into their frame).
    expect(Math.abs(at - 1 - (T + 500))).toBeLessThanOrEqual(DEFAULT_FRAME_MS / 2);
    // No frame drew the target before the change was written.
    expect(p.frames.filter(([beat, t]) => beat === 108 && t < at)).toEqual([]);
  });

  it('a page without frames (its cursor moved from timers) shows no change before its time', () => {
    for (let start = 0; start < 25; start += 1) {
      const p = page({ offset: 0, lateness: 0 });
      p.d.shown.visible = false;
      p.d.clock.t = T + start;
      p.gate.ready = true;
      p.receive(beatState(0));
      p.d.clock.advance(700);
      const change = p.shown.find((s) => s.beat === 1);
      expect(change, `from ${start}`).toBeDefined();
      expect(/** @type {{ frame: number }} */ (change).frame, `from ${start}`).toBeGreaterThanOrEqual(T + 500);
      expect(p.frames.filter(([beat, t]) => beat === 1 && t < T + 500)).toEqual([]);
    }
  });

  it("a jump on a busy page (frame callbacks late, changes run from timers): once the target's beat shows, no frame shows a beat from before the jump", () => {
    // Frame callbacks run 12 ms into their frame (a busy main thread): more than half a frame, so
    // a frame whose callback runs just after a change's timer stands for a time before it.
    const p = page({ offset: 0, lateness: 0, cbDelay: 12 });
    p.d.clock.t = T;
    p.gate.ready = true;
    // Beat 9 playing; the jump to bar 28 (beat 108) announced for T + 500.
    p.receive({ ...beatState(9), beatT: T, next: { beat: 108, bar: 28, beatInBar: 1, t: T + 500 } });
    p.d.clock.advance(1000);
    expect(p.shown.map((s) => s.beat)).toEqual([9, 108]);
    const landed = /** @type {number} */ (p.shown[1].frame);
    const after = p.frames.filter(([, at]) => at >= landed);
    expect(after.length, 'the cursor moved on after the jump').toBeGreaterThan(10);
    expect(after.filter(([beat]) => beat !== 108)).toEqual([]);
    // Nor after the cursor first reached it (a frame may get there before the change is written).
    const reached = p.frames.findIndex(([beat]) => beat === 108);
    expect(p.frames.slice(reached).filter(([beat]) => beat !== 108)).toEqual([]);
  });
});

import { describe, it, expect } from 'vitest';
import { positionAt, nextChangeAt, createBeatClock, announcedUntil } from '../../../client/src/time/beat-clock.js';
import { FakeClock } from '../fakes.js';

const T = 1_700_000_000_000;

/** Playing beat 5 (bar 2, beat 2) since T, beat 6 due at T + 500. */
function playing(extra = {}) {
  return {
    playback: 'playing',
    beat: 5,
    bar: 2,
    beatInBar: 2,
    tempo: 120,
    beatT: T,
    next: { beat: 6, bar: 2, beatInBar: 3, t: T + 500 },
    cues: {},
    ...extra,
  };
}

/** A server clock `offset` ms ahead of the fake page clock. */
function serverClock(/** @type {FakeClock} */ page, /** @type {number} */ offset) {
  return /** @type {import('../../../client/src/time/clock.js').ServerClock} */ (
    /** @type {unknown} */ ({
      serverNow: () => page.now() + offset,
      toLocal: (/** @type {number} */ t) => t - offset,
    })
  );
}

/** Animation frames by hand: `request` queues a callback, `run` calls those queued so far. */
function frameQueue() {
  /** @type {Array<() => void>} */
  let queued = [];
  return {
    /** @param {() => void} fn */
    request: (fn) => {
      queued.push(fn);
    },
    run: () => {
      const q = queued;
      queued = [];
      for (const fn of q) fn();
    },
    size: () => queued.length,
  };
}
describe('positionAt', () => {
  it('shows the held beat, and how far into it, until the next beat is due', () => {
    expect(positionAt(playing(), T + 125)).toMatchObject({
      beat: 5,
      bar: 2,
      beatInBar: 2,
      fraction: 0.25,
      beatMs: 500,
      predicted: false,
      changeAt: T,
    });
  });

  it('shows the announced beat at its time, before its own message arrives', () => {
    expect(positionAt(playing(), T + 500)).toMatchObject({
      beat: 6,
      bar: 2,
      beatInBar: 3,
      fraction: 0,
      predicted: true,
      changeAt: T + 500,
    });
    expect(positionAt(playing(), T + 750).fraction).toBeCloseTo(0.5, 9);
  });

  it('shows a bar that a vote or a repeat jumps to exactly as announced', () => {
    const s = playing({ next: { beat: 112, bar: 29, beatInBar: 1, t: T + 500 } });
    expect(positionAt(s, T + 501)).toMatchObject({ beat: 112, bar: 29, beatInBar: 1 });
  });

  it('paused or stopped: the held position, not moving', () => {
    for (const transport of ['paused', 'stopped']) {
      const s = { transport, beat: 5, bar: 2, beatInBar: 2, cues: {} };
      expect(positionAt(s, T + 10_000)).toMatchObject({
        beat: 5,
        bar: 2,
        beatInBar: 2,
        fraction: 0,
        predicted: false,
        changeAt: null,
      });
      expect(nextChangeAt(s, T)).toBeNull();
    }
  });

  it('counts in: click k from countIn.t + (k - 1) * beatMs, then the first beat', () => {
    const s = {
      playback: 'playing',
      beat: 0,
      bar: 1,
      beatInBar: 1,
      tempo: 96,
      cues: {},
      countIn: { t: T, beats: 4, beatMs: 625 },
      next: { beat: 0, bar: 1, beatInBar: 1, t: T + 2500 },
    };
    expect(positionAt(s, T - 1).count).toBe(0);
    expect(positionAt(s, T)).toMatchObject({ count: 1, countOf: 4, changeAt: T });
    expect(positionAt(s, T + 1874).count).toBe(3);
    expect(positionAt(s, T + 1875).count).toBe(4);
    expect(positionAt(s, T + 2500)).toMatchObject({ count: 0, beat: 0, predicted: true });
    expect(nextChangeAt(s, T - 100)).toBe(T);
    expect(nextChangeAt(s, T + 700)).toBe(T + 1250);
    expect(nextChangeAt(s, T + 2000)).toBe(T + 2500);
  });

  it("a loop's count-in announced with its last beat: that beat until the clicks, the clicks, then the loop's first beat", () => {
    const s = {
      playback: 'playing',
      beat: 15,
      bar: 4,
      beatInBar: 4,
      tempo: 120,
      cues: {},
      beatT: T - 500,
      countIn: { t: T, beats: 2, beatMs: 500 },
      next: { beat: 8, bar: 3, beatInBar: 1, t: T + 1000 },
    };
    expect(positionAt(s, T - 250)).toMatchObject({ beat: 15, bar: 4, count: 0, changeAt: T - 500, beatMs: 500 });
    expect(positionAt(s, T - 250).fraction).toBeCloseTo(0.5, 6);
    expect(positionAt(s, T + 10)).toMatchObject({ bar: 3, beatInBar: 1, count: 1, countOf: 2, changeAt: T });
    expect(positionAt(s, T + 510)).toMatchObject({ count: 2, changeAt: T + 500 });
    expect(positionAt(s, T + 1010)).toMatchObject({
      beat: 8,
      count: 0,
      predicted: true,
      changeAt: T + 1000,
      beatMs: 500,
    });
    expect(nextChangeAt(s, T - 250)).toBe(T);
    expect(nextChangeAt(s, T + 10)).toBe(T + 500);
  });

  it('announcedUntil: to the end of the beat announced next (a count-in, its clicks), or nothing', () => {
    expect(announcedUntil(playing())).toBe(T + 1000);
    const counting = {
      playback: 'playing',
      beat: 4,
      countIn: { t: T, beats: 3, beatMs: 400 },
      next: { beat: 4, t: T + 1200 },
    };
    expect(announcedUntil(counting)).toBe(T + 1600);
    expect(announcedUntil({ ...playing(), beatT: undefined })).toBe(T + 1000); // the tempo's (120)
    expect(announcedUntil({ ...playing(), playback: 'paused' })).toBe(-Infinity);
    expect(announcedUntil({ ...playing(), next: undefined })).toBe(-Infinity);
    expect(announcedUntil(null)).toBe(-Infinity);
  });

  it('survives a state that is not one', () => {
    for (const bad of [null, undefined, 3, 'x', {}, { beat: 'one' }]) {
      expect(positionAt(bad, T)).toMatchObject({ beat: null, bar: null, count: 0 });
      expect(nextChangeAt(bad, T)).toBeNull();
    }
    // A malformed `next` is ignored: the held beat goes on showing.
    expect(positionAt(playing({ next: { beat: 6, t: 'soon' } }), T + 900)).toMatchObject({ beat: 5, predicted: false });
  });
});

describe('createBeatClock', () => {
  /**
   * A page whose server clock is `offset` ahead and whose messages arrive `latency` ms late.
   * @param {number} offset
   */
  function page(offset) {
    const clock = new FakeClock();
    clock.t = T - offset; // page time at server time T
    /** @type {any} */
    let state = null;
    /** @type {Array<{ beat: number | null, bar: number | null, count: number, server: number }>} */
    const shown = [];
    const server = serverClock(clock, offset);
    const beats = createBeatClock({
      getState: () => state,
      clock: server,
      timers: clock,
      now: clock.now,
      onChange: (pos) => shown.push({ beat: pos.beat, bar: pos.bar, count: pos.count, server: server.serverNow() }),
    });
    return {
      clock,
      shown,
      beats,
      server,
      /** @param {any} s */
      receive(s) {
        state = s;
        beats.update();
      },
    };
  }

  it('pages on links of different latency show each beat at the same server time', () => {
    const fast = page(3_000);
    const slow = page(-42_000);
    const beatMs = 500;
    /** @param {number} n */
    const stateOf = (n) =>
      playing({
        beat: n,
        beatInBar: (n % 4) + 1,
        beatT: T + n * beatMs,
        next: { beat: n + 1, bar: 2, beatInBar: ((n + 1) % 4) + 1, t: T + (n + 1) * beatMs },
      });
    // Each beat's message reaches the fast page 2 ms after the beat, the slow one 180 ms after.
    for (const [p, latency] of /** @type {const} */ ([
      [fast, 2],
      [slow, 180],
    ])) {
      for (let n = 0; n < 8; n++) {
        p.clock.advance(Math.max(0, p.server.toLocal(T + n * beatMs + latency) - p.clock.now()));
        p.receive(stateOf(n));
      }
    }
    const when = (/** @type {ReturnType<typeof page>} */ p, /** @type {number} */ n) =>
      p.shown.find((s) => s.beat === n)?.server;
    for (let n = 1; n < 8; n++) {
      expect(when(fast, n)).toBeCloseTo(T + n * beatMs, 6);
      expect(when(slow, n)).toBeCloseTo(T + n * beatMs, 6);
    }
    // One change per beat: the late message agreeing with what is shown changes nothing.
    expect(slow.shown.map((s) => s.beat)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  });

  it('a message that contradicts the announcement (a seek) is shown as soon as it arrives', () => {
    const p = page(0);
    p.receive(playing());
    p.clock.advance(500); // beat 6 shown as announced
    p.clock.advance(10);
    p.receive(
      playing({
        beat: 40,
        bar: 11,
        beatInBar: 1,
        beatT: T + 510,
        next: { beat: 41, bar: 11, beatInBar: 2, t: T + 1010 },
      }),
    );
    expect(p.shown.map((s) => s.beat)).toEqual([5, 6, 40]);
    expect(p.shown[2].server).toBe(T + 510);
  });

  /**
   * Counting in to beat `beat` (bar `bar`): four clicks 500 ms apart from `t`, the beat after them.
   * @param {number} t @param {number} beat @param {number} bar
   */
  const countingIn = (t, beat, bar) => ({
    playback: 'playing',
    beat,
    bar,
    beatInBar: 1,
    tempo: 120,
    cues: {},
    countIn: { t, beats: 4, beatMs: 500 },
    next: { beat, bar, beatInBar: 1, t: t + 2000 },
  });
  /** What a page showed from server time `from` on: [beat, bar, count, when]. */
  const since = (
    /** @type {{ shown: Array<{ beat: number | null, bar: number | null, count: number, server: number }> }} */ p,
    /** @type {number} */ from,
  ) => p.shown.filter((s) => s.server >= from).map((s) => [s.beat, s.bar, s.count, s.server - T]);

  it('a count-in stopped: the held bar at once, no click after, no timer left', () => {
    const p = page(0);
    p.receive(countingIn(T, 0, 1));
    p.clock.advance(1100);
    p.receive({ playback: 'stopped', beat: 0, bar: 1, beatInBar: 1, cues: {} });
    expect(p.clock.timers.size).toBe(0);
    p.clock.advance(3000);
    expect(since(p, T + 1)).toEqual([
      [0, 1, 2, 500],
      [0, 1, 3, 1000],
      [0, 1, 0, 1100],
    ]);
  });

  it('a seek during a count-in: the clicks go on to the new bar, shown at once; the bar replaced never shows', () => {
    const p = page(0);
    p.receive(countingIn(T, 0, 1));
    p.clock.advance(1100);
    // The conductor's answer to a seek that lands where the clicks end (place-commands.js).
    p.receive({ ...countingIn(T, 20, 6), mark: 'C' });
    p.clock.advance(1000);
    expect(since(p, T + 1001)).toEqual([
      [20, 6, 3, 1100],
      [20, 6, 4, 1500],
      [20, 6, 0, 2000],
    ]);
    expect(p.shown.some((s) => s.beat === 0 && s.count === 0)).toBe(false);
  });

  it('a restart from the save during a count-in: the restarted count-in shows from its first click, whatever the page showed meanwhile', () => {
    const p = page(0);
    p.receive(countingIn(T, 4, 2));
    // The server goes down at T + 1100; back at T + 2600, counting in again in full (resume.js),
    // in a new epoch whose snapshot replaces the state held.
    p.clock.advance(2600);
    p.receive(countingIn(T + 2600, 4, 2));
    p.clock.advance(2100);
    expect(since(p, T + 2600)).toEqual([
      [4, 2, 1, 2600],
      [4, 2, 2, 3100],
      [4, 2, 3, 3600],
      [4, 2, 4, 4100],
      [4, 2, 0, 4600],
    ]);
  });

  it('stops arming timers when paused, and after stop()', () => {
    const p = page(0);
    p.receive(playing());
    expect(p.clock.timers.size).toBe(1);
    p.receive({ playback: 'paused', beat: 5, bar: 2, beatInBar: 2, cues: {} });
    expect(p.clock.timers.size).toBe(0);
    p.receive(playing());
    p.beats.stop();
    expect(p.clock.timers.size).toBe(0);
  });

  it("a clock correction just after a jump does not take the page back before it: the target's beat stays, and the next change comes at its time", () => {
    const clock = new FakeClock();
    clock.t = T;
    let offset = 0;
    const server = /** @type {import('../../../client/src/time/clock.js').ServerClock} */ (
      /** @type {unknown} */ ({
        serverNow: () => clock.now() + offset,
        toLocal: (/** @type {number} */ t) => t - offset,
      })
    );
    /** @type {any} */
    let state = playing({ beat: 9, bar: 3, beatInBar: 2, next: { beat: 108, bar: 28, beatInBar: 1, t: T + 500 } });
    /** @type {Array<number | null>} */
    const shown = [];
    /** @type {Array<number | null>} */
    const frames = [];
    const queue = frameQueue();
    const frame = queue.run;
    const beats = createBeatClock({
      getState: () => state,
      clock: server,
      timers: clock,
      now: clock.now,
      onChange: (pos) => shown.push(pos.beat),
      onFrame: (pos) => frames.push(pos.beat),
      requestFrame: queue.request,
    });
    beats.update();
    clock.advance(505);
    frame();
    expect(shown).toEqual([9, 108]);
    // A round trip moves the estimate of the server's clock 20 ms back.
    offset = -20;
    frame();
    beats.update();
    clock.advance(5);
    frame();
    expect(shown).toEqual([9, 108]);
    expect(frames.filter((b) => b !== 108)).toEqual([]);
    // The target's own message, then the beat after it on time by the corrected clock.
    state = playing({
      beat: 108,
      bar: 28,
      beatInBar: 1,
      beatT: T + 500,
      next: { beat: 109, bar: 28, beatInBar: 2, t: T + 1000 },
    });
    beats.update();
    clock.advance(1000 - 510 + 20 - 1);
    expect(shown).toEqual([9, 108]);
    clock.advance(1);
    expect(shown).toEqual([9, 108, 109]);
  });

  it('a frame callback that wants no more frames (a gliding cursor) is called again only after the next change', () => {
    const clock = new FakeClock();
    clock.t = T;
    const server = serverClock(clock, 0);
    /** @type {any} */
    const state = playing();
    /** @type {Array<number | null>} */
    const shown = [];
    /** @type {Array<number | null>} */
    const frames = [];
    const queue = frameQueue();
    let wants = false;
    const beats = createBeatClock({
      getState: () => state,
      clock: server,
      timers: clock,
      now: clock.now,
      onChange: (pos) => shown.push(pos.beat),
      onFrame: (pos) => {
        frames.push(pos.beat);
        return wants;
      },
      requestFrame: queue.request,
    });
    /** Run the frames asked for, `n` times, 16 ms apart. */
    const run = (/** @type {number} */ n) => {
      for (let k = 0; k < n; k++) {
        clock.advance(16);
        queue.run();
      }
    };
    beats.update();
    run(10);
    // Beat 5 shown; the frame after it drew once and asked for no more.
    expect(shown).toEqual([5]);
    expect(frames).toEqual([5]);
    expect(queue.size()).toBe(0);
    // The next beat (a timer at T + 500): one frame after it, then none.
    clock.advance(500 - 160);
    run(10);
    expect(shown).toEqual([5, 6]);
    expect(frames).toEqual([5, 6]);
    // A new state (its message): drawn again once.
    beats.update();
    run(3);
    expect(frames).toEqual([5, 6, 6]);
    // A view that wants every frame gets every frame.
    wants = true;
    beats.update();
    run(5);
    expect(frames.length).toBeGreaterThanOrEqual(3 + 4);
  });

  it('an estimate that moved back while joining is not held: the first beats after it are shown on time', () => {
    const clock = new FakeClock();
    clock.t = T;
    // A first guess 600 ms ahead (no round trip yet), corrected before the gate opens.
    let offset = 600;
    let open = true;
    const server = /** @type {import('../../../client/src/time/clock.js').ServerClock} */ (
      /** @type {unknown} */ ({
        serverNow: () => clock.now() + offset,
        toLocal: (/** @type {number} */ t) => t - offset,
      })
    );
    /** @type {Array<[number | null, number]>} */
    const shown = [];
    const beats = createBeatClock({
      getState: () => playing(),
      clock: server,
      timers: clock,
      now: clock.now,
      ready: () => open,
      onChange: (pos) => shown.push([pos.beat, clock.now() - T]),
    });
    beats.update(); // beat 6 shown (server time T + 600)
    open = false;
    beats.update();
    offset = 0;
    open = true;
    beats.update();
    clock.advance(600);
    expect(shown).toEqual([
      [6, 0],
      [null, 0],
      [5, 0],
      [6, 500],
    ]);
  });
});

// The conductor's passage loop (POST /api/control/loop): rounds on the beat grid, the count-in
// before each, vote windows that restart, off mid-round, seeks into and out of it, stop, the
// record and resume.

import { describe, it, expect } from 'vitest';
import { buildScoreModel } from '../../../core/manifest.js';
import { applyPatch } from '../../../core/merge-patch.js';
import { loopLabel } from '../../../core/loop.js';
import { createMemoryBus } from '../../../server/live/bus.js';
import { createConductor } from '../../../server/performance/conductor.js';
import { createFakeClock } from '../../helpers/fake-clock.js';
import { positionAt } from '../../../client/src/time/beat-clock.js';

/** 4/4 at 120 (500 ms a beat), 8 bars (32 beats), marks B at bar 3 and C at bar 5. @param {object} [extra] */
function model(extra = {}) {
  const r = buildScoreModel({
    id: 'l',
    title: 'L',
    bars: 8,
    meter: [{ bar: 1, time: '4/4', tempo: 120 }],
    marks: [
      { name: 'B', bar: 3 },
      { name: 'C', bar: 5 },
    ],
    cues: [
      { at: 0, set: { text: 'start' } },
      { at: 8, set: { text: 'bar 3' } },
      { at: 10, set: { text: 'bar 3, beat 3' } },
      { at: 16, set: { text: 'bar 5' } },
    ],
    ...extra,
  });
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.value;
}

/** @param {{ extra?: object, wall?: number, start?: number }} [o] */
function setup({ extra, wall = 1_700_000_000_000, start = 1000 } = {}) {
  const clock = createFakeClock({ start, wallStart: wall });
  const bus = createMemoryBus();
  /** @type {import('../../../server/live/bus.js').StateChange[]} */
  const changes = [];
  bus.subscribe((c) => changes.push(c));
  /** @type {{ beat: number, at: number, due: number }[]} */
  const fired = [];
  /** @type {import('../../../core/votes.js').Outcome[]} */
  const outcomes = [];
  const conductor = createConductor({
    model: model(extra),
    bus,
    clock,
    epoch: 'e',
    onBeat: (beat, due) => fired.push({ beat, at: clock.now(), due }),
    onVote: (o) => outcomes.push(o),
  });
  return { clock, bus, changes, fired, outcomes, conductor };
}

/** @param {unknown} fn */
function refusal(fn) {
  try {
    /** @type {() => void} */ (fn)();
  } catch (err) {
    return { code: /** @type {any} */ (err).code, message: /** @type {Error} */ (err).message };
  }
  return null;
}

describe('conductor: a passage loop', () => {
  it('plays bars 3-4 over and over on the beat grid, counting the time round', () => {
    const s = setup();
    const t0 = s.clock.now();
    s.conductor.setLoop({ from: { bar: 3 }, to: { bar: 4 } });
    // Stopped at the top, outside the loop: it goes to the loop's first beat.
    expect(s.conductor.state).toMatchObject({ beat: 8, bar: 3, playback: 'stopped' });
    expect(s.conductor.state.loop).toEqual({ from: 3, to: 4, start: 8, end: 15, round: 1, countIn: 0 });
    expect(loopLabel(s.conductor.state.loop)).toBe('loop 3-4, 1st time');
    s.conductor.play();
    s.clock.advance(3 * 8 * 500 + 100);
    expect(s.fired.map((f) => f.beat)).toEqual([
      ...[8, 9, 10, 11, 12, 13, 14, 15],
      ...[8, 9, 10, 11, 12, 13, 14, 15],
      ...[8, 9, 10, 11, 12, 13, 14, 15],
      8,
    ]);
    // Every beat on the grid: beat k of the sequence at t0 + 500 k.
    for (const [k, f] of s.fired.entries()) expect(f.due).toBeCloseTo(t0 + 500 * k, 6);
    expect(s.conductor.state.loop?.round).toBe(4);
    expect(loopLabel(s.conductor.state.loop)).toBe('loop 3-4, 4th time');
    // The cues as written each time round: the first beat's cue state is rebuilt.
    expect(s.conductor.state.cues.audience.text).toBe('bar 3');
    s.conductor.dispose();
  });

  it("announces the loop's first beat with its last, so every page shows it together", () => {
    const s = setup();
    s.conductor.setLoop({ from: { bar: 3 }, to: { bar: 3 } });
    s.conductor.play();
    const t0 = s.clock.now();
    s.clock.advance(3 * 500 + 10); // beat 11, the loop's last
    expect(s.conductor.state.beat).toBe(11);
    expect(s.conductor.state.next).toMatchObject({ beat: 8, bar: 3, beatInBar: 1 });
    expect(/** @type {any} */ (s.conductor.state.next).t - /** @type {number} */ (s.conductor.state.beatT)).toBe(500);
    // The wall time announced is when the beat fires.
    const wall = /** @type {any} */ (s.conductor.state.next).t;
    s.clock.advance(500);
    expect(s.conductor.state).toMatchObject({ beat: 8, beatT: wall });
    expect(s.fired.at(-1)?.due).toBeCloseTo(t0 + 2000, 6);
    s.conductor.dispose();
  });

  it('counts in before each time round: the clicks announced with the last beat, the first beat after them', () => {
    const s = setup();
    s.conductor.setLoop({ from: { bar: 3 }, to: { bar: 3 }, countIn: 2 });
    expect(s.conductor.state.loop).toMatchObject({ countIn: 2, round: 1 });
    const t0 = s.clock.now();
    s.conductor.play();
    // From the loop's first beat, play counts in with the loop's count-in.
    expect(s.conductor.state.countIn).toMatchObject({ beats: 2, beatMs: 500 });
    s.clock.advance(1000 + 3 * 500 + 10); // two clicks, then beats 8..11
    expect(s.conductor.state.beat).toBe(11);
    const wall11 = /** @type {number} */ (s.conductor.state.beatT);
    expect(s.conductor.state.countIn).toEqual({ t: wall11 + 500, beats: 2, beatMs: 500 });
    expect(s.conductor.state.next).toMatchObject({ beat: 8, t: wall11 + 500 + 1000 });
    s.clock.advance(500); // the clicks start: counting in, the round's first beat still to come
    expect(s.conductor.state).toMatchObject({ beat: 8, playback: 'playing', loop: { round: 2 } });
    expect(s.conductor.state.beatT).toBeUndefined();
    s.clock.advance(1000);
    expect(s.conductor.state).toMatchObject({ beat: 8, beatT: wall11 + 1500 });
    expect(s.conductor.state.countIn).toBeUndefined();
    // Round 1 at t0 + 1000 (after play's clicks), round 2 two clicks after beat 11's end.
    const eights = s.fired.filter((f) => f.beat === 8).map((f) => f.due - t0);
    expect(eights).toEqual([1000, 1000 + 2000 + 1000]);
    s.conductor.dispose();
  });

  it('restarts a vote window inside the loop each time round, and closes it as written', () => {
    const vote = { id: 'again', tiles: ['a', 'b'], close: { bar: 4 } };
    const s = setup({ extra: { cues: [{ bar: 3, vote }] } });
    s.conductor.setLoop({ from: { bar: 3 }, to: { bar: 4 } });
    s.conductor.play();
    s.clock.advance(500);
    expect(s.conductor.votes().open?.id).toBe('again');
    expect(s.conductor.vote({ tile: 'a', device: 'phone-0001' })).toMatchObject({ ok: true });
    s.clock.advance(8 * 500); // round 2, bar 3 again
    expect(s.outcomes).toEqual([{ id: 'again', tally: { a: 1, b: 0 }, winner: 'a', seek: null }]);
    expect(s.conductor.state.loop?.round).toBe(2);
    // A fresh window: no tally, and the same device votes again.
    expect(s.conductor.votes().open?.id).toBe('again');
    expect(s.conductor.votes().open?.tally).toEqual({ a: 0, b: 0 });
    expect(s.conductor.vote({ tile: 'b', device: 'phone-0001' })).toMatchObject({ ok: true });
    s.clock.advance(8 * 500);
    expect(s.outcomes.at(-1)).toEqual({ id: 'again', tally: { a: 0, b: 1 }, winner: 'b', seek: null });
    s.conductor.dispose();
  });

  it('turned off mid-round, the performance plays on past the end; the loop leaves the state', () => {
    const s = setup();
    s.conductor.setLoop({ from: { bar: 3 }, to: { bar: 3 }, countIn: 2 });
    s.conductor.play();
    s.clock.advance(1000 + 3 * 500 + 10); // beat 11, with the next round's count-in announced
    expect(s.conductor.state.countIn).toBeDefined();
    s.conductor.setLoop({ off: true });
    expect(s.conductor.state.loop).toBeUndefined();
    expect(s.conductor.state.countIn).toBeUndefined();
    expect(s.conductor.state.next).toMatchObject({ beat: 12 });
    s.clock.advance(1000);
    expect(s.fired.map((f) => f.beat).slice(-3)).toEqual([11, 12, 13]);
    // Off again: nothing changes, nothing is published.
    const seq = s.conductor.seq;
    s.conductor.setLoop({ off: true });
    expect(s.conductor.seq).toBe(seq);
    s.conductor.dispose();
  });

  it('a seek inside the loop keeps it (the same time round); a seek outside turns it off', () => {
    const s = setup();
    s.conductor.setLoop({ from: { mark: 'B' }, to: { mark: 'C' } });
    expect(s.conductor.state.loop).toEqual({
      from: 3,
      to: 4,
      start: 8,
      end: 15,
      round: 1,
      countIn: 0,
      fromMark: 'B',
      toMark: 'C',
    });
    s.conductor.play();
    s.clock.advance(8 * 500 + 10);
    expect(s.conductor.state.loop?.round).toBe(2);
    s.conductor.seek(13);
    expect(s.conductor.state.loop?.round).toBe(2);
    s.conductor.seek(20);
    expect(s.conductor.state.loop).toBeUndefined();
    s.clock.advance(5000);
    expect(Math.max(...s.fired.map((f) => f.beat))).toBeGreaterThan(20);
    s.conductor.dispose();
  });

  it('stop goes back to the loop’s first beat, its first time round; play goes round again', () => {
    const s = setup();
    s.conductor.setLoop({ from: { bar: 3 }, to: { bar: 3 } });
    s.conductor.play();
    s.clock.advance(4 * 500 * 2 + 600);
    expect(s.conductor.state.loop?.round).toBe(3);
    s.conductor.stop();
    expect(s.conductor.state).toMatchObject({ playback: 'stopped', beat: 8, loop: { round: 1 } });
    s.conductor.play();
    s.clock.advance(4 * 500 + 10);
    expect(s.conductor.state).toMatchObject({ beat: 8, loop: { round: 2 } });
    s.conductor.dispose();
  });

  it('set while playing inside the passage, the performance goes on where it is', () => {
    const s = setup();
    s.conductor.play();
    s.clock.advance(9 * 500 + 10); // beat 9
    s.conductor.setLoop({ from: { bar: 3 }, to: { bar: 3 } });
    expect(s.conductor.state).toMatchObject({ beat: 9, loop: { round: 1 } });
    s.clock.advance(3 * 500);
    expect(s.fired.map((f) => f.beat).slice(-3)).toEqual([10, 11, 8]);
    s.conductor.dispose();
  });

  it('refuses a loop that runs backwards, leaves the piece, names a missing mark, or is malformed, changing nothing', () => {
    const s = setup();
    s.conductor.setLoop({ from: { bar: 2 }, to: { bar: 3 } });
    const before = s.conductor.state;
    const seq = s.conductor.seq;
    expect(refusal(() => s.conductor.setLoop({ from: { bar: 5 }, to: { bar: 4 } }))).toMatchObject({
      code: 'SC_ERR_BAD_LOOP',
      message: expect.stringMatching(/runs backwards: from bar 5 .* to bar 4/),
    });
    expect(refusal(() => s.conductor.setLoop({ from: { bar: 7 }, to: { bar: 9 } }))).toMatchObject({
      code: 'SC_ERR_BAD_LOOP',
      message: expect.stringMatching(/bar 9 is not in the piece \(bars 1\.\.8\)/),
    });
    expect(refusal(() => s.conductor.setLoop({ from: { mark: 'Q' }, to: { bar: 4 } }))).toMatchObject({
      code: 'SC_ERR_NO_MARK',
      message: expect.stringMatching(/no mark "Q"; its marks: B, C/),
    });
    expect(refusal(() => s.conductor.setLoop({ from: { mark: 'C' }, to: { mark: 'B' } }))).toMatchObject({
      code: 'SC_ERR_BAD_LOOP',
    });
    for (const body of [
      {},
      { from: { bar: 1 } },
      { from: { bar: 1, mark: 'B' }, to: { bar: 2 } },
      { from: { bar: 1.5 }, to: { bar: 2 } },
      { from: { bar: 1 }, to: { bar: 2 }, countIn: 17 },
      { from: { bar: 1 }, to: { bar: 2 }, countIn: -1 },
      { from: { bar: 1 }, to: { bar: 2 }, extra: 1 },
      { off: false },
      { off: true, from: { bar: 1 } },
    ])
      expect(refusal(() => s.conductor.setLoop(body))).toMatchObject({ code: 'SC_ERR_BAD_CONTROL' });
    expect(s.conductor.state).toBe(before);
    expect(s.conductor.seq).toBe(seq);
  });

  it('a single bar is a loop; a loop "to" a mark ends on the beat before it', () => {
    const s = setup();
    s.conductor.setLoop({ from: { bar: 2 }, to: { mark: 'B' } });
    expect(s.conductor.state.loop).toMatchObject({ start: 4, end: 7, from: 2, to: 2 });
    expect(loopLabel(s.conductor.state.loop)).toBe('loop 2, 1st time');
  });

  it('publishes patches that rebuild the loop field on a client', () => {
    const s = setup();
    s.conductor.setLoop({ from: { bar: 3 }, to: { bar: 3 }, countIn: 1 });
    s.conductor.play();
    s.clock.advance(6000);
    s.conductor.setLoop({ off: true });
    let held = /** @type {any} */ (null);
    for (const c of s.changes) held = c.patch === null ? c.state : applyPatch(held, c.patch);
    expect(held).toEqual(s.conductor.state);
    s.conductor.dispose();
  });
});

describe('conductor: a passage loop across a restart', () => {
  /**
   * Play a loop in a first process, crash after `playMs`, come back `downMs` later in a second
   * process (a new monotonic clock, the same wall clock) from the first one's record.
   * @param {{ playMs: number, downMs: number, loop: Record<string, unknown> }} o
   */
  function crash({ playMs, downMs, loop }) {
    const a = setup();
    a.conductor.setLoop(loop);
    a.conductor.play();
    a.clock.advance(playMs);
    const record = JSON.parse(JSON.stringify(a.conductor.record()));
    a.conductor.dispose();
    const b = setup({ wall: 1_700_000_000_000 + playMs + downMs, start: 50 });
    b.conductor.resume(record);
    return { a, b, record };
  }

  it('saves the loop in the record and resumes it in the time round reached, on the grid', () => {
    // Bar 3 looped (2 s a round); crash 3.2 s in (round 2, beat 10), back 4.1 s later: 7.3 s =
    // 3 rounds and 1.3 s: round 4, beat 10.
    const { b, record } = crash({ playMs: 3200, downMs: 4100, loop: { from: { bar: 3 }, to: { bar: 3 } } });
    expect(record.loop).toEqual({ start: 8, end: 11, countIn: 0, round: 2 });
    expect(b.conductor.state).toMatchObject({ playback: 'playing', beat: 10, loop: { round: 4, from: 3, to: 3 } });
    // The next beat on the first process's grid: 7.5 s after it started.
    b.clock.advance(200 + 10);
    expect(b.conductor.state.beat).toBe(11);
    expect(b.fired.at(-1)?.due).toBeCloseTo(50 + 200, 6);
    b.conductor.dispose();
  });

  it('resumes in a count-in the loop came round to while the server was down: the clicks start over in full', () => {
    // Bar 3 with 2 clicks: play's clicks (1 s), round 1 (2 s), clicks from 3 s to 4 s. Back at
    // 3.6 s: counting in, so two clicks from 3.6 s and the round's first beat at 4.6 s.
    const { b } = crash({ playMs: 2000, downMs: 1600, loop: { from: { bar: 3 }, to: { bar: 3 }, countIn: 2 } });
    expect(b.conductor.state).toMatchObject({ beat: 8, playback: 'playing', loop: { round: 2 } });
    expect(b.conductor.state.countIn).toEqual({ t: 1_700_000_000_000 + 3600, beats: 2, beatMs: 500 });
    expect(b.conductor.state.next).toMatchObject({ beat: 8, t: 1_700_000_000_000 + 4600 });
    b.clock.advance(1000 + 10);
    expect(b.conductor.state).toMatchObject({ beat: 8, beatT: 1_700_000_000_000 + 4600 });
    expect(b.fired.at(-1)?.due).toBeCloseTo(50 + 1000, 6);
    b.conductor.dispose();
  });

  it("crashed during the loop's count-in, it counts in again in full, then goes round as before", () => {
    // Bar 3 with 2 clicks: crash at 3.3 s (the second round's clicks, 3 s to 4 s), back 0.5 s
    // later: clicks from 3.8 s, beat 8 at 4.8 s, the round's end at 6.8 s, round 3 after clicks.
    const { b, record } = crash({ playMs: 3300, downMs: 500, loop: { from: { bar: 3 }, to: { bar: 3 }, countIn: 2 } });
    expect(record).toMatchObject({ beat: 8, countIn: 2, beatT: 1_700_000_000_000 + 4000, loop: { round: 2 } });
    expect(b.conductor.state.countIn).toEqual({ t: 1_700_000_000_000 + 3800, beats: 2, beatMs: 500 });
    b.clock.advance(1000);
    expect(b.fired.map((f) => f.beat)).toEqual([8]);
    b.clock.advance(2000 + 1000);
    expect(b.fired.map((f) => f.beat)).toEqual([8, 9, 10, 11, 8]);
    expect(b.conductor.state.loop).toMatchObject({ round: 3 });
    b.conductor.dispose();
  });

  it('a jump to the loop pending at the crash lands after the restart, its count-in in full', () => {
    const a = setup();
    a.conductor.play();
    a.clock.advance(1100);
    // Playing bar 1, beat 3 (at 1 s): the loop set goes to its first beat, on the grid at 1.5 s.
    a.conductor.setLoop({ from: { bar: 3 }, to: { bar: 3 }, countIn: 2 });
    const record = JSON.parse(JSON.stringify(a.conductor.record()));
    expect(record.jump).toEqual({ to: 8, t: 1_700_000_000_000 + 1500, countIn: 2 });
    a.conductor.dispose();
    // Back at 1.7 s: the jump landed at 1.5 s into its clicks, under way now: they start over.
    const b = setup({ wall: 1_700_000_000_000 + 1700, start: 50 });
    b.conductor.resume(record);
    expect(b.conductor.state).toMatchObject({ beat: 8, loop: { round: 1 } });
    expect(b.conductor.state.countIn).toEqual({ t: 1_700_000_000_000 + 1700, beats: 2, beatMs: 500 });
    b.clock.advance(1000);
    expect(b.fired).toEqual([{ beat: 8, at: 50 + 1000, due: 50 + 1000 }]);
    b.conductor.dispose();
  });

  it('refuses a saved loop that does not fit the score', () => {
    const a = setup();
    a.conductor.setLoop({ from: { bar: 3 }, to: { bar: 4 } });
    const record = a.conductor.record();
    const b = setup();
    expect(
      refusal(() => b.conductor.resume({ ...record, loop: { start: 8, end: 99, countIn: 0, round: 1 } })),
    ).toMatchObject({
      code: 'SC_ERR_SAVE_MISMATCH',
      message: expect.stringMatching(/loop must run from a beat to a later one in 0\.\.31/),
    });
  });
});

describe('conductor: a jump while playing lands on the beat grid', () => {
  it('is announced as the beat that follows and taken where that beat would have sounded; the beats it replaces never sound', () => {
    const s = setup();
    const t0 = s.clock.now();
    s.conductor.play();
    s.clock.advance(1100); // beat 2 (sounded at 1000); beat 3 due at 1500, 400 ms ahead
    s.conductor.seek(20);
    const wall3 = /** @type {number} */ (s.conductor.state.beatT) + 500;
    expect(s.conductor.state).toMatchObject({ beat: 2, next: { beat: 20, bar: 6, beatInBar: 1, t: wall3 } });
    s.clock.advance(1000);
    expect(s.fired.map((f) => [f.beat, f.due - t0])).toEqual([
      [0, 0],
      [1, 500],
      [2, 1000],
      [20, 1500],
      [21, 2000],
    ]);
    expect(s.conductor.state.cues.audience.text).toBe('bar 5');
    s.conductor.dispose();
  });

  it('lands a beat later when the next beat is too near for every page to hear of it first', () => {
    const s = setup();
    const t0 = s.clock.now();
    s.conductor.play();
    s.clock.advance(1400); // beat 2; beat 3 due in 100 ms, under the jump's lead
    s.conductor.seek(20);
    expect(s.conductor.state.next).toMatchObject({ beat: 3 });
    s.clock.advance(100);
    expect(s.conductor.state).toMatchObject({ beat: 3, next: { beat: 20 } });
    s.clock.advance(500);
    expect(s.fired.map((f) => [f.beat, f.due - t0]).slice(-2)).toEqual([
      [3, 1500],
      [20, 2000],
    ]);
    s.conductor.dispose();
  });

  it('a later seek replaces the jump; a pause before it lands forgets it', () => {
    const s = setup();
    s.conductor.play();
    s.clock.advance(100);
    s.conductor.seek(20);
    s.conductor.seek(24);
    expect(s.conductor.state.next).toMatchObject({ beat: 24 });
    s.clock.advance(500);
    expect(s.conductor.state.beat).toBe(24);
    s.conductor.seek(8);
    s.conductor.pause();
    s.conductor.play();
    s.clock.advance(1000);
    expect(s.fired.map((f) => f.beat).includes(8)).toBe(false);
    s.conductor.dispose();
  });

  it('a loop set from elsewhere while playing: the jump to its first beat, after its count-in, on the grid', () => {
    const s = setup();
    const t0 = s.clock.now();
    s.conductor.play();
    s.clock.advance(1100); // beat 2
    s.conductor.setLoop({ from: { bar: 5 }, to: { bar: 5 }, countIn: 2 });
    const wall3 = /** @type {number} */ (s.conductor.state.beatT) + 500;
    expect(s.conductor.state).toMatchObject({
      beat: 2,
      loop: { from: 5, round: 1 },
      next: { beat: 16, t: wall3 + 1000 },
    });
    expect(s.conductor.state.countIn).toEqual({ t: wall3, beats: 2, beatMs: 500 });
    s.clock.advance(400 + 1000 + 2000 + 10);
    expect(s.fired.map((f) => [f.beat, f.due - t0]).slice(2)).toEqual([
      [2, 1000],
      [16, 2500],
      [17, 3000],
      [18, 3500],
      [19, 4000],
    ]);
    s.conductor.dispose();
  });
});

describe('conductor: a count-in interrupted', () => {
  /**
   * The state as a page holds it (every change applied) and what the page shows at wall times
   * `ts` from it: the bar and the count-in click.
   * @param {ReturnType<typeof setup>} s
   * @param {number[]} ts
   */
  function shown(s, ts) {
    let held = /** @type {any} */ (null);
    for (const c of s.changes) held = c.patch === null ? c.state : applyPatch(held, c.patch);
    expect(held).toEqual(s.conductor.state);
    return ts.map((t) => {
      const p = positionAt(held, t);
      return [p.bar, p.beatInBar, p.count];
    });
  }

  it("a seek during play's count-in: the clicks go on and count in to the target, said at once; the beat they counted in to never sounds", () => {
    const s = setup();
    const t0 = s.clock.now();
    const wall0 = s.clock.wall();
    s.conductor.play({ countIn: 1 }); // four clicks, then beat 0 at 2000
    s.clock.advance(1100);
    s.conductor.seek(20);
    expect(s.conductor.state).toMatchObject({ beat: 20, bar: 6, playback: 'playing', mark: 'C' });
    expect(s.conductor.state.countIn).toEqual({ t: wall0, beats: 4, beatMs: 500 });
    expect(s.conductor.state.next).toMatchObject({ beat: 20, t: wall0 + 2000 });
    expect(s.conductor.state.cues.audience.text).toBe('bar 5');
    // Saved so: counting in to beat 20, no jump pending (a restart counts in to it again).
    const record = JSON.parse(JSON.stringify(s.conductor.record()));
    expect(record).toMatchObject({ transport: 'playing', beat: 20, beatT: wall0 + 2000, countIn: 4 });
    expect(record.jump ?? null).toBeNull();
    // A page counts in to bar 6 from the third click, and shows bar 6 at the downbeat.
    expect(shown(s, [wall0 + 1200, wall0 + 1700, wall0 + 2000])).toEqual([
      [6, 1, 3],
      [6, 1, 4],
      [6, 1, 0],
    ]);
    s.clock.advance(1400);
    expect(s.fired.map((f) => [f.beat, f.due - t0])).toEqual([
      [20, 2000],
      [21, 2500],
    ]);
    expect(s.conductor.state).toMatchObject({ beat: 21, beatT: wall0 + 2500 });
    expect(s.conductor.state.countIn).toBeUndefined();
    s.conductor.dispose();
  });

  it("a seek during a loop round's count-in, out of the loop: the clicks count in to the target, the loop is off", () => {
    const s = setup();
    const t0 = s.clock.now();
    const wall0 = s.clock.wall();
    s.conductor.setLoop({ from: { bar: 3 }, to: { bar: 3 }, countIn: 4 });
    s.conductor.play(); // clicks 0-2000, bar 3 at 2000-4000, clicks 4000-6000, bar 3 again at 6000
    s.clock.advance(4600);
    expect(s.conductor.state).toMatchObject({ beat: 8, loop: { round: 2 }, countIn: { t: wall0 + 4000 } });
    s.conductor.seek(20);
    expect(s.conductor.state).toMatchObject({ beat: 20, bar: 6, next: { beat: 20, t: wall0 + 6000 } });
    expect(s.conductor.state.loop).toBeUndefined();
    expect(shown(s, [wall0 + 4700, wall0 + 5600, wall0 + 6000])).toEqual([
      [6, 1, 2],
      [6, 1, 4],
      [6, 1, 0],
    ]);
    s.clock.advance(1900);
    expect(s.fired.map((f) => [f.beat, f.due - t0]).slice(4)).toEqual([
      [20, 6000],
      [21, 6500],
    ]);
    s.conductor.dispose();
  });

  it('a seek as the clicks end, too late for every page to hear of it first: the beat counted in to sounds, the jump lands after it', () => {
    const s = setup();
    const t0 = s.clock.now();
    s.conductor.play({ countIn: 1 });
    s.clock.advance(1800); // the last click; beat 0 due in 200 ms, under the jump's lead
    s.conductor.seek(20);
    expect(s.conductor.state).toMatchObject({ beat: 0, next: { beat: 0 } });
    s.clock.advance(700);
    expect(s.fired.map((f) => [f.beat, f.due - t0])).toEqual([
      [0, 2000],
      [20, 2500],
    ]);
    s.conductor.dispose();
  });

  it('a tempo factor set during a count-in: the clicks go on as announced, the beats after them at the new rate', () => {
    const s = setup();
    const t0 = s.clock.now();
    s.conductor.play({ countIn: 1 });
    const { countIn, next } = s.conductor.state;
    s.clock.advance(700);
    s.conductor.setRate(2);
    expect(s.conductor.state).toMatchObject({ beat: 0, rate: 2, tempo: 240, countIn, next });
    expect(s.conductor.state.beatT).toBeUndefined();
    s.clock.advance(1800);
    expect(s.fired.map((f) => [f.beat, f.due - t0])).toEqual([
      [0, 2000],
      [1, 2250],
      [2, 2500],
    ]);
    s.conductor.dispose();
  });

  it('a stop or a pause during a count-in: no click, no beat announced, nothing sounds after', () => {
    for (const how of /** @type {const} */ (['stop', 'pause'])) {
      const s = setup();
      const wall0 = s.clock.wall();
      s.conductor.seek(16);
      s.conductor.play({ countIn: 1 });
      s.clock.advance(1100);
      s.conductor[how]();
      expect(s.conductor.state.playback).toBe(how === 'stop' ? 'stopped' : 'paused');
      for (const key of ['countIn', 'next', 'beatT']) expect(s.conductor.state, how).not.toHaveProperty(key);
      // The page shows where the performance holds, without a count, at the clicks' times and after.
      const held = how === 'stop' ? 1 : 5;
      expect(shown(s, [wall0 + 1200, wall0 + 1700, wall0 + 2500])).toEqual([
        [held, 1, 0],
        [held, 1, 0],
        [held, 1, 0],
      ]);
      s.clock.advance(3000);
      expect(s.fired, how).toEqual([]);
      s.conductor.dispose();
    }
  });
});

import { describe, it, expect } from 'vitest';
import { buildScoreModel } from '../../../core/manifest.js';
import { createMemoryBus } from '../../../server/live/bus.js';
import { COUNTS_EVERY_MS, createConductor } from '../../../server/performance/conductor.js';
import { applyPatch } from '../../../core/merge-patch.js';
import { createFakeClock } from '../../helpers/fake-clock.js';

/** @param {object} [extra] */
function model(extra = {}) {
  const r = buildScoreModel({
    id: 'c',
    title: 'C',
    bars: 4,
    meter: [{ bar: 1, time: '4/4', tempo: 120 }],
    cues: [
      { at: 0, set: { text: 'start' } },
      { at: 8, set: { text: 'half' } },
    ],
    ...extra,
  });
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.value;
}

/** @param {Parameters<typeof createFakeClock>[0]} [clockOptions] @param {object} [extra] @param {boolean} [loop] */
function setup(clockOptions, extra, loop = false) {
  const clock = createFakeClock(clockOptions);
  const bus = createMemoryBus();
  /** @type {import('../../../server/live/bus.js').StateChange[]} */
  const changes = [];
  bus.subscribe((c) => changes.push(c));
  /** @type {{ beat: number, at: number, due: number }[]} */
  const fired = [];
  const conductor = createConductor({
    model: model(extra),
    bus,
    clock,
    loop,
    epoch: 'e1',
    onBeat: (beat, due) => fired.push({ beat, at: clock.now(), due }),
  });
  return { clock, bus, changes, fired, conductor };
}

describe('conductor', () => {
  it('keeps every beat within 2 ms of its ideal time over a 10-minute piece with late timers', () => {
    // 300 bars of 4/4 with tempo and time-signature changes: about 10 minutes.
    const extra = {
      bars: 300,
      meter: [
        { bar: 1, time: '4/4', tempo: 120 },
        { bar: 61, time: '3/4', tempo: 96 },
        { bar: 151, time: '7/8', tempo: 150 },
        { bar: 231, beat: 4, tempo: 84.5 },
      ],
      cues: [],
    };
    let n = 0;
    // Timers fire 0 to 1.9 ms late (deterministic pseudo-random), like a busy event loop.
    const s = setup({ lateness: () => ((n++ * 7919) % 20) / 10.5 }, extra);
    const map = s.conductor.model.map;
    expect(map.durationMs).toBeGreaterThan(9.5 * 60000);
    const start = s.clock.now();
    s.conductor.play();
    s.clock.advance(map.durationMs + 2000);
    expect(s.fired.length).toBe(map.totalBeats);
    let worst = 0;
    for (const f of s.fired) {
      const ideal = start + map.timeAt(f.beat);
      expect(f.due).toBeCloseTo(ideal, 6);
      worst = Math.max(worst, Math.abs(f.at - ideal));
    }
    expect(worst).toBeLessThanOrEqual(2);
    expect(s.conductor.state.transport).toBe('stopped');
  });

  it('publishes each change with seq + 1 and a patch that rebuilds the state', () => {
    const s = setup();
    s.conductor.play();
    s.clock.advance(3000);
    s.conductor.pause();
    expect(s.changes.map((c) => c.seq)).toEqual(s.changes.map((_, i) => i));
    let state = s.changes[0].state;
    for (const c of s.changes.slice(1)) state = applyPatch(state, c.patch);
    expect(state).toEqual(s.conductor.state);
    expect(s.conductor.state).toMatchObject({ transport: 'paused', beat: 6 });
  });

  it('pauses mid-beat and resumes for the rest of that beat only', () => {
    const s = setup();
    s.conductor.play();
    s.clock.advance(1200); // beats at 0, 500, 1000; 200 ms into beat 2
    s.conductor.pause();
    s.clock.advance(5000);
    expect(s.conductor.state.beat).toBe(2);
    const resumed = s.clock.now();
    s.conductor.play();
    s.clock.advance(400);
    expect(s.fired.at(-1)).toMatchObject({ beat: 3 });
    expect(/** @type {any} */ (s.fired.at(-1)).at).toBeCloseTo(resumed + 300, 6);
  });

  it('seeks while playing and while stopped, recomputing cues', () => {
    const s = setup();
    s.conductor.seek(9);
    expect(s.conductor.state).toMatchObject({ transport: 'stopped', beat: 9, bar: 3, beatInBar: 2 });
    expect(s.conductor.state.cues.audience).toEqual({ text: 'half' });
    s.conductor.play();
    expect(s.fired.at(-1)).toMatchObject({ beat: 9 });
    // While playing, a jump on the beat grid: announced as the next beat, taken where beat 10
    // would have sounded (500 ms ahead, more than the jump's lead).
    s.conductor.seek(1);
    expect(s.conductor.state).toMatchObject({ beat: 9, next: { beat: 1, bar: 1, beatInBar: 2 } });
    expect(s.conductor.state.cues.audience).toEqual({ text: 'half' });
    s.clock.advance(500);
    expect(s.conductor.state.beat).toBe(1);
    expect(s.conductor.state.cues.audience).toEqual({ text: 'start' });
    s.clock.advance(500);
    expect(s.conductor.state.beat).toBe(2);
    expect(() => s.conductor.seek(16)).toThrow(/beat must be an integer in 0..15/);
    expect(() => s.conductor.beatOf(5)).toThrow(/bar must be in 1..4/);
    expect(s.conductor.beatOf(2, 3)).toBe(6);
  });

  it('changes tempo from now on without a jump', () => {
    const s = setup();
    s.conductor.play();
    s.clock.advance(1250); // 250 ms into beat 2 at 500 ms a beat
    s.conductor.setRate(2); // 250 ms a beat: the rest of beat 2 (half a beat) takes 125 ms
    const t = s.clock.now();
    s.clock.advance(130);
    expect(s.fired.at(-1)).toMatchObject({ beat: 3 });
    expect(/** @type {any} */ (s.fired.at(-1)).at).toBeCloseTo(t + 125, 6);
    expect(s.conductor.state.tempo).toBe(240);
    expect(() => s.conductor.setRate(10)).toThrow(/rate must be/);
  });

  it('stops at the end, or loops on the beat grid when asked', () => {
    const once = setup();
    once.conductor.play();
    once.clock.advance(9000);
    expect(once.conductor.state).toMatchObject({ transport: 'stopped', beat: 15 });
    once.conductor.play();
    expect(once.conductor.state).toMatchObject({ transport: 'playing', beat: 0 });

    const looping = setup(undefined, undefined, true);
    const start = looping.clock.now();
    looping.conductor.play();
    looping.clock.advance(8000 * 3 + 100);
    const secondLoop = looping.fired.filter((f) => f.beat === 0);
    expect(secondLoop.map((f) => f.at - start)).toEqual([0, 8000, 16000, 24000]);
    expect(looping.conductor.state.cues.audience).toEqual({ text: 'start' });
  });

  it('stop returns to the first beat and cancels the timers', () => {
    const s = setup();
    s.conductor.play();
    s.clock.advance(2100);
    s.conductor.stop();
    expect(s.conductor.state).toMatchObject({ transport: 'stopped', beat: 0 });
    expect(s.conductor.state).not.toHaveProperty('beatT');
    expect(s.clock.pending).toBe(0);
  });

  it('loads a new score: a new epoch from seq 0, keeping the position when asked', () => {
    const s = setup();
    s.conductor.play();
    s.clock.advance(2600); // beat 5
    const before = s.conductor.epoch;
    s.conductor.load(model({ bars: 8, cues: [{ at: 0, set: { text: 'new' } }] }), { keepPosition: true });
    expect(s.conductor.epoch).not.toBe(before);
    const first = s.changes.find((c) => c.epoch === s.conductor.epoch);
    expect(first).toMatchObject({ seq: 0, patch: null });
    expect(s.conductor.state).toMatchObject({ transport: 'playing', beat: 5 });
    expect(s.conductor.state.cues.audience).toEqual({ text: 'new' });
    s.clock.advance(500);
    expect(s.conductor.state.beat).toBe(6);
    const seqs = s.changes.filter((c) => c.epoch === s.conductor.epoch).map((c) => c.seq);
    expect(seqs).toEqual(seqs.map((_, i) => i));

    s.conductor.load(model({ bars: 1, cues: [] }), { keepPosition: true });
    expect(s.conductor.state.beat).toBe(3); // clamped to the shorter score
    s.conductor.load(model(), {});
    expect(s.conductor.state).toMatchObject({ transport: 'stopped', beat: 0 });
    expect(s.clock.pending).toBe(0);
  });

  it('at the close of a vote window, the winning tile sends the performance where it decides', () => {
    const vote = { id: 'route', tiles: ['a', 'b'], close: { bar: 3 }, decides: { a: { seek: { bar: 4 } } } };
    /** @type {import('../../../core/votes.js').Outcome[]} */
    const outcomes = [];
    const clock = createFakeClock();
    const bus = createMemoryBus();
    /** @type {{ beat: number, at: number }[]} */
    const fired = [];
    const conductor = createConductor({
      model: model({ cues: [{ bar: 2, vote }] }),
      bus,
      clock,
      epoch: 'v',
      onBeat: (beat) => fired.push({ beat, at: clock.now() }),
      onVote: (o) => outcomes.push(o),
    });
    const start = clock.now();
    conductor.play();
    clock.advance(2100); // in the window (beats 4..7)
    expect(conductor.state.cues.audience.vote).toEqual({ id: 'route', tiles: ['a', 'b'], closes: 8 });
    expect(conductor.vote({ tile: 'a', device: 'phone-0001' })).toMatchObject({ ok: true });
    expect(conductor.vote({ tile: 'b', device: 'phone-0002' })).toMatchObject({ ok: true });
    expect(conductor.vote({ tile: 'a', device: 'phone-0003' })).toMatchObject({ ok: true });
    expect(conductor.votes().open?.tally).toEqual({ a: 2, b: 1 });
    clock.advance(2000); // beat 8 is due at 4000 ms: the vote closes and 'a' wins
    expect(outcomes).toEqual([{ id: 'route', tally: { a: 2, b: 1 }, winner: 'a', seek: 12 }]);
    const jump = fired.findIndex((f) => f.beat === 12);
    expect(fired[jump - 1].beat).toBe(7);
    expect(fired[jump].at - start).toBeCloseTo(4000, 6); // on the grid, where beat 8 would have been
    expect(conductor.state).toMatchObject({ bar: 4, beatInBar: 1 });
    expect(conductor.state.cues.audience.vote).toBeUndefined();
    conductor.dispose();
  });

  it('announces the next beat and when it sounds, so clients show it on time', () => {
    const s = setup();
    const wall0 = s.clock.wall();
    s.conductor.play();
    // 4/4 at 120: beat 1 sounds 500 ms after beat 0.
    expect(s.conductor.state.next).toEqual({ beat: 1, bar: 1, beatInBar: 2, t: wall0 + 500 });
    s.clock.advance(1600); // beat 3
    expect(s.conductor.state.next).toEqual({ beat: 4, bar: 2, beatInBar: 1, t: wall0 + 2000 });
    // Every announcement came true: the beat it names sounded at its time.
    let announced = null;
    for (const c of s.changes) {
      const state = /** @type {import('../../../core/performance.js').PerformanceState} */ (c.state);
      if (announced && state.beatT !== undefined) expect({ beat: state.beat, t: state.beatT }).toEqual(announced);
      announced = state.next ? { beat: state.next.beat, t: state.next.t } : null;
    }
    s.conductor.setRate(2);
    expect(s.conductor.state.next?.t).toBeCloseTo(wall0 + 1600 + 200, 6); // the last 400 ms of beat 3, twice as fast
    s.conductor.pause();
    expect(s.conductor.state.next).toBeUndefined();
    s.conductor.seek(14);
    expect(s.conductor.state.next).toBeUndefined();
    s.conductor.play();
    expect(s.conductor.state.next?.beat).toBe(15);
    s.clock.advance(300); // beat 15, the last: nothing follows
    expect(s.conductor.state.beat).toBe(15);
    expect(s.conductor.state.next).toBeUndefined();
  });

  it('announces the loop and audio clips one beat ahead', () => {
    const s = setup(
      undefined,
      {
        cues: [
          { at: 0, set: { text: 'a' } },
          { at: 1, audio: 'bell.wav' },
        ],
      },
      true,
    );
    s.conductor.play();
    expect(s.conductor.state.next).toMatchObject({ beat: 1, audio: { audience: ['bell.wav'] } });
    s.clock.advance(500);
    expect(s.conductor.state.next).toEqual({ beat: 2, bar: 1, beatInBar: 3, t: expect.any(Number) });
    s.clock.advance(7000); // beat 15 (the last), looping: beat 0 follows
    expect(s.conductor.state.beat).toBe(15);
    expect(s.conductor.state.next).toMatchObject({ beat: 0, bar: 1, beatInBar: 1 });
  });

  it('announces the jump a vote will decide, and corrects it if the last votes change the result', () => {
    const vote = { id: 'route', tiles: ['a', 'b'], close: { bar: 3 }, decides: { a: { seek: { bar: 4 } } } };
    const clock = createFakeClock();
    const conductor = createConductor({
      model: model({ cues: [{ bar: 2, vote }] }),
      bus: createMemoryBus(),
      clock,
      epoch: 'v',
    });
    conductor.play();
    clock.advance(3100); // beat 6: nobody voted, beat 8 follows
    expect(conductor.state.next?.beat).toBe(7);
    conductor.vote({ tile: 'a', device: 'phone-0001' });
    clock.advance(500); // beat 7, the window's last: the tally so far says 'a', so bar 4 (beat 12)
    expect(conductor.state.next).toMatchObject({ beat: 12, bar: 4, beatInBar: 1 });
    conductor.vote({ tile: 'b', device: 'phone-0002' }); // a tie now goes to 'a' still
    conductor.vote({ tile: 'b', device: 'phone-0003' }); // 'b' wins: it decides nothing
    clock.advance(500);
    expect(conductor.state).toMatchObject({ beat: 8, bar: 3 });
    conductor.dispose();
  });

  it('counts in before the first beat, at the tempo of that beat', () => {
    const s = setup();
    const wall0 = s.clock.wall();
    s.conductor.seek(4);
    s.conductor.play({ countIn: 1 });
    // One bar of 4/4 at 120: four clicks 500 ms apart, beat 4 sounds after them.
    expect(s.conductor.state).toMatchObject({
      transport: 'playing',
      beat: 4,
      countIn: { t: wall0, beats: 4, beatMs: 500 },
    });
    expect(s.conductor.state.next).toMatchObject({ beat: 4, bar: 2, beatInBar: 1, t: wall0 + 2000 });
    expect(s.conductor.state.beatT).toBeUndefined();
    s.clock.advance(1999);
    expect(s.fired).toEqual([]);
    s.clock.advance(1);
    expect(s.fired.map((f) => f.beat)).toEqual([4]);
    expect(s.conductor.state).toMatchObject({ beat: 4, beatT: wall0 + 2000, next: { beat: 5 } });
    expect(s.conductor.state.countIn).toBeUndefined();
    // Paused during a count-in, it waits on the same beat.
    s.conductor.stop();
    s.conductor.play({ countIn: 2 });
    s.clock.advance(1000);
    s.conductor.pause();
    expect(s.conductor.state).toMatchObject({ transport: 'paused', beat: 0 });
    expect(s.conductor.state.countIn).toBeUndefined();
    expect(s.clock.pending).toBe(0);
    expect(() => s.conductor.play({ countIn: 9 })).toThrow(/countIn/);
  });

  describe('vote windows opened and closed by the conductor', () => {
    const vote = { id: 'route', tiles: ['a', 'b'], close: { bar: 3 }, decides: { a: { seek: { bar: 4 } } } };
    function setupVote() {
      const clock = createFakeClock();
      /** @type {import('../../../core/votes.js').Outcome[]} */
      const outcomes = [];
      /** @type {{ beat: number, at: number }[]} */
      const fired = [];
      const conductor = createConductor({
        model: model({ cues: [{ bar: 2, vote }] }),
        bus: createMemoryBus(),
        clock,
        epoch: 'm',
        onBeat: (beat) => fired.push({ beat, at: clock.now() }),
        onVote: (o) => outcomes.push(o),
      });
      return { clock, conductor, outcomes, fired };
    }

    it("shows the open window's votes per tile to the phones, a beat at most after they are cast, as small patches", () => {
      const clock = createFakeClock();
      const bus = createMemoryBus();
      /** @type {any[]} */
      const patches = [];
      bus.subscribe((c) => {
        if (c.patch) patches.push(c.patch);
      });
      const conductor = createConductor({ model: model({ cues: [{ bar: 2, vote }] }), bus, clock, epoch: 'c' });
      conductor.play();
      clock.advance(2000); // beat 4: the window opens
      expect(conductor.state.cues.audience.vote).not.toHaveProperty('counts');
      conductor.vote({ tile: 'b', device: 'phone-0001' });
      conductor.vote({ tile: 'b', device: 'phone-0002' });
      clock.advance(500);
      expect(/** @type {any} */ (conductor.state.cues.audience.vote).counts).toEqual({ b: 2 });
      const last = patches.at(-1);
      expect(last.cues.audience.vote).toEqual({ counts: { b: 2 } });
      expect(JSON.stringify(last).length).toBeLessThan(300);
    });

    it('publishes the counts of votes cast while paused once, a moment later', () => {
      const clock = createFakeClock();
      const bus = createMemoryBus();
      let changes = 0;
      bus.subscribe(() => {
        changes++;
      });
      const conductor = createConductor({ model: model({ cues: [{ bar: 2, vote }] }), bus, clock, epoch: 'p' });
      conductor.seek(5);
      const before = changes;
      for (let i = 1; i <= 20; i++)
        conductor.vote({ tile: i % 2 ? 'a' : 'b', device: `phone-${String(i).padStart(4, '0')}` });
      expect(changes).toBe(before);
      clock.advance(COUNTS_EVERY_MS);
      expect(changes).toBe(before + 1);
      expect(/** @type {any} */ (conductor.state.cues.audience.vote).counts).toEqual({ a: 10, b: 10 });
    });

    it('opens a window at any beat; it stays open until closed, and its winner jumps on the next beat of the grid', () => {
      const { clock, conductor, outcomes, fired } = setupVote();
      const start = clock.now();
      conductor.play();
      conductor.openVote('route');
      expect(conductor.state.cues.audience.vote).toEqual({ id: 'route', tiles: ['a', 'b'] });
      expect(conductor.vote({ tile: 'a', device: 'phone-0001' })).toMatchObject({ ok: true });
      clock.advance(5000); // past the scheduled window (beats 4..7): still open, nothing decided
      expect(conductor.state.beat).toBe(10);
      expect(conductor.state.cues.audience.vote).toEqual({ id: 'route', tiles: ['a', 'b'], counts: { a: 1 } });
      expect(outcomes).toEqual([]);
      clock.advance(100);
      conductor.closeVote();
      expect(outcomes).toEqual([{ id: 'route', tally: { a: 1, b: 0 }, winner: 'a', seek: 12 }]);
      expect(conductor.state.cues.audience.vote).toBeUndefined();
      expect(conductor.state.next).toMatchObject({ beat: 12, t: expect.any(Number) });
      clock.advance(400); // beat 11 would have sounded at 5500 ms: beat 12 sounds then instead
      const jump = fired.at(-1);
      expect(jump?.beat).toBe(12);
      expect((jump?.at ?? 0) - start).toBeCloseTo(5500, 6);
      expect(() => conductor.closeVote()).toThrow(expect.objectContaining({ code: 'SC_ERR_NO_VOTE_WINDOW' }));
      conductor.dispose();
    });

    it("a vote closed after a seek that has not landed yet replaces it: one jump, the vote's", () => {
      const { clock, conductor, fired } = setupVote();
      conductor.play();
      conductor.openVote('route');
      conductor.vote({ tile: 'a', device: 'phone-0001' });
      clock.advance(1100); // beat 2 sounding; beat 3 due at 1500
      conductor.seek(9); // lands on beat 3's time
      clock.advance(100);
      conductor.closeVote(); // the winner's jump: to beat 12 (the window's seek)
      const landed = fired.length;
      clock.advance(1000); // two beats of the grid
      expect(fired.slice(landed).map((f) => f.beat)).toEqual([12, 13]);
      conductor.dispose();
    });

    it("closes the score's window early: it does not open again until the performance leaves its beats", () => {
      const { clock, conductor, outcomes } = setupVote();
      conductor.play();
      clock.advance(2600); // beat 5, in the window
      expect(conductor.state.cues.audience.vote).toMatchObject({ id: 'route' });
      conductor.closeVote();
      expect(outcomes).toEqual([{ id: 'route', tally: { a: 0, b: 0 }, winner: null, seek: null }]);
      expect(conductor.state.cues.audience.vote).toBeUndefined();
      clock.advance(500); // beat 6: still in its beats, still closed
      expect(conductor.state.beat).toBe(6);
      expect(conductor.state.cues.audience.vote).toBeUndefined();
      expect(conductor.vote({ tile: 'a', device: 'phone-0001' })).toMatchObject({
        ok: false,
        error: { code: 'SC_ERR_NO_VOTE_WINDOW' },
      });
      conductor.seek(0);
      clock.advance(500); // the jump lands on the grid
      conductor.seek(4); // back into it later: it opens again
      clock.advance(500);
      expect(conductor.state.cues.audience.vote).toMatchObject({ id: 'route' });
      conductor.dispose();
    });

    it("paused, a closed vote's jump happens at once; an unknown window is refused", () => {
      const { conductor } = setupVote();
      conductor.openVote('route');
      conductor.vote({ tile: 'a', device: 'phone-0001' });
      conductor.closeVote();
      expect(conductor.state).toMatchObject({ transport: 'stopped', beat: 12, bar: 4 });
      expect(() => conductor.openVote('nope')).toThrow(expect.objectContaining({ code: 'SC_ERR_BAD_CONTROL' }));
      conductor.dispose();
    });

    it('a manually opened window survives a restart (record and resume)', () => {
      const { conductor } = setupVote();
      conductor.openVote('route');
      conductor.vote({ tile: 'b', device: 'phone-0002' });
      const record = conductor.record();
      const other = setupVote();
      other.conductor.resume(record);
      expect(other.conductor.state.cues.audience.vote).toEqual({ id: 'route', tiles: ['a', 'b'], counts: { b: 1 } });
      // the phone's choice is kept too: its tap on the same tile takes the vote back, once
      expect(other.conductor.vote({ tile: 'b', device: 'phone-0002' })).toMatchObject({ ok: true, tile: null });
      expect(other.conductor.votes().open?.tally).toEqual({ a: 0, b: 0 });
      other.conductor.dispose();
      conductor.dispose();
    });
  });
});

describe('conductor: where a performance starts (onStart, for the set-up of the electronics)', () => {
  /** @param {boolean} [loop] */
  function started(loop = false) {
    const clock = createFakeClock();
    /** @type {number[]} */
    const starts = [];
    /** @type {string[]} */
    const order = [];
    const conductor = createConductor({
      model: model(),
      bus: createMemoryBus(),
      clock,
      loop,
      epoch: 'e1',
      onBeat: (beat) => order.push(`beat ${beat}`),
      onStart: (beat) => {
        starts.push(beat);
        order.push(`start ${beat}`);
      },
    });
    return { clock, conductor, starts, order };
  }

  it('is told of a play, a seek while playing and a play after a pause, before that beat sounds', () => {
    const s = started();
    s.conductor.play();
    expect(s.order).toEqual(['start 0', 'beat 0']);
    s.clock.advance(1000); // beats 1, 2: played on, no new start
    expect(s.starts).toEqual([0]);
    s.conductor.seek(8);
    expect(s.starts).toEqual([0]); // a jump while playing starts where it lands, on the grid
    s.clock.advance(500);
    expect(s.starts).toEqual([0, 8]);
    expect(s.order.slice(-2)).toEqual(['start 8', 'beat 8']);
    s.conductor.pause();
    s.conductor.seek(12); // paused: nothing starts yet
    expect(s.starts).toEqual([0, 8]);
    s.conductor.play();
    expect(s.starts).toEqual([0, 8, 12]);
    s.conductor.play({ countIn: 0 }); // already playing: nothing
    expect(s.starts).toEqual([0, 8, 12]);
  });

  it("is told of a loop's new round and of a resume while playing, at the beat reached", () => {
    const s = started(true);
    s.conductor.play();
    s.clock.advance(16 * 500); // 4 bars of 4/4 at 120: the loop's second round starts
    expect(s.starts).toEqual([0, 0]);
    s.clock.advance(3 * 500);
    const record = s.conductor.record();
    const t = started(true);
    t.clock.advance(19 * 500 + 3 * 500 + 10); // the same wall clock; the restart took 1.5 s: three beats on
    t.conductor.resume(record);
    expect(t.starts).toEqual([6]);
  });
});

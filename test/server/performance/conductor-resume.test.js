// conductor.record() and conductor.resume(): a performance taken up by a new process (a new
// monotonic clock, the same wall clock) comes back at the beat the piece has reached, on the
// same beat grid.

import { describe, it, expect } from 'vitest';
import { buildScoreModel } from '../../../core/manifest.js';
import { cuesAt } from '../../../core/performance.js';
import { createMemoryBus } from '../../../server/live/bus.js';
import { createConductor } from '../../../server/performance/conductor.js';
import { createFakeClock } from '../../helpers/fake-clock.js';

const VOTE = { id: 'route', tiles: ['a', 'b'], close: { bar: 3 }, decides: { a: { seek: { bar: 4 } } } };

/** 4/4 at 120 (500 ms a beat), 8 bars (32 beats, 16 s), a cue every other bar. @param {object} [extra] */
function model(extra = {}) {
  const r = buildScoreModel({
    id: 'r',
    title: 'R',
    bars: 8,
    meter: [{ bar: 1, time: '4/4', tempo: 120 }],
    cues: [
      { at: 0, set: { text: 'start' } },
      { at: 8, set: { text: 'bar 3' } },
      { at: 20, set: { text: 'bar 6' } },
    ],
    ...extra,
  });
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.value;
}

/**
 * A conductor in a "process" of its own: its monotonic clock starts anywhere, its wall clock
 * at `wall`.
 * @param {{ wall?: number, start?: number, extra?: object, loop?: boolean }} [options]
 */
function proc({ wall = 1_700_000_000_000, start = 1000, extra, loop = false } = {}) {
  const clock = createFakeClock({ start, wallStart: wall });
  const bus = createMemoryBus();
  /** @type {import('../../../server/live/bus.js').StateChange[]} */
  const changes = [];
  bus.subscribe((c) => changes.push(c));
  /** @type {{ beat: number, at: number }[]} */
  const fired = [];
  const conductor = createConductor({
    model: model(extra),
    bus,
    clock,
    loop,
    epoch: 'old',
    onBeat: (beat) => fired.push({ beat, at: clock.now() }),
  });
  return { clock, conductor, changes, fired };
}

const WALL0 = 1_700_000_000_000;

/**
 * Play in a first process for `playMs`, crash, restart after `downMs` more and resume there.
 * @param {{ playMs: number, downMs: number, extra?: object, loop?: boolean, before?: (p: ReturnType<typeof proc>) => void }} o
 */
function crashAndResume({ playMs, downMs, extra, loop, before }) {
  const first = proc({ extra, loop });
  first.conductor.play();
  first.clock.advance(playMs);
  before?.(first);
  const record = JSON.parse(JSON.stringify(first.conductor.record()));
  first.conductor.dispose();
  const second = proc({ wall: first.clock.wall() + downMs, start: 42, extra, loop });
  second.conductor.resume(record);
  return { first, second, record };
}

describe('conductor resume', () => {
  it('records a playing performance as its beat and the wall time that beat sounded', () => {
    const p = proc();
    p.conductor.play();
    p.clock.advance(2600);
    expect(p.conductor.record()).toEqual({
      transport: 'playing',
      beat: 5,
      beatT: WALL0 + 2500,
      rate: 1,
      ballot: { open: null, closed: [] },
    });
  });

  it('comes back playing at the beat reached by the time gone by, exactly on the beat grid', () => {
    // Beat 5 sounded at 2500 ms; restarted at 5810 ms: beat 11 (5500 ms) is sounding.
    const { second } = crashAndResume({ playMs: 2600, downMs: 3210 });
    const { conductor, clock, changes, fired } = second;
    expect(conductor.epoch).not.toBe('old');
    expect(changes.at(-1)).toMatchObject({ epoch: conductor.epoch, seq: 0, patch: null });
    expect(conductor.state).toMatchObject({
      transport: 'playing',
      beat: 11,
      bar: 3,
      beatInBar: 4,
      beatT: WALL0 + 5500,
      rate: 1,
    });
    expect(conductor.state.next).toMatchObject({ beat: 12, t: WALL0 + 6000 });
    expect(conductor.state.cues).toEqual(cuesAt(conductor.model, 11));
    clock.advance(189);
    expect(fired).toEqual([]);
    clock.advance(1);
    expect(fired).toEqual([{ beat: 12, at: 42 + 190 }]);
    expect(conductor.state.beatT).toBe(WALL0 + 6000);
    clock.advance(1000);
    expect(fired.map((f) => f.at - 42)).toEqual([190, 690, 1190]);
  });

  it('keeps the rate, and the grid a tempo change made', () => {
    const { second, record } = crashAndResume({
      playMs: 1250,
      downMs: 2000,
      // 250 ms into beat 2, twice as fast: the rest of beat 2 takes 125 ms, then 250 ms a beat.
      before: (p) => p.conductor.setRate(2),
    });
    expect(record).toMatchObject({ beat: 2, beatT: WALL0 + 1125, rate: 2 });
    // Beat 3 at 1375 ms, then every 250: at 3250 ms beat 10 (3125 ms) is sounding.
    expect(second.conductor.state).toMatchObject({
      transport: 'playing',
      beat: 10,
      beatT: WALL0 + 3125,
      rate: 2,
      tempo: 240,
    });
    second.clock.advance(125);
    expect(second.fired).toEqual([{ beat: 11, at: 42 + 125 }]);
  });

  it('follows the loop through the time gone by', () => {
    // 16 beats of 500 ms: 8 s a round. Down for three rounds and 1.234 s after the start.
    const { second } = crashAndResume({
      playMs: 2600,
      downMs: 8000 * 3 + 1234 - 2600,
      loop: true,
      extra: { bars: 4, cues: [] },
    });
    expect(second.conductor.state).toMatchObject({ transport: 'playing', beat: 2, beatT: WALL0 + 24000 + 1000 });
    second.clock.advance(266);
    expect(second.fired).toEqual([{ beat: 3, at: 42 + 266 }]);
  });

  it('stops at the end when the piece ended while the server was down, and plays again from the top', () => {
    const { second } = crashAndResume({ playMs: 2600, downMs: 60_000 });
    expect(second.conductor.state).toMatchObject({ transport: 'stopped', beat: 31 });
    expect(second.clock.pending).toBe(0);
    second.conductor.play();
    expect(second.conductor.state).toMatchObject({ transport: 'playing', beat: 0 });
  });

  it('keeps the open vote window, its tally and its voters: nobody votes twice', () => {
    const { second, record } = crashAndResume({
      playMs: 2100,
      downMs: 1000,
      extra: { cues: [{ bar: 2, vote: VOTE }] },
      before: (p) => {
        for (const [tile, device] of [
          ['a', 'phone-0001'],
          ['b', 'phone-0002'],
          ['a', 'phone-0003'],
        ]) {
          expect(p.conductor.vote({ tile, device })).toMatchObject({ ok: true });
        }
      },
    });
    expect(record.ballot).toEqual({
      open: {
        id: 'route',
        tally: { a: 2, b: 1 },
        devices: ['phone-0001', 'phone-0002', 'phone-0003'],
        choices: { 'phone-0001': 'a', 'phone-0002': 'b', 'phone-0003': 'a' },
      },
      closed: [],
    });
    const { conductor } = second;
    expect(conductor.state).toMatchObject({ beat: 6 });
    // the resumed window shows its votes per tile, which the phones darken the tiles with
    expect(conductor.state.cues.audience.vote).toEqual({
      id: 'route',
      tiles: ['a', 'b'],
      closes: 8,
      counts: { a: 2, b: 1 },
    });
    expect(conductor.votes().open).toMatchObject({ id: 'route', tally: { a: 2, b: 1 } });
    // a voter's second tap moves its vote (its choice was saved): still one vote each
    expect(conductor.vote({ tile: 'b', device: 'phone-0001' })).toMatchObject({ ok: true, tally: { a: 1, b: 2 } });
    expect(conductor.vote({ tile: 'a', device: 'phone-0004' })).toMatchObject({ ok: true, tally: { a: 2, b: 2 } });
    // The window's last beat announces the jump the tally (a tie: 'a') decides.
    second.clock.advance(500);
    expect(conductor.state.next).toMatchObject({ beat: 12 });
  });

  it('a window the conductor closed takes its jump after a restart before the next beat sounded', () => {
    // Beat 5 sounded at 2500 ms; closed at 2600 ms with 'a' ahead: bar 4 (beat 12) was to sound
    // at 3000 ms instead of beat 6. Restarted at 2700 ms; at 3600 ms beat 13 (3500 ms) sounds.
    const { second } = crashAndResume({
      playMs: 2600,
      downMs: 100,
      extra: { cues: [{ bar: 2, vote: VOTE }] },
      before: (p) => {
        p.conductor.vote({ tile: 'a', device: 'phone-0001' });
        p.conductor.closeVote();
        expect(p.conductor.state.next).toMatchObject({ beat: 12 });
      },
    });
    second.clock.advance(900);
    expect(second.conductor.state).toMatchObject({ transport: 'playing', beat: 13, beatT: WALL0 + 3500 });
    second.conductor.dispose();
  });

  it('a window that closed while the server was down decides by its saved tally, on the grid', () => {
    const { second } = crashAndResume({
      playMs: 2100,
      downMs: 2600,
      extra: { cues: [{ bar: 2, vote: VOTE }] },
      before: (p) => {
        p.conductor.vote({ tile: 'a', device: 'phone-0001' });
      },
    });
    // Beat 8 was due at 4000 ms: 'a' sent the performance to bar 4 (beat 12) then; at 4700 ms
    // beat 13 (4500 ms) is sounding.
    expect(second.conductor.state).toMatchObject({
      transport: 'playing',
      beat: 13,
      bar: 4,
      beatInBar: 2,
      beatT: WALL0 + 4500,
    });
    expect(second.conductor.votes()).toEqual({
      open: null,
      closed: [{ id: 'route', tally: { a: 1, b: 0 }, winner: 'a', seek: 12 }],
    });
  });

  it('comes back paused mid-beat, and plays only the rest of that beat', () => {
    const first = proc();
    first.conductor.play();
    first.clock.advance(1200); // 200 ms into beat 2
    first.conductor.setRate(0.5);
    first.conductor.pause();
    const record = first.conductor.record();
    expect(record).toMatchObject({ transport: 'paused', rate: 0.5 });
    expect(record.beat).toBeCloseTo(2.4, 9);
    expect(record).not.toHaveProperty('beatT');
    const second = proc({ wall: first.clock.wall() + 3_600_000, start: 5 });
    second.conductor.resume(record);
    expect(second.conductor.state).toMatchObject({ transport: 'paused', beat: 2, rate: 0.5, tempo: 60 });
    expect(second.conductor.state).not.toHaveProperty('beatT');
    second.conductor.play();
    second.clock.advance(1200); // 0.6 of a beat at 1000 ms a beat
    expect(second.fired).toEqual([{ beat: 3, at: 5 + 600 }]);
  });

  it('comes back stopped where it was, and after the end plays from the top', () => {
    const stopped = proc();
    stopped.conductor.seek(9);
    const again = proc({ start: 3 });
    again.conductor.resume(stopped.conductor.record());
    expect(again.conductor.state).toMatchObject({ transport: 'stopped', beat: 9, bar: 3, beatInBar: 2 });
    expect(again.conductor.state.cues.audience).toEqual({ text: 'bar 3' });

    const short = { bars: 1, cues: [] };
    const ended = proc({ extra: short });
    ended.conductor.play();
    ended.clock.advance(5000);
    expect(ended.conductor.record()).toMatchObject({ transport: 'stopped', beat: 3, ended: true });
    const after = proc({ extra: short });
    after.conductor.resume(ended.conductor.record());
    after.conductor.play();
    expect(after.conductor.state).toMatchObject({ transport: 'playing', beat: 0 });
  });

  it('records a count-in by the time its beat will sound and its clicks; restarted during it, the count-in starts over in full', () => {
    const p = proc();
    p.conductor.seek(4);
    p.conductor.play({ countIn: 1 });
    p.clock.advance(1200);
    const record = JSON.parse(JSON.stringify(p.conductor.record()));
    expect(record).toMatchObject({ transport: 'playing', beat: 4, beatT: WALL0 + 2000, countIn: 4 });
    p.conductor.dispose();
    // Back 0.3 s after the crash, still counting in: four clicks from now, then beat 4, on a grid
    // anchored there.
    const again = proc({ wall: WALL0 + 1500, start: 42 });
    again.conductor.resume(record);
    expect(again.conductor.state).toMatchObject({ transport: 'playing', beat: 4 });
    expect(again.conductor.state.beatT).toBeUndefined();
    expect(again.conductor.state.countIn).toEqual({ t: WALL0 + 1500, beats: 4, beatMs: 500 });
    expect(again.conductor.state.next).toMatchObject({ beat: 4, t: WALL0 + 3500 });
    again.clock.advance(1999);
    expect(again.fired).toEqual([]);
    again.clock.advance(1);
    expect(again.fired).toEqual([{ beat: 4, at: 42 + 2000 }]);
    expect(again.conductor.state).toMatchObject({ beat: 4, beatT: WALL0 + 3500 });
    expect(again.conductor.state.countIn).toBeUndefined();
    again.clock.advance(500);
    expect(again.fired.at(-1)).toEqual({ beat: 5, at: 42 + 2500 });
    again.conductor.dispose();
    // Back after the beat would have sounded (0.7 s after it): the performance played on.
    const later = proc({ wall: WALL0 + 2700, start: 42 });
    later.conductor.resume(record);
    expect(later.conductor.state).toMatchObject({ beat: 5, beatT: WALL0 + 2500 });
    expect(later.conductor.state.countIn).toBeUndefined();
    later.conductor.dispose();
  });

  it('a record from before count-ins were recorded: the beat counted in to sounds at once', () => {
    const again = proc({ wall: WALL0 + 500 });
    const old = { transport: 'playing', beat: 4, beatT: WALL0 + 2000, rate: 1, ballot: { open: null, closed: [] } };
    again.conductor.resume(/** @type {any} */ (old));
    expect(again.conductor.state).toMatchObject({ transport: 'playing', beat: 4, beatT: WALL0 + 500 });
    again.conductor.dispose();
  });

  it('records a jump asked for while playing and not yet landed; back before it lands, it lands where it was to', () => {
    const p = proc();
    p.conductor.play();
    p.clock.advance(1100);
    // Beat 2 sounding (at 1000 ms), beat 3 due at 1500: 400 ms away, so the jump lands there.
    p.conductor.seek(20);
    const record = JSON.parse(JSON.stringify(p.conductor.record()));
    expect(record).toMatchObject({ transport: 'playing', beat: 2, jump: { to: 20, t: WALL0 + 1500, countIn: 0 } });
    p.conductor.dispose();
    const again = proc({ wall: WALL0 + 1300, start: 42 });
    again.conductor.resume(record);
    expect(again.conductor.state).toMatchObject({ beat: 2, next: { beat: 20, t: WALL0 + 1500 } });
    again.clock.advance(200);
    expect(again.fired).toEqual([{ beat: 20, at: 42 + 200 }]);
    expect(again.conductor.state).toMatchObject({
      beat: 20,
      beatT: WALL0 + 1500,
      cues: cuesAt(again.conductor.model, 20),
    });
    again.clock.advance(500);
    expect(again.fired.at(-1)).toEqual({ beat: 21, at: 42 + 700 });
    again.conductor.dispose();
  });

  it('a jump that was to land while the server was down has landed: the performance plays on from its target', () => {
    const p = proc();
    p.conductor.play();
    p.clock.advance(1100);
    p.conductor.seek(20);
    const record = JSON.parse(JSON.stringify(p.conductor.record()));
    p.conductor.dispose();
    // Back at 2.6 s: the jump landed at 1.5 s, beat 20 then, 22 at 2.5 s, 23 due at 3 s.
    const again = proc({ wall: WALL0 + 2600, start: 42 });
    again.conductor.resume(record);
    expect(again.conductor.state).toMatchObject({ beat: 22, beatT: WALL0 + 2500, next: { beat: 23, t: WALL0 + 3000 } });
    again.clock.advance(400);
    expect(again.fired).toEqual([{ beat: 23, at: 42 + 400 }]);
    again.conductor.dispose();
  });

  it('refuses a count-in or a jump in a record that is not playing, or out of the piece', () => {
    const p = proc();
    const good = { transport: 'playing', beat: 5, beatT: WALL0, rate: 1, ballot: { open: null, closed: [] } };
    expect(() => p.conductor.resume(/** @type {any} */ ({ ...good, transport: 'paused', countIn: 2 }))).toThrow(
      /countIn must be/,
    );
    expect(() => p.conductor.resume(/** @type {any} */ ({ ...good, countIn: 0.5 }))).toThrow(/countIn must be/);
    expect(() => p.conductor.resume(/** @type {any} */ ({ ...good, jump: { to: 32, t: WALL0, countIn: 0 } }))).toThrow(
      /jump must be/,
    );
    expect(() =>
      p.conductor.resume(/** @type {any} */ ({ ...good, transport: 'paused', jump: { to: 3, t: WALL0, countIn: 0 } })),
    ).toThrow(/jump must be/);
  });

  it.each([
    [{ transport: 'rewinding' }, /transport must be one of/],
    [{ beat: 32 }, /beat must be in 0\.\.31/],
    [{ beat: 2.5 }, /a playing record needs a whole beat/],
    [{ beatT: 'soon' }, /a playing record needs a whole beat and its time/],
    [{ rate: 9 }, /rate must be in/],
    [{ ballot: { open: { id: 'nope', tally: {}, devices: [] }, closed: [] } }, /no vote window "nope"/],
    [
      { ballot: { open: { id: 'route', tally: { a: 2 }, devices: ['phone-0001'] }, closed: [] } },
      /1 devices voted but the tally counts 2/,
    ],
    [{ ballot: { open: { id: 'route', tally: { c: 1 }, devices: ['phone-0001'] }, closed: [] } }, /has no tile "c"/],
    [{ ballot: { open: null } }, /ballot: expected/],
  ])('refuses a record that does not fit the score (%j), changing nothing', (change, message) => {
    const p = proc({ extra: { cues: [{ bar: 2, vote: VOTE }] } });
    p.conductor.seek(3);
    const good = { transport: 'playing', beat: 5, beatT: WALL0, rate: 1, ballot: { open: null, closed: [] } };
    const before = p.conductor.state;
    expect(() => p.conductor.resume(/** @type {any} */ ({ ...good, ...change }))).toThrow(message);
    expect(() => p.conductor.resume(/** @type {any} */ ({ ...good, ...change }))).toThrow(
      expect.objectContaining({ code: 'SC_ERR_SAVE_MISMATCH' }),
    );
    expect(p.conductor.epoch).toBe('old');
    expect(p.conductor.state).toBe(before);
  });
});

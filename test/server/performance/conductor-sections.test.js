// The conductor playing an open-form piece (score.yaml `openForm`, sections.js): at a section's
// end the performance goes to the section chosen (on the beat grid), an end chosen stops it, the
// pages see the offer in the state's `section`, and a restart mid-section resumes in the same
// section at the right beat, following a section that ended while the server was down.

import { describe, it, expect } from 'vitest';
import { buildScoreModel } from '../../../core/manifest.js';
import { createMemoryBus } from '../../../server/live/bus.js';
import { createConductor } from '../../../server/performance/conductor.js';
import { createFakeClock } from '../../helpers/fake-clock.js';
import { openFormModel } from '../../helpers/fixtures.js';
import { positionAt } from '../../../client/src/time/beat-clock.js';

/** A conductor in a "process" whose wall clock starts at `wall`. */
function proc({ wall = 1_700_000_000_000, start = 1000, loop = false } = {}) {
  const clock = createFakeClock({ start, wallStart: wall });
  /** @type {{ beat: number, at: number }[]} */
  const fired = [];
  const conductor = createConductor({
    model: openFormModel(),
    bus: createMemoryBus(),
    clock,
    epoch: 'e',
    loop,
    onBeat: (beat) => fired.push({ beat, at: clock.now() }),
  });
  /**
   * @param {string} section
   * @param {number} round
   * @param {string} [part]
   */
  const choose = (section, round, part) =>
    conductor.chooseSection({
      kind: 'choose',
      request: { who: part ? { role: 'part', part } : { role: 'conductor' }, section, round },
    });
  return { clock, conductor, fired, choose };
}

/** @param {{ state: unknown }} c */
const sectionOf = (c) => /** @type {any} */ (c.state).section;

describe('conductor: open-form sections', () => {
  it('shows the first section and its offer before playing', () => {
    const p = proc();
    expect(sectionOf(p.conductor)).toEqual({
      id: 'intro',
      name: 'Intro',
      round: 0,
      first: 0,
      endsAt: 8,
      options: [
        { id: 'pitch', name: 'Pitch' },
        { id: 'rhythm', name: 'Rhythm' },
      ],
      audience: { notes: false, audio: true, thumbs: false, meter: false, vote: true },
      chooser: 'conductor',
      order: [{ section: 'intro', by: 'start', name: 'Intro' }],
    });
  });

  it('goes on to the section chosen when one ends, on the beat grid', () => {
    const p = proc();
    p.conductor.play();
    p.choose('rhythm', 0);
    expect(sectionOf(p.conductor).chosen).toEqual({ section: 'rhythm', by: 'conductor' });
    p.clock.advance(3600); // beat 7 sounds at 3500 ms: the intro's last
    expect(p.conductor.state.beat).toBe(7);
    expect(p.conductor.state.next?.beat).toBe(24);
    p.clock.advance(500);
    expect(p.conductor.state.beat).toBe(24);
    expect(p.fired.slice(-2)).toEqual([
      { beat: 7, at: 1000 + 3500 },
      { beat: 24, at: 1000 + 4000 },
    ]);
    expect(sectionOf(p.conductor)).toMatchObject({ id: 'rhythm', round: 1, chooser: 'first' });
    expect(sectionOf(p.conductor).order).toEqual([
      { section: 'intro', by: 'start', name: 'Intro' },
      { section: 'rhythm', by: 'conductor', name: 'Rhythm' },
    ]);
  });

  it('a choice made on the last beat of a section changes the beat announced next', () => {
    const p = proc();
    p.conductor.play();
    p.clock.advance(3600);
    expect(p.conductor.state.next?.beat).toBe(8); // the default: pitch
    p.choose('rhythm', 0);
    expect(p.conductor.state.next?.beat).toBe(24);
    p.clock.advance(500);
    expect(p.conductor.state.beat).toBe(24);
  });

  it('a choice during a count-in leaves the clicks and the beat they count in to as announced', () => {
    const p = proc();
    p.conductor.play({ countIn: 1 });
    const { countIn, next } = p.conductor.state;
    p.clock.advance(700);
    p.choose('rhythm', 0);
    expect(sectionOf(p.conductor).chosen).toEqual({ section: 'rhythm', by: 'conductor' });
    expect(p.conductor.state.countIn).toEqual(countIn);
    expect(p.conductor.state.next).toEqual(next);
    // A page reads four clicks, then the first beat at its time.
    const t = /** @type {{ t: number }} */ (next).t;
    expect(positionAt(p.conductor.state, t - 1).count).toBe(4);
    expect(positionAt(p.conductor.state, t)).toMatchObject({ beat: 0, count: 0, predicted: true });
    p.clock.advance(1300);
    expect(p.fired).toEqual([{ beat: 0, at: 1000 + 2000 }]);
  });

  it('stops at the end a choice names, before the score ends', () => {
    const p = proc();
    p.conductor.play();
    p.clock.advance(4100); // into pitch (the default after the intro)
    expect(p.conductor.state.beat).toBe(8);
    p.choose('end', 1, 'violin');
    p.clock.advance(7500); // beat 23 at 11.5 s: pitch's last
    expect(p.conductor.state.beat).toBe(23);
    expect(p.conductor.state.next).toBe(undefined);
    p.clock.advance(500);
    expect(p.conductor.state.playback).toBe('stopped');
    expect(p.fired.at(-1)?.beat).toBe(23);
    expect(sectionOf(p.conductor)).toBe(undefined);
    // play again: from the start, the first section
    p.conductor.play();
    expect(p.conductor.state.beat).toBe(0);
    expect(sectionOf(p.conductor)).toMatchObject({ id: 'intro', round: 0 });
  });

  it('looping (the autoplay demo), an end chosen starts the piece over from its first section, on the beat grid', () => {
    const p = proc({ loop: true });
    p.conductor.play();
    p.clock.advance(4100); // into pitch (the default after the intro)
    p.choose('end', 1, 'violin');
    p.clock.advance(7500); // beat 23 at 11.5 s: pitch's last
    expect(p.conductor.state.beat).toBe(23);
    expect(p.conductor.state.next?.beat).toBe(0);
    p.clock.advance(500);
    expect(p.conductor.state.playback).toBe('playing');
    expect(p.fired.slice(-2)).toEqual([
      { beat: 23, at: 1000 + 11_500 },
      { beat: 0, at: 1000 + 12_000 },
    ]);
    expect(sectionOf(p.conductor)).toMatchObject({ id: 'intro', round: 0 });
    expect(sectionOf(p.conductor).order).toEqual([{ section: 'intro', by: 'start', name: 'Intro' }]);
    // and the intro goes on to its default as the first time round
    p.clock.advance(4000);
    expect(p.conductor.state.beat).toBe(8);
    expect(sectionOf(p.conductor).id).toBe('pitch');
  });

  it('a section that ends on the score’s last beat goes where its choice says', () => {
    const p = proc();
    p.conductor.seek(24);
    p.conductor.play();
    p.choose('pitch', 1);
    p.clock.advance(11_600); // beat 47: rhythm's last, the score's last
    expect(p.conductor.state.beat).toBe(47);
    expect(p.conductor.state.next?.beat).toBe(8);
    p.clock.advance(500);
    expect(p.conductor.state.beat).toBe(8);
    expect(sectionOf(p.conductor).id).toBe('pitch');
  });

  it('a restart mid-section resumes in the same section at the right beat', () => {
    const a = proc();
    a.conductor.play();
    a.choose('rhythm', 0);
    a.clock.advance(4100); // beat 24: rhythm
    a.conductor.chooseSection({ kind: 'claim', request: { part: 'cello', round: 1 } });
    a.choose('pitch', 1, 'cello');
    a.clock.advance(2000); // beat 28
    expect(a.conductor.state.beat).toBe(28);
    // the sections ride in the conductor's record, which the save file and a failover carry
    const saved = JSON.parse(JSON.stringify(a.conductor.record()));
    expect(saved.sections).toMatchObject({ current: 'rhythm', chosen: { section: 'pitch', by: 'part:cello' } });
    a.conductor.dispose();

    // back 3 s later: the same section, 6 beats on
    const b = proc({ wall: a.clock.wall() + 3000, start: 42 });
    b.conductor.resume(saved);
    expect(b.conductor.state.beat).toBe(34);
    expect(sectionOf(b.conductor)).toMatchObject({
      id: 'rhythm',
      claimedBy: 'cello',
      chosen: { section: 'pitch', by: 'part:cello' },
    });
    // at rhythm's end, the cello's choice: pitch
    b.clock.advance(6500);
    expect(b.conductor.state.beat).toBe(47);
    b.clock.advance(500);
    expect(b.conductor.state.beat).toBe(8);
    expect(sectionOf(b.conductor).id).toBe('pitch');
  });

  it('refuses a saved loop on an open-form piece, as the loop control does', () => {
    const a = proc();
    a.conductor.play();
    a.clock.advance(1100);
    const saved = JSON.parse(JSON.stringify(a.conductor.record()));
    a.conductor.dispose();
    const b = proc({ wall: a.clock.wall() + 1000 });
    /** @type {any} */
    let err = null;
    try {
      b.conductor.resume({ ...saved, loop: { start: 0, end: 7, countIn: 0, round: 1 } });
    } catch (e) {
      err = e;
    }
    expect(err).toMatchObject({
      code: 'SC_ERR_SAVE_MISMATCH',
      message: expect.stringMatching(/open-form piece has no loop/),
    });
    // the same record without the loop resumes
    b.conductor.resume(saved);
    expect(b.conductor.state.transport).toBe('playing');
    b.conductor.dispose();
  });

  it('follows a section that ended while the server was down', () => {
    const a = proc();
    a.conductor.play();
    a.choose('rhythm', 0);
    a.clock.advance(2600); // beat 5 of the intro
    const saved = JSON.parse(JSON.stringify(a.conductor.record()));
    a.conductor.dispose();
    // down 2 s: the intro ended at 4 s (beat 8's time), rhythm began at beat 24; 0.6 s later, 25
    const b = proc({ wall: a.clock.wall() + 2000, start: 7 });
    b.conductor.resume(saved);
    expect(sectionOf(b.conductor).id).toBe('rhythm');
    expect(b.conductor.state.beat).toBe(25);
  });

  it('stops on resume when an end was chosen and the section ended while down', () => {
    const a = proc();
    a.conductor.seek(8);
    a.conductor.play();
    a.choose('end', 1, 'violin');
    const saved = JSON.parse(JSON.stringify(a.conductor.record()));
    a.conductor.dispose();
    const b = proc({ wall: a.clock.wall() + 60_000, start: 7 });
    b.conductor.resume(saved);
    expect(b.conductor.state.playback).toBe('stopped');
    expect(b.conductor.state.beat).toBe(23);
  });

  it('looping, a restart past an end chosen while down resumes where the live loop got to', () => {
    /** @param {ReturnType<typeof proc>} p */
    const endChosen = (p) => {
      p.conductor.seek(8);
      p.conductor.play();
      p.choose('end', 1, 'violin');
    };
    const live = proc({ loop: true });
    const a = proc({ loop: true });
    endChosen(live);
    endChosen(a);
    const saved = JSON.parse(JSON.stringify(a.conductor.record()));
    a.conductor.dispose();
    live.clock.advance(60_000);
    const b = proc({ wall: a.clock.wall() + 60_000, start: 7, loop: true });
    b.conductor.resume(saved);
    expect(b.conductor.state.playback).toBe('playing');
    expect(b.conductor.state.beat).toBe(live.conductor.state.beat);
    expect(sectionOf(b.conductor).id).toBe(sectionOf(live.conductor).id);
  });

  it('refuses a record whose sections do not fit the score, changing nothing', () => {
    const a = proc();
    a.conductor.play();
    a.clock.advance(1100);
    const saved = JSON.parse(JSON.stringify(a.conductor.record()));
    saved.sections.current = 'coda';
    const b = proc({ wall: a.clock.wall(), start: 5 });
    expect(() => b.conductor.resume(saved)).toThrow(/openForm: the score has no section "coda"/);
    expect(b.conductor.state.playback).toBe('stopped');
    expect(sectionOf(b.conductor).id).toBe('intro');
  });

  it('a record without sections goes on in the section that holds its beat', () => {
    const a = proc();
    a.conductor.seek(30);
    const saved = JSON.parse(JSON.stringify(a.conductor.record()));
    delete saved.sections;
    const b = proc();
    b.conductor.resume(saved);
    expect(sectionOf(b.conductor)).toMatchObject({ id: 'rhythm', round: 1 });
  });

  it("a conductor's seek moves to the section of that beat; a stop goes back to the first", () => {
    const p = proc();
    p.conductor.seek(30);
    expect(sectionOf(p.conductor)).toMatchObject({ id: 'rhythm', round: 1 });
    expect(sectionOf(p.conductor).order.at(-1)).toEqual({ section: 'rhythm', by: 'seek', name: 'Rhythm' });
    p.conductor.stop();
    expect(sectionOf(p.conductor)).toMatchObject({ id: 'intro', round: 0 });
  });

  it('the state shows the latest sections taken, the record keeps them all', () => {
    const p = proc();
    for (let i = 0; i < 40; i++) p.conductor.seek(i % 2 === 0 ? 8 : 24);
    const order = sectionOf(p.conductor).order;
    expect(order).toHaveLength(32);
    expect(order.at(-1)).toEqual({ section: 'rhythm', by: 'seek', name: 'Rhythm' });
    expect(p.conductor.record().sections).toMatchObject({ order: expect.any(Array) });
    expect(/** @type {any} */ (p.conductor.record().sections).order).toHaveLength(41);
    expect(p.conductor.sectionOffer().order).toHaveLength(41);
  });

  it('a score without openForm has no section, and refuses choices', () => {
    const r = buildScoreModel({ id: 'x', title: 'X', bars: 2, meter: [{ bar: 1, time: '4/4', tempo: 120 }] });
    if (!r.ok) throw new Error('model');
    const c = createConductor({ model: r.value, bus: createMemoryBus(), clock: createFakeClock({}), epoch: 'e' });
    expect(sectionOf(c)).toBe(undefined);
    expect(() => c.sectionOffer()).toThrow(/no open form/);
  });

  it("a section's overlays ride in the state's section, without nulls, and change with the section", () => {
    const overlays = [
      { band: 'dynamics', parts: ['violin'], source: 'meter', range: [0.2, 1] },
      { band: 'timbre', value: 0.3 },
    ];
    const model = openFormModel({ intro: { overlays } });
    const c = createConductor({ model, bus: createMemoryBus(), clock: createFakeClock({}), epoch: 'e' });
    expect(sectionOf(c).overlays).toEqual([
      { band: 'dynamics', parts: ['violin'], source: 'meter', range: [0.2, 1], value: 0.6 },
      { band: 'timbre', value: 0.3 },
    ]);
    c.seek(8);
    expect(sectionOf(c).id).toBe('pitch');
    expect(sectionOf(c).overlays).toBe(undefined);
  });

  it('the meter fires a section’s cue once per crossing and makes its choice, on the beat grid; a restart keeps both', () => {
    const when = {
      intro: [
        { meter: '>= 0.6', for: 2, set: { text: 'The room is with you' } },
        { meter: '>= 0.8', choose: 'rhythm' },
      ],
    };
    const at = (/** @type {number} */ wall, /** @type {number} */ start) => {
      const clock = createFakeClock({ start, wallStart: wall });
      const bus = createMemoryBus();
      /** @type {any[]} */
      const changes = [];
      bus.subscribe((c) => changes.push(c));
      const model = openFormModel({ intro: { audience: { thumbs: true, meter: true }, when: when.intro } });
      return { clock, changes, conductor: createConductor({ model, bus, clock, epoch: 'e' }) };
    };
    const a = at(1_700_000_000_000, 1000);
    a.conductor.play();
    for (let i = 0; i < 5; i++) a.conductor.thumb(`device-${String(i).padStart(16, '0')}`, 'up');
    // The text is set on the second beat in a row the meter is at 0.6 or more, in a beat's patch.
    const texts = () =>
      a.changes.filter((c) => c.patch?.cues?.audience?.text === 'The room is with you').map((c) => c.state.beat);
    a.clock.advance(2600); // beat 5
    expect(a.conductor.state.cues.audience.text).toBe('The room is with you');
    const fired = texts();
    expect(fired).toHaveLength(1);
    const meterAt = (/** @type {number} */ beat) =>
      a.changes.filter((c) => c.state.beat === beat && c.patch?.beat !== undefined).map((c) => c.state.meter)[0];
    expect(meterAt(fired[0])).toBeGreaterThanOrEqual(0.6);
    expect(meterAt(fired[0] - 1)).toBeGreaterThanOrEqual(0.6);
    expect(meterAt(fired[0] - 2) ?? 0).toBeLessThan(0.6);
    const saved = JSON.parse(JSON.stringify(a.conductor.record()));
    expect(saved.sections.rules).toEqual({ held: [0, expect.any(Number)], armed: [false, true], fired: [0] });
    a.clock.advance(1000); // beat 7: the intro's last, the meter past 0.8
    expect(texts()).toHaveLength(1);
    expect(sectionOf(a.conductor).chosen).toEqual({ section: 'rhythm', by: 'meter' });
    expect(a.conductor.state.next?.beat).toBe(24);
    a.clock.advance(500);
    expect(sectionOf(a.conductor)).toMatchObject({ id: 'rhythm', round: 1 });
    expect(sectionOf(a.conductor).order.at(-1)).toEqual({ section: 'rhythm', by: 'meter', name: 'Rhythm' });
    a.conductor.dispose();

    // A restart at beat 5 (the save above): the same rules' state, the text fired put back.
    const b = at(1_700_000_000_000 + 2600, 42);
    b.conductor.resume(saved);
    expect(/** @type {any} */ (b.conductor.record().sections).rules).toEqual(saved.sections.rules);
    expect(b.conductor.state.cues.audience.text).toBe('The room is with you');
    // A seek within the section rebuilds its cues from the score: the fired text is not kept for
    // a resume to put back.
    b.conductor.seek(2); // while playing: a jump landing on the grid
    b.clock.advance(1000);
    expect(b.conductor.state.beat).toBeLessThanOrEqual(3);
    expect(b.conductor.state.cues.audience?.text).toBe(undefined);
    expect(/** @type {any} */ (b.conductor.record().sections).rules.fired).toEqual([]);
    b.conductor.dispose();
  });
});

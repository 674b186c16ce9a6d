// The conductor decides the score's page choices (core/page-choice.js) on their beats: the vote's
// tally picks the page, the seeded strategy deals the parts; the choice is in the state as a small
// patch, is made again after going back before it, and survives a restart (record/resume).

import { describe, it, expect } from 'vitest';
import { buildScoreModel } from '../../../core/manifest.js';
import { createMemoryBus } from '../../../server/live/bus.js';
import { createConductor } from '../../../server/performance/conductor.js';
import { createFakeClock } from '../../helpers/fake-clock.js';

const PAGES = (/** @type {string} */ v) => ({
  files: [1, 2, 3, 4].map((n) => `pages/${v}-${n}.png`),
  beatmap: `beatmaps/${v}.json`,
});

/** 4 bars of 4/4 at 120 (500 ms a beat), one page a bar, four parts; page 4 is chosen at beat 12 by vote "pick" (beats 4..12). */
function model() {
  const parts = ['violin1', 'violin2', 'viola', 'cello'];
  const r = buildScoreModel({
    id: 'rose',
    title: 'Rose',
    bars: 4,
    meter: [{ bar: 1, time: '4/4', tempo: 120 }],
    parts: parts.map((id) => ({ id, name: id })),
    pages: Object.fromEntries(parts.map((p) => [p, PAGES(p)])),
    cues: [{ at: 4, vote: { id: 'pick', tiles: ['t1-1', 't1-2', 't1-3'], close: { at: 12 } } }],
    pageChoices: [
      { slot: 4, at: 12, from: [1, 3], groups: [2], vote: 'pick', tiles: { 't1-1': 1, 't1-2': 2, 't1-3': 3 } },
    ],
  });
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.value;
}

function proc(wall = 1_700_000_000_000, start = 1000) {
  const clock = createFakeClock({ start, wallStart: wall });
  const bus = createMemoryBus();
  /** @type {import('../../../server/live/bus.js').StateChange[]} */
  const changes = [];
  bus.subscribe((c) => changes.push(c));
  const conductor = createConductor({ model: model(), bus, clock, epoch: 'e' });
  return { clock, conductor, changes };
}

describe('conductor: page choices', () => {
  it('at the decision beat the tally chooses the page; two parts play it, in one small patch', () => {
    const { clock, conductor, changes } = proc();
    conductor.play();
    clock.advance(5 * 500 + 10); // beat 5: the window is open
    ['dev-aaaaaaa1', 'dev-aaaaaaa2', 'dev-aaaaaaa3'].forEach((device, i) => {
      conductor.vote({ tile: i < 2 ? 't1-3' : 't1-1', device });
    });
    clock.advance(6 * 500); // beat 11: not decided yet
    expect(/** @type {any} */ (conductor.state).pages).toEqual({});
    clock.advance(500); // beat 12
    const pages = /** @type {Record<string, Record<string, number>>} */ (/** @type {any} */ (conductor.state).pages);
    expect(Object.values(pages).map((p) => p['4'])).toEqual([3, 3]);
    const patch = /** @type {Record<string, unknown>} */ (changes[changes.length - 1].patch);
    expect(patch.pages).toEqual(pages);
    expect(Buffer.byteLength(JSON.stringify(patch.pages))).toBeLessThan(100);
  });

  it('nobody voted: the seeded strategy chooses, the same in every run', () => {
    const runs = [0, 1].map(() => {
      const { clock, conductor } = proc();
      conductor.play();
      clock.advance(12 * 500 + 10);
      return /** @type {any} */ (conductor.state).pages;
    });
    expect(Object.keys(runs[0])).toHaveLength(2);
    expect(runs[1]).toEqual(runs[0]);
  });

  it('going back before the decision forgets it; a seek past it decides it', () => {
    const { conductor } = proc();
    conductor.seek(13);
    expect(Object.keys(/** @type {any} */ (conductor.state).pages)).toHaveLength(2);
    conductor.seek(2);
    expect(/** @type {any} */ (conductor.state).pages).toEqual({});
  });

  it('is kept through a restart (record and resume)', () => {
    const first = proc();
    first.conductor.play();
    first.clock.advance(5 * 500 + 10);
    first.conductor.vote({ tile: 't1-2', device: 'dev-bbbbbbb1' });
    first.clock.advance(8 * 500);
    const chosen = /** @type {any} */ (first.conductor.state).pages;
    expect(Object.values(chosen).map((p) => /** @type {any} */ (p)['4'])).toEqual([2, 2]);
    const record = JSON.parse(JSON.stringify(first.conductor.record()));
    expect(record.pages).toHaveLength(1);
    first.conductor.dispose();
    const second = proc(first.clock.wall() + 200, 7);
    second.conductor.resume(record);
    expect(/** @type {any} */ (second.conductor.state).pages).toEqual(chosen);
  });

  it("the conductor forces the next choice's page, whatever the votes", () => {
    const { clock, conductor, changes } = proc();
    conductor.play();
    clock.advance(5 * 500 + 10);
    ['dev-ccccccc1', 'dev-ccccccc2'].forEach((device) => {
      conductor.vote({ tile: 't1-3', device });
    });
    expect(conductor.nextChoice()).toMatchObject({ slot: 4, at: 12, groups: [2], forced: [] });
    expect(conductor.forceNext(['t1-2'])).toEqual({ slot: 4, tiles: ['t1-2'] });
    expect(conductor.nextChoice()?.forced).toEqual(['t1-2']);
    clock.advance(7 * 500); // beat 12: decided
    const pages = /** @type {Record<string, Record<string, number>>} */ (/** @type {any} */ (conductor.state).pages);
    expect(Object.values(pages).map((p) => p['4'])).toEqual([2, 2]);
    // the page the electronics hear of (an OSC cue's {page:4})
    expect(conductor.chosenPage(4)).toBe(2);
    expect(conductor.chosenPage(3)).toBeNull();
    // given back to the votes before the decision: the tally decides
    const other = proc();
    other.conductor.play();
    other.clock.advance(5 * 500 + 10);
    other.conductor.vote({ tile: 't1-3', device: 'dev-ccccccc3' });
    other.conductor.forceNext(['t1-2']);
    other.conductor.forceNext([]);
    other.clock.advance(7 * 500);
    expect(
      Object.values(/** @type {any} */ (other.conductor.state).pages).map((p) => /** @type {any} */ (p)['4']),
    ).toEqual([3, 3]);
    // refused: a tile the choice has not, more tiles than it has groups, and no choice left
    expect(() => other.conductor.forceNext(['t9-9'])).toThrow(/no page choice/);
    const third = proc();
    expect(() => third.conductor.forceNext(['t9-9'])).toThrow(/takes at most 1 of its tiles \(t1-1, t1-2, t1-3\)/);
    expect(() => third.conductor.forceNext(['t1-1', 't1-2'])).toThrow(/takes at most 1/);
    expect(changes.length).toBeGreaterThan(0);
  });

  it('refuses a forced tile named like a property every object has (constructor, toString, __proto__)', () => {
    for (const tile of ['constructor', 'toString', '__proto__']) {
      const { clock, conductor } = proc();
      expect(() => conductor.forceNext([tile])).toThrow(/takes at most 1 of its tiles/);
      expect(conductor.nextChoice()?.forced).toEqual([]);
      conductor.play();
      clock.advance(13 * 500); // past beat 12: decided by the tally (none: the seeded choice)
      const pages = Object.values(/** @type {any} */ (conductor.state).pages).map((p) => /** @type {any} */ (p)['4']);
      expect(pages).toHaveLength(2);
      for (const page of pages) expect([1, 2, 3]).toContain(page);
    }
  });

  it('the phones see the forced tile as next, and a tile no longer forced lit again, in one small patch', () => {
    const base = model();
    const lit = { state: 'lit', text: '' };
    const r = buildScoreModel({
      id: 'rose',
      title: 'Rose',
      bars: 4,
      meter: [{ bar: 1, time: '4/4', tempo: 120 }],
      parts: base.parts,
      pages: Object.fromEntries(base.parts.map((p) => [p.id, PAGES(p.id)])),
      cues: [{ at: 0, set: { tiles: { 't1-1': lit, 't1-2': lit, 't1-3': lit } } }],
      pageChoices: [{ slot: 4, at: 12, from: [1, 3], groups: [1], tiles: { 't1-1': 1, 't1-2': 2, 't1-3': 3 } }],
    });
    if (!r.ok) throw new Error(JSON.stringify(r.problems));
    const bus = createMemoryBus();
    /** @type {import('../../../server/live/bus.js').StateChange[]} */
    const changes = [];
    bus.subscribe((c) => changes.push(c));
    const conductor = createConductor({ model: r.value, bus, clock: createFakeClock({ start: 0, wallStart: 0 }) });
    conductor.forceNext(['t1-2']);
    expect(/** @type {any} */ (changes[changes.length - 1].patch).cues).toEqual({
      audience: { tiles: { 't1-2': { state: 'next' } } },
    });
    conductor.forceNext(['t1-3']);
    const patch = /** @type {any} */ (changes[changes.length - 1].patch);
    expect(patch.cues.audience.tiles).toEqual({ 't1-2': { state: 'lit' }, 't1-3': { state: 'next' } });
    expect(Buffer.byteLength(JSON.stringify(patch))).toBeLessThan(300);
    // a seek rebuilds the tiles from the cues; the forced tile still shows as next, and after a
    // restart too
    conductor.seek(3);
    expect(/** @type {any} */ (conductor.state).cues.audience.tiles['t1-3']).toEqual({ state: 'next', text: '' });
    const again = createConductor({ model: r.value, bus, clock: createFakeClock({ start: 0, wallStart: 0 }) });
    again.resume(JSON.parse(JSON.stringify(conductor.record())));
    expect(/** @type {any} */ (again.state).cues.audience.tiles['t1-3']).toEqual({ state: 'next', text: '' });
  });

  it('a tile the conductor forced is kept through a restart before its decision, shown as next, and decides', () => {
    const first = proc();
    first.conductor.play();
    first.clock.advance(5 * 500 + 10);
    first.conductor.vote({ tile: 't1-3', device: 'dev-eeeeeee1' });
    first.conductor.forceNext(['t1-1']);
    const record = JSON.parse(JSON.stringify(first.conductor.record()));
    expect(record.forced).toEqual({ slot: 4, tiles: ['t1-1'] });
    first.conductor.dispose();
    const second = proc(first.clock.wall() + 200, 7);
    second.conductor.resume(record);
    expect(second.conductor.nextChoice()?.forced).toEqual(['t1-1']);
    second.clock.advance(7 * 500); // past beat 12: decided with the forced tile, not the vote
    const pages = /** @type {Record<string, Record<string, number>>} */ (
      /** @type {any} */ (second.conductor.state).pages
    );
    expect(Object.values(pages).map((p) => p['4'])).toEqual([1, 1]);
    // decided: nothing forced is left in the record
    expect(second.conductor.record().forced).toBeUndefined();
  });

  it('a forced tile that is no tile of the choice makes the record unfit for the score', () => {
    const { conductor } = proc();
    const record = { ...conductor.record(), forced: { slot: 4, tiles: ['t9-9'] } };
    expect(() => conductor.resume(record)).toThrow(/forced tile "t9-9"/);
    expect(() => conductor.resume({ ...record, forced: { slot: 7, tiles: [] } })).toThrow(/forced must name/);
    expect(() => conductor.resume({ ...record, forced: { slot: 4, tiles: ['constructor'] } })).toThrow(
      /forced tile "constructor"/,
    );
  });

  it("a score's own next tile (ZScore's setPlayingNextTiles) decides its choice", () => {
    const base = model();
    const choice = { ...base.pageChoices[0], next: ['t1-1'] };
    const conductor = createConductor({
      model: { ...base, pageChoices: [choice] },
      bus: createMemoryBus(),
      clock: createFakeClock({ start: 0, wallStart: 0 }),
    });
    conductor.vote({ tile: 't1-3', device: 'dev-ddddddd1' });
    conductor.seek(13);
    expect(Object.values(/** @type {any} */ (conductor.state).pages).map((p) => /** @type {any} */ (p)['4'])).toEqual([
      1, 1,
    ]);
  });

  it('a score without page choices has no pages in its state', () => {
    const r = buildScoreModel({ id: 'x', title: 'X', bars: 1, meter: [{ bar: 1, time: '4/4', tempo: 120 }] });
    if (!r.ok) throw new Error('bad');
    const conductor = createConductor({
      model: r.value,
      bus: createMemoryBus(),
      clock: createFakeClock({ start: 0, wallStart: 0 }),
    });
    expect('pages' in conductor.state).toBe(false);
  });
});

describe('manifest: pageChoices', () => {
  /** @param {object} choice */
  const problems = (choice) => {
    const r = buildScoreModel({
      id: 'rose',
      title: 'Rose',
      bars: 4,
      meter: [{ bar: 1, time: '4/4', tempo: 120 }],
      parts: [{ id: 'a', name: 'A' }],
      pages: { a: PAGES('a') },
      cues: [{ at: 4, vote: { id: 'pick', tiles: ['x', 'y'], close: { at: 12 } } }],
      pageChoices: [choice],
    });
    return r.ok ? [] : r.problems.map((p) => `${p.field}: ${p.message}`);
  };
  it('accepts a valid choice and names each wrong field', () => {
    expect(problems({ slot: 4, at: 12, from: [1, 3], groups: [1], vote: 'pick', tiles: { x: 1 } })).toEqual([]);
    expect(problems({ slot: 5, at: 12, from: [1, 3], groups: [1] })[0]).toMatch(
      /^pageChoices\[0\]\.slot: must be a page number of every part, 1\.\.4/,
    );
    expect(problems({ slot: 4, at: 12, from: [3, 1], groups: [1] })[0]).toMatch(/^pageChoices\[0\]\.from/);
    expect(
      problems({
        slot: 4,
        at: 12,
        from: [
          [1, 1],
          [3, 4],
        ],
        groups: [1],
      }),
    ).toEqual([]);
    expect(problems({ slot: 4, at: 12, from: [1, 3], groups: [0] })[0]).toMatch(/^pageChoices\[0\]\.groups/);
    expect(problems({ slot: 4, at: 12, from: [1, 3], groups: [1], vote: 'nope' })[0]).toMatch(/"nope" is not a vote/);
    expect(problems({ slot: 4, at: 8, from: [1, 3], groups: [1], vote: 'pick' })[0]).toMatch(
      /closes at beat 12, after the decision/,
    );
    expect(problems({ slot: 4, at: 12, from: [1, 3], groups: [1], tiles: { x: 9 } })[0]).toMatch(
      /^pageChoices\[0\]\.tiles\.x/,
    );
    // the composer's next tiles must be tiles of the choice
    expect(problems({ slot: 4, at: 12, from: [1, 3], groups: [1], tiles: { x: 1 }, next: ['x'] })).toEqual([]);
    expect(problems({ slot: 4, at: 12, from: [1, 3], groups: [1], tiles: { x: 1 }, next: ['y'] })[0]).toMatch(
      /^pageChoices\[0\]\.next: must list tiles of this choice's `tiles`/,
    );
  });
});

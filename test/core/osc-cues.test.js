// The `osc` list of score.yaml: messages for the electronics on their beats, checked like the
// rest of an untrusted package.

import { describe, expect, it } from 'vitest';
import { buildScoreModel } from '../../core/manifest.js';
import { isOscAddress, resolveOscArgs, setupAt } from '../../core/osc-cues.js';
import { PACKAGE_LIMITS } from '../../core/package-limits.js';

/** @param {unknown} osc */
const build = (osc) =>
  buildScoreModel({ id: 'o', title: 'O', bars: 2, meter: [{ bar: 1, time: '4/4', tempo: 60 }], osc });

describe('OSC cues in score.yaml', () => {
  it('puts each message on its beat (at, or bar and beat), in beat order', () => {
    const r = build([
      { bar: 2, address: '/zs/b2', args: ['stop'] },
      { at: 1, address: '/zs/b1', args: ['play', 2, 0.25] },
      { at: 1, address: '/x' },
    ]);
    expect(r.ok && r.value.osc).toEqual([
      { beat: 1, address: '/zs/b1', args: ['play', 2, 0.25] },
      { beat: 1, address: '/x', args: [] },
      { beat: 4, address: '/zs/b2', args: ['stop'] },
    ]);
  });

  it('refuses addresses OSC cannot carry and arguments that are not text or numbers, naming the field', () => {
    const problems = (/** @type {unknown} */ osc) => {
      const r = build(osc);
      return r.ok ? [] : r.problems.map((p) => p.field);
    };
    expect(problems([{ at: 0, address: 'zs/b1' }])).toEqual(['osc[0].address']);
    expect(
      problems([
        { at: 0, address: '/a b' },
        { at: 0, address: '/a*' },
      ]),
    ).toEqual(['osc[0].address', 'osc[1].address']);
    expect(problems([{ at: 0, address: '/a', args: [{ x: 1 }] }])).toEqual(['osc[0].args[0]']);
    expect(problems([{ at: 0, address: '/a', args: [2 ** 40] }])).toEqual(['osc[0].args[0]']);
    expect(problems([{ at: 99, address: '/a' }])).toEqual(['osc[0]']);
    expect(problems({ at: 0 })).toEqual(['osc']);
  });

  it(`refuses more than ${PACKAGE_LIMITS.oscCues} messages without reading them, as cues are`, () => {
    const many = Array.from({ length: PACKAGE_LIMITS.oscCues + 1 }, (_, i) => ({ at: i % 8, address: '/a' }));
    const r = build(many);
    expect(!r.ok && r.problems).toEqual([
      {
        field: 'osc',
        message: `lists ${PACKAGE_LIMITS.oscCues + 1} messages, more than the ${PACKAGE_LIMITS.oscCues} a package may have; split the piece into movements`,
      },
    ]);
  });

  it(`refuses more than ${PACKAGE_LIMITS.oscPerBeat} messages on one beat, naming the beat; as many is fine`, () => {
    const on = (/** @type {number} */ beat, /** @type {number} */ n, setup = false) =>
      Array.from({ length: n }, () => ({ at: beat, address: '/a', ...(setup ? { setup: 'only' } : {}) }));
    expect(build([...on(1, PACKAGE_LIMITS.oscPerBeat), ...on(2, PACKAGE_LIMITS.oscPerBeat)]).ok).toBe(true);
    // Set-up messages count: they go out in the same burst when the performance starts there.
    const r = build([...on(3, PACKAGE_LIMITS.oscPerBeat), ...on(3, 1, true), ...on(5, 2)]);
    expect(!r.ok && r.problems).toEqual([
      {
        field: 'osc',
        message: `sends ${PACKAGE_LIMITS.oscPerBeat + 1} messages on beat 3, more than the ${PACKAGE_LIMITS.oscPerBeat} one beat may have; spread them over several beats, or send fewer`,
      },
    ]);
  });

  it('reads setup: only or also, and refuses anything else with the field named', () => {
    const r = build([
      { at: 1, address: '/zs/b1', args: ['setFile', 'a.wav'], setup: 'only' },
      { at: 2, address: '/zs/b2', args: ['play'], setup: 'also' },
    ]);
    expect(r.ok && r.value.osc.map((c) => c.setup)).toEqual(['only', 'also']);
    const bad = build([{ at: 1, address: '/zs/b1', setup: 'yes' }]);
    expect(bad.ok).toBe(false);
    expect(!bad.ok && bad.problems.map((p) => [p.field, p.message])).toEqual([
      ['osc[0].setup', expect.stringMatching(/"only".*"also"/)],
    ]);
  });

  it('chooses the set-up of a start position: the set of the latest beat at or before it', () => {
    const r = build([
      { at: 1, address: '/a', setup: 'only' },
      { at: 1, address: '/b', setup: 'also' },
      { at: 2, address: '/cue' },
      { at: 5, address: '/c', setup: 'only' },
    ]);
    if (!r.ok) throw new Error('invalid');
    const names = (/** @type {number} */ beat) => setupAt(r.value.osc, beat).map((c) => c.address);
    expect(names(0)).toEqual([]);
    expect(names(1)).toEqual(['/a', '/b']);
    expect(names(4)).toEqual(['/a', '/b']);
    expect(names(5)).toEqual(['/c']);
    expect(names(7)).toEqual(['/c']);
  });

  it('knows an OSC address', () => {
    expect(isOscAddress('/zs/mcGroove.mcgHarmonics')).toBe(true);
    expect(isOscAddress('/zs//mini/bell')).toBe(true); // as ZScore writes a target that starts with /
    expect(isOscAddress('/a{b}')).toBe(false);
    expect(isOscAddress('/\u00e9')).toBe(false);
  });
});

describe('OSC arguments naming a chosen page', () => {
  it('puts the page chosen for slot N where a string says {page:N}, the slot itself while undecided', () => {
    const chosen = (/** @type {number} */ slot) => (slot === 9 ? 4 : null);
    expect(resolveOscArgs(['setFile', 'UnionRose_b{page:9}.wav', 3], chosen)).toEqual([
      'setFile',
      'UnionRose_b4.wav',
      3,
    ]);
    expect(resolveOscArgs(['UnionRose_b{page:10}.wav'], chosen)).toEqual(['UnionRose_b10.wav']);
    expect(resolveOscArgs(['{page:x}', 'plain'], chosen)).toEqual(['{page:x}', 'plain']);
  });
});

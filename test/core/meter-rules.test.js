// The audience meter as an input of the score (core/meter-rules.js, an open-form section's `when`):
// a threshold held for some beats fires once per crossing, with hysteresis, so a meter hovering at
// the threshold does not fire every beat; the meter's choice of the next section yields to the
// conductor's and a part's; every problem in a rule is named with its field.

import { readFileSync } from 'node:fs';
import { describe, it, expect } from 'vitest';
import { parse } from 'yaml';
import { HYSTERESIS, readRules, restoreRules, ruleWords, startRules, stepRules } from '../../core/meter-rules.js';
import { choose, firedCues, meterBeat, readOpenForm, restoreState, startState } from '../../core/open-form.js';

const FIXTURE = parse(readFileSync(new URL('../fixtures/open-form/three-sections.yaml', import.meta.url), 'utf8'));
const SCORE = { totalBeats: FIXTURE.totalBeats, parts: FIXTURE.parts, views: ['audience', 'score', ...FIXTURE.parts] };

/** @param {unknown} raw @param {boolean} [thumbs] */
function read(raw, thumbs = true) {
  /** @type {string[]} */
  const problems = [];
  const rules = readRules(raw, 'when', { views: ['audience', 'score'], thumbs }, (f, m) => problems.push(`${f}: ${m}`));
  return { rules, problems };
}

/**
 * The beats a rule fires on as the meter takes `values`, one a beat.
 * @param {unknown} rule
 * @param {number[]} values
 */
function firings(rule, values) {
  const { rules } = read([rule]);
  let state = startRules(rules);
  /** @type {number[]} */
  const out = [];
  values.forEach((m, beat) => {
    const r = stepRules(rules, state, m);
    state = r.state;
    if (r.fired.length > 0) out.push(beat);
  });
  return out;
}

describe('meter rules: when they fire', () => {
  it('fires on the beat the threshold has held for `for` beats in a row', () => {
    const rule = { meter: '>= 0.6', for: 2, set: { text: 'Louder' } };
    expect(firings(rule, [0, 0.58, 0.6, 0.62, 0.64])).toEqual([3]);
    // a dip below the threshold starts the hold over
    expect(firings(rule, [0.6, 0.4, 0.6, 0.6])).toEqual([3]);
    // `for` defaults to one beat: the beat it holds
    expect(firings({ meter: '< -0.2', set: { text: 'Quieter' } }, [0, -0.2, -0.22])).toEqual([2]);
  });

  it('fires once per crossing: a meter hovering at the threshold does not fire every beat', () => {
    const rule = { meter: '>= 0.6', set: { text: 'Louder' } };
    // up, hovering 0.58..0.62 for a while, then well back down and up again: two crossings
    const hover = [0.6, 0.58, 0.62, 0.6, 0.56, 0.62, 0.52, 0.6];
    expect(firings(rule, [0, ...hover, 0.4, 0.6])).toEqual([1, 10]);
    // back down by less than the hysteresis is not a new crossing
    expect(HYSTERESIS).toBe(0.1);
    expect(firings(rule, [0.6, 0.52, 0.6, 0.5, 0.6])).toEqual([0, 4]);
    // the same for a falling test
    expect(firings({ meter: '<= -0.5', choose: 'end' }, [-0.5, -0.44, -0.6, -0.4, -0.5])).toEqual([0, 4]);
  });

  it('steps several rules independently, and changes nothing while nothing moves', () => {
    const { rules } = read([
      { meter: '>= 0.5', set: { text: 'a' } },
      { meter: '>= 0.2', for: 3, view: 'score', set: { text: 'b' } },
    ]);
    const s0 = startRules(rules);
    expect(stepRules(rules, s0, 0).state).toBe(s0);
    let s = s0;
    /** @type {number[][]} */
    const fired = [];
    for (const m of [0.6, 0.6, 0.6]) {
      const r = stepRules(rules, s, m);
      s = r.state;
      fired.push(r.fired);
    }
    expect(fired).toEqual([[0], [], [1]]);
    expect(s).toEqual({ held: [0, 0], armed: [false, false], fired: [0, 1] });
    expect(restoreRules(rules, JSON.parse(JSON.stringify(s)))).toEqual(s);
    expect(restoreRules(rules, { held: [0], armed: [true], fired: [] })).toBe(null);
    expect(restoreRules(rules, { held: [0, 0], armed: [true, true], fired: [2] })).toBe(null);
  });
});

describe('meter rules: reading them', () => {
  it('reads a test, a hold, a cue or a choice', () => {
    const { rules, problems } = read([
      { meter: '>= 0.6', for: 2, set: { text: 'Louder' } },
      { meter: '<-.5', choose: 'end' },
    ]);
    expect(problems).toEqual([]);
    expect(rules).toEqual([
      { op: '>=', threshold: 0.6, beats: 2, cue: { view: 'audience', set: { text: 'Louder' } }, choose: null },
      { op: '<', threshold: -0.5, beats: 1, cue: null, choose: 'end' },
    ]);
    expect(rules.map(ruleWords)).toEqual([
      'meter >= 0.6 for 2 beats: sets text on audience',
      'meter < -0.5: chooses end',
    ]);
  });

  it('names the field and the fix of each problem', () => {
    expect(read('loud').problems).toEqual([
      'when: must list 1 to 8 rules like {meter: ">= 0.6", for: 2, set: {text: Louder}}',
    ]);
    const { problems, rules } = read([
      { meter: '>= 1.5', set: { text: 'x' } },
      { meter: 'loud', set: { text: 'x' } },
      { meter: '>= 0.5', for: 0, set: { text: 'x' } },
      { meter: '>= 0.5', for: 2.5, choose: 'end' },
      { meter: '>= 0.5' },
      { meter: '>= 0.5', set: { text: 'x' }, choose: 'end' },
      { meter: '>= 0.5', view: 'viola', set: { text: 'x' } },
      { meter: '>= 0.5', view: 'score', choose: 'end' },
    ]);
    const more = read([{ meter: '>= 0.5', set: 'x', after: 2 }]);
    expect([...rules, ...more.rules]).toEqual([]);
    expect([...problems, ...more.problems.map((p) => p.replace('when[0]', 'when[8]'))]).toEqual([
      'when[0].meter: must be a test of the meter (-1..1) like ">= 0.6" or "<= -0.5" (>=, >, <=, <), not ">= 1.5"',
      'when[1].meter: must be a test of the meter (-1..1) like ">= 0.6" or "<= -0.5" (>=, >, <=, <), not "loud"',
      'when[2].for: must be how many beats in a row the test holds before it fires, 1 to 256',
      'when[3].for: must be how many beats in a row the test holds before it fires, 1 to 256',
      'when[4]: needs exactly one of set (a cue: what a view shows) or choose (the section that follows, or "end")',
      'when[5]: needs exactly one of set (a cue: what a view shows) or choose (the section that follows, or "end")',
      "when[6].view: must be one of the score's views (audience, score)",
      'when[7].view: goes with set (the view the cue changes)',
      'when[8].after: is not a key of a rule (meter, for, set, view, choose)',
      'when[8].set: must be a mapping of what the view shows, e.g. {text: Louder}',
    ]);
  });

  it('refuses rules in a section that takes no thumbs: its meter would never move', () => {
    expect(read([{ meter: '>= 0.6', set: { text: 'x' } }], false).problems).toEqual([
      'when: follows the audience meter, which moves only while the section takes thumbs: give the section audience: {thumbs: true}',
    ]);
  });

  it("refuses a choice that may not follow the section, and checks a cue's patch as a preset's", () => {
    const raw = structuredClone(FIXTURE.openForm);
    raw.sections[0].audience = { thumbs: true };
    raw.sections[0].when = [
      { meter: '>= 0.5', choose: 'end' },
      { meter: '<= 0', set: { background: 'url(x)' } },
    ];
    const r = readOpenForm(raw, { ...SCORE, checkSet: (set) => (set.background ? 'must be a colour' : null) });
    expect(r.ok).toBe(false);
    expect(!r.ok && r.problems).toEqual([
      { field: 'openForm.sections[0].when[1].set', message: 'must be a colour' },
      { field: 'openForm.sections[0].when[0].choose', message: '"end" may not follow "intro"; one of pitch, rhythm' },
    ]);
  });
});

describe('meter rules in the open form', () => {
  function form() {
    const raw = structuredClone(FIXTURE.openForm);
    raw.sections[1].audience = { thumbs: true };
    raw.sections[1].when = [
      { meter: '>= 0.6', set: { text: 'Yes' } },
      { meter: '<= -0.5', for: 2, choose: 'end' },
    ];
    const r = readOpenForm(raw, SCORE);
    if (!r.ok) throw new Error(JSON.stringify(r.problems));
    return r.value;
  }

  it("makes the meter's choice unless a person chose; a person overrides it", () => {
    const f = form();
    let s = { ...startState(f), current: 'pitch' };
    s = { ...s, rules: startRules(f.sections[1].when) };
    s = meterBeat(f, s, -0.6).state;
    expect(s.chosen).toBe(null);
    const r = meterBeat(f, s, -0.6);
    expect(r.fired.map((x) => x.choose)).toEqual(['end']);
    expect(r.state.chosen).toEqual({ section: 'end', by: 'meter' });
    // the violin chooses over the meter
    const c = choose(f, r.state, { who: { role: 'part', part: 'violin' }, section: 'rhythm', round: 0 });
    expect(c.ok && c.state.chosen).toEqual({ section: 'rhythm', by: 'part:violin' });
    // and once a person has chosen, the meter does not change it
    if (!c.ok) throw new Error('refused');
    let t = c.state;
    for (const m of [0, -0.6, -0.6]) t = meterBeat(f, t, m).state;
    expect(t.chosen).toEqual({ section: 'rhythm', by: 'part:violin' });
  });

  it("keeps the fired cues and the rules' state through a save (JSON round trip)", () => {
    const f = form();
    let s = { ...startState(f), current: 'pitch', rules: startRules(f.sections[1].when) };
    s = meterBeat(f, s, 0.7).state;
    expect(firedCues(f, s)).toEqual([{ view: 'audience', set: { text: 'Yes' } }]);
    const back = restoreState(f, JSON.parse(JSON.stringify(s)));
    expect(back.ok && back.state).toEqual(s);
    // a record from before the rules starts them afresh; one that does not fit is refused
    const { rules: _, ...old } = s;
    expect(restoreState(f, old).ok && /** @type {any} */ (restoreState(f, old)).state.rules).toEqual(
      startRules(f.sections[1].when),
    );
    expect(restoreState(f, { ...s, rules: { held: [], armed: [], fired: [] } })).toEqual({
      ok: false,
      problem: 'openForm: the meter rules saved do not fit the 2 rules of "pitch"',
    });
  });
});

import { readFileSync } from 'node:fs';
import { describe, it, expect } from 'vitest';
import { parse } from 'yaml';
import {
  END,
  advance,
  choose,
  claim,
  offer,
  preview,
  readOpenForm,
  restoreState,
  startState,
} from '../../core/open-form.js';

const FIXTURE = parse(readFileSync(new URL('../fixtures/open-form/three-sections.yaml', import.meta.url), 'utf8'));
const SCORE = { totalBeats: FIXTURE.totalBeats, parts: FIXTURE.parts };

function form() {
  const r = readOpenForm(FIXTURE.openForm, SCORE);
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.value;
}

describe('open form: reading the sections', () => {
  it('reads sections, choosers, owners and defaults', () => {
    const f = form();
    expect(f.start).toBe('intro');
    expect(f.sections.map((s) => [s.id, s.first, s.end, s.default])).toEqual([
      ['intro', 0, 8, 'pitch'],
      ['pitch', 8, 24, 'rhythm'],
      ['rhythm', 24, 48, END],
    ]);
    expect(f.sections[1].chooser).toEqual({ kind: 'part', part: 'violin' });
    expect(f.sections[1].owner).toBe('violin');
    expect(f.sections[2].chooser).toEqual({ kind: 'first' });
  });

  it('without next or default, a section is followed by the one after it, the last by the end', () => {
    const r = readOpenForm(
      {
        sections: [
          { id: 'a', beats: [0, 3] },
          { id: 'b', beats: [4, 7] },
        ],
      },
      { totalBeats: 8, parts: [] },
    );
    expect(r.ok && r.value.sections.map((s) => s.default)).toEqual(['b', END]);
    expect(r.ok && r.value.start).toBe('a');
  });

  it('names the field and the fix of each problem', () => {
    const r = readOpenForm(
      {
        start: 'nowhere',
        sections: [
          { id: 'a', beats: [0, 9], next: ['b', 'c'], chooser: { part: 'viola' }, owner: 'oboe' },
          { id: 'b', beats: [5, 60], default: 'a', next: ['end'] },
          { id: 'a', beats: [20, 21], lights: true },
        ],
      },
      { totalBeats: 48, parts: ['violin'] },
    );
    expect(r.ok).toBe(false);
    expect(!r.ok && r.problems).toEqual([
      {
        field: 'openForm.sections[0].chooser',
        message: 'must be conductor, first, or {part: <id>} with a part of the score',
      },
      { field: 'openForm.sections[0].owner', message: '"oboe" is not a part' },
      {
        field: 'openForm.sections[1].beats',
        message: 'must be [first, last], beats of the score (0..47), first <= last',
      },
      { field: 'openForm.sections[2].id', message: '"a" is used by another section, or is "end"' },
      {
        field: 'openForm.sections[2].lights',
        message:
          'is not a key of a section (id, name, beats, bars, next, chooser, owner, default, audience, overlays, when)',
      },
      // "b" is a section, with a problem of its own: only "c" is unknown.
      { field: 'openForm.sections[0].next', message: '"c" is not a section (or "end")' },
      { field: 'openForm.start', message: 'must be the id of a section; "nowhere" is not' },
    ]);
  });
});

describe('open form: sections in bars, and wrong types', () => {
  // Four bars of 4 beats: bar n is beats 4(n-1)..4(n-1)+3.
  const barBeats = (/** @type {number} */ bar) =>
    bar >= 1 && bar <= 4 ? /** @type {[number, number]} */ ([4 * (bar - 1), 4 * (bar - 1) + 3]) : null;
  const shape = { totalBeats: 16, parts: ['violin'], barBeats };

  it('reads bars as whole bars, first beat of the first to last beat of the last', () => {
    const r = readOpenForm(
      {
        sections: [
          { id: 'a', bars: [1, 2] },
          { id: 'b', bars: [3, 4] },
        ],
      },
      shape,
    );
    expect(r.ok && r.value.sections.map((s) => [s.id, s.first, s.end])).toEqual([
      ['a', 0, 8],
      ['b', 8, 16],
    ]);
    expect(r.ok && r.value.start).toBe('a');
  });

  it('names overlapping sections where they are written', () => {
    const r = readOpenForm(
      {
        sections: [
          { id: 'b', bars: [2, 3] },
          { id: 'a', bars: [1, 2] },
        ],
      },
      shape,
    );
    expect(!r.ok && r.problems).toEqual([
      { field: 'openForm.sections[0]', message: '"b" (beats 4..11) overlaps "a" (beats 0..7)' },
    ]);
  });

  it('names each field of the wrong type', () => {
    const r = readOpenForm(
      {
        sections: [
          { id: 'a', bars: [1, 9] },
          { id: 'b', beats: [0, 1], bars: [1, 1] },
          { id: 'c', beats: ['4', 5] },
          { id: 'd', beats: [8, 9], next: 'end', name: 7, default: 3 },
        ],
        begin: 'a',
      },
      shape,
    );
    expect(!r.ok && r.problems).toEqual([
      { field: 'openForm.begin', message: 'is not a key of openForm (start, sections, audience)' },
      { field: 'openForm.sections[0].bars', message: 'must be [first, last], bars of the score, first <= last' },
      { field: 'openForm.sections[1]', message: 'needs exactly one of beats: [first, last] or bars: [first, last]' },
      {
        field: 'openForm.sections[2].beats',
        message: 'must be [first, last], beats of the score (0..15), first <= last',
      },
      { field: 'openForm.sections[3].name', message: 'must be text of at most 120 characters' },
      { field: 'openForm.sections[3].next', message: 'must list the ids of the sections that may follow (or "end")' },
      { field: 'openForm.sections[3].default', message: 'must be the id of a section (or "end")' },
    ]);
    expect(readOpenForm([], shape)).toMatchObject({ ok: false, problems: [{ field: 'openForm' }] });
  });
});

describe('open form: choosing the next section', () => {
  it('plays through by default, and ends', () => {
    const f = form();
    let s = startState(f);
    expect(preview(f, s, 6)).toBe(7);
    expect(preview(f, s, 7)).toBe(8);
    ({ state: s } = advance(f, s));
    expect(s.current).toBe('pitch');
    ({ state: s } = advance(f, s));
    const last = advance(f, s);
    expect(last.beat).toBe(null);
    expect(last.state.ended).toBe(true);
    expect(last.state.order).toEqual([
      { section: 'intro', by: 'start' },
      { section: 'pitch', by: 'default' },
      { section: 'rhythm', by: 'default' },
      { section: END, by: 'default' },
    ]);
  });

  it('lets only the named part choose, and the conductor override it', () => {
    const f = form();
    let s = advance(f, startState(f)).state; // pitch: the violin chooses
    const cello = choose(f, s, { who: { role: 'part', part: 'cello' }, section: 'end', round: 1 });
    expect(cello.ok === false && cello.error.code).toBe('SC_ERR_SECTION_REFUSED');
    expect(cello.ok === false && cello.error.message).toContain('the part violin chooses what follows "pitch"');
    const violin = choose(f, s, { who: { role: 'part', part: 'violin' }, section: END, round: 1 });
    expect(violin.ok).toBe(true);
    if (violin.ok) s = violin.state;
    expect(preview(f, s, 23)).toBe(null);
    const conductor = choose(f, s, { who: { role: 'conductor' }, section: 'rhythm', round: 1 });
    expect(conductor.ok).toBe(true);
    if (conductor.ok) s = conductor.state;
    // the conductor's choice stands against a part's later one
    const again = choose(f, s, { who: { role: 'part', part: 'violin' }, section: END, round: 1 });
    expect(again.ok === false && again.error.message).toContain('the conductor has chosen');
    expect(preview(f, s, 23)).toBe(24);
    const { state, beat } = advance(f, s);
    expect(beat).toBe(24);
    expect(state.order.at(-1)).toEqual({ section: 'rhythm', by: 'conductor' });
  });

  it('gives a first-come choice to the first part to claim it', () => {
    const f = form();
    let s = startState(f);
    const r1 = choose(f, s, { who: { role: 'conductor' }, section: 'rhythm', round: 0 });
    if (r1.ok) s = advance(f, r1.state).state;
    expect(s.current).toBe('rhythm');
    const c = claim(f, s, { part: 'cello', round: 1 });
    expect(c.ok).toBe(true);
    if (c.ok) s = c.state;
    const v = choose(f, s, { who: { role: 'part', part: 'violin' }, section: 'pitch', round: 1 });
    expect(v.ok === false && v.error.message).toContain('the part cello claimed the choice first');
    const cc = choose(f, s, { who: { role: 'part', part: 'cello' }, section: 'pitch', round: 1 });
    expect(cc.ok && cc.state.chosen).toEqual({ section: 'pitch', by: 'part:cello' });
    expect(offer(f, s)).toMatchObject({
      round: 1,
      section: 'rhythm',
      chooser: 'first',
      claimedBy: 'cello',
      options: [
        { id: 'pitch', name: 'Pitch' },
        { id: END, name: 'End' },
      ],
    });
  });

  it('refuses a section that may not follow, and a tap on an offer that has passed', () => {
    const f = form();
    const s = startState(f);
    const no = choose(f, s, { who: { role: 'conductor' }, section: END, round: 0 });
    expect(no.ok === false && no.error.message).toContain('"end" may not follow "intro"; choose one of pitch, rhythm');
    const late = choose(f, advance(f, s).state, { who: { role: 'part', part: 'violin' }, section: END, round: 0 });
    expect(late.ok === false && late.error.message).toContain('the offer of round 0 has passed');
  });
});

describe('open form: saved and restored', () => {
  it('resumes in the same section with the same choice after a restart (JSON round trip)', () => {
    const f = form();
    let s = advance(f, startState(f)).state;
    const r = choose(f, s, { who: { role: 'part', part: 'violin' }, section: END, round: 1 });
    if (r.ok) s = r.state;
    const back = restoreState(f, JSON.parse(JSON.stringify(s)));
    expect(back).toEqual({ ok: true, state: s });
    expect(back.ok && preview(f, back.state, 23)).toBe(null);
  });

  it('refuses a saved state that does not fit the score', () => {
    const f = form();
    expect(restoreState(f, { current: 'coda', round: 1, order: [] })).toEqual({
      ok: false,
      problem: 'openForm: the score has no section "coda"',
    });
    expect(
      restoreState(f, { current: 'intro', round: 0, order: [], chosen: { section: END, by: 'conductor' } }),
    ).toEqual({ ok: false, problem: 'openForm: the choice saved may not follow "intro"' });
    expect(restoreState(f, null)).toMatchObject({ ok: false });
  });
});

describe('open form: the audience page switches', () => {
  const sections = [
    { id: 'a', beats: [0, 7], audience: { thumbs: true, meter: true } },
    { id: 'b', beats: [8, 15], audience: { vote: true } },
    { id: 'c', beats: [16, 23] },
  ];

  it('a section says what the phones show; unset switches are the form’s, then the defaults', () => {
    const r = readOpenForm({ start: 'a', audience: { vote: false, audio: false }, sections }, SCORE);
    if (!r.ok) throw new Error(JSON.stringify(r.problems));
    const [a, b, c] = r.value.sections;
    expect(a.audience).toEqual({ notes: false, audio: false, thumbs: true, meter: true, vote: false });
    expect(b.audience).toEqual({ notes: false, audio: false, thumbs: false, meter: false, vote: true });
    expect(c.audience).toEqual({ notes: false, audio: false, thumbs: false, meter: false, vote: false });
    expect(offer(r.value, startState(r.value)).audience).toEqual(a.audience);
    const plain = readOpenForm({ sections: [{ id: 'x', beats: [0, 3] }] }, SCORE);
    expect(plain.ok && plain.value.sections[0].audience).toEqual({
      notes: false,
      audio: true,
      thumbs: false,
      meter: false,
      vote: true,
    });
  });

  it('names a switch that is not one, and one that is not true or false', () => {
    const r = readOpenForm(
      { audience: 'all', sections: [{ id: 'a', beats: [0, 7], audience: { thumb: true, meter: 'yes' } }] },
      SCORE,
    );
    expect(!r.ok && r.problems).toEqual([
      {
        field: 'openForm.audience',
        message:
          'must be {notes: true|false, audio: true|false, thumbs: true|false, meter: true|false, vote: true|false} (any of them)',
      },
      {
        field: 'openForm.sections[0].audience.thumb',
        message: 'is not an audience switch (notes, audio, thumbs, meter, vote)',
      },
      { field: 'openForm.sections[0].audience.meter', message: 'must be true or false' },
    ]);
  });
});

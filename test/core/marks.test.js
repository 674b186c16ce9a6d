import { describe, expect, it } from 'vitest';
import { MARK_NAME_MAX, checkMarks, markAt, markBeat, notationMarks } from '../../core/marks.js';
import { buildScoreModel } from '../../core/manifest.js';
import { createTempoMapFromBars } from '../../core/tempo-map.js';
import { atBeat, initialState } from '../../core/performance.js';

/** A manifest without notation: 8 bars of 4/4, and its marks. @param {unknown} marks */
const manifest = (marks) => ({
  id: 'marks',
  title: 'Marks',
  bars: 8,
  meter: [{ bar: 1, time: '4/4', tempo: 120 }],
  marks,
});

/** @param {unknown} marks */
function problemsOf(marks) {
  const r = buildScoreModel(manifest(marks));
  return r.ok ? [] : r.problems;
}

describe('rehearsal marks', () => {
  it('reads score.yaml marks at bar and beat or at a beat index, sorted by beat', () => {
    const r = buildScoreModel(
      manifest([
        { name: 'B', bar: 5 },
        { name: 'A', bar: 2, beat: 3 },
        { name: 'Coda', at: 30 },
      ]),
    );
    if (!r.ok) throw new Error(JSON.stringify(r.problems));
    expect(r.value.marks).toEqual([
      { name: 'A', beat: 6 },
      { name: 'B', beat: 16 },
      { name: 'Coda', beat: 30 },
    ]);
  });

  it.each([
    ['not a list', { name: 'A', bar: 1 }, 'marks', /must be a list of marks/],
    ['a name missing', [{ bar: 1 }], 'marks[0].name', /must be a name/],
    ['a name of another type', [{ name: 3, bar: 1 }], 'marks[0].name', /must be a name/],
    ['a name with a line break', [{ name: 'A\nB', bar: 1 }], 'marks[0].name', /control characters/],
    ['a name with spaces around it', [{ name: ' A', bar: 1 }], 'marks[0].name', /spaces/],
    ['a name too long', [{ name: 'x'.repeat(MARK_NAME_MAX + 1), bar: 1 }], 'marks[0].name', /more than 32/],
    [
      'a name twice',
      [
        { name: 'A', bar: 1 },
        { name: 'A', bar: 3 },
      ],
      'marks[1].name',
      /named twice/,
    ],
    ['no position', [{ name: 'A' }], 'marks[0]', /needs a position/],
    ['a bar the score does not have', [{ name: 'A', bar: 12 }], 'marks[0]', /bars 1\.\.8/],
    ['a beat after the last', [{ name: 'A', at: 32 }], 'marks[0]', /after the last beat/],
    [
      'more marks than a package may have',
      Array.from({ length: 1001 }, (_, i) => ({ name: `m${i}`, at: 0 })),
      'marks',
      /more than the 1000/,
    ],
  ])('refuses %s, naming the field', (_what, marks, field, message) => {
    const problems = problemsOf(marks);
    expect(problems).toHaveLength(1);
    expect(problems[0].field).toBe(field);
    expect(problems[0].message).toMatch(message);
  });

  it("takes the notation's marks at each playing, a declared mark of the same name replacing them", () => {
    // Bars 1-2 played twice (a repeat), then bar 3; a pickup of one beat first.
    const bars = [
      { bar: 0, time: /** @type {[number, number]} */ ([4, 4]), beats: 1, tempo: [{ beat: 4, bpm: 60 }] },
      { bar: 1, time: /** @type {[number, number]} */ ([4, 4]), marks: [{ beat: 1, name: 'A' }] },
      { bar: 2, time: /** @type {[number, number]} */ ([4, 4]), marks: [{ beat: 3, name: ' B\t ' }] },
      { bar: 1, time: /** @type {[number, number]} */ ([4, 4]), marks: [{ beat: 1, name: 'A' }] },
      { bar: 2, time: /** @type {[number, number]} */ ([4, 4]), marks: [{ beat: 3, name: ' B\t ' }] },
      { bar: 3, time: /** @type {[number, number]} */ ([4, 4]), marks: [{ beat: 9, name: 'x'.repeat(40) }] },
    ];
    const map = createTempoMapFromBars(bars);
    const found = notationMarks(bars, map);
    expect(found).toEqual([
      { name: 'A', beat: 1 },
      { name: 'B', beat: 7 },
      { name: 'A', beat: 9 },
      { name: 'B', beat: 15 },
      // A beat past the bar's end is its last beat; a long name is cut.
      { name: 'x'.repeat(MARK_NAME_MAX), beat: 20 },
    ]);
    /** @type {Array<{ field: string, message: string }>} */
    const problems = [];
    const marks = checkMarks([{ name: 'B', at: 3 }], {
      found,
      position: (pos) => pos.at,
      problem: (field, message) => problems.push({ field, message }),
    });
    expect(problems).toEqual([]);
    expect(marks.map((m) => `${m.name}@${m.beat}`)).toEqual(['A@1', 'B@3', 'A@9', `${'x'.repeat(MARK_NAME_MAX)}@20`]);
    // "Go to A" goes to its first playing; the mark in force is the latest at or before a beat.
    expect(markBeat(marks, 'A')).toBe(1);
    expect(markBeat(marks, 'Z')).toBeNull();
    expect([0, 1, 2, 3, 8, 9, 19, 20].map((b) => markAt(marks, b))).toEqual([
      null,
      'A',
      'A',
      'B',
      'B',
      'A',
      'A',
      'x'.repeat(MARK_NAME_MAX),
    ]);
  });

  it('the state names the mark in force, and drops it before the first mark', () => {
    const r = buildScoreModel(
      manifest([
        { name: 'A', bar: 1 },
        { name: 'B', bar: 3 },
      ]),
    );
    if (!r.ok) throw new Error(JSON.stringify(r.problems));
    const model = r.value;
    const start = initialState(model);
    expect(start.mark).toBe('A');
    const atB = atBeat(model, start, 9, null);
    expect(atB.mark).toBe('B');
    const unmarked = buildScoreModel(manifest([{ name: 'B', bar: 3 }]));
    if (!unmarked.ok) throw new Error(JSON.stringify(unmarked.problems));
    const first = initialState(unmarked.value);
    expect('mark' in first).toBe(false);
    const later = atBeat(unmarked.value, first, 8, null);
    expect(later.mark).toBe('B');
    expect('mark' in atBeat(unmarked.value, later, 2, null)).toBe(false);
  });
});

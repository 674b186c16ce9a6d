import { describe, it, expect } from 'vitest';
import { buildScoreModel, isSafeRelativePath } from '../../core/manifest.js';

const base = () => ({
  id: 'piece', title: 'Piece', bars: 4,
  meter: [{ bar: 1, time: '4/4', tempo: 120 }],
  parts: [{ id: 'violin', name: 'Violin' }],
  cues: [
    { bar: 2, set: { text: 'two' } },
    { at: 0, set: { text: 'zero' } },
    { bar: 3, beat: 2, view: 'violin', set: { text: 'v' } },
  ],
});

/** @param {unknown} raw */
function problems(raw) {
  const r = buildScoreModel(raw);
  return r.ok ? [] : r.problems.map((p) => `${p.field}: ${p.message}`);
}

describe('score manifest', () => {
  it('builds a model with views, a tempo map and cues in beat order', () => {
    const r = buildScoreModel(base());
    if (!r.ok) throw new Error(JSON.stringify(r.problems));
    expect(r.value.views).toEqual(['audience', 'score', 'violin']);
    expect(r.value.map.totalBeats).toBe(16);
    expect(r.value.cues.map((c) => c.beat)).toEqual([0, 4, 9]);
    expect(r.value.cues[2].view).toBe('violin');
  });

  it('reports a cue after the last beat with the fix', () => {
    const m = base();
    m.cues.push({ at: 300, set: { text: 'late' } });
    expect(problems(m)).toContain('cues[3]: is at beat 300, after the last beat (15); move it or extend the score');
  });

  it.each([
    [{ id: 'Bad Id' }, /^id: /],
    [{ title: '' }, /^title: is missing/],
    [{ bars: 0 }, /^bars: /],
    [{ meter: [] }, /^meter: is missing/],
    [{ meter: [{ bar: 1, time: '4-4', tempo: 60 }] }, /^meter\[0\]\.time: must be a time signature/],
    [{ meter: [{ bar: 1, time: '4/4', tempo: -1 }] }, /^meter\[0\]\.tempo: /],
    [{ meter: [{ bar: 1, time: '4/4', tempo: 60 }, { bar: 3 }] }, /^meter\[1\]: changes nothing/],
    [{ parts: [{ id: 'score' }] }, /reserved view name/],
    [{ cues: [{ bar: 2, view: 'flute', set: {} }] }, /"flute" is not a view/],
    [{ cues: [{ bar: 2, set: 'text' }] }, /set: must be a mapping/],
    [{ cues: [{ bar: 9, set: {} }] }, /no bar 9; the score has bars 1..4/],
    [{ cues: [{ set: {} }] }, /needs a position/],
    [{ assets: [{ path: '../etc/passwd' }] }, /relative path inside the package/],
  ])('reports %j', (change, expected) => {
    const found = problems({ ...base(), ...change });
    expect(found.some((p) => expected.test(p)), found.join('\n')).toBe(true);
  });

  it('refuses a manifest that is not a mapping', () => {
    expect(problems('just text')[0]).toMatch(/must be a YAML mapping/);
    expect(problems(null).length).toBe(1);
  });

  it('accepts only safe relative asset paths', () => {
    expect(isSafeRelativePath('audio/a.wav')).toBe(true);
    for (const p of ['/etc/passwd', '../x', 'a/../../x', 'a\\b', 'a//b', './a', '', 'a/\0']) expect(isSafeRelativePath(p)).toBe(false);
  });
});

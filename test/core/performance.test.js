import { describe, it, expect } from 'vitest';
import { buildScoreModel } from '../../core/manifest.js';
import { atBeat, cuesAt, initialState, withNext } from '../../core/performance.js';

function model() {
  const r = buildScoreModel({
    id: 'p',
    title: 'P',
    bars: 4,
    meter: [
      { bar: 1, time: '4/4', tempo: 60 },
      { bar: 3, tempo: 120 },
    ],
    cues: [
      { at: 0, set: { text: 'a', color: 'red' } },
      { at: 4, set: { text: 'b' } },
      { at: 8, set: { color: null, tiles: [1, 2] } },
    ],
  });
  if (!r.ok) throw new Error('bad fixture');
  return r.value;
}

describe('performance state', () => {
  it('starts stopped on the first beat with beat-0 cues', () => {
    const s = initialState(model());
    expect(s).toMatchObject({ transport: 'stopped', beat: 0, bar: 1, beatInBar: 1, tempo: 60 });
    expect(s).not.toHaveProperty('beatT');
    expect(s.cues).toEqual({ audience: { text: 'a', color: 'red' } });
  });

  it("stepping one beat applies that beat's cues as merge patches", () => {
    const m = model();
    let s = initialState(m);
    for (let b = 1; b <= 8; b++) s = atBeat(m, s, b, 1000 * b);
    expect(s.cues.audience).toEqual({ text: 'b', tiles: [1, 2] });
    expect(s).toMatchObject({ beat: 8, bar: 3, beatInBar: 1, tempo: 120, beatT: 8000 });
  });

  it('a jump gives the same cue state as playing through', () => {
    const m = model();
    let stepped = initialState(m);
    for (let b = 1; b <= 12; b++) stepped = atBeat(m, stepped, b, null);
    const jumped = atBeat(m, initialState(m), 12, null);
    expect(jumped).toEqual(stepped);
    expect(atBeat(m, stepped, 2, null).cues).toEqual(cuesAt(m, 2));
  });

  it('announces a granulator that starts on the next beat, so phones start it on that beat', () => {
    const r = buildScoreModel({
      id: 'g',
      title: 'G',
      bars: 1,
      meter: [{ bar: 1, time: '4/4', tempo: 60 }],
      cues: [
        { at: 0, set: { granulator: { src: 'a.mp3', play: null } } },
        { at: 2, set: { granulator: { play: 2 } } },
        { at: 3, set: { granulator: { gain: 0.5 } } },
      ],
    });
    if (!r.ok) throw new Error('bad fixture');
    const s = initialState(r.value);
    expect(withNext(r.value, s, 2, 5000).next).toMatchObject({ beat: 2, t: 5000, granulator: ['audience'] });
    expect(withNext(r.value, s, 3, 6000).next).not.toHaveProperty('granulator');
  });

  it("announces the volume of the next beat's stems, so that they start at it", () => {
    const r = buildScoreModel({
      id: 's',
      title: 'S',
      bars: 1,
      meter: [{ bar: 1, time: '4/4', tempo: 60 }],
      cues: [
        { at: 1, audio: 'drone.wav', stem: 'drone', gain: 0.4 },
        { at: 2, set: { stems: { drone: { gain: 0.1, glide: 2000 } } } },
      ],
    });
    if (!r.ok) throw new Error(JSON.stringify(r.problems));
    const next = withNext(r.value, initialState(r.value), 1, 1000).next;
    expect(next).toMatchObject({ audio: { audience: ['drone.wav'] }, gains: { 'drone.wav': 0.4 } });
    expect(atBeat(r.value, initialState(r.value), 2, null).cues.audience.stems).toEqual({
      drone: { src: 'drone.wav', gain: 0.1, glide: 2000 },
    });
  });
});

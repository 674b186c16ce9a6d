// Where a performance that was playing has got to after a restart, without a conductor: the
// time gone by, through the tempo map, the vote windows met on the way and the end.

import { describe, it, expect } from 'vitest';
import { buildScoreModel } from '../../../core/manifest.js';
import { playOn, recordProblem } from '../../../server/performance/resume.js';

/** 4/4 at 120 (500 ms a beat), 8 bars (32 beats, 16 s); a vote window closing at bar 3. */
function model() {
  const r = buildScoreModel({
    id: 'r',
    title: 'R',
    bars: 8,
    meter: [{ bar: 1, time: '4/4', tempo: 120 }],
    cues: [{ bar: 2, vote: { id: 'v', tiles: ['a', 'b'], close: { bar: 3 }, decides: { a: { seek: { bar: 6 } } } } }],
  });
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.value;
}

describe('playOn', () => {
  it('reaches the beat the time gone by gives, and asks the ballot at each window edge on the way', () => {
    /** @type {number[]} */
    const asked = [];
    const reached = playOn({
      model: model(),
      loop: false,
      rate: 1,
      from: 0,
      beatT: 0,
      nowWall: 5_250,
      voteAt: (b) => {
        asked.push(b);
        return null;
      },
    });
    expect(reached).toEqual({ ended: false, at: 8, t: 4_000, beat: 10 });
    expect(asked).toEqual([4, 8]);
  });

  it("follows a closing window's jump: the beats go on from where the tally sent the performance", () => {
    const reached = playOn({
      model: model(),
      loop: false,
      rate: 1,
      from: 0,
      beatT: 0,
      nowWall: 4_600,
      voteAt: (b) => (b === 8 ? 20 : null),
    });
    expect(reached).toEqual({ ended: false, at: 20, t: 4_000, beat: 21 });
  });

  it('ends at the end unless it loops; looping, the rounds gone by are skipped whole', () => {
    const options = { model: model(), rate: 2, from: 0, beatT: 0, voteAt: () => null };
    expect(playOn({ ...options, loop: false, nowWall: 9_000 })).toEqual({ ended: true });
    // At rate 2 a round is 8 s: 100 s later is 12 rounds and 4 s, the beat 16.
    const reached = playOn({ ...options, loop: true, nowWall: 100_000 });
    expect(reached.ended).toBe(false);
    expect(reached).toMatchObject({ beat: 16 });
  });
});

describe('recordProblem', () => {
  it('names what does not fit the score', () => {
    const m = model();
    expect(recordProblem({ transport: 'playing', beat: 3, beatT: 1, rate: 1, ballot: {} }, m)).toBeNull();
    expect(recordProblem({ transport: 'going', beat: 3, rate: 1 }, m)).toMatch(/^transport must be one of/);
    expect(recordProblem({ transport: 'paused', beat: 32, rate: 1 }, m)).toBe('beat must be in 0..31');
    expect(recordProblem({ transport: 'playing', beat: 3, rate: 1 }, m)).toMatch(/needs a whole beat and its time/);
  });
});

// The musicians' strip: start signal, beat indicator and tempo, as ZScore's players showed them.

import { describe, expect, it } from 'vitest';
import { beatMarks, startSignal, tempoText } from '../../../client/src/notation/player-signals.js';

describe('player signals', () => {
  it('says ready during the count-in, go on the first beat played, and stop or pause when the conductor does', () => {
    expect(startSignal('playing', { beat: 4, count: 2 }, 4)).toEqual({ signal: 'ready', label: 'Ready' });
    expect(startSignal('playing', { beat: 4, count: 0 }, 4)).toEqual({ signal: 'go', label: 'Go' });
    expect(startSignal('playing', { beat: 5, count: 0 }, 4).signal).toBe('');
    expect(startSignal('stopped', { beat: 0, count: 0 }, null).signal).toBe('stopped');
    expect(startSignal('paused', { beat: 7, count: 0 }, 4).signal).toBe('paused');
  });

  it('marks each beat of the bar and lights the current one', () => {
    expect(beatMarks([3, 4], 2)).toEqual({ beats: 3, on: 2 });
    expect(beatMarks([16, 4], null)).toEqual({ beats: 16, on: 0 });
    expect(beatMarks(undefined, 1)).toEqual({ beats: 0, on: 0 });
    expect(beatMarks([4, 4], 9)).toEqual({ beats: 4, on: 0 });
  });

  it("reads the tempo in the bar's unit, with the conductor's rate", () => {
    expect(tempoText({ tempo: 80, rate: 1, time: [16, 4] })).toBe('♩ = 80');
    expect(tempoText({ tempo: 120, rate: 0.5, time: [6, 8] })).toBe('♪ = 60');
    expect(tempoText({})).toBe('');
  });
});

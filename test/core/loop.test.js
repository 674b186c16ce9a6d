import { describe, it, expect } from 'vitest';
import { loopLabel, ordinal } from '../../core/loop.js';

describe('the loop as every view shows it', () => {
  it('names the bars and the time round', () => {
    expect(loopLabel({ from: 40, to: 48, round: 3 })).toBe('loop 40-48, 3rd time');
    expect(loopLabel({ from: 12, to: 12, round: 1 })).toBe('loop 12, 1st time');
    expect(loopLabel({ from: 1, to: 2, round: 22 })).toBe('loop 1-2, 22nd time');
  });

  it('shows nothing for no loop or a field it does not understand', () => {
    for (const loop of [
      undefined,
      null,
      'loop',
      {},
      { from: 1, to: 2 },
      { from: '1', to: 2, round: 1 },
      { from: 1, to: 2, round: 0 },
    ])
      expect(loopLabel(loop)).toBe('');
  });

  it('says 11th, 12th and 13th, not 11st', () => {
    expect([1, 2, 3, 4, 11, 12, 13, 21, 101, 111].map(ordinal)).toEqual([
      '1st',
      '2nd',
      '3rd',
      '4th',
      '11th',
      '12th',
      '13th',
      '21st',
      '101st',
      '111th',
    ]);
  });
});

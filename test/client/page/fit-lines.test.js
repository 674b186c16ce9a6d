// The audience's instructions: up to three lines, each fitted to the phone's width.

import { describe, expect, it } from 'vitest';
import { fitScale, instructionLines, MIN_SCALE } from '../../../client/src/page/fit-lines.js';

describe('instruction lines', () => {
  it('keeps up to three lines, dropping empty ones and joining the rest into the last', () => {
    expect(instructionLines('You can select\nany tile, anytime.\nHowever,')).toEqual([
      'You can select',
      'any tile, anytime.',
      'However,',
    ]);
    expect(instructionLines('a\n\nb')).toEqual(['a', 'b']);
    expect(instructionLines('a\nb\nc\nd')).toEqual(['a', 'b', 'c d']);
    expect(instructionLines('')).toEqual([]);
  });

  it('shrinks a line that is wider than the panel, never below the minimum', () => {
    expect(fitScale(300, 360)).toBe(1);
    expect(fitScale(720, 360)).toBe(0.5);
    expect(fitScale(5000, 360)).toBe(MIN_SCALE);
    expect(fitScale(0, 360)).toBe(1);
  });
});

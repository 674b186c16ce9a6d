import { describe, expect, it } from 'vitest';
import { isId, isObject } from '../../core/values.js';

describe('plain values', () => {
  it('an object is a JSON object: not null, not an array', () => {
    expect([{}, { a: 1 }].map(isObject)).toEqual([true, true]);
    expect([null, [], 'x', 1, undefined].map(isObject)).toEqual([false, false, false, false, false]);
  });

  it('an id is 1-64 letters, digits, _ and -', () => {
    expect(['a', 'violin-1', 'A_b-9', 'x'.repeat(64)].map(isId)).toEqual([true, true, true, true]);
    expect(['', 'x'.repeat(65), 'a b', 'é', '../x', 'a.b', 7, null].map(isId)).toEqual([
      false,
      false,
      false,
      false,
      false,
      false,
      false,
      false,
    ]);
  });
});

import { describe, it, expect } from 'vitest';
import { applyPatch, diffPatch, deepEqual } from '../../core/merge-patch.js';

// RFC 7386 appendix A: the test cases of the specification.
/** @type {[any, any, any][]} */
const RFC_CASES = [
  [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
  [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
  [{ a: 'b' }, { a: null }, {}],
  [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
  [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
  [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
  [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
  [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
  [
    ['a', 'b'],
    ['c', 'd'],
    ['c', 'd'],
  ],
  [{ a: 'b' }, ['c'], ['c']],
  [{ a: 'foo' }, null, null],
  [{ a: 'foo' }, 'bar', 'bar'],
  [{ e: null }, { a: 1 }, { e: null, a: 1 }],
  [[1, 2], { a: 'b', c: null }, { a: 'b' }],
  [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
];

describe('JSON Merge Patch (RFC 7386)', () => {
  it.each(RFC_CASES)('applies %j + %j', (target, patch, result) => {
    expect(applyPatch(target, patch)).toEqual(result);
  });

  it('does not modify the target and shares unchanged branches', () => {
    const target = { a: { x: 1 }, b: { y: 2 } };
    const out = applyPatch(target, { a: { x: 3 } });
    expect(target).toEqual({ a: { x: 1 }, b: { y: 2 } });
    expect(out.b).toBe(target.b);
  });

  it('diff then apply gives the new value', () => {
    const from = { beat: 1, cues: { audience: { text: 'a', tiles: [1, 2] } }, gone: true };
    const to = { beat: 2, cues: { audience: { text: 'a', tiles: [1, 3] }, violin: { text: 'v' } } };
    const patch = diffPatch(from, to);
    expect(patch).toEqual({ beat: 2, gone: null, cues: { audience: { tiles: [1, 3] }, violin: { text: 'v' } } });
    expect(applyPatch(from, patch)).toEqual(to);
    expect(diffPatch(to, structuredClone(to))).toBeUndefined();
  });

  it('compares JSON values structurally', () => {
    expect(deepEqual({ a: [1, { b: 2 }] }, { a: [1, { b: 2 }] })).toBe(true);
    expect(deepEqual({ a: 1 }, { a: 1, b: undefined })).toBe(false);
    expect(deepEqual([1], { 0: 1 })).toBe(false);
  });
});

import { describe, it, expect } from 'vitest';
import { WRAP_MS, msSince, wrapMs } from '../../core/wrapped-ms.js';

describe('wrapped ms', () => {
  it('keeps a clock reading as a small whole number', () => {
    const t = 1_795_000_000_123.75;
    expect(wrapMs(t)).toBe(Math.floor(t) % WRAP_MS);
    expect(Number.isInteger(wrapMs(t))).toBe(true);
    expect(wrapMs(-5)).toBe(WRAP_MS - 5);
  });

  it('measures spans across the wrap', () => {
    const t = WRAP_MS * 1671 - 300.5;
    const since = wrapMs(t);
    expect(msSince(t + 1000, since)).toBe(1000);
    expect(msSince(t, since)).toBe(0);
    expect(msSince(t + 86_400_000, since)).toBe(86_400_000);
  });
});

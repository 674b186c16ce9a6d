import { createHash } from 'node:crypto';
import { describe, it, expect } from 'vitest';
import { sha256InSlices } from '../../../server/lib/hash-in-slices.js';

describe('a hash in slices', () => {
  it('is the hash of the head then the bytes, whatever the slice', async () => {
    const bytes = Buffer.from(Array.from({ length: 1000 }, (_, i) => i % 251));
    const whole = createHash('sha256').update('head').update(bytes).digest('hex');
    expect(await sha256InSlices('head', bytes, 64)).toBe(whole);
    expect(await sha256InSlices('head', bytes, 999)).toBe(whole);
    expect(await sha256InSlices('head', bytes)).toBe(whole);
    expect(await sha256InSlices('head', Buffer.alloc(0), 64)).toBe(createHash('sha256').update('head').digest('hex'));
  });

  it('lets the event loop run between slices', async () => {
    let turns = 0;
    const count = () => {
      turns++;
      if (turns < 100) setImmediate(count);
    };
    setImmediate(count);
    await sha256InSlices('', Buffer.alloc(4 * 64), 64);
    // Four slices: three turns given between them.
    expect(turns).toBeGreaterThanOrEqual(3);
  });
});

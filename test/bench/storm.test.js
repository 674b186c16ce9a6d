// The reconnect storm (bench/storm.js) at a size a test can afford: an access point comes back
// and every phone on it reconnects in the same instant with the epoch and seq it holds.

import { describe, it, expect } from 'vitest';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';

const STORM = fileURLToPath(new URL('../../bench/storm.js', import.meta.url));

describe('reconnect storm', () => {
  it('300 clients dropped at once all come back with no delta missed or repeated; the others stay', async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [STORM, '--clients', '300', '--watchers', '20', '--storms', '1', '--every', '2s'],
      { timeout: 60_000 },
    );
    const row = stdout.split('\n').find((l) => l.startsWith('| 1 |'));
    expect(row).toBeDefined();
    const cells = /** @type {string} */ (row)
      .split('|')
      .slice(1, -1)
      .map((c) => c.trim());
    // storm, back, p50, p95, max, all back after, missed, repeated, not checked, snapshots, watchers max, watchers cut, CPU
    expect(cells[1]).toBe('300/300');
    expect(cells.slice(6, 10)).toEqual(['0', '0', '0', '0']);
    expect(cells[11]).toBe('0');
  }, 60_000);
});

// The hostile-client benchmark (bench/hostile.js) at a size a test can afford: every attack runs
// against a real server beside a few ordinary clients, which must see no error; each attack must
// meet the defence meant for it. How fast the clients are served is measured, not asserted here.

import { describe, it, expect } from 'vitest';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { audienceAddresses, droppedByReason } from '../../bench/hostile.js';

const HOSTILE = fileURLToPath(new URL('../../bench/hostile.js', import.meta.url));

/** The cells of the table row that starts with `| first |`. @param {string} text @param {string} first */
const row = (text, first) =>
  text
    .split('\n')
    .find((l) => l.startsWith(`| ${first} |`))
    ?.split('|')
    .slice(1, -1)
    .map((c) => c.trim());

describe('hostile clients', () => {
  it('gives each ordinary client an address of its own on loopback', () => {
    const a = audienceAddresses(300);
    expect(new Set(a).size).toBe(300);
    expect(a[0]).toBe('127.0.1.1');
    expect(a[254]).toBe('127.0.2.1');
    expect(a.every((x) => /^127\.0\.[12]\.\d+$/.test(x) && !x.endsWith('.0') && !x.endsWith('.255'))).toBe(true);
  });

  it('reads the connections the server dropped, by reason, from its metrics', () => {
    const text = [
      '# TYPE scorecast_connections_dropped_total counter',
      'scorecast_connections_dropped_total{transport="ws",reason="too_slow"} 7',
      'scorecast_connections_dropped_total{transport="sse",reason="too_slow"} 2',
      'scorecast_clients{transport="ws"} 3',
    ].join('\n');
    expect(droppedByReason(text)).toEqual({ too_slow: 9 });
  });

  it('every attack meets its defence and the ordinary clients see no error', async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [
        HOSTILE,
        '--clients',
        '20',
        '--phase',
        '4s',
        '--settle',
        '0s',
        '--rounds',
        '1',
        '--after-gap',
        '1s',
        '--slow-loris',
        '20',
        '--never-read',
        '5',
        '--conn-attempts',
        '1500',
        '--flood-sockets',
        '4',
        '--flood-rate',
        '400',
        '--http-rate',
        '200',
      ],
      { timeout: 90_000 },
    );
    for (const phase of ['baseline', 'attacked', 'after']) {
      const cells = row(stdout, phase);
      expect(cells, phase).toBeDefined();
      // phase, deltas, p50, p90, p99, max, client errors
      expect(Number(cells?.[1])).toBeGreaterThan(0);
      expect(cells?.[6]).toBe('0');
    }
    const attack = /** @type {string[]} */ (row(stdout, '1'));
    // More connections than the per-address cap (512) from one address: the rest are refused.
    // (On a busy machine the attacking process may not open all 1,500 within the 4 s phase; any
    // number past the cap shows the defence.)
    const [attempts, refused] = attack[3].split(' / ').map(Number);
    expect(attempts).toBeGreaterThan(512);
    expect(attempts).toBeLessThanOrEqual(1500);
    expect(refused).toBeGreaterThan(0);
    // The message flood is answered with errors; the HTTP flood is rate-limited.
    expect(Number(attack[4].split(' / ')[2])).toBeGreaterThan(0);
    expect(attack[5]).toMatch(/429: [1-9]/);
  }, 100_000);
});

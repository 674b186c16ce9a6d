// npm test's runner (test/setup/side-by-side.js): the untimed runs go into a cpu group of low weight (or,
// without one, run first), every run runs whatever another did, and the failures are named.

import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { vi } from 'vitest';
import { failureDigest, LOW_SHARES, makeLowGroup, removeGroup, sideBySide } from '../setup/side-by-side.js';

let dir = '';
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'sc-side-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

/**
 * A run that writes its cpu group's line of /proc/self/cgroup and the group's cpu.shares (or
 * 'none') to a file of its own, and exits with `code`.
 */
const run = (/** @type {string} */ label, /** @type {number} */ code) => ({
  label,
  argv: [
    process.execPath,
    '-e',
    `const fs = require('node:fs');
     const line = fs.readFileSync('/proc/self/cgroup', 'utf8').split('\\n').find((l) => l.split(':')[1]?.split(',').includes('cpu')) ?? 'none';
     let shares = 'none';
     try { shares = fs.readFileSync('/sys/fs/cgroup/cpu' + line.split(':').slice(2).join(':') + '/cpu.shares', 'utf8').trim(); } catch {}
     fs.writeFileSync(${JSON.stringify(path.join('DIR', `${label}.txt`))}.replace('DIR', process.env.OUT), line + '\\n' + shares);
     process.exit(${code});`,
  ],
  env: { OUT: dir },
});

const low = makeLowGroup('probe');
if ('dir' in low) removeGroup(low.dir);

describe('side by side', () => {
  it('runs every run, each once, and names the ones that failed', async () => {
    const failed = await sideBySide({
      name: 'probe',
      cwd: process.cwd(),
      timed: [run('t1', 0), run('t2', 3)],
      untimed: [run('u1', 1), run('u2', 0)],
    });
    expect(failed.sort()).toEqual(['t2', 'u1']);
    for (const label of ['t1', 't2', 'u1', 'u2'])
      expect(await readFile(path.join(dir, `${label}.txt`), 'utf8')).not.toBe('');
  });

  it.runIf('dir' in low)(
    'where it can make a cpu group, the untimed runs are in it at low weight and the timed ones are not',
    async () => {
      await sideBySide({ name: 'probe', cwd: process.cwd(), timed: [run('t', 0)], untimed: [run('u', 0)] });
      const own = readFileSync('/proc/self/cgroup', 'utf8');
      const [u, uShares] = (await readFile(path.join(dir, 'u.txt'), 'utf8')).split('\n');
      const [t] = (await readFile(path.join(dir, 't.txt'), 'utf8')).split('\n');
      expect(u).toMatch(/scorecast-probe-\d+$/);
      expect(uShares).toBe(String(LOW_SHARES));
      expect(own).toContain(t);
      // The group is removed once its processes are gone.
      const groupDir = path.join('/sys/fs/cgroup/cpu', u.split(':').slice(2).join(':'));
      expect(() => readFileSync(path.join(groupDir, 'cpu.shares'))).toThrow();
    },
  );

  it('prints last, after all the output, the lines of each failed run that name what failed', async () => {
    const say = (/** @type {string} */ label, /** @type {string} */ text, /** @type {number} */ code) => ({
      label,
      argv: [process.execPath, '-e', `process.stdout.write(${JSON.stringify(text)}); process.exit(${code})`],
    });
    /** @type {string[]} */
    const printed = [];
    const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      printed.push(String(chunk));
      return true;
    });
    try {
      await sideBySide({
        name: 'probe',
        cwd: process.cwd(),
        timed: [say('timed', ' ✓ test/a.test.js > passes\n', 0)],
        untimed: [
          say('other', ' ✓ test/b.test.js > passes\n FAIL  test/c.test.js > counts the votes\nlots of\nlog\n', 1),
        ],
      });
    } finally {
      spy.mockRestore();
    }
    const tail = printed.join('').trimEnd().split('\n').slice(-2);
    expect(tail).toEqual(['--- failed: other ---', ' FAIL  test/c.test.js > counts the votes']);
  });
});

describe('the digest of a failed run', () => {
  it("names vitest's and Playwright's failing tests and their first error lines, not the passing ones", () => {
    const vitest = [
      ' \u001b[32m✓\u001b[39m test/server/hub.test.js (12 tests) 300ms',
      ' \u001b[31m×\u001b[39m test/infra/lab.test.js > roaming cell > p99 1877 ms',
      '⎯⎯⎯ Failed Tests 1 ⎯⎯⎯',
      ' FAIL  test/infra/lab.test.js > roaming cell > p99 1877 ms',
      'AssertionError: expected 1877 to be less than 1500',
      ' Test Files  1 failed | 80 passed (81)',
      '      Tests  1 failed | 700 passed (701)',
    ].join('\n');
    expect(failureDigest(vitest)).toEqual([
      ' × test/infra/lab.test.js > roaming cell > p99 1877 ms',
      ' FAIL  test/infra/lab.test.js > roaming cell > p99 1877 ms',
      'AssertionError: expected 1877 to be less than 1500',
      ' Test Files  1 failed | 80 passed (81)',
      '      Tests  1 failed | 700 passed (701)',
    ]);
    const playwright = [
      '  ✓  51 [functional] › playwright/views.spec.js:97:1 › audience: join (6.0s)',
      '  ✘  53 [functional] › playwright/views.spec.js:221:1 › part view (26.6s)',
      '  1) [functional] › playwright/views.spec.js:221:1 › part view ',
      '    Error: expect(locator).toHaveText(expected) failed',
      '  1 flaky',
      '  65 passed (7.1m)',
    ].join('\n');
    expect(failureDigest(playwright)).toEqual([
      '  ✘  53 [functional] › playwright/views.spec.js:221:1 › part view (26.6s)',
      '  1) [functional] › playwright/views.spec.js:221:1 › part view',
      '    Error: expect(locator).toHaveText(expected) failed',
      '  1 flaky',
    ]);
  });
});

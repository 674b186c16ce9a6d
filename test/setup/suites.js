#!/usr/bin/env node
// npm test's suites after the checks, each in its place on the CPU (test/setup/side-by-side.js):
//
//   foreground, one after the other   vitest's timed files (vitest.config.js, TIMED_GROUPS: the
//                                     venue lab's group, then the busy files), Playwright's
//                                     @timing tests, WebKit and Firefox (test/engines), the
//                                     Artillery smoke
//   beside them, in a cpu group of    vitest's other files (three at a time), Playwright's
//   low weight                        functional tests (two at a time)
//
// Every timed check keeps most of the CPU; the untimed tests use what it leaves: a timed test
// mostly waits (a clock settling, a window of beats, a radio cut), and alone it left the two
// cores 75-80% idle. One after the other, the suites took 310 + 255 + 335 + 107 + 30 s on this
// 2-core machine (17.5 minutes with the checks). Where no cpu group can be made (not root, no
// cgroup v1 cpu controller), they run one after the other as before: the untimed ones, then the timed.
//
//   node test/setup/suites.js [all]   every suite (npm test)
//   node test/setup/suites.js unit    vitest only (npm run test:unit) [vitest arguments...]
//   node test/setup/suites.js browser Playwright only (npm run test:browser) [Playwright arguments...]
//
// Exits 1 naming every suite that failed; each suite runs to its end whatever the others did.

import path from 'node:path';
import { fileURLToPath } from 'node:url';
import engraveCache from '../../playwright/engrave-cache.js';
import { sideBySide } from './side-by-side.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const bin = (/** @type {string} */ rel) => [process.execPath, path.join(ROOT, 'node_modules', ...rel.split('/'))];

/**
 * @param {'timed' | 'rest'} phase @param {string} label @param {string[]} args
 * @param {'lab' | 'busy'} [group]  with 'timed': one of vitest.config.js's TIMED_GROUPS
 */
const vitest = (phase, label, args, group) => ({
  label,
  argv: [...bin('vitest/vitest.mjs'), 'run', '--passWithNoTests', ...args],
  env: { SCORECAST_VITEST_PHASE: phase, ...(group ? { SCORECAST_VITEST_GROUP: group } : {}) },
});

/** vitest's timed files, one group after the other (the venue lab never beside a busy file). */
const timedVitest = (/** @type {string[]} */ args) => [
  vitest('timed', "vitest's timed files (the venue lab)", args, 'lab'),
  vitest('timed', "vitest's timed files (the busy ones)", args, 'busy'),
];

/** @param {'functional' | 'timing'} phase @param {string[]} args */
const playwright = (phase, args) => ({
  label: `Playwright's ${phase} tests`,
  argv: [...bin('@playwright/test/cli.js'), 'test', '-c', 'playwright/playwright.config.js', ...args],
  // The demo is engraved once, before either starts (the config's global setup is skipped).
  env: { SCORECAST_PW_PHASE: phase, SCORECAST_PW_WARM: '1' },
});

const [what = 'all', ...args] = process.argv.slice(2);
/** @type {Record<string, () => { timed: import('./side-by-side.js').Run[], untimed: import('./side-by-side.js').Run[] }>} */
const SUITES = {
  all: () => ({
    timed: [
      ...timedVitest([]),
      playwright('timing', []),
      {
        label: 'WebKit and Firefox',
        argv: [...bin('vitest/vitest.mjs'), 'run', '--config', 'test/engines/vitest.config.js'],
      },
      { label: 'the Artillery smoke', argv: [process.execPath, 'artillery/bin/qa.js', 'smoke'] },
    ],
    untimed: [vitest('rest', "vitest's other files", []), playwright('functional', [])],
  }),
  unit: () => ({
    timed: timedVitest(args),
    untimed: [vitest('rest', "vitest's other files", args)],
  }),
  browser: () => ({ timed: [playwright('timing', args)], untimed: [playwright('functional', args)] }),
};
if (!(what in SUITES)) {
  console.error(`usage: node test/setup/suites.js [all | unit | browser] [arguments...]`);
  process.exit(2);
}
if (what !== 'unit') engraveCache();
const failed = await sideBySide({ name: `npm test (${what})`, cwd: ROOT, ...SUITES[what]() });
if (failed.length) console.log(`\nfailed: ${failed.join('; ')}`);
else console.log(`\npassed: every suite (${what})`);
process.exitCode = failed.length ? 1 : 0;

// Browser tests in Debian's Chromium (/usr/bin/chromium; test/setup/ensure-deps.sh installs it).
// Playwright cannot download browsers here, and must not try.

import { defineConfig } from '@playwright/test';
import { CHROMIUM, quietArgs } from './chromium.js';

/** The tag of a test whose assertions are timing bounds: it runs alone (the `timing` project). */
const TIMING_TAG = /@timing/;

/** The one project this process runs (test/setup/suites.js), or undefined: both, one after the other. */
const PHASE = /** @type {'functional' | 'timing' | undefined} */ (
  ['functional', 'timing'].includes(process.env.SCORECAST_PW_PHASE ?? '') ? process.env.SCORECAST_PW_PHASE : undefined
);

/** @type {Record<'functional' | 'timing', import('@playwright/test').Project>} */
const PROJECTS = {
  // `npm test` runs this project beside the timed tests at a low CPU weight, where a page can be
  // held up for seconds while ten timed pages draw. So an expect waits 10 s rather than 5 (a wait,
  // not a bound), and there a test that fails runs once more and Playwright lists it as flaky: in
  // four full runs one test or two a run failed so (a service worker's old cache still there after
  // 10 s, a count skipped), each passing alone. A test that fails twice fails.
  functional: {
    name: 'functional',
    grepInvert: TIMING_TAG,
    fullyParallel: true,
    expect: { timeout: 10_000 },
    retries: PHASE === 'functional' ? 1 : 0,
  },
  timing: { name: 'timing', grep: TIMING_TAG, workers: 1, fullyParallel: false },
};

export default defineConfig({
  testDir: '.',
  testMatch: '*.spec.js',
  // The demo engraved with every layout before any server starts (engrave-cache.js).
  // (test/setup/suites.js engraves once itself and sets SCORECAST_PW_WARM for the two processes.)
  globalSetup: process.env.SCORECAST_PW_WARM ? undefined : './engrave-cache.js',
  // Two phases on two cores. The `functional` project first, two tests at a time, any test of any
  // file on either worker: what it asserts does not depend on how fast the machine is (an
  // expect's timeout is a wait, not a bound). Then `timing`, one test at a time with the machine
  // to itself: every test tagged '@timing', i.e. each that asserts a beat's timing, a latency or a
  // load-time bound, or measures a clock (a stub clock reading performance.now counts: it lags as
  // the machine does, e.g. a grain scheduled within 20 ms of its start). The rule for a new test: it lands in `functional` unless
  // it carries the tag (`test('...', { tag: '@timing' }, async ...)`), so tag it if it measures time.
  //
  // `timing` is `functional`'s teardown rather than its dependent: a teardown runs after the
  // project it tears down whether or not its tests passed, where a dependent would be skipped
  // after one functional failure; either way the timed tests never share the machine with another.
  //
  // `npm run test:browser` (test/setup/suites.js) runs the two projects in two processes side by side
  // instead, the functional one in an idle CPU group, and names the one each runs in
  // SCORECAST_PW_PHASE; its reports and results go to a folder per project.
  workers: 2,
  projects: PHASE ? [PROJECTS[PHASE]] : [{ ...PROJECTS.functional, teardown: 'timing' }, PROJECTS.timing],
  retries: 0,
  timeout: 90_000,
  // The HTML report keeps the screenshots each test attaches (playwright-report/index.html).
  reporter: [['list'], ['html', { open: 'never', outputFolder: `../playwright-report${PHASE ? `/${PHASE}` : ''}` }]],
  outputDir: `../test-results${PHASE ? `/${PHASE}` : ''}`,
  use: {
    launchOptions: {
      executablePath: CHROMIUM,
      args: quietArgs(),
    },
    screenshot: 'only-on-failure',
  },
});

import { configDefaults, defineConfig } from 'vitest/config';

/**
 * The timed cells: Chromium pages whose beats, cuts and sounds are timed (the venue lab's roaming
 * cell, the venue address, the audio onset lab). `npm run test:unit` (test/setup/vitest-run.js)
 * runs them one at a time in the foreground and the other files beside them in an idle CPU group.
 */
export const CELLS = ['test/infra/lab.test.js', 'test/infra/venue-https.test.js', 'test/infra/audio-lab.test.js'];

/** The files this process runs (test/setup/vitest-run.js), or undefined: all of them. */
const PHASE = process.env.SCORECAST_VITEST_PHASE;

export default defineConfig({
  test: {
    include: PHASE === 'cells' ? CELLS : ['test/**/*.test.js'],
    // WebKit and Firefox run on their own after the Chromium specs (test/engines/vitest.config.js).
    exclude: [...configDefaults.exclude, 'test/engines/**', ...(PHASE === 'rest' ? CELLS : [])],
    environment: 'node',
    testTimeout: 20_000,
    // Integration tests open real sockets on loopback; files run in parallel processes.
    pool: 'forks',
    // Two at a time whatever the machine: most files wait on sockets, timers and the venue lab's
    // cuts (the roaming cell alone is 2 minutes), so two halve the suite's time on a 2-core
    // machine (387 -> 218 s), where the default ran one; more would load the timed cells with CPU
    // contention. Split by test/setup/vitest-run.js: the cells one at a time, the other files
    // three at a time in an idle CPU group, where they take only what the cells leave (three
    // kept a 2-core machine 88% busy, 262 s for every file).
    maxWorkers: PHASE === 'cells' ? 1 : PHASE === 'rest' ? 3 : 2,
  },
});

import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.js'],
    // WebKit and Firefox run on their own after the Chromium specs (test/engines/vitest.config.js).
    exclude: [...configDefaults.exclude, 'test/engines/**'],
    environment: 'node',
    testTimeout: 20_000,
    // Integration tests open real sockets on loopback; files run in parallel processes.
    pool: 'forks',
    // Two at a time whatever the machine: most files wait on sockets, timers and the venue lab's
    // cuts (the roaming cell alone is 2 minutes), so two halve the suite's time on a 2-core
    // machine (387 -> 218 s), where the default ran one; more would load the timing checks
    // (the lab's budgets, the hostile bench) with CPU contention.
    maxWorkers: 2,
  },
});

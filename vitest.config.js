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
    // Three at a time whatever the machine: most files wait on sockets, timers and the venue lab's
    // cuts (the roaming cell alone is 2 minutes); a full `npm test` kept 0.6 of the 2 cores busy
    // on average. The one file that times what a phone sees under CPU contention, the lab's
    // roaming cell, runs its cell at a higher priority (test/infra/lab.test.js).
    maxWorkers: 3,
  },
});

// The engine tests (WebKit and Firefox, test/engines/): `npm run test:engines`. Apart from the
// main suite (vitest.config.js), whose two files at a time would share two cores with a browser
// and its server, and load the timing checks of both.

import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    root: new URL('../..', import.meta.url).pathname,
    include: ['test/engines/**/*.test.js'],
    environment: 'node',
    pool: 'forks',
    // One engine at a time, each with the machine to itself: its beats are timed.
    fileParallelism: false,
    testTimeout: 60_000,
    // A browser starts in 1-4 s; its server in 1-2 s.
    hookTimeout: 60_000,
  },
});

import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.js'],
    environment: 'node',
    testTimeout: 20_000,
    // Integration tests open real sockets on loopback; files run in parallel processes.
    pool: 'forks',
  },
});

// Browser tests in Debian's Chromium (/usr/bin/chromium; test/setup/ensure-deps.sh installs it).
// Playwright cannot download browsers here, and must not try.

import { defineConfig } from '@playwright/test';

export default defineConfig({
  testDir: '.',
  testMatch: '*.spec.js',
  // The demo engraved with every layout before any server starts (engrave-cache.js).
  globalSetup: './engrave-cache.js',
  // Each test starts its own server; two cores: one worker keeps timings honest.
  workers: 1,
  fullyParallel: false,
  retries: 0,
  timeout: 90_000,
  // The HTML report keeps the screenshots each test attaches (playwright-report/index.html).
  reporter: [['list'], ['html', { open: 'never', outputFolder: '../playwright-report' }]],
  outputDir: '../test-results',
  use: {
    launchOptions: {
      executablePath: '/usr/bin/chromium',
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1',
      ],
    },
    screenshot: 'only-on-failure',
  },
});

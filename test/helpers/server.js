// Start a real scorecast app on a loopback port for integration tests.

import { afterEach } from 'vitest';
import { buildApp } from '../../server/app.js';
import { buildScoreModel } from '../../core/manifest.js';
import { packageOf } from './fixtures.js';

export const TOKEN = 'test-token-0123456789';

/**
 * @param {{ tempo?: number, bars?: number, cueBytes?: number, autoplay?: boolean,
 *   hubOptions?: Partial<import('../../server/live/hub.js').HubOptions>,
 *   appOptions?: Partial<import('../../server/app.js').AppOptions> }} [options]
 *   cueBytes: size of a text payload carried by a cue on every beat (load for backpressure tests)
 */
export async function startServer({
  tempo = 600,
  bars = 64,
  cueBytes = 0,
  autoplay = true,
  hubOptions,
  appOptions = {},
} = {}) {
  const cues = [];
  for (let beat = 0; beat < bars * 4; beat++) {
    if (cueBytes > 0 || beat % 4 === 0)
      cues.push({
        at: beat,
        set: { text: `beat ${beat}`, ...(cueBytes ? { load: `${beat}`.padEnd(cueBytes, '.') } : {}) },
      });
  }
  const r = buildScoreModel({ id: 'itest', title: 'Integration', bars, meter: [{ bar: 1, time: '4/4', tempo }], cues });
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  const { app, conductor, hub } = await buildApp({
    score: packageOf(r.value),
    token: TOKEN,
    autoplay,
    loop: true,
    hubOptions,
    ...appOptions,
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = /** @type {import('node:net').AddressInfo} */ (app.server.address());
  const base = `http://127.0.0.1:${address.port}`;
  return { app, conductor, hub, base, wsBase: base.replace('http', 'ws'), close: () => app.close() };
}

/**
 * For a test file: servers (and anything else given to `defer`) are closed after each test,
 * last opened first.
 */
export function useServers() {
  /** @type {(() => unknown)[]} */
  let cleanup = [];
  afterEach(async () => {
    for (const f of cleanup.reverse()) await f();
    cleanup = [];
  });
  return {
    /** @param {() => unknown} fn */
    defer(fn) {
      cleanup.push(fn);
    },
    /** @param {Parameters<typeof startServer>[0]} [options] */
    async server(options) {
      const s = await startServer(options);
      cleanup.push(s.close);
      return s;
    },
  };
}

/**
 * useServers for one test of a concurrent describe (`describe.concurrent`), where a shared
 * afterEach would close another test's servers: servers and whatever is given to `defer` are
 * closed when this test finishes, last opened first. Pass the test's context.
 * @param {Pick<import('vitest').TestContext, 'onTestFinished'>} context
 */
export function serversOf({ onTestFinished }) {
  /** @type {(() => unknown)[]} */
  const cleanup = [];
  onTestFinished(async () => {
    for (const f of cleanup.reverse()) await f();
  });
  return {
    /** @param {() => unknown} fn */
    defer(fn) {
      cleanup.push(fn);
    },
    /** @param {Parameters<typeof startServer>[0]} [options] */
    async server(options) {
      const s = await startServer(options);
      cleanup.push(s.close);
      return s;
    },
  };
}

// The live client in a real browser: it follows the beat, rides out a lost access point, falls
// back from WebSocket to SSE to polling, and resyncs after a server restart.

import { test, expect } from '@playwright/test';
import { closeOtherContexts } from './contexts.js';
import { freePort, startServer } from './server.js';
import { startFirewall } from './firewall.js';
import { gapsOrRepeats } from '../test/helpers/stream-log.js';

// Pages opened with browser.newPage() or newContext() closed after each test (contexts.js).
test.afterEach(closeOtherContexts);

/** @typedef {Awaited<ReturnType<typeof startServer>>} Server */

/**
 * What the page holds: epoch, seq, transport, link state, and the applied-change log.
 * @param {import('@playwright/test').Page} page
 */
const held = (page) =>
  page.evaluate(() => {
    const sc = /** @type {any} */ (window).scorecast;
    return {
      epoch: sc.epoch,
      seq: sc.seq,
      transport: sc.transport,
      link: sc.linkState,
      state: sc.state,
      events: sc.events,
    };
  });

/**
 * No change missed or applied twice.
 * @param {{ epoch: string, seq: number, type: string }[]} events
 */
const expectNoGapOrRepeat = (events) => expect(gapsOrRepeats(events)).toEqual([]);

/**
 * Wait until the page holds the server's current epoch and seq; returns how long it took.
 * @param {import('@playwright/test').Page} page
 * @param {Server} server
 * @param {number} timeout
 */
async function reachesServer(page, server, timeout) {
  const started = Date.now();
  await expect
    .poll(
      async () => {
        const [mine, theirs] = await Promise.all([held(page), server.snapshot()]);
        return mine.epoch === theirs.epoch && mine.seq === theirs.seq;
      },
      { timeout, intervals: [50] },
    )
    .toBe(true);
  return Date.now() - started;
}

/** @type {Server} */
let server;
let port = 0;
test.beforeEach(async () => {
  port = await freePort();
  server = await startServer({ port });
});
test.afterEach(async () => {
  await server.stop();
});

test('follows the beat over WebSocket and ends equal to the server', async ({ page }) => {
  await page.goto(`${server.base}/`);
  await expect(page.locator('#via')).toHaveText('ws');
  await expect(page.locator('#link')).toHaveText(/live/);
  const first = (await held(page)).seq;
  await expect.poll(async () => (await held(page)).seq, { timeout: 5000 }).toBeGreaterThan(first + 2);
  await server.control('pause');
  await reachesServer(page, server, 3000);
  const mine = await held(page);
  expect(mine.state).toEqual((await server.snapshot()).state);
  await expect(page.locator('#bar')).toHaveText(String(mine.state.bar));
  await expect(page.locator('#beat')).toHaveText(String(mine.state.beatInBar));
  expectNoGapOrRepeat(mine.events);
});

test('the status line says how the link is in words; the transport and held position only with ?debug', async ({
  page,
}) => {
  await page.goto(`${server.base}/`);
  await expect(page.locator('#link')).toHaveText('live');
  await expect(page.locator('footer')).not.toContainText('held', { useInnerText: true });
  await expect(page.locator('#diagnostics')).toBeHidden();
  await page.goto(`${server.base}/?debug`);
  await expect(page.locator('#link')).toHaveText('live');
  await expect(page.locator('#diagnostics')).toBeVisible();
  await expect(page.locator('#diagnostics')).toContainText(/via ws, held \S+:\d+/);
});

test('rides out a lost access point: back at the live beat, nothing missed or repeated', { tag: '@timing' }, async ({
  page,
  context,
}) => {
  await page.goto(`${server.base}/`);
  await expect(page.locator('#link')).toHaveText(/live/);
  for (const outageMs of [3000, 6000, 4000, 8000]) {
    // The WebSocket stays open and silent, as on a phone whose access point vanished.
    await context.setOffline(true);
    await page.waitForTimeout(outageMs);
    await context.setOffline(false);
    // At the live beat within 1 s of coming back.
    const took = await reachesServer(page, server, 1000);
    test.info().annotations.push({ type: 'resync', description: `${outageMs} ms offline: live again in ${took} ms` });
  }
  await server.control('pause');
  await reachesServer(page, server, 3000);
  const mine = await held(page);
  expect(mine.state).toEqual((await server.snapshot()).state);
  expectNoGapOrRepeat(mine.events);
});

test('roams onto a network that blocks WebSocket: moves to SSE, at the live beat, nothing missed or repeated', {
  tag: '@timing',
}, async ({ page, context }) => {
  const firewall = await startFirewall({ target: port });
  try {
    await page.goto(`${firewall.base}/`);
    await expect(page.locator('#via')).toHaveText('ws');
    await expect(page.locator('#link')).toHaveText(/live/);
    await context.setOffline(true);
    // The phone is on another network now: its old connections are gone without a word, and the
    // new access point's firewall refuses WebSocket upgrades; plain HTTP gets through.
    firewall.roam();
    firewall.blockWebSockets(true);
    await page.waitForTimeout(4000);
    await context.setOffline(false);
    await expect(page.locator('#via')).toHaveText('sse', { timeout: 15_000 });
    const took = await reachesServer(page, server, 5000);
    test
      .info()
      .annotations.push({ type: 'roam', description: `on SSE and at the live beat ${took} ms after the switch` });
    await server.control('pause');
    await reachesServer(page, server, 3000);
    const mine = await held(page);
    expect(mine.state).toEqual((await server.snapshot()).state);
    expectNoGapOrRepeat(mine.events);
  } finally {
    await firewall.close();
  }
});

test('falls back to SSE when WebSocket is blocked, and to polling when SSE is blocked too', async ({ browser }) => {
  const pages = [];
  for (const block of [['ws'], ['ws', 'sse']]) {
    const page = await browser.newPage();
    await page.routeWebSocket(/\/live/, (ws) => ws.close({ code: 1001, reason: 'blocked by test' }));
    if (block.includes('sse')) await page.route(/\/live\/sse/, (route) => route.abort('connectionrefused'));
    await page.goto(`${server.base}/`);
    pages.push(page);
  }
  const reference = await browser.newPage();
  await reference.goto(`${server.base}/`);
  await expect(pages[0].locator('#via')).toHaveText('sse', { timeout: 15_000 });
  await expect(pages[1].locator('#via')).toHaveText('poll', { timeout: 20_000 });
  await expect(reference.locator('#via')).toHaveText('ws');
  await server.control('pause');
  for (const page of [...pages, reference]) await reachesServer(page, server, 25_000);
  const states = await Promise.all([...pages, reference].map(async (p) => (await held(p)).state));
  expect(states[0]).toEqual(states[2]);
  expect(states[1]).toEqual(states[2]);
  for (const page of pages) expectNoGapOrRepeat((await held(page)).events);
});

test('after a server restart mid-piece, the page resyncs to the new epoch', async ({ page }) => {
  await page.goto(`${server.base}/`);
  await expect(page.locator('#link')).toHaveText(/live/);
  const before = await held(page);
  await server.stop();
  server = await startServer({ port });
  await reachesServer(page, server, 15_000);
  const after = await held(page);
  expect(after.epoch).not.toBe(before.epoch);
  await server.control('pause');
  await reachesServer(page, server, 3000);
  expect((await held(page)).state).toEqual((await server.snapshot()).state);
  expectNoGapOrRepeat((await held(page)).events);
});

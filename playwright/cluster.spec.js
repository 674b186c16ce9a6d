// The console on a cluster node: the Cluster panel lists the nodes from GET /api/cluster, marks
// the active conductor, and follows a failover. On a single server the panel is not shown.

import { test, expect } from '@playwright/test';
import { CLUSTER_TOKEN, startNode } from '../test/helpers/cluster-nodes.js';
import { HAVE_REDIS, startRedis } from '../test/helpers/redis-server.js';
import { freePort, startServer, TOKEN } from './server.js';

/** @type {(() => Promise<unknown>)[]} */
const cleanups = [];
test.afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** @param {import('@playwright/test').Page} page @param {string} base @param {string} token */
async function signIn(page, base, token) {
  await page.goto(`${base}/conduct`);
  await page.fill('#token', token);
  await page.click('#sign-in button[type=submit]');
  await expect(page.locator('#play')).toBeVisible();
}

test("a single server's console shows no Cluster panel", async ({ page }) => {
  const server = await startServer({ port: await freePort(), autoplay: false });
  cleanups.push(() => server.stop());
  await signIn(page, server.base, TOKEN);
  await expect(page.locator('#cluster')).toBeHidden();
});

test('the Cluster panel lists every node, marks the active conductor, and follows a failover', async ({ page }) => {
  test.skip(!HAVE_REDIS, 'redis-server is not installed (test/setup/ensure-deps.sh installs it for npm test)');
  const redis = await startRedis();
  cleanups.push(() => redis.stop());
  const c1 = await startNode({ redis: redis.urls, role: 'conductor', id: 'c1' });
  cleanups.push(() => c1.stop('SIGKILL'));
  const c2 = await startNode({ redis: redis.urls, role: 'conductor', id: 'c2' });
  cleanups.push(() => c2.stop('SIGKILL'));
  const e1 = await startNode({ redis: redis.urls, role: 'edge', id: 'e1' });
  cleanups.push(() => e1.stop('SIGKILL'));

  await page.setViewportSize({ width: 1280, height: 900 });
  await signIn(page, e1.base, CLUSTER_TOKEN);
  const rows = page.locator('#cluster-nodes tbody tr');
  await expect(rows).toHaveCount(3, { timeout: 15_000 });
  await expect(page.locator('#cluster-nodes tr[data-node="c1"][data-active="true"]')).toBeVisible();
  await expect(page.locator('#cluster-nodes tr[data-node="c1"] td').first()).toHaveText('conductor (active)');
  await expect(page.locator('#cluster-nodes tr[data-node="e1"] td').first()).toHaveText('edge');
  await test.info().attach('conduct-cluster', { body: await page.screenshot(), contentType: 'image/png' });

  await c1.stop('SIGKILL');
  await expect(page.locator('#cluster-nodes tr[data-node="c2"][data-active="true"]')).toBeVisible({ timeout: 15_000 });
  await expect(page.locator('#cluster-nodes tr[data-node="c2"] td').first()).toHaveText('conductor (active)');
});

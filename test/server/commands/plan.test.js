// The venue planner (server/commands/plan.js) against values computed by hand, and the command.

import { describe, it, expect } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { clusterFigures, planVenue } from '../../../server/commands/plan.js';

/**
 * By hand, for a 2,000,000-byte first load and 18,000-byte updates at 2/3 per second (the seed's
 * 8 updates in 12 s): loading 2e6 B / 10 s = 1.6 Mbit/s per user; live 12,000 B/s = 0.096 Mbit/s;
 * one 200 Mbit/s access point loads 200e6 * 5 s / 16e6 bits = 62.5 -> 62 users within 5 s.
 */
const SEEDLIKE = { firstLoadBytes: 2_000_000, updateBytes: 18_000, updatesPerSecond: 2 / 3, apMbit: 200 };
/** @param {number} users @param {Partial<import('../../../server/commands/plan.js').PlanInput>} [more] */
const plan = (users, more = {}) =>
  Object.fromEntries(planVenue({ users, ...SEEDLIKE, ...more }).map((l) => [l.key, l.value]));

describe('scorecast plan', () => {
  it('100 users: 169.6 Mbit/s at arrival, 2 access points (62 per AP in 5 s), a gigabit router, one instance', () => {
    expect(plan(100)).toMatchObject({
      loadPerUser: 1.6,
      livePerUser: 0.096,
      peak: 169.6,
      live: 9.6,
      apsBySeed: 1,
      perApBudget: 62,
      aps: 2,
      instances: 1,
    });
    expect(plan(100).router).toMatch(/gigabit/);
  });

  it('500 users: 848 Mbit/s, 9 access points, still a gigabit router', () => {
    expect(plan(500)).toMatchObject({ peak: 848, live: 48, apsBySeed: 5, aps: 9, instances: 1 });
    expect(plan(500).router).toMatch(/gigabit/);
  });

  it('1,500 users: 2,544 Mbit/s, 25 access points, a 10 GbE router; edges when one instance holds fewer', () => {
    expect(plan(1500)).toMatchObject({ peak: 2544, live: 144, apsBySeed: 15, aps: 25, instances: 1 });
    expect(plan(1500).router).toMatch(/10 GbE/);
    expect(plan(1500, { usersPerInstance: 1000 }).instances).toBe(2);
  });

  it("a light page: the seed's 100 per access point is the limit, and the seed's router class suffices", () => {
    // 500,000 B: 0.4 Mbit/s loading; one AP loads 250 in 5 s, capped at the seed's 100.
    const p = plan(100, { firstLoadBytes: 500_000 });
    expect(p).toMatchObject({ perApBudget: 250, aps: 1, peak: 49.6 });
    expect(p.router).toMatch(/hAP ac/);
  });

  it("with a bench:cluster run on record: edges by an edge's CPU per client, and the proxy's cores", () => {
    // 45 µs per client-second on an edge: half a core holds 500,000 / 45 = 11,111 clients, more
    // than the 5,000 of the stress test, which stays the limit: 20,000 users, 4 edges; nginx at
    // 39 µs: 20,000 x 39 / 500,000 = 1.56, so 2 cores.
    const cluster = { edgeUsPerClient: 45, proxyUsPerClient: 39, source: 'test' };
    expect(plan(20_000, { cluster })).toMatchObject({ instances: 4, proxyCores: 2 });
    // A costlier edge (200 µs): 2,500 per edge, 8 edges.
    expect(plan(20_000, { cluster: { ...cluster, edgeUsPerClient: 200 } })).toMatchObject({ instances: 8 });
    // One instance: no proxy line.
    expect(plan(1000, { cluster })).not.toHaveProperty('proxyCores');
  });

  it('reads the newest bench:cluster run: CPU per client of the edges and of nginx', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'sc-plan-'));
    const run = (/** @type {number} */ edgeMs) =>
      JSON.stringify({
        clients: 1000,
        windowMs: 20_000,
        cluster: {
          cpuMs: { redis: 80, 'conductor-1': 190, 'edge-1': edgeMs, 'edge-2': edgeMs, 'edge-3': edgeMs, nginx: 780 },
        },
      });
    expect(clusterFigures(dir)).toBeNull();
    writeFileSync(path.join(dir, 'cluster-2026-11-24T102825.json'), run(600));
    writeFileSync(path.join(dir, 'cluster-2026-11-24T104727.json'), run(300));
    writeFileSync(path.join(dir, 'fanout-seed.json'), '{}');
    const f = /** @type {import('../../../server/commands/plan.js').ClusterFigures} */ (clusterFigures(dir));
    // 300 ms over 20 s for 333.3 clients: 45 µs per client-second; nginx 780 ms for 1,000: 39.
    expect(f.edgeUsPerClient).toBeCloseTo(45, 6);
    expect(f.proxyUsPerClient).toBeCloseTo(39, 6);
    expect(f.source).toContain('cluster-2026-11-24T104727.json');
    writeFileSync(path.join(dir, 'cluster-2026-11-25T000000.json'), 'not json');
    expect(clusterFigures(dir)).toBeNull();
  });

  it('every line says where its number comes from', () => {
    for (const l of planVenue({ users: 100, ...SEEDLIKE })) expect(l.source.length, l.key).toBeGreaterThan(4);
  });

  it('the command answers --help and refuses a missing user count', () => {
    const help = spawnSync(process.execPath, ['server/commands/cli.js', 'plan', '--help'], { encoding: 'utf8' });
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('usage: scorecast plan --users N');
    const bad = spawnSync(process.execPath, ['server/commands/cli.js', 'plan', '--users', 'many'], {
      encoding: 'utf8',
    });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('--users must be a whole number');
  });
});

// Finding and reading results for the report: case folders inside campaign and stress folders,
// Artillery's report, and the per-thread trace merged by second.

import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { collect } from '../../artillery/lib/report/load.js';

const T0 = 1_800_000_000_000;

/** @param {string} dir @param {object} rec @param {{ trace?: object[], samples?: string }} [o] */
function writeCase(dir, rec, { trace = [], samples = '' } = {}) {
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'case.json'), JSON.stringify({ scenario: 'ws', users: 10, passed: true, ...rec }));
  writeFileSync(
    path.join(dir, 'measured.json'),
    JSON.stringify({ aggregate: { counters: { 'vusers.created': 10 } }, intermediate: [{ period: String(T0) }] }),
  );
  writeFileSync(path.join(dir, 'trace.jsonl'), trace.map((l) => JSON.stringify(l)).join('\n'));
  writeFileSync(path.join(dir, 'samples.jsonl'), samples);
}

describe('collect', () => {
  it("finds a campaign's cases once, a stress run's steps, and single runs beside them", () => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'sc-report-'));
    writeCase(path.join(root, 'camp', 'ws-10'), { users: 10 });
    writeCase(path.join(root, 'camp', 'ws-20'), { users: 20 });
    writeFileSync(
      path.join(root, 'camp', 'campaign.json'),
      JSON.stringify({ cases: [{ dir: 'ws-10' }, { dir: 'ws-20' }, { dir: 'never-ran' }] }),
    );
    writeCase(path.join(root, 'stress', 'step-100'), { users: 100 });
    writeFileSync(
      path.join(root, 'stress', 'stress.json'),
      JSON.stringify({
        transport: 'ws',
        steps: [
          { users: 100, attempt: 0, dir: 'step-100' },
          { users: 200, attempt: 0, dir: 'step-200' },
        ],
      }),
    );
    writeCase(path.join(root, 'single'), { users: 5 });
    const found = collect([root]);
    expect(found.campaigns).toHaveLength(1);
    expect(found.campaigns[0].cases.map((k) => k.rec.users)).toEqual([10, 20]);
    expect(found.campaigns[0].cases[0].measured?.counters?.['vusers.created']).toBe(10);
    expect(found.campaigns[0].cases[0].intermediate).toHaveLength(1);
    expect(found.stresses[0].steps.map((x) => x.data?.rec.users ?? null)).toEqual([100, null]);
    expect(found.cases.map((k) => k.rec.users)).toEqual([5]);
    expect(found.soaks).toEqual([]);
  });

  it('merges the trace lines of every worker thread by second, and skips lines that do not parse', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'sc-report-'));
    const metric = (/** @type {number} */ n, /** @type {number} */ mean, /** @type {number} */ max) => ({
      push_latency: { n, mean, p50: mean, p95: max, p99: max, max },
    });
    writeCase(
      dir,
      {},
      {
        trace: [
          { ts: T0 + 1000, thread: 1, active: { ws: 3 }, loopMaxMs: 12, metrics: metric(10, 5, 20) },
          { ts: T0 + 1200, thread: 2, active: { ws: 4 }, loopMaxMs: 30, metrics: metric(30, 9, 15) },
          { ts: T0 + 2000, thread: 1, active: { ws: 2 }, loopMaxMs: 11, metrics: {} },
        ],
        samples: `{"ts":${T0},"phase":"measured"}\n{"ts":\n`,
      },
    );
    const [k] = collect([dir]).cases;
    expect(k.samples).toEqual([{ ts: T0, phase: 'measured' }]);
    expect(k.trace).toHaveLength(2);
    expect(k.trace[0]).toMatchObject({ ts: T0 + 1000, active: { ws: 7 }, loopMaxMs: 30 });
    expect(k.trace[0].metrics.push_latency).toMatchObject({ n: 40, mean: 8, max: 20, p95: 20 });
    expect(k.trace[1].active).toEqual({ ws: 2 });
  });
});

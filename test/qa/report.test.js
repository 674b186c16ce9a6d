// The report as a whole: one self-contained page and a Markdown file from a case folder.

import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeReport } from '../../artillery/lib/report.js';

const T0 = 1_800_000_000_000;

describe('writeReport', () => {
  it("writes a page that fetches nothing, with our rows beside the seed report's, and the Markdown", () => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'sc-report-'));
    const dir = path.join(root, 'ws-200');
    mkdirSync(dir);
    writeFileSync(
      path.join(dir, 'case.json'),
      JSON.stringify({
        scenario: 'ws',
        users: 200,
        passed: false,
        broken: ['push_latency.max 1200 > 1000'],
        runs: {
          measured: {
            users: 200,
            plan: '200 ws clients',
            exitCode: 1,
            checks: [{ ok: false, expression: 'push_latency.max <= 1000', strict: true }],
            start: T0,
          },
        },
      }),
    );
    writeFileSync(
      path.join(dir, 'measured.json'),
      JSON.stringify({
        aggregate: {
          counters: { 'vusers.created': 200, 'ws.deltas': 3200 },
          summaries: {
            push_latency: {
              min: 1,
              max: 1200,
              count: 3200,
              mean: 40,
              p50: 20,
              median: 20,
              p90: 90,
              p95: 150,
              p99: 600,
            },
            push_latency_ws: {
              min: 1,
              max: 1200,
              count: 3200,
              mean: 40,
              p50: 20,
              median: 20,
              p90: 90,
              p95: 150,
              p99: 600,
            },
          },
          firstMetricAt: T0,
          lastMetricAt: T0 + 16_000,
        },
        intermediate: [],
      }),
    );
    writeFileSync(
      path.join(dir, 'trace.jsonl'),
      `${JSON.stringify({ ts: T0 + 1000, active: { ws: 200 }, loopMaxMs: 15, metrics: { push_latency: { n: 200, mean: 40, p50: 20, p95: 150, p99: 600, max: 1200 } } })}\n`,
    );
    const files = writeReport([root], path.join(root, 'out'));
    const html = readFileSync(files.html, 'utf8');
    const md = readFileSync(files.md, 'utf8');
    expect(html).not.toMatch(/<script|<link|src="http/);
    expect(html).toContain('<svg');
    expect(html).toContain('ws at 200 users: budget broken: push_latency.max 1200 &gt; 1000');
    // The seed report has WebSocket cases at 200 clients: they are shown under ours.
    expect(md).toMatch(/\| scorecast: push latency \(WebSocket\) \| 200 \| 3,200 \| 40 \| 1\.0 \| 20 \| 1,200 \|/);
    expect(md).toMatch(/\| ZScore 2019 #\d+ custom ws_push/);
    expect(md).toContain('Budgets (Artillery ensure): FAIL push_latency.max <= 1000');
    expect(files.plots).toEqual([]);
    expect(existsSync(path.join(root, 'out', 'plots'))).toBe(true);
  });
});

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

  it("shows bench:audio's results found beside the others: a table per run and the onsets of each page over time", () => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'sc-report-'));
    const run = (/** @type {number} */ late) => ({
      pages: 2,
      beats: 3,
      onsetSpreadMs: { n: 3, p50: 0.8, p99: 1.9, max: 1.9 },
      offsetMs: { n: 6, p50: 0.7, p99: late, max: late },
      clockErrorAtClickMs: { n: 6, p50: 0.2, p99: 0.9, max: 0.9 },
      notation: false,
      cpuPercent: { renderer: { n: 2, p50: 4.2, p99: 6.1, max: 6.1 }, total: { n: 2, p50: 9, p99: 11, max: 11 } },
      load1: 12.5,
      tie: { sinkLagMs: 3.1, valid: late < 10 },
      series: [0, 1].flatMap((page) => [0, 600, 1200].map((t) => ({ page, t: T0 + t, offset: page ? late : 0.5 }))),
    });
    writeFileSync(
      path.join(root, 'audio.json'),
      JSON.stringify({ at: '2026-11-27T01:30:00.000Z', results: { loopback: run(2.5), 'wifi-busy': run(12) } }),
    );
    const files = writeReport([root], path.join(root, 'out'));
    const md = readFileSync(files.md, 'utf8');
    expect(md).toContain('## Audio onsets: audio.json');
    expect(md).toMatch(
      /\| loopback \| 2 \| 3 \| 0\.8 \/ 1\.9 \/ 1\.9 \| 0\.7 \/ 2\.5 \/ 2\.5 \| 0\.2 \/ 0\.9 \/ 0\.9 \| off \| 4\.2 \/ 6\.1 % \| 12\.5 \| 3\.1 ms \| yes \|/,
    );
    expect(md).toMatch(/\| wifi-busy \| .* \| no \|/);
    expect(files.plots).toEqual(['audio-onsets-loopback', 'audio-onsets-wifi-busy']);
    const svg = readFileSync(path.join(root, 'out', 'plots', 'audio-onsets-loopback.svg'), 'utf8');
    // One dot per onset, a legend per page.
    expect(svg.match(/<circle/g)).toHaveLength(6);
    expect(svg).toContain('page 1');
    expect(readFileSync(files.html, 'utf8')).toContain('Audio onsets: audio.json');
  });
});

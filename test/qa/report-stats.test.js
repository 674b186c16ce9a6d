// The report's numbers: CPU, memory and loop delay over a phase of the samples, our rows for a
// case, and how late Artillery started its clients.

import { describe, expect, it } from 'vitest';
import { arrivals, caseRows, machineStats } from '../../artillery/lib/report/stats.js';
import { LOOP_LAG_RESOLUTION_MS } from '../../core/constants.js';

const T0 = 1_800_000_000_000;
const MB = 2 ** 20;

/**
 * One sample a second: the server uses `serverMs` of CPU per second, Artillery `genMs`, the
 * machine (2 cores) `busyMs` of its 2000 ms.
 * @param {number} n @param {{ phase?: string, serverMs?: number[], genMs?: number, busyMs?: number, lagMaxS?: number[] }} [o]
 * @returns {import('../../artillery/lib/records.js').Sample[]}
 */
function samples(n, { phase = 'measured', serverMs = [500], genMs = 200, busyMs = 1000, lagMaxS = [0.3] } = {}) {
  const out = [];
  let cpu = 0;
  for (let i = 0; i < n; i++) {
    if (i > 0) cpu += serverMs[(i - 1) % serverMs.length];
    out.push({
      ts: T0 + i * 1000,
      phase,
      serverProc: { cpuMs: cpu, rss: (100 + i) * MB, threads: 10 },
      loadgen: { cpuMs: i * genMs, rss: 50 * MB, threads: 10 },
      machine: { busyMs: i * busyMs, totalMs: i * 2000, softirqMs: 0, cores: 2 },
      server: {
        clients: { ws: 10 * i, sse: 1 },
        messages: {},
        bytes: {},
        dropped: 0,
        lagMaxS: lagMaxS[i % lagMaxS.length],
        lagP99S: 0.26,
      },
    });
  }
  return out;
}

describe('machineStats', () => {
  it('gives CPU in % of one core, its peak, memory, connections and the loop delay less the sampling interval', () => {
    const m = machineStats(samples(5, { serverMs: [500, 500, 900, 500] }));
    expect(m.n).toBe(5);
    expect(m.serverCpu?.avg).toBeCloseTo((2400 / 4000) * 100);
    expect(m.serverCpu?.peak).toBeCloseTo(90);
    expect(m.loadgenCpu?.avg).toBeCloseTo(20);
    expect(m.machineBusy?.avg).toBeCloseTo(50);
    // Other processes: the machine's busy time (2 cores at 50% = one core) less the server and Artillery.
    expect(m.otherCpu).toBeCloseTo(100 - 60 - 20);
    expect(m.rssStart).toBe(100 * MB);
    expect(m.rssMax).toBe(104 * MB);
    expect(m.clientsPeak).toBe(41);
    expect(m.lagMax).toBeCloseTo(300 - LOOP_LAG_RESOLUTION_MS);
    expect(m.lagP99Median).toBeCloseTo(260 - LOOP_LAG_RESOLUTION_MS);
  });

  it('counts only the phases and the time window asked for', () => {
    const all = [
      ...samples(3, { phase: 'warmup', serverMs: [1000] }),
      ...samples(3, { serverMs: [100] }).map((s) => ({ ...s, ts: s.ts + 10_000 })),
    ];
    expect(machineStats(all, ['warmup']).serverCpu?.avg).toBeCloseTo(100);
    expect(machineStats(all, ['measured']).serverCpu?.avg).toBeCloseTo(10);
    expect(machineStats(all, ['measured'], { from: T0 + 11_000, to: T0 + 12_000 }).n).toBe(2);
    expect(machineStats(all, ['soak'])).toEqual({ n: 0 });
  });

  it("falls back to the server's own /metrics CPU when /proc was not sampled", () => {
    const rows = samples(3).map((s, i) => ({
      ...s,
      serverProc: null,
      server: { clients: {}, messages: {}, bytes: {}, dropped: 0, cpuS: i * 0.25 },
    }));
    expect(machineStats(rows).serverCpu?.avg).toBeCloseTo(25);
  });
});

describe('caseRows', () => {
  /** @param {Record<string, number>} counters @returns {import('../../artillery/lib/records.js').ArtilleryPeriod} */
  const report = (counters) => ({
    counters,
    summaries: {
      push_latency_ws: { min: 1, max: 90, count: 400, mean: 10, p50: 8, median: 8, p90: 20, p95: 30, p99: 80 },
      'page.load_time': {
        min: 100,
        max: 900,
        count: 9,
        mean: 300,
        p50: 250,
        median: 250,
        p90: 700,
        p95: 800,
        p99: 900,
      },
    },
    firstMetricAt: T0,
    lastMetricAt: T0 + 20_000,
  });

  it('a WebSocket case: one push row, failures from the ws_ error codes per client, deltas per second', () => {
    const rows = caseRows(
      'ws',
      report({ 'vusers.created': 50, 'errors.ws_stalled': 2, 'errors.ETIMEDOUT': 7, 'ws.deltas': 400 }),
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      kind: 'push',
      label: 'push latency (WebSocket)',
      samples: 400,
      clients: 50,
      errorsPct: 4,
      throughput: 20,
      unit: 'msg/s',
    });
    expect(rows[0].sum?.p99).toBe(80);
  });

  it('a mixed case: rows only for the kinds of client it had', () => {
    const rows = caseRows(
      'mixed',
      report({
        'vusers.created': 60,
        'vusers.created_by_name.ws': 40,
        'page.attempts': 10,
        'page.failed': 1,
        'page.loads': 9,
      }),
    );
    expect(rows.map((r) => r.kind)).toEqual(['page', 'push']);
    expect(rows[0]).toMatchObject({ clients: 10, errorsPct: 10, samples: 10 });
  });

  it('nothing for a case without a report', () => {
    expect(caseRows('ws', null)).toEqual([]);
  });
});

describe('arrivals', () => {
  /** @param {number[]} created per 10 s period */
  const k = (created) => ({
    rec: { scenario: 'poll' },
    intermediate: created.map((c, i) => ({
      period: String(T0 + i * 10_000),
      counters: { 'vusers.created': c, 'vusers.completed': i > 0 ? created[i - 1] : 0 },
    })),
  });

  it('on schedule when the clients were started within the planned ramp', () => {
    expect(arrivals(k([60, 40]))).toMatchObject({ periods: 2, late: false, activePeak: 60 });
  });

  it('late when starting them took more 10 s periods than the ramp can touch', () => {
    expect(arrivals(k([20, 20, 20, 20, 20]))).toMatchObject({ periods: 5, lo: 30, hi: 50, late: true });
  });

  it('not asked of a page-load case, which has no ramp of live clients', () => {
    expect(arrivals({ ...k([10]), rec: { scenario: 'page' } })).toBeNull();
  });
});

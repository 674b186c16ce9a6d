// What the report says about one case: its table beside the seed report's rows, and the lines
// on its warm-up, the machine and Artillery's counters.

import { f0, f1, mb, ms, pct } from './format.js';
import { seedFor } from './seed.js';
import { CLIENT_LAG_RESOLUTION_MS, caseRows, errorsOf, machineStats, windowOf } from './stats.js';

/** @typedef {import('./load.js').LoadedCase} LoadedCase */

export const HEAD = [
  '',
  'Clients',
  'Samples',
  'Avg',
  'Min',
  'Median',
  'Max',
  'p90',
  'p95',
  'p99',
  'Error %',
  'Throughput',
  'Server CPU avg / peak',
  'Server RSS max',
  'Loop lag max',
];

/**
 * Our rows for a case, each followed by the seed report's rows for the same request and clients.
 * @param {LoadedCase} k
 * @param {import('./seed.js').SeedRow[]} seed
 * @returns {{ ours: boolean, cells: string[] }[]}
 */
export function tableRows(k, seed) {
  const { scenario, users } = k.rec;
  const m = machineStats(k.samples, ['measured'], windowOf(k.measured));
  const server = [
    m.serverCpu?.avg != null ? `${f0(m.serverCpu.avg)}% / ${f0(m.serverCpu.peak)}%` : '',
    mb(m.rssMax),
    m.lagMax != null ? `${ms(m.lagMax)} ms` : '',
  ];
  const out = [];
  for (const r of caseRows(scenario, k.measured)) {
    /** @type {Partial<import('../records.js').Summary>} */
    const s = r.sum || {};
    out.push({
      ours: true,
      cells: [
        `scorecast: ${r.label}`,
        f0(r.clients ?? users),
        f0(r.samples),
        ms(s.mean),
        ms(s.min),
        ms(s.median ?? s.p50),
        ms(s.max),
        ms(s.p90),
        ms(s.p95),
        ms(s.p99),
        pct(r.errorsPct),
        r.throughput != null ? `${f1(r.throughput)} ${r.unit}` : '',
        ...server,
      ],
    });
    for (const z of seedFor(seed, scenario, r.kind, users)) {
      out.push({
        ours: false,
        cells: [
          `ZScore 2019 #${z.case} ${z.client} ${z.request}, ${z.connection}${z.firewall === 'yes' ? ', firewall' : ''}${scenario === 'sse' ? ' (WebSocket)' : ''}${z.note ? ` [${z.note}]` : ''}`,
          f0(z.clients),
          f0(z.samples),
          ms(z.avg_ms),
          ms(z.min_ms),
          ms(z.median_ms),
          ms(z.max_ms),
          ms(z.p90_ms),
          ms(z.p95_ms),
          ms(z.p99_ms),
          z.errors_pct == null ? '' : pct(z.errors_pct),
          '',
          '',
          '',
          '',
        ],
      });
    }
  }
  return out;
}

/**
 * The warm-up run in one line (kept out of the table), or null when there was none.
 * @param {LoadedCase} k
 */
export function warmupRow(k) {
  if (!k.warmup) return null;
  const rows = caseRows(k.rec.scenario, k.warmup);
  return rows
    .map(
      (r) =>
        `${r.label}: ${f0(r.samples)} samples, avg ${ms(r.sum?.mean)} ms, p99 ${ms(r.sum?.p99)} ms, max ${ms(r.sum?.max)} ms${r.errorsPct == null ? '' : `, errors ${pct(r.errorsPct)}%`}`,
    )
    .join('; ');
}

/**
 * The load generator's largest event-loop delay, less the sampling interval; null without a trace.
 * @param {LoadedCase} k
 */
export const clientLagMax = (k) =>
  k.trace.length ? Math.max(0, Math.max(...k.trace.map((t) => t.loopMaxMs)) - CLIENT_LAG_RESOLUTION_MS) : null;

/**
 * The server, the load generator and the machine during the measured run, in one line.
 * @param {LoadedCase} k
 */
export function machineLine(k) {
  const m = machineStats(k.samples, ['measured'], windowOf(k.measured));
  const parts = [];
  if (m.serverCpu?.avg != null)
    parts.push(`server CPU ${f0(m.serverCpu.avg)}% avg, ${f0(m.serverCpu.peak)}% peak (of one core)`);
  if (m.rssStart) parts.push(`server RSS ${mb(m.rssStart)} → max ${mb(m.rssMax)}`);
  if (m.fanoutAvgMs != null && ['ws', 'sse', 'mixed'].includes(k.rec.scenario))
    parts.push(`server fan-out (change → last socket write) ${ms(m.fanoutAvgMs)} ms avg`);
  if (m.lagMax != null)
    parts.push(`server event-loop delay max ${ms(m.lagMax)} ms (median of per-second p99 ${ms(m.lagP99Median)} ms)`);
  if (m.loadgenCpu?.avg != null)
    parts.push(
      `load generator (Artillery) CPU ${f0(m.loadgenCpu.avg)}% avg, ${f0(m.loadgenCpu.peak)}% peak (of one core), RSS max ${mb(m.loadgenRssMax)}`,
    );
  const cl = clientLagMax(k);
  if (cl != null) parts.push(`load generator event-loop delay max ${ms(cl)} ms`);
  if (m.machineBusy)
    parts.push(
      `machine ${f0(m.machineBusy.avg)}% avg, ${f0(m.machineBusy.peak)}% peak busy (of ${m.cores ?? '?'} cores)`,
    );
  if (m.softirq != null)
    parts.push(`kernel softirq (loopback TCP, charged to no process) ${f0(m.softirq)}% of one core`);
  if (m.otherCpu != null)
    parts.push(
      `other processes${m.softirq == null ? ' and unattributed kernel time' : ''} ${f0(m.otherCpu)}% avg, ${f0(m.otherPeak)}% peak (of one core)`,
    );
  if (m.clientsPeak) parts.push(`peak connections on the server ${f0(m.clientsPeak)}`);
  if (m.dropped) parts.push(`server dropped ${m.dropped} slow connections`);
  if (m.scrapeErrors) parts.push(`${m.scrapeErrors} /metrics scrapes timed out`);
  return parts.join('; ');
}

/**
 * Artillery's counters beyond the table (taps, resyncs, page bytes, staleness, connects, errors).
 * @param {LoadedCase} k
 */
export function countersLine(k) {
  const c = k.measured?.counters || {};
  const parts = [];
  if (c['taps.sent'])
    parts.push(
      `taps sent ${c['taps.sent']}: answered SC_ERR_NO_VOTE_WINDOW ${c['taps.no_vote_window'] ?? 0} (the seed profile has no vote window; not failures)${[
        'voted',
        'already_voted',
        'unknown_tile',
      ]
        .filter((k) => c[`taps.${k}`])
        .map((k) => `, ${k.replace('_', ' ')} ${c[`taps.${k}`]}`)
        .join('')}`,
    );
  for (const t of ['ws', 'sse'])
    if (c[`${t}.resyncs`]) parts.push(`${t} clients resynced by snapshot (fell behind) ${c[`${t}.resyncs`]} times`);
  if (c['page.bytes']) parts.push(`page bytes ${mb(c['page.bytes'])} in ${c['page.requests']} requests`);
  const s = k.measured?.summaries || {};
  if (s['poll.staleness'])
    parts.push(
      `poll staleness (receipt − t, includes the 500 ms poll interval) p99 ${ms(s['poll.staleness'].p99)} ms, max ${ms(s['poll.staleness'].max)} ms`,
    );
  if (s['ws.connect_time']) parts.push(`WebSocket connect p99 ${ms(s['ws.connect_time'].p99)} ms`);
  if (s['sse.connect_time']) parts.push(`SSE connect p99 ${ms(s['sse.connect_time'].p99)} ms`);
  const e = errorsOf(k.measured);
  parts.push(e.length ? `errors: ${e.join(', ')}` : 'errors: none');
  return parts.join('; ');
}

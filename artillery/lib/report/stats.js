// The report's numbers: the server, the load generator and the machine over a phase of the
// samples; how Artillery's clients really arrived; our rows for a case, each like a row of the
// seed report's tables.

import { RAMP_S } from '../plans.js';
import { LOOP_LAG_RESOLUTION_MS } from '../../../core/constants.js';
import { median } from '../../../core/stats.js';

/** @typedef {import('../records.js').Sample} Sample */
/** @typedef {import('../records.js').Summary} Summary */
/** @typedef {import('../records.js').ArtilleryPeriod} ArtilleryPeriod */

/** prom-client samples the server's event-loop delay with this timer period; its values include it. */
export const LAG_RESOLUTION_MS = LOOP_LAG_RESOLUTION_MS;
/** monitorEventLoopDelay in the load generator's processor, same correction. */
export const CLIENT_LAG_RESOLUTION_MS = 10;

export const BUDGET = { pageP99: 5000, pushMax: 1000 };
/** A case during which other processes (and unattributed kernel time) used more than this much
 *  of a core on average is marked as measured on a shared machine. */
export const SHARED_PCT = 30;

/** @typedef {{ from: number, to: number }} TimeWindow */
/** @typedef {{ avg: number | null, peak: number | null }} Rate */

/**
 * @typedef {object} MachineStats
 * @property {number} n                 samples in the phase
 * @property {Rate} [serverCpu]         % of one core
 * @property {Rate} [loadgenCpu]        % of one core
 * @property {{ avg: number, peak: number }} [machineBusy]  % of all cores
 * @property {number} [cores]
 * @property {number | null} [softirq]  % of one core
 * @property {number} [otherCpu]        other processes and unattributed kernel time, % of one core
 * @property {number} [otherPeak]
 * @property {number | null} [rssStart]
 * @property {number | null} [rssMax]
 * @property {number | null} [rssEnd]
 * @property {number | null} [lagMax]   ms, less the sampling interval
 * @property {number | null} [lagP99Median]
 * @property {number} [fanoutAvgMs]
 * @property {number} [scrapeMax]
 * @property {number} [scrapeErrors]
 * @property {number} [clientsPeak]
 * @property {number} [dropped]
 * @property {number | null} [loadgenRssMax]
 */

/** @param {number[]} a */
const medianOrNull = (a) => (a.length ? median(a) : null);

/** @typedef {{ ts: number, v: number }} Point */

/**
 * The server's CPU time (ms) at a sample: from /proc, else from its /metrics; NaN when neither.
 * @param {Sample} s
 */
export const serverCpuMs = (s) => s.serverProc?.cpuMs ?? (s.server?.cpuS != null ? s.server.cpuS * 1000 : NaN);

/**
 * Server, load generator and machine over one phase of the samples.
 * @param {Sample[]} samples
 * @param {string[]} [phases]
 * @param {TimeWindow | null} [window]
 * @returns {MachineStats}
 */
export function machineStats(samples, phases = ['measured'], window = null) {
  // The window of Artillery's metrics leaves out its own start-up (loading it takes seconds of CPU).
  const rows = samples.filter(
    (s) => phases.includes(s.phase) && (!window || (s.ts >= window.from && s.ts <= window.to)),
  );
  /** @type {MachineStats} */
  const out = { n: rows.length };
  if (rows.length === 0) return out;
  const lastRow = rows[rows.length - 1];
  /** @param {(s: Sample) => number | null | undefined} get @returns {Point[]} */
  const series = (get) => {
    /** @type {Point[]} */
    const pts = [];
    for (const s of rows) {
      const v = get(s);
      if (typeof v === 'number' && Number.isFinite(v)) pts.push({ ts: s.ts, v });
    }
    return pts;
  };
  /** @param {Point[]} pts @param {number} scale @returns {Rate} */
  const rate = (pts, scale) => {
    if (pts.length < 2) return { avg: null, peak: null };
    const last = pts[pts.length - 1];
    const avg = ((last.v - pts[0].v) / (last.ts - pts[0].ts)) * scale;
    let peak = 0;
    for (let i = 1; i < pts.length; i++) {
      const dt = pts[i].ts - pts[i - 1].ts;
      if (dt > 0) peak = Math.max(peak, ((pts[i].v - pts[i - 1].v) / dt) * scale);
    }
    return { avg, peak };
  };
  // CPU as % of one core (100% = one core busy).
  const serverCpu = rate(series(serverCpuMs), 100);
  const loadgenCpu = rate(
    series((s) => s.loadgen?.cpuMs),
    100,
  );
  out.serverCpu = serverCpu;
  out.loadgenCpu = loadgenCpu;
  const busy = series((s) => s.machine?.busyMs);
  const total = series((s) => s.machine?.totalMs);
  /** @param {Point[]} pts */
  const span = (pts) => pts[pts.length - 1].v - pts[0].v;
  if (busy.length >= 2) {
    const machineBusy = { avg: (span(busy) / span(total)) * 100, peak: 0 };
    for (let i = 1; i < busy.length; i++) {
      const t = total[i].v - total[i - 1].v;
      if (t > 0) machineBusy.peak = Math.max(machineBusy.peak, ((busy[i].v - busy[i - 1].v) / t) * 100);
    }
    out.machineBusy = machineBusy;
    out.cores = lastRow.machine?.cores;
  }
  // What neither the server nor Artillery used: other processes on the machine, and kernel time
  // no process is charged for (loopback TCP's softirq work), in % of one core.
  const cores = out.cores;
  if (out.machineBusy && cores && serverCpu.avg != null && loadgenCpu.avg != null) {
    const soft = series((s) => s.machine?.softirqMs);
    out.softirq = soft.length >= 2 && soft.length === total.length ? (span(soft) / span(total)) * 100 * cores : null;
    out.otherCpu = Math.max(0, out.machineBusy.avg * cores - (out.softirq ?? 0) - serverCpu.avg - loadgenCpu.avg);
    let otherPeak = 0;
    for (let i = 1; i < rows.length; i++) {
      const a = rows[i];
      const b = rows[i - 1];
      const t = (a.machine?.totalMs ?? NaN) - (b.machine?.totalMs ?? NaN);
      const dt = a.ts - b.ts;
      const srv = serverCpuMs(a) - serverCpuMs(b);
      const gen = (a.loadgen?.cpuMs ?? NaN) - (b.loadgen?.cpuMs ?? NaN);
      if (!(t > 0 && dt > 0) || !Number.isFinite(srv) || !Number.isFinite(gen) || !a.machine || !b.machine) continue;
      const soft =
        a.machine.softirqMs != null && b.machine.softirqMs != null ? a.machine.softirqMs - b.machine.softirqMs : 0;
      const busy = ((a.machine.busyMs - b.machine.busyMs - soft) / t) * 100 * cores;
      otherPeak = Math.max(otherPeak, busy - (srv / dt) * 100 - (gen / dt) * 100);
    }
    out.otherPeak = otherPeak;
  }
  const rss = series((s) => s.serverProc?.rss ?? s.server?.rss).map((p) => p.v);
  out.rssStart = rss[0] ?? null;
  out.rssMax = rss.length ? Math.max(...rss) : null;
  out.rssEnd = rss.at(-1) ?? null;
  const lagMax = series((s) => s.server?.lagMaxS).map((p) => Math.max(0, p.v * 1000 - LAG_RESOLUTION_MS));
  const lagP99 = series((s) => s.server?.lagP99S).map((p) => Math.max(0, p.v * 1000 - LAG_RESOLUTION_MS));
  out.lagMax = lagMax.length ? Math.max(...lagMax) : null;
  out.lagP99Median = medianOrNull(lagP99);
  // Server-side fan-out: time from a state change to its last socket write (scorecast_push_lag_seconds).
  const lag = rows.flatMap((s) =>
    s.server?.pushLagCount != null ? [{ count: s.server.pushLagCount, sumS: s.server.pushLagSumS ?? NaN }] : [],
  );
  if (lag.length >= 2 && lag[lag.length - 1].count > lag[0].count) {
    const last = lag[lag.length - 1];
    out.fanoutAvgMs = ((last.sumS - lag[0].sumS) / (last.count - lag[0].count)) * 1000;
  }
  out.scrapeMax = Math.max(...rows.map((s) => s.scrapeMs ?? 0));
  out.scrapeErrors = rows.filter((s) => s.scrapeError).length;
  out.clientsPeak = Math.max(0, ...rows.map((s) => Object.values(s.server?.clients ?? {}).reduce((a, b) => a + b, 0)));
  out.dropped = Math.max(0, ...rows.map((s) => s.server?.dropped ?? 0));
  out.loadgenRssMax = Math.max(0, ...rows.map((s) => s.loadgen?.rss ?? 0)) || null;
  return out;
}

/**
 * @typedef {object} Arrivals
 * @property {number} periods     Artillery's 10 s periods in which it created clients
 * @property {number} lo          the ramp took at least this long (s)
 * @property {number} hi          and at most this long (s)
 * @property {boolean} late       longer than planned
 * @property {number} activePeak  most clients in flight at the end of a period
 */

/**
 * How long Artillery really took to start the clients of a ramp (ws, sse, poll, mixed), from the
 * 10 s periods of its report in which it created any: a ramp of RAMP_S seconds touches at most
 * 3 of them. When the one Artillery worker is short of CPU (each polling client loads a 1.9 MB page
 * first), it starts them late, the ramp stretches, and fewer clients are active at once than the
 * user count says. Also the most clients in flight at the end of a period (Artillery's counters).
 * @param {{ rec: { scenario: string }, intermediate: ArtilleryPeriod[] }} k
 * @returns {Arrivals | null}
 */
export function arrivals(k) {
  if (!['ws', 'sse', 'poll', 'mixed'].includes(k.rec?.scenario)) return null;
  const per = (k.intermediate || [])
    .filter((x) => (x.counters?.['vusers.created'] || 0) > 0)
    .map((x) => Number(x.period))
    .filter(Number.isFinite);
  if (per.length === 0) return null;
  const periods = Math.round((Math.max(...per) - Math.min(...per)) / 10_000) + 1;
  // Clients in flight at the end of each period: created less completed and failed, so far.
  let inFlight = 0;
  let activePeak = 0;
  for (const x of [...(k.intermediate || [])].sort((a, b) => Number(a.period) - Number(b.period))) {
    const c = x.counters || {};
    inFlight += (c['vusers.created'] || 0) - (c['vusers.completed'] || 0) - (c['vusers.failed'] || 0);
    activePeak = Math.max(activePeak, inFlight);
  }
  return { periods, lo: Math.max(0, (periods - 2) * 10), hi: periods * 10, late: periods > 3, activePeak };
}

/** @param {Arrivals} a */
export const arrivalsText = (a) =>
  a.periods <= 3 ? `within ${RAMP_S} s as planned` : `over about ${a.lo}–${a.hi} s instead of ${RAMP_S} s`;

/**
 * Artillery's measured window (first to last metric), with a second of slack.
 * @param {ArtilleryPeriod | null | undefined} a
 * @returns {TimeWindow | null}
 */
export const windowOf = (a) =>
  a?.firstMetricAt && a.lastMetricAt ? { from: a.firstMetricAt - 1000, to: a.lastMetricAt + 1500 } : null;
/** @param {ArtilleryPeriod | null | undefined} a */
const windowS = (a) =>
  a?.lastMetricAt && a.firstMetricAt ? Math.max(1, (a.lastMetricAt - a.firstMetricAt) / 1000) : null;

/**
 * One of our rows, like a row of the seed report's tables.
 * @typedef {object} CaseRow
 * @property {'page' | 'poll' | 'push'} kind
 * @property {string} label
 * @property {Summary | null} sum
 * @property {number} samples
 * @property {number | null} errorsPct
 * @property {number | null} throughput
 * @property {string} unit
 * @property {number} [clients]
 */

/**
 * Our rows for one case, each like a row of the seed's tables.
 * @param {string} scenario
 * @param {ArtilleryPeriod | null | undefined} a  the aggregate of Artillery's report
 * @param {string} [prefix]
 * @returns {CaseRow[]}
 */
export function caseRows(scenario, a, prefix = '') {
  if (!a) return [];
  const c = a.counters || {};
  const all = a.summaries || {};
  // prefix 'measured.': the soak's histograms after its warm-up (the processor keeps them apart).
  /** @type {Record<string, Summary | undefined>} */
  const s = new Proxy(all, { get: (o, k) => o[`${prefix}${String(k)}`] });
  const dur = windowS(a);
  /** @type {CaseRow[]} */
  const rows = [];
  const vusers = c['vusers.created'] || 0;
  /**
   * @param {CaseRow['kind']} kind @param {string} label @param {Summary | undefined} sum @param {number} samples
   * @param {number | null} errorsPct @param {number | null} throughput @param {string} unit @param {number} clients
   */
  const add = (kind, label, sum, samples, errorsPct, throughput, unit, clients) => {
    rows.push({ kind, label, sum: sum ?? null, samples, errorsPct, throughput, unit, clients });
  };
  // Failures by transport, from the error codes the processor gives (ws_*, sse_*, page_*, poll_*);
  // anything else (ETIMEDOUT, ECONNRESET of Artillery's http engine) comes from polls.
  /** @type {Record<string, number>} */
  const errs = { ws: 0, sse: 0, page: 0, poll: 0 };
  for (const [k, v] of Object.entries(c)) {
    if (!k.startsWith('errors.')) continue;
    const code = k.slice(7);
    const t = /^(ws|sse|page)_/.exec(code)?.[1] ?? 'poll';
    errs[t] += v;
  }
  /** @param {string} t */
  const byName = (t) => c[`vusers.created_by_name.${t}`] ?? (scenario === t ? vusers : 0);
  const page = () => {
    const att = c['page.attempts'] || 0;
    add(
      'page',
      'page load (whole page)',
      s['page.load_time'],
      att,
      att ? (100 * (c['page.failed'] || 0)) / att : null,
      dur ? (c['page.loads'] || 0) / dur : null,
      'pages/s',
      att,
    );
  };
  const poll = () => {
    const req = c['http.requests'] || 0;
    const ok = c['http.codes.200'] || 0;
    if (scenario === 'mixed' && !byName('poll')) return;
    add(
      'poll',
      'poll (response time)',
      s['poll.response_time'] ?? s['http.response_time'],
      req,
      req ? (100 * (req - ok)) / req : null,
      dur ? req / dur : null,
      'req/s',
      byName('poll'),
    );
  };
  /** @param {'ws' | 'sse'} t */
  const push = (t) => {
    const name = t === 'ws' ? 'WebSocket' : 'SSE';
    const clients = byName(t);
    if (scenario === 'mixed' && !clients) return;
    add(
      'push',
      `push latency (${name})`,
      s[`push_latency_${t}`],
      s[`push_latency_${t}`]?.count ?? 0,
      clients ? (100 * errs[t]) / clients : null,
      dur ? (c[`${t}.deltas`] || 0) / dur : null,
      'msg/s',
      clients,
    );
  };
  switch (scenario) {
    case 'poll':
      page();
      poll();
      break;
    case 'page':
      page();
      break;
    case 'ws':
      push('ws');
      break;
    case 'sse':
      push('sse');
      break;
    case 'mixed':
      page();
      push('ws');
      push('sse');
      poll();
      break;
    default:
      break;
  }
  return rows;
}

/**
 * The errors Artillery counted, as `code × n`.
 * @param {ArtilleryPeriod | null | undefined} a
 */
export function errorsOf(a) {
  return Object.entries(a?.counters || {})
    .filter(([k]) => k.startsWith('errors.'))
    .map(([k, v]) => `${k.slice(7)} × ${v}`);
}

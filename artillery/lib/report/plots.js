// The report's plots (inline SVG from ../svg.js): latency and clients over a case, the server's
// CPU and event-loop delay over a case, and latency against users over a campaign or stress run.

import { lineChart } from '../svg.js';
import { BUDGET, LAG_RESOLUTION_MS, serverCpuMs } from './stats.js';

/** @typedef {import('./load.js').LoadedCase} LoadedCase */
/** @typedef {import('../svg.js').Series} Series */
/** @typedef {import('../records.js').Summary} Summary */

/** @type {Record<string, string[]>} */
const PRIMARY = {
  ws: ['push_latency'],
  sse: ['push_latency'],
  poll: ['poll.response_time', 'page.load_time'],
  page: ['page.load_time'],
  mixed: ['push_latency', 'page.load_time', 'poll.response_time'],
};
/** @type {Record<string, string>} */
const METRIC_LABEL = {
  push_latency: 'push latency',
  'page.load_time': 'page load',
  'poll.response_time': 'poll response',
};

/**
 * Latency per second over the case, with the clients open (or the pages loaded) on the right.
 * @param {LoadedCase} k
 */
export function overTimePlot(k) {
  const start = k.rec.runs?.measured?.start ?? k.trace[0]?.ts ?? 0;
  /** @type {Series[]} */
  const series = [];
  for (const name of PRIMARY[k.rec.scenario] ?? []) {
    const pts = k.trace.filter((t) => t.metrics[name]);
    if (pts.length === 0) continue;
    /** @param {{ ts: number }} t */
    const x = (t) => (t.ts - start) / 1000;
    series.push({
      name: `${METRIC_LABEL[name]} max`,
      points: pts.map((t) => [x(t), t.metrics[name].max]),
      dash: name === 'push_latency' ? undefined : '5 3',
    });
    series.push({
      name: `${METRIC_LABEL[name]} p50`,
      points: pts.map((t) => [x(t), t.metrics[name].p50]),
      dash: name === 'push_latency' ? undefined : '5 3',
    });
  }
  if (k.rec.scenario === 'page') {
    // Page loads last milliseconds: the number finished per second says more than a count of open ones.
    series.push({
      name: 'pages loaded per second',
      points: k.trace.map((t) => [(t.ts - start) / 1000, t.metrics['page.load_time']?.n ?? 0]),
      axis: 'right',
      color: '#999',
      dash: '2 2',
    });
  } else {
    /** @type {[number, number][]} */
    const active = k.trace.map((t) => [(t.ts - start) / 1000, Object.values(t.active).reduce((a, b) => a + b, 0)]);
    series.push({ name: 'active clients', points: active, axis: 'right', color: '#999', dash: '2 2' });
  }
  const hasPush = (PRIMARY[k.rec.scenario] ?? []).includes('push_latency');
  const hasPage = (PRIMARY[k.rec.scenario] ?? []).includes('page.load_time');
  return lineChart({
    title: `${k.rec.scenario} at ${k.rec.users} users: latency per second`,
    xLabel: 'seconds since the measured run started',
    yLabel: 'ms',
    yLog: true,
    series,
    rightLabel: k.rec.scenario === 'page' ? 'pages/s' : 'clients',
    hLines: [
      ...(hasPush ? [{ y: BUDGET.pushMax, label: 'push budget 1 s' }] : []),
      ...(hasPage ? [{ y: BUDGET.pageP99, label: 'page budget 5 s (p99)', color: '#a60' }] : []),
    ],
  });
}

/**
 * The server's and Artillery's CPU and the server's event-loop delay over the case.
 * @param {LoadedCase} k
 */
export function serverPlot(k) {
  const start = k.rec.runs?.measured?.start ?? 0;
  const rows = k.samples.filter((s) => s.phase !== 'idle');
  /** @type {[number, number][]} */
  const cpu = [];
  /** @type {[number, number][]} */
  const gen = [];
  for (let i = 1; i < rows.length; i++) {
    const dt = rows[i].ts - rows[i - 1].ts;
    const a = serverCpuMs(rows[i]);
    const b = serverCpuMs(rows[i - 1]);
    if (dt > 0 && Number.isFinite(a) && Number.isFinite(b))
      cpu.push([(rows[i].ts - start) / 1000, ((a - b) / dt) * 100]);
    const la = rows[i].loadgen?.cpuMs;
    const lb = rows[i - 1].loadgen?.cpuMs;
    if (dt > 0 && la != null && lb != null && Number.isFinite(la) && Number.isFinite(lb))
      gen.push([(rows[i].ts - start) / 1000, ((la - lb) / dt) * 100]);
  }
  /** @type {[number, number][]} */
  const lag = rows.flatMap((s) =>
    s.server?.lagMaxS != null
      ? [[(s.ts - start) / 1000, Math.max(0, s.server.lagMaxS * 1000 - LAG_RESOLUTION_MS)]]
      : [],
  );
  const warm = k.rec.runs?.warmup;
  return lineChart({
    title: `${k.rec.scenario} at ${k.rec.users} users: CPU and event-loop delay`,
    xLabel: 'seconds since the measured run started',
    yLabel: '% of one core',
    yMin: 0,
    series: [
      { name: 'server CPU', points: cpu, color: '#d62728' },
      { name: 'Artillery CPU', points: gen, color: '#1f77b4' },
      { name: 'server loop delay max ms', points: lag, axis: 'right', color: '#2ca02c' },
    ],
    rightLabel: 'ms',
    bands: warm ? [{ x0: (warm.start - start) / 1000, x1: 0, label: 'warm-up' }] : [],
  });
}

/** @typedef {(k: LoadedCase) => Summary | undefined} MetricOf */
/** @typedef {{ y: number, label: string, q?: 'p99' | 'max' }} Budget */

/**
 * Latency against users for one scenario over the campaign's cases (or a stress run's steps).
 * @param {string} title
 * @param {LoadedCase[]} cases
 * @param {MetricOf} metricOf
 * @param {Budget | null} [budget]
 * @param {number | null} [breakAt]
 * @param {LoadedCase[]} [retries]
 */
export function usersPlot(title, cases, metricOf, budget, breakAt, retries = []) {
  const pts = cases
    .filter((k) => k.measured)
    .flatMap((k) => {
      const s = metricOf(k);
      return s ? [{ users: k.rec.users, s }] : [];
    })
    .sort((a, b) => a.users - b.users);
  /** @type {Series[]} */
  const series = /** @type {const} */ (['p50', 'p95', 'p99', 'max']).map((q) => ({
    name: q,
    points: pts.map((p) => /** @type {[number, number]} */ ([p.users, p.s[q === 'p50' ? 'median' : q] ?? p.s[q]])),
    marker: true,
  }));
  // Stress: the lines are each step's first run; a step that broke a budget was run again, and
  // that confirming run's value of the budgeted statistic is drawn as a separate ring.
  const again = retries.flatMap((k) => {
    const s = k.measured && metricOf(k);
    return s ? [/** @type {[number, number]} */ ([k.rec.users, s[budget?.q ?? 'max']])] : [];
  });
  if (again.length)
    series.push({ name: `${budget?.q ?? 'max'}, confirming run`, points: again, color: '#000', line: false });
  return lineChart({
    title,
    xLabel: 'users',
    yLabel: 'ms',
    yLog: true,
    series,
    hLines: budget ? [{ y: budget.y, label: budget.label }] : [],
    vLines: breakAt ? [{ x: breakAt, label: `broke at ${breakAt}` }] : [],
    xTicks: [...new Set(pts.map((p) => p.users))],
  });
}

/**
 * One of Artillery's summaries of the measured run.
 * @param {string} name
 * @returns {MetricOf}
 */
export const summaryOf = (name) => (k) => k.measured?.summaries?.[name];
/** @type {MetricOf} */
export const pollSum = (k) =>
  k.measured?.summaries?.['poll.response_time'] ?? k.measured?.summaries?.['http.response_time'];

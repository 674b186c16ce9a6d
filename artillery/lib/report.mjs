// The report: Artillery's JSON reports, the server/machine samples and the client traces of
// campaign, stress, soak and single runs, as one self-contained HTML page (inline SVG, no
// scripts, nothing fetched) and a Markdown file, with the seed report's numbers beside ours.

import { existsSync, readFileSync, readdirSync, writeFileSync, mkdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { QA_DIR } from './env.mjs';
import { lineChart } from './svg.mjs';
import { RAMP_S } from './plans.mjs';
import { LOOP_LAG_RESOLUTION_MS } from '../../core/constants.js';
import { median } from '../../core/stats.js';

/** prom-client samples the server's event-loop delay with this timer period; its values include it. */
const LAG_RESOLUTION_MS = LOOP_LAG_RESOLUTION_MS;
/** monitorEventLoopDelay in the load generator's processor, same correction. */
const CLIENT_LAG_RESOLUTION_MS = 10;

const BUDGET = { pageP99: 5000, pushMax: 1000 };
/** A case during which other processes (and unattributed kernel time) used more than this much
 *  of a core on average is marked as measured on a shared machine. */
const SHARED_PCT = 30;

// ---------------------------------------------------------------- loading

const readJson = (f) => JSON.parse(readFileSync(f, 'utf8'));
const readLines = (f) => (existsSync(f) ? readFileSync(f, 'utf8').split('\n').filter(Boolean).map((l) => { try { return JSON.parse(l); } catch { return null; } }).filter(Boolean) : []);

function loadCase(dir) {
  const rec = readJson(path.join(dir, 'case.json'));
  const m = path.join(dir, 'measured.json');
  const w = path.join(dir, 'warmup.json');
  return {
    dir, rec,
    measured: existsSync(m) ? readJson(m).aggregate : null,
    intermediate: existsSync(m) ? readJson(m).intermediate : [],
    warmup: existsSync(w) ? readJson(w).aggregate : null,
    samples: readLines(path.join(dir, 'samples.jsonl')),
    trace: mergeTrace(readLines(path.join(dir, 'trace.jsonl'))),
  };
}

/** Per-second trace lines from every worker thread, merged by second. */
function mergeTrace(lines) {
  const bySec = new Map();
  for (const l of lines) {
    const s = Math.round(l.ts / 1000);
    let e = bySec.get(s);
    if (!e) { e = { ts: s * 1000, active: {}, loopMaxMs: 0, metrics: {} }; bySec.set(s, e); }
    for (const [k, v] of Object.entries(l.active || {})) e.active[k] = (e.active[k] || 0) + v;
    e.loopMaxMs = Math.max(e.loopMaxMs, l.loopMaxMs || 0);
    for (const [k, v] of Object.entries(l.metrics || {})) {
      const o = e.metrics[k];
      if (!o) e.metrics[k] = { ...v };
      else {
        o.mean = (o.mean * o.n + v.mean * v.n) / (o.n + v.n);
        o.n += v.n;
        for (const q of ['p50', 'p95', 'p99', 'max']) o[q] = Math.max(o[q], v[q]);
      }
    }
  }
  return [...bySec.values()].sort((a, b) => a.ts - b.ts);
}

/** Find campaign, stress, soak and case directories in the inputs (up to two levels down). */
export function collect(inputs) {
  const found = { campaigns: [], stresses: [], soaks: [], cases: [] };
  const seen = new Set();
  const visit = (dir, depth) => {
    if (seen.has(dir) || !existsSync(dir) || !statSync(dir).isDirectory()) return;
    seen.add(dir);
    if (existsSync(path.join(dir, 'campaign.json'))) {
      const c = readJson(path.join(dir, 'campaign.json'));
      const cases = c.cases.map((x) => path.join(dir, x.dir)).filter((d) => existsSync(path.join(d, 'case.json'))).map(loadCase);
      cases.forEach((k) => seen.add(k.dir));
      found.campaigns.push({ dir, rec: c, cases });
      return;
    }
    if (existsSync(path.join(dir, 'stress.json'))) {
      const s = readJson(path.join(dir, 'stress.json'));
      const steps = s.steps.map((x) => ({ ...x, data: existsSync(path.join(dir, x.dir, 'case.json')) ? loadCase(path.join(dir, x.dir)) : null }));
      found.stresses.push({ dir, rec: s, steps });
      return;
    }
    if (existsSync(path.join(dir, 'soak.json'))) {
      const rec = readJson(path.join(dir, 'soak.json'));
      const m = path.join(dir, 'measured.json');
      found.soaks.push({
        dir, rec, measured: existsSync(m) ? readJson(m).aggregate : null, intermediate: existsSync(m) ? readJson(m).intermediate : [],
        samples: readLines(path.join(dir, 'samples.jsonl')), trace: mergeTrace(readLines(path.join(dir, 'trace.jsonl'))),
      });
      return;
    }
    if (existsSync(path.join(dir, 'case.json'))) { found.cases.push(loadCase(dir)); return; }
    if (depth < 2) for (const d of readdirSync(dir).sort()) visit(path.join(dir, d), depth + 1);
  };
  for (const i of inputs) visit(path.resolve(i), 0);
  return found;
}

// ---------------------------------------------------------------- the seed report

export function loadSeed() {
  const text = readFileSync(path.join(QA_DIR, 'seed', 'zscore-2019-results.csv'), 'utf8').trim().split('\n');
  const head = text[0].split(',');
  return text.slice(1).map((line) => {
    const cells = [];
    let cur = '';
    let q = false;
    for (const ch of line) {
      if (ch === '"') q = !q;
      else if (ch === ',' && !q) { cells.push(cur); cur = ''; } else cur += ch;
    }
    cells.push(cur);
    const o = Object.fromEntries(head.map((h, i) => [h, cells[i] ?? '']));
    for (const k of ['clients', 'samples', 'errors_pct', 'avg_ms', 'min_ms', 'max_ms', 'median_ms', 'p90_ms', 'p95_ms', 'p99_ms']) o[k] = o[k] === '' ? null : Number(o[k]);
    return o;
  });
}

/** Seed rows for one of our rows: same kind of request, same number of clients. */
function seedFor(seed, scenario, kind, clients) {
  const want = {
    'poll:page': ['jmeter', 'page'], 'poll:poll': ['jmeter', 'poll'],
    'page:page': ['custom', 'page'], 'ws:push': ['custom', 'ws_push'], 'sse:push': ['custom', 'ws_push'],
  }[`${scenario}:${kind}`];
  if (!want) return [];
  return seed.filter((r) => r.client === want[0] && r.request === want[1] && r.clients === clients)
    .sort((a, b) => (a.connection === 'wired' ? 0 : 1) - (b.connection === 'wired' ? 0 : 1) || (a.firewall === 'no' ? 0 : 1) - (b.firewall === 'no' ? 0 : 1));
}

// ---------------------------------------------------------------- numbers

const medianOrNull = (a) => (a.length ? median(a) : null);

/** Server, load generator and machine over one phase of the samples. */
export function machineStats(samples, phases = ['measured'], window = null) {
  // The window of Artillery's metrics leaves out its own start-up (loading it takes seconds of CPU).
  const rows = samples.filter((s) => phases.includes(s.phase) && (!window || (s.ts >= window.from && s.ts <= window.to)));
  const out = { n: rows.length };
  if (rows.length === 0) return out;
  const series = (get) => rows.map((s) => ({ ts: s.ts, v: get(s) })).filter((p) => Number.isFinite(p.v));
  const rate = (pts, scale) => {
    if (pts.length < 2) return { avg: null, peak: null };
    const avg = ((pts.at(-1).v - pts[0].v) / (pts.at(-1).ts - pts[0].ts)) * scale;
    let peak = 0;
    for (let i = 1; i < pts.length; i++) {
      const dt = pts[i].ts - pts[i - 1].ts;
      if (dt > 0) peak = Math.max(peak, ((pts[i].v - pts[i - 1].v) / dt) * scale);
    }
    return { avg, peak };
  };
  // CPU as % of one core (100% = one core busy).
  out.serverCpu = rate(series((s) => s.serverProc?.cpuMs ?? (s.server?.cpuS != null ? s.server.cpuS * 1000 : NaN)), 100);
  out.loadgenCpu = rate(series((s) => s.loadgen?.cpuMs), 100);
  const busy = series((s) => s.machine?.busyMs);
  const total = series((s) => s.machine?.totalMs);
  if (busy.length >= 2) {
    out.machineBusy = { avg: ((busy.at(-1).v - busy[0].v) / (total.at(-1).v - total[0].v)) * 100, peak: 0 };
    for (let i = 1; i < busy.length; i++) {
      const t = total[i].v - total[i - 1].v;
      if (t > 0) out.machineBusy.peak = Math.max(out.machineBusy.peak, ((busy[i].v - busy[i - 1].v) / t) * 100);
    }
    out.cores = rows.at(-1).machine?.cores;
  }
  // What neither the server nor Artillery used: other processes on the machine, and kernel time
  // no process is charged for (loopback TCP's softirq work), in % of one core.
  if (out.machineBusy && out.cores && out.serverCpu.avg != null && out.loadgenCpu.avg != null) {
    const soft = series((s) => s.machine?.softirqMs);
    out.softirq = soft.length >= 2 && soft.length === total.length ? ((soft.at(-1).v - soft[0].v) / (total.at(-1).v - total[0].v)) * 100 * out.cores : null;
    out.otherCpu = Math.max(0, out.machineBusy.avg * out.cores - (out.softirq ?? 0) - out.serverCpu.avg - out.loadgenCpu.avg);
    out.otherPeak = 0;
    for (let i = 1; i < rows.length; i++) {
      const a = rows[i];
      const b = rows[i - 1];
      const t = a.machine?.totalMs - b.machine?.totalMs;
      const dt = a.ts - b.ts;
      const srv = (a.serverProc?.cpuMs ?? a.server?.cpuS * 1000) - (b.serverProc?.cpuMs ?? b.server?.cpuS * 1000);
      const gen = (a.loadgen?.cpuMs ?? NaN) - (b.loadgen?.cpuMs ?? NaN);
      if (!(t > 0 && dt > 0) || !Number.isFinite(srv) || !Number.isFinite(gen)) continue;
      const soft = a.machine.softirqMs != null && b.machine.softirqMs != null ? a.machine.softirqMs - b.machine.softirqMs : 0;
      const busy = ((a.machine.busyMs - b.machine.busyMs - soft) / t) * 100 * out.cores;
      out.otherPeak = Math.max(out.otherPeak, busy - (srv / dt) * 100 - (gen / dt) * 100);
    }
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
  const lag = rows.filter((s) => s.server?.pushLagCount != null);
  if (lag.length >= 2 && lag.at(-1).server.pushLagCount > lag[0].server.pushLagCount) {
    out.fanoutAvgMs = ((lag.at(-1).server.pushLagSumS - lag[0].server.pushLagSumS) / (lag.at(-1).server.pushLagCount - lag[0].server.pushLagCount)) * 1000;
  }
  out.scrapeMax = Math.max(...rows.map((s) => s.scrapeMs ?? 0));
  out.scrapeErrors = rows.filter((s) => s.scrapeError).length;
  out.clientsPeak = Math.max(0, ...rows.map((s) => Object.values(s.server?.clients ?? {}).reduce((a, b) => a + b, 0)));
  out.dropped = Math.max(0, ...rows.map((s) => s.server?.dropped ?? 0));
  out.loadgenRssMax = Math.max(0, ...rows.map((s) => s.loadgen?.rss ?? 0)) || null;
  return out;
}

/**
 * How long Artillery really took to start the clients of a ramp (ws, sse, poll, mixed), from the
 * 10 s periods of its report in which it created any: a ramp of RAMP_S seconds touches at most
 * 3 of them. When the one Artillery worker is short of CPU (each polling client loads a 1.9 MB page
 * first), it starts them late, the ramp stretches, and fewer clients are active at once than the
 * user count says. Also the most clients in flight at the end of a period (Artillery's counters).
 */
function arrivals(k) {
  if (!['ws', 'sse', 'poll', 'mixed'].includes(k.rec?.scenario)) return null;
  const per = (k.intermediate || []).filter((x) => (x.counters?.['vusers.created'] || 0) > 0).map((x) => Number(x.period)).filter(Number.isFinite);
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
const arrivalsText = (a) => (a.periods <= 3 ? `within ${RAMP_S} s as planned` : `over about ${a.lo}–${a.hi} s instead of ${RAMP_S} s`);

/** Artillery's measured window (first to last metric), with a second of slack. */
const windowOf = (a) => (a && a.firstMetricAt && a.lastMetricAt ? { from: a.firstMetricAt - 1000, to: a.lastMetricAt + 1500 } : null);
const windowS = (a) => (a && a.lastMetricAt && a.firstMetricAt ? Math.max(1, (a.lastMetricAt - a.firstMetricAt) / 1000) : null);

/** Our rows for one case, each like a row of the seed's tables. */
export function caseRows(scenario, a, prefix = '') {
  if (!a) return [];
  const c = a.counters || {};
  const all = a.summaries || {};
  // prefix 'measured.': the soak's histograms after its warm-up (the processor keeps them apart).
  const s = new Proxy(all, { get: (o, k) => o[`${prefix}${String(k)}`] });
  const dur = windowS(a);
  const rows = [];
  const vusers = c['vusers.created'] || 0;
  const add = (kind, label, sum, samples, errorsPct, throughput, unit) => {
    rows.push({ kind, label, sum: sum ?? null, samples, errorsPct, throughput, unit });
  };
  // Failures by transport, from the error codes the processor gives (ws_*, sse_*, page_*, poll_*);
  // anything else (ETIMEDOUT, ECONNRESET of Artillery's http engine) comes from polls.
  const errs = { ws: 0, sse: 0, page: 0, poll: 0 };
  for (const [k, v] of Object.entries(c)) {
    if (!k.startsWith('errors.')) continue;
    const code = k.slice(7);
    const t = /^(ws|sse|page)_/.exec(code)?.[1] ?? 'poll';
    errs[t] += v;
  }
  const byName = (t) => c[`vusers.created_by_name.${t}`] ?? (scenario === t ? vusers : 0);
  const page = () => {
    const att = c['page.attempts'] || 0;
    add('page', 'page load (whole page)', s['page.load_time'], att, att ? (100 * (c['page.failed'] || 0)) / att : null, dur ? (c['page.loads'] || 0) / dur : null, 'pages/s');
    rows.at(-1).clients = att;
  };
  const poll = () => {
    const req = c['http.requests'] || 0;
    const ok = c['http.codes.200'] || 0;
    if (scenario === 'mixed' && !byName('poll')) return;
    add('poll', 'poll (response time)', s['poll.response_time'] ?? s['http.response_time'], req, req ? (100 * (req - ok)) / req : null, dur ? req / dur : null, 'req/s');
    rows.at(-1).clients = byName('poll');
  };
  const push = (t) => {
    const name = t === 'ws' ? 'WebSocket' : 'SSE';
    const clients = byName(t);
    if (scenario === 'mixed' && !clients) return;
    add('push', `push latency (${name})`, s[`push_latency_${t}`], s[`push_latency_${t}`]?.count ?? 0, clients ? (100 * errs[t]) / clients : null, dur ? (c[`${t}.deltas`] || 0) / dur : null, 'msg/s');
    rows.at(-1).clients = clients;
  };
  switch (scenario) {
    case 'poll': page(); poll(); break;
    case 'page': page(); break;
    case 'ws': push('ws'); break;
    case 'sse': push('sse'); break;
    case 'mixed': page(); push('ws'); push('sse'); poll(); break;
    default: break;
  }
  return rows;
}

function errorsOf(a) {
  return Object.entries(a?.counters || {}).filter(([k]) => k.startsWith('errors.')).map(([k, v]) => `${k.slice(7)} × ${v}`);
}

// ---------------------------------------------------------------- formatting

const f0 = (v) => (v == null || !Number.isFinite(v) ? '' : Math.round(v).toLocaleString('en-US'));
const f1 = (v) => (v == null || !Number.isFinite(v) ? '' : v < 10 ? v.toFixed(1) : Math.round(v).toLocaleString('en-US'));
const ms = (v) => (v == null || !Number.isFinite(v) ? '' : v < 10 ? v.toFixed(1) : Math.round(v).toLocaleString('en-US'));
const pct = (v) => (v == null || !Number.isFinite(v) ? '' : v === 0 ? '0' : v < 0.1 ? v.toFixed(3) : v.toFixed(2));
// Binary megabytes (2^20 bytes), named so: RSS and byte counts.
const mb = (b) => (b == null ? '' : `${(b / 2 ** 20).toFixed(0)} MiB`);
const esc = (s) => String(s ?? '').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

const HEAD = ['', 'Clients', 'Samples', 'Avg', 'Min', 'Median', 'Max', 'p90', 'p95', 'p99', 'Error %', 'Throughput', 'Server CPU avg / peak', 'Server RSS max', 'Loop lag max'];

function tableRows(k, seed) {
  const { scenario, users } = k.rec;
  const m = machineStats(k.samples, ['measured'], windowOf(k.measured));
  const server = [
    m.serverCpu?.avg != null ? `${f0(m.serverCpu.avg)}% / ${f0(m.serverCpu.peak)}%` : '',
    mb(m.rssMax),
    m.lagMax != null ? `${ms(m.lagMax)} ms` : '',
  ];
  const out = [];
  for (const r of caseRows(scenario, k.measured)) {
    const s = r.sum || {};
    out.push({
      ours: true,
      cells: [`scorecast: ${r.label}`, f0(r.clients ?? users), f0(r.samples), ms(s.mean), ms(s.min), ms(s.median ?? s.p50), ms(s.max), ms(s.p90), ms(s.p95), ms(s.p99), pct(r.errorsPct), r.throughput != null ? `${f1(r.throughput)} ${r.unit}` : '', ...server],
    });
    for (const z of seedFor(seed, scenario, r.kind, users)) {
      out.push({
        ours: false,
        cells: [`ZScore 2019 #${z.case} ${z.client} ${z.request}, ${z.connection}${z.firewall === 'yes' ? ', firewall' : ''}${scenario === 'sse' ? ' (WebSocket)' : ''}${z.note ? ` [${z.note}]` : ''}`,
          f0(z.clients), f0(z.samples), ms(z.avg_ms), ms(z.min_ms), ms(z.median_ms), ms(z.max_ms), ms(z.p90_ms), ms(z.p95_ms), ms(z.p99_ms), z.errors_pct == null ? '' : pct(z.errors_pct), '', '', '', ''],
      });
    }
  }
  return out;
}

function warmupRow(k) {
  if (!k.warmup) return null;
  const rows = caseRows(k.rec.scenario, k.warmup);
  return rows.map((r) => `${r.label}: ${f0(r.samples)} samples, avg ${ms(r.sum?.mean)} ms, p99 ${ms(r.sum?.p99)} ms, max ${ms(r.sum?.max)} ms${r.errorsPct == null ? '' : `, errors ${pct(r.errorsPct)}%`}`).join('; ');
}

function machineLine(k) {
  const m = machineStats(k.samples, ['measured'], windowOf(k.measured));
  const parts = [];
  if (m.serverCpu?.avg != null) parts.push(`server CPU ${f0(m.serverCpu.avg)}% avg, ${f0(m.serverCpu.peak)}% peak (of one core)`);
  if (m.rssStart) parts.push(`server RSS ${mb(m.rssStart)} → max ${mb(m.rssMax)}`);
  if (m.fanoutAvgMs != null && ['ws', 'sse', 'mixed'].includes(k.rec.scenario)) parts.push(`server fan-out (change → last socket write) ${ms(m.fanoutAvgMs)} ms avg`);
  if (m.lagMax != null) parts.push(`server event-loop delay max ${ms(m.lagMax)} ms (median of per-second p99 ${ms(m.lagP99Median)} ms)`);
  if (m.loadgenCpu?.avg != null) parts.push(`load generator (Artillery) CPU ${f0(m.loadgenCpu.avg)}% avg, ${f0(m.loadgenCpu.peak)}% peak (of one core), RSS max ${mb(m.loadgenRssMax)}`);
  const cl = k.trace.length ? Math.max(0, Math.max(...k.trace.map((t) => t.loopMaxMs)) - CLIENT_LAG_RESOLUTION_MS) : null;
  if (cl != null) parts.push(`load generator event-loop delay max ${ms(cl)} ms`);
  if (m.machineBusy) parts.push(`machine ${f0(m.machineBusy.avg)}% avg, ${f0(m.machineBusy.peak)}% peak busy (of ${m.cores ?? '?'} cores)`);
  if (m.softirq != null) parts.push(`kernel softirq (loopback TCP, charged to no process) ${f0(m.softirq)}% of one core`);
  if (m.otherCpu != null) parts.push(`other processes${m.softirq == null ? ' and unattributed kernel time' : ''} ${f0(m.otherCpu)}% avg, ${f0(m.otherPeak)}% peak (of one core)`);
  if (m.clientsPeak) parts.push(`peak connections on the server ${f0(m.clientsPeak)}`);
  if (m.dropped) parts.push(`server dropped ${m.dropped} slow connections`);
  if (m.scrapeErrors) parts.push(`${m.scrapeErrors} /metrics scrapes timed out`);
  return parts.join('; ');
}

function countersLine(k) {
  const c = k.measured?.counters || {};
  const parts = [];
  if (c['taps.sent']) parts.push(`taps sent ${c['taps.sent']}: answered SC_ERR_NO_VOTE_WINDOW ${c['taps.no_vote_window'] ?? 0} (the seed profile has no vote window; not failures)${['voted', 'already_voted', 'unknown_tile'].filter((k) => c[`taps.${k}`]).map((k) => `, ${k.replace('_', ' ')} ${c[`taps.${k}`]}`).join('')}`);
  for (const t of ['ws', 'sse']) if (c[`${t}.resyncs`]) parts.push(`${t} clients resynced by snapshot (fell behind) ${c[`${t}.resyncs`]} times`);
  if (c['page.bytes']) parts.push(`page bytes ${mb(c['page.bytes'])} in ${c['page.requests']} requests`);
  const s = k.measured?.summaries || {};
  if (s['poll.staleness']) parts.push(`poll staleness (receipt − t, includes the 500 ms poll interval) p99 ${ms(s['poll.staleness'].p99)} ms, max ${ms(s['poll.staleness'].max)} ms`);
  if (s['ws.connect_time']) parts.push(`WebSocket connect p99 ${ms(s['ws.connect_time'].p99)} ms`);
  if (s['sse.connect_time']) parts.push(`SSE connect p99 ${ms(s['sse.connect_time'].p99)} ms`);
  const e = errorsOf(k.measured);
  parts.push(e.length ? `errors: ${e.join(', ')}` : 'errors: none');
  return parts.join('; ');
}

// ---------------------------------------------------------------- plots

const PRIMARY = { ws: ['push_latency'], sse: ['push_latency'], poll: ['poll.response_time', 'page.load_time'], page: ['page.load_time'], mixed: ['push_latency', 'page.load_time', 'poll.response_time'] };
const METRIC_LABEL = { push_latency: 'push latency', 'page.load_time': 'page load', 'poll.response_time': 'poll response' };

function overTimePlot(k) {
  const start = k.rec.runs?.measured?.start ?? k.trace[0]?.ts ?? 0;
  const series = [];
  for (const name of PRIMARY[k.rec.scenario] ?? []) {
    const pts = k.trace.filter((t) => t.metrics[name]);
    if (pts.length === 0) continue;
    const x = (t) => (t.ts - start) / 1000;
    series.push({ name: `${METRIC_LABEL[name]} max`, points: pts.map((t) => [x(t), t.metrics[name].max]), dash: name === 'push_latency' ? undefined : '5 3' });
    series.push({ name: `${METRIC_LABEL[name]} p50`, points: pts.map((t) => [x(t), t.metrics[name].p50]), dash: name === 'push_latency' ? undefined : '5 3' });
  }
  if (k.rec.scenario === 'page') {
    // Page loads last milliseconds: the number finished per second says more than a count of open ones.
    series.push({ name: 'pages loaded per second', points: k.trace.map((t) => [(t.ts - start) / 1000, t.metrics['page.load_time']?.n ?? 0]), axis: 'right', color: '#999', dash: '2 2' });
  } else {
    const active = k.trace.map((t) => [(t.ts - start) / 1000, Object.values(t.active).reduce((a, b) => a + b, 0)]);
    series.push({ name: 'active clients', points: active, axis: 'right', color: '#999', dash: '2 2' });
  }
  const hasPush = (PRIMARY[k.rec.scenario] ?? []).includes('push_latency');
  const hasPage = (PRIMARY[k.rec.scenario] ?? []).includes('page.load_time');
  return lineChart({
    title: `${k.rec.scenario} at ${k.rec.users} users: latency per second`,
    xLabel: 'seconds since the measured run started', yLabel: 'ms', yLog: true, series,
    rightLabel: k.rec.scenario === 'page' ? 'pages/s' : 'clients',
    hLines: [...(hasPush ? [{ y: BUDGET.pushMax, label: 'push budget 1 s' }] : []), ...(hasPage ? [{ y: BUDGET.pageP99, label: 'page budget 5 s (p99)', color: '#a60' }] : [])],
  });
}

function serverPlot(k) {
  const start = k.rec.runs?.measured?.start ?? 0;
  const rows = k.samples.filter((s) => s.phase !== 'idle');
  const cpu = [];
  const gen = [];
  for (let i = 1; i < rows.length; i++) {
    const dt = rows[i].ts - rows[i - 1].ts;
    const a = rows[i].serverProc?.cpuMs ?? rows[i].server?.cpuS * 1000;
    const b = rows[i - 1].serverProc?.cpuMs ?? rows[i - 1].server?.cpuS * 1000;
    if (dt > 0 && Number.isFinite(a) && Number.isFinite(b)) cpu.push([(rows[i].ts - start) / 1000, ((a - b) / dt) * 100]);
    const la = rows[i].loadgen?.cpuMs;
    const lb = rows[i - 1].loadgen?.cpuMs;
    if (dt > 0 && Number.isFinite(la) && Number.isFinite(lb)) gen.push([(rows[i].ts - start) / 1000, ((la - lb) / dt) * 100]);
  }
  const lag = rows.filter((s) => s.server?.lagMaxS != null).map((s) => [(s.ts - start) / 1000, Math.max(0, s.server.lagMaxS * 1000 - LAG_RESOLUTION_MS)]);
  const warm = k.rec.runs?.warmup;
  return lineChart({
    title: `${k.rec.scenario} at ${k.rec.users} users: CPU and event-loop delay`,
    xLabel: 'seconds since the measured run started', yLabel: '% of one core', yMin: 0,
    series: [
      { name: 'server CPU', points: cpu, color: '#d62728' },
      { name: 'Artillery CPU', points: gen, color: '#1f77b4' },
      { name: 'server loop delay max ms', points: lag, axis: 'right', color: '#2ca02c' },
    ],
    rightLabel: 'ms',
    bands: warm ? [{ x0: (warm.start - start) / 1000, x1: 0, label: 'warm-up' }] : [],
  });
}

/** Latency against users for one scenario over the campaign's cases (or a stress run's steps). */
function usersPlot(title, cases, metricOf, budget, breakAt, retries = []) {
  const pts = cases.filter((k) => k.measured).map((k) => ({ users: k.rec.users, s: metricOf(k) })).filter((p) => p.s).sort((a, b) => a.users - b.users);
  const series = ['p50', 'p95', 'p99', 'max'].map((q) => ({ name: q, points: pts.map((p) => [p.users, p.s[q === 'p50' ? 'median' : q] ?? p.s[q]]), marker: true }));
  // Stress: the lines are each step's first run; a step that broke a budget was run again, and
  // that confirming run's value of the budgeted statistic is drawn as a separate ring.
  const again = retries.filter((k) => k.measured && metricOf(k)).map((k) => [k.rec.users, metricOf(k)[budget?.q ?? 'max']]);
  if (again.length) series.push({ name: `${budget?.q ?? 'max'}, confirming run`, points: again, color: '#000', line: false });
  return lineChart({
    title, xLabel: 'users', yLabel: 'ms', yLog: true, series,
    hLines: budget ? [{ y: budget.y, label: budget.label }] : [],
    vLines: breakAt ? [{ x: breakAt, label: `broke at ${breakAt}` }] : [],
    xTicks: [...new Set(pts.map((p) => p.users))],
  });
}

/** Steps that broke a budget and then passed when run again. */
const flakySteps = (st) => [...new Set(st.steps.filter((x) => x.attempt > 0 && x.passed).map((x) => x.users))];
const summaryOf = (name) => (k) => k.measured?.summaries?.[name];
const pollSum = (k) => k.measured?.summaries?.['poll.response_time'] ?? k.measured?.summaries?.['http.response_time'];

// ---------------------------------------------------------------- the document

function htmlTable(head, rows, cls = '') {
  return `<table class="${cls}"><thead><tr>${head.map((h) => `<th>${esc(h)}</th>`).join('')}</tr></thead><tbody>${rows.map((r) => `<tr class="${r.ours === false ? 'seed' : 'ours'}">${(r.cells ?? r).map((c, i) => `<td${i ? '' : ' class="label"'}>${esc(c)}</td>`).join('')}</tr>`).join('')}</tbody></table>`;
}

function mdTable(head, rows) {
  const line = (cells) => `| ${cells.map((c) => String(c ?? '').replace(/\|/g, '\\|')).join(' | ')} |`;
  return [line(head), line(head.map((_, i) => (i === 0 ? '---' : '---:'))), ...rows.map((r) => line(r.cells ?? r))].join('\n');
}

const verdict = (rec) => (rec.passed ? 'budgets ok' : `budget broken: ${(rec.broken || []).join('; ')}`);

/**
 * Write report.html, report.md and plots/*.svg into `outDir`.
 * @param {string[]} inputs result directories
 * @param {string} outDir
 */
export function writeReport(inputs, outDir) {
  const found = collect(inputs);
  const seed = loadSeed();
  mkdirSync(path.join(outDir, 'plots'), { recursive: true });
  const html = [];
  const md = [];
  const plots = [];
  const plot = (name, svg, inMd = false) => {
    writeFileSync(path.join(outDir, 'plots', `${name}.svg`), svg);
    plots.push(name);
    html.push(`<figure>${svg}</figure>`);
    if (inMd) md.push(`![${name}](plots/${name}.svg)\n`);
  };
  const h = (level, text, id) => { html.push(`<h${level}${id ? ` id="${id}"` : ''}>${esc(text)}</h${level}>`); md.push(`${'#'.repeat(level)} ${text}\n`); };
  const p = (text) => { html.push(`<p>${esc(text)}</p>`); md.push(`${text}\n`); };
  const table = (head, rows, cls) => { html.push(htmlTable(head, rows, cls)); md.push(`${mdTable(head, rows)}\n`); };

  const allCases = [...found.campaigns.flatMap((c) => c.cases), ...found.cases, ...found.stresses.flatMap((s) => s.steps.map((x) => x.data).filter(Boolean))];
  const anyRec = allCases[0]?.rec ?? found.soaks[0]?.rec;
  h(1, 'scorecast load tests');
  p(`Generated ${new Date().toISOString()} from ${inputs.map((i) => path.relative(QA_DIR, i) || '.').join(', ')}.`);
  if (anyRec) {
    const host = allCases[0]?.rec.host;
    p(`Server: ${anyRec.server?.command ?? ''}; source ${anyRec.server?.source ?? '?'}. ${host ? `Load generator: Artillery ${host.artillery} on Node ${host.node}, on the same machine as the server (${host.cpus} cores, ${host.memGiB} GiB).` : ''}`);
  }
  p('How to read: every latency is in milliseconds. "scorecast" rows are ours; the rows under them are the seed report (ZScore, 2019) for the same kind of request and the same number of clients, where it has one. Push latency = time of receipt − the envelope\'s t (server wall time when the change was produced); page load = the whole page (HTML, JS, CSS, /api/score and the preload audio, ≈ 1.9 MB) for one client; poll = one /live/poll response. Error % = failed pages / pages, failed polls / polls, failed clients / clients (push rows). Throughput = samples per second of the measured run. Server CPU is % of one core (from /proc), RSS the server\'s resident memory, loop lag the server\'s event-loop delay (prom-client, less its ' + LAG_RESOLUTION_MS + ' ms sampling interval). Each case ran a small warm-up first; its numbers are shown apart and are not in the tables. Budgets: page load p99 ≤ 5 s, push latency max ≤ 1 s, no failed client. Percentiles (median, p90, p95, p99) are Artillery\'s, read from a sketch with 1% relative accuracy (DDSketch) and shown as Artillery reported and checked them; min, max and avg are exact, so a p99 may read up to 1% above the max.');

  // ---- campaign summary
  for (const camp of found.campaigns) {
    h(2, `Campaign ${path.basename(camp.dir)}`, 'campaign');
    p(`Command: ${camp.rec.command}. Each case: a fresh server, a warm-up run, then the measured run.`);
    const users = [...new Set(camp.cases.map((k) => k.rec.users))].sort((a, b) => a - b);
    const scen = [...new Set(camp.cases.map((k) => k.rec.scenario))];
    const key = (k) => {
      const s = k.measured?.summaries || {};
      const bits = [];
      if (s.push_latency) bits.push(`push p99 ${ms(s.push_latency.p99)} / max ${ms(s.push_latency.max)}`);
      if (s['page.load_time']) bits.push(`page p99 ${ms(s['page.load_time'].p99)}`);
      const pr = s['poll.response_time'] ?? s['http.response_time'];
      if (pr && k.rec.scenario === 'poll') bits.push(`poll p99 ${ms(pr.p99)}`);
      const fail = k.measured?.counters?.['vusers.failed'] || 0;
      if (fail) bits.push(`${fail} failed`);
      const mm = machineStats(k.samples, ['measured'], windowOf(k.measured));
      if (mm.otherCpu > SHARED_PCT) bits.push(`[shared machine: others ${f0(mm.otherCpu)}% avg, ${f0(mm.otherPeak)}% peak]`);
      const ar = arrivals(k);
      if (ar?.late) bits.push(`[load generator late: arrivals took ${ar.lo}–${ar.hi} s, not ${RAMP_S}; at most ${f0(ar.activePeak)} clients in flight at a time]`);
      return `${k.rec.passed ? 'ok' : 'BROKEN'}: ${bits.join(', ')}`;
    };
    table(['scenario', ...users.map((u) => `${u} users`)], scen.map((s) => [s, ...users.map((u) => { const k = camp.cases.find((c) => c.rec.scenario === s && c.rec.users === u); return k ? key(k) : ''; })]), 'grid');
    md.push('Latency against users, per scenario (plots/ next to this file):\n');
    for (const s of scen) {
      const cs = camp.cases.filter((k) => k.rec.scenario === s);
      if (['ws', 'sse', 'mixed'].includes(s)) plot(`campaign-${s}-push-vs-users`, usersPlot(`${s}: push latency against users`, cs, summaryOf(s === 'mixed' ? 'push_latency' : 'push_latency'), { y: BUDGET.pushMax, label: 'budget: max 1 s' }), true);
      if (['poll', 'page', 'mixed'].includes(s)) plot(`campaign-${s}-page-vs-users`, usersPlot(`${s}: page load against users`, cs, summaryOf('page.load_time'), { y: BUDGET.pageP99, label: 'budget: p99 5 s' }), true);
      if (['poll', 'mixed'].includes(s) && cs.some((k) => pollSum(k))) plot(`campaign-${s}-poll-vs-users`, usersPlot(`${s}: poll response time against users`, cs, pollSum), true);
    }
  }

  // ---- stress
  for (const st of found.stresses) {
    const r = st.rec;
    h(2, `Stress: ${r.transport} (${path.basename(st.dir)})`, `stress-${r.transport}`);
    p(`Command: ${r.command}. ${r.breakingPoint ? `Breaking point: ${r.breakingPoint} users (${(r.breakingBudgets || []).join('; ')}); last step within budget: ${r.lastGood ?? 'none'}.` : r.stopped ? `${r.stopped[0].toUpperCase()}${r.stopped.slice(1)}.` : ''}${flakySteps(st).length ? ` Borderline: at ${flakySteps(st).join(', ')} users a budget broke once and the confirming run passed.` : ''}`);
    const rows = st.steps.filter((x) => x.data).map((x) => {
      const k = x.data;
      const s = k.measured?.summaries || {};
      const m = machineStats(k.samples, ['measured'], windowOf(k.measured));
      const main = r.transport === 'poll' ? s['page.load_time'] : s.push_latency;
      const c = k.measured?.counters || {};
      return [
        `${x.users}${x.attempt ? ` (retry ${x.attempt})` : ''}`, x.passed ? 'ok' : `broken: ${x.broken.join('; ')}`,
        ms(main?.median), ms(main?.p95), ms(main?.p99), ms(main?.max),
        r.transport === 'poll' ? ms((s['poll.response_time'] ?? s['http.response_time'])?.p99) : '',
        `${c['vusers.failed'] || 0} / ${c['vusers.created'] || 0}`,
        (() => { const ar = arrivals(k); return ar ? `${ar.periods <= 3 ? `≤ ${ar.hi}` : `${ar.lo}–${ar.hi}`} s / ${f0(ar.activePeak)}` : ''; })(),
        ms(m.fanoutAvgMs),
        k.trace.length ? ms(Math.max(0, Math.max(...k.trace.map((t) => t.loopMaxMs)) - CLIENT_LAG_RESOLUTION_MS)) : '',
        m.serverCpu?.avg != null ? `${f0(m.serverCpu.avg)}% / ${f0(m.serverCpu.peak)}%` : '', mb(m.rssMax), ms(m.lagMax),
        m.loadgenCpu?.avg != null ? `${f0(m.loadgenCpu.avg)}% / ${f0(m.loadgenCpu.peak)}%` : '',
        m.machineBusy ? `${f0(m.machineBusy.avg)}% / ${f0(m.machineBusy.peak)}%` : '',
        m.otherCpu != null ? `${f0(m.otherCpu)}%` : '',
      ];
    });
    const head = ['users', 'verdict', r.transport === 'poll' ? 'page p50' : 'push p50', 'p95', 'p99', 'max', 'poll p99', 'failed / clients', 'arrivals over / most in flight', 'server fan-out avg', 'Artillery loop delay max', 'server CPU avg / peak', 'server RSS', 'server loop lag max', 'Artillery CPU avg / peak', 'machine busy avg / peak', 'others'];
    // The poll column only for polling; the server's fan-out (scorecast_push_lag_seconds, a change
    // to its last socket write) only for the push transports: polls are not pushed.
    const drop = r.transport === 'poll' ? 9 : 6;
    table(head.filter((_, n) => n !== drop), rows.map((row) => row.filter((_, n) => n !== drop)));
    p(`Arrivals over: how long Artillery took to start the step's clients (planned: ${RAMP_S} s; read from its 10 s report periods, so "≤ 30 s" means on schedule); most in flight: the most clients started and not yet finished at the end of one of Artillery's 10 s periods (its counters; a lower bound of the true peak). A step whose arrivals took much longer than planned put fewer clients on the server at a time than its user count.`);
    const cs = st.steps.filter((x) => x.data && !x.attempt).map((x) => x.data);
    const retried = st.steps.filter((x) => x.data && x.attempt).map((x) => x.data);
    if (r.transport === 'poll') {
      plot(`stress-poll-page-vs-users`, usersPlot('stress poll: page load against users', cs, summaryOf('page.load_time'), { y: BUDGET.pageP99, label: 'budget: p99 5 s', q: 'p99' }, r.breakingPoint, retried), true);
      plot(`stress-poll-poll-vs-users`, usersPlot('stress poll: poll response against users', cs, pollSum, null, r.breakingPoint), true);
    } else {
      plot(`stress-${r.transport}-push-vs-users`, usersPlot(`stress ${r.transport}: push latency against users`, cs, summaryOf('push_latency'), { y: BUDGET.pushMax, label: 'budget: max 1 s', q: 'max' }, r.breakingPoint, retried), true);
    }
  }

  // ---- soak
  for (const so of found.soaks) {
    const r = so.rec;
    h(2, `Soak (${path.basename(so.dir)})`, 'soak');
    p(`Command: ${r.command}. ${r.plan}. Verdict: ${r.passed ? 'passed' : `FAILED: ${r.broken.join('; ')}`}.`);
    const from = r.rss.baselineFrom && r.startedAt ? ` from minute ${((r.rss.baselineFrom - Date.parse(r.startedAt)) / 60000).toFixed(1)}` : '';
    const why = r.rss.historyFullAt == null ? '' : r.rss.historyFilled ? `, once the warm-up was over and the resync history full (${r.rss.historyDeltas} deltas)` : ', the run being too short for the resync history to fill';
    p(`RSS after warm-up (median of the first ${r.rss.windowS == null ? '?' : Math.round(r.rss.windowS)} s counted${from}${why}) ${mb(r.rss.baseline)}, at the end ${mb(r.rss.end)}: ${r.rss.growthPct == null ? '?' : `${r.rss.growthPct.toFixed(1)}%`} (budget ≤ 10%); max ${mb(r.rss.max)}.`);
    const soakRows = (prefix) => caseRows('mixed', so.measured, prefix).map((x) => { const q = x.sum || {}; return [x.label, f0(prefix ? q.count : x.samples), ms(q.mean), ms(q.min), ms(q.median), ms(q.max), ms(q.p90), ms(q.p95), ms(q.p99), prefix ? '' : pct(x.errorsPct), prefix ? '' : x.throughput != null ? `${f1(x.throughput)} ${x.unit}` : '']; });
    table(['measured part (after warm-up)', 'Samples', 'Avg', 'Min', 'Median', 'Max', 'p90', 'p95', 'p99', 'Error %', 'Throughput'], soakRows('measured.'));
    table(['whole soak (warm-up included)', 'Samples', 'Avg', 'Min', 'Median', 'Max', 'p90', 'p95', 'p99', 'Error %', 'Throughput'], soakRows(''));
    const c = so.measured?.counters || {};
    p(`Clients ${f0(c['vusers.created'])}, failed ${f0(c['vusers.failed'] || 0)} (whole soak); ${errorsOf(so.measured).length ? `errors: ${errorsOf(so.measured).join(', ')}` : 'no errors'}; taps sent ${f0(c['taps.sent'] || 0)}, answered SC_ERR_NO_VOTE_WINDOW ${f0(c['taps.no_vote_window'] || 0)} (not failures). Samples of the measured part count the clients' histograms after the warm-up; failures are counted over the whole soak.`);
    const mW = machineStats(so.samples, ['warmup']);
    const mM = machineStats(so.samples, ['measured']);
    table(['part', 'server CPU avg / peak', 'server RSS start → max', 'loop lag max', 'Artillery CPU avg / peak', 'machine busy avg / peak', 'peak connections'], [['warm-up', mW], ['measured', mM]].map(([n, m]) => [n,
      m.serverCpu?.avg != null ? `${f0(m.serverCpu.avg)}% / ${f0(m.serverCpu.peak)}%` : '', `${mb(m.rssStart)} → ${mb(m.rssMax)}`, ms(m.lagMax),
      m.loadgenCpu?.avg != null ? `${f0(m.loadgenCpu.avg)}% / ${f0(m.loadgenCpu.peak)}%` : '', m.machineBusy ? `${f0(m.machineBusy.avg)}% / ${f0(m.machineBusy.peak)}%` : '', f0(m.clientsPeak)]));
    const start = r.runs.measured.start;
    const wEnd = (r.runs.measured.warmupEnd - start) / 1000;
    const rssPts = so.samples.filter((s) => s.serverProc?.rss ?? s.server?.rss).map((s) => [(s.ts - start) / 60000, (s.serverProc?.rss ?? s.server.rss) / 2 ** 20]);
    const conn = so.samples.map((s) => [(s.ts - start) / 60000, Object.values(s.server?.clients ?? {}).reduce((a, b) => a + b, 0)]);
    plot('soak-rss', lineChart({
      title: 'soak: server RSS and connections', xLabel: 'minutes', yLabel: 'MiB', yMin: 0,
      series: [{ name: 'RSS', points: rssPts, color: '#d62728' }, { name: 'connections', points: conn, axis: 'right', color: '#999' }],
      rightLabel: 'connections', bands: [{ x0: 0, x1: wEnd / 60, label: 'warm-up' }, ...(r.runs.measured.drainStart ? [{ x0: (r.runs.measured.drainStart - start) / 60000, x1: Infinity, label: 'drain' }] : [])],
      hLines: r.rss.baseline ? [{ y: (r.rss.baseline * 1.1) / 2 ** 20, label: '+10% of RSS after warm-up' }] : [],
    }), true);
    const per = (so.intermediate || []).map((x) => ({ t: (Number(x.period) - start) / 60000, s: x.summaries || {} }));
    plot('soak-latency', lineChart({
      title: 'soak: latency per 10 s period', xLabel: 'minutes', yLabel: 'ms', yLog: true,
      series: [
        { name: 'push p99', points: per.filter((x) => x.s.push_latency).map((x) => [x.t, x.s.push_latency.p99]) },
        { name: 'push max', points: per.filter((x) => x.s.push_latency).map((x) => [x.t, x.s.push_latency.max]) },
        { name: 'page p99', points: per.filter((x) => x.s['page.load_time']).map((x) => [x.t, x.s['page.load_time'].p99]) },
        { name: 'poll p99', points: per.filter((x) => x.s['poll.response_time']).map((x) => [x.t, x.s['poll.response_time'].p99]) },
      ],
      bands: [{ x0: 0, x1: wEnd / 60, label: 'warm-up' }], hLines: [{ y: BUDGET.pushMax, label: 'push budget 1 s' }],
    }), true);
    p(`Loopback only: ${r.loopbackOnly ? 'yes' : 'NO'} (${r.sampling.net.checks} socket checks, ${r.sampling.net.offLoopbackOurs} non-loopback sockets of the server or Artillery).`);
  }

  // ---- every case
  const groups = [
    ...found.campaigns.map((c) => ({ title: `Test cases of ${path.basename(c.dir)}`, cases: c.cases })),
    ...found.stresses.map((s) => ({ title: `Steps of stress ${s.rec.transport} (${path.basename(s.dir)})`, cases: s.steps.filter((x) => x.data).map((x) => Object.assign(x.data, { runLabel: x.attempt ? ` (confirming run ${x.attempt})` : '' })) })),
    ...(found.cases.length ? [{ title: 'Single runs', cases: found.cases }] : []),
  ];
  for (const g of groups) {
    h(2, g.title);
    for (const k of g.cases) {
      const r = k.rec;
      h(3, `${r.scenario} at ${r.users} users${k.runLabel ?? ''}: ${verdict(r)}`);
      p(`${r.runs?.measured?.plan ?? ''}.`);
      const ar = arrivals(k);
      if (ar) p(`Arrivals: Artillery started the ${f0(k.measured?.counters?.['vusers.created'])} clients ${arrivalsText(ar)} (from its 10 s report periods); at most ${f0(ar.activePeak)} were in flight at the end of a period.${ar.late ? ' The load generator fell behind its schedule (see its CPU and event-loop delay below), so the server had fewer clients at a time than the user count says.' : ''}`);
      table(HEAD, tableRows(k, seed), 'case');
      if (['ws', 'sse', 'poll', 'page'].includes(r.scenario) && !seedFor(seed, r.scenario, r.scenario === 'poll' || r.scenario === 'page' ? 'page' : 'push', r.users).length) {
        p(`The seed report has no ${r.scenario === 'poll' ? 'JMeter' : 'custom-client'} case with ${r.users} clients.`);
      }
      if (r.scenario === 'mixed') p('The seed report has no mixed-audience case.');
      p(`Machine: ${machineLine(k)}.`);
      p(`Counters: ${countersLine(k)}.`);
      const w = warmupRow(k);
      if (w) p(`Warm-up (${r.runs.warmup.users} users, kept apart from the table): ${w}.`);
      const checks = r.runs?.measured?.checks ?? [];
      p(`Budgets (Artillery ensure): ${checks.map((c) => `${c.ok ? 'ok' : 'FAIL'} ${c.expression}${c.strict ? '' : ' (informational)'}`).join('; ') || 'none printed'}. Artillery exit code ${r.runs?.measured?.exitCode}.`);
      p(`Loopback only: ${r.loopbackOnly ? 'yes' : 'NO'} (${r.sampling?.net?.checks ?? 0} socket checks; ${r.sampling?.net?.offLoopbackOurs ?? '?'} non-loopback sockets of the server or Artillery).`);
      if (k.trace.length) {
        const svg1 = overTimePlot(k);
        const svg2 = serverPlot(k);
        html.push(`<div class="pair"><figure>${svg1}</figure><figure>${svg2}</figure></div>`);
      }
    }
  }

  const css = `body{font:14px/1.45 system-ui,sans-serif;margin:24px auto;max-width:1320px;padding:0 16px;color:#222}
h1{font-size:24px}h2{font-size:19px;margin-top:36px;border-bottom:1px solid #ccc;padding-bottom:4px}h3{font-size:15px;margin-top:28px}
table{border-collapse:collapse;margin:8px 0 12px;font-size:12px;font-variant-numeric:tabular-nums}
th,td{border:1px solid #ccc;padding:3px 6px;text-align:right;vertical-align:top}th{background:#f0f0f0}
td.label{text-align:left;white-space:nowrap}tr.seed td{color:#666;background:#fafafa;font-style:italic}
table.case td.label{max-width:420px;white-space:normal}table.grid td{text-align:left;max-width:260px}
figure{margin:8px 0;display:inline-block}.pair{display:flex;gap:12px;flex-wrap:wrap}
p{max-width:1100px}`;
  const page = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>scorecast load tests</title><meta name="viewport" content="width=device-width,initial-scale=1"><style>${css}</style></head><body>${html.join('\n')}</body></html>\n`;
  const htmlFile = path.join(outDir, 'report.html');
  const mdFile = path.join(outDir, 'report.md');
  writeFileSync(htmlFile, page);
  writeFileSync(mdFile, `${md.join('\n')}\n`);
  return { html: htmlFile, md: mdFile, plots };
}

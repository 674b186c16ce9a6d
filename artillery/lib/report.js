// The report: Artillery's JSON reports, the server/machine samples and the client traces of
// campaign, stress, soak and single runs, as one self-contained HTML page (inline SVG, no
// scripts, nothing fetched) and a Markdown file, with the seed report's numbers beside ours.
// This file writes the document; report/ holds its parts: load.js (finding and reading the
// results), seed.js (the seed report), stats.js (the numbers), format.js (numbers and tables
// as text), case-lines.js (what is said about one case) and plots.js (the SVG plots).

import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { QA_DIR } from './env.js';
import { lineChart } from './svg.js';
import { RAMP_S } from './plans.js';
import { collect } from './report/load.js';
import { loadSeed, seedFor } from './report/seed.js';
import {
  BUDGET,
  LAG_RESOLUTION_MS,
  SHARED_PCT,
  arrivals,
  arrivalsText,
  caseRows,
  errorsOf,
  machineStats,
  windowOf,
} from './report/stats.js';
import { esc, f0, f1, htmlTable, mb, mdTable, ms, pct } from './report/format.js';
import { HEAD, clientLagMax, countersLine, machineLine, tableRows, warmupRow } from './report/case-lines.js';
import { overTimePlot, pollSum, serverPlot, summaryOf, usersPlot } from './report/plots.js';
import { onsetPlot } from '../../infra/audio-lab/plot.js';

export { collect } from './report/load.js';
export { loadSeed } from './report/seed.js';
export { caseRows, machineStats } from './report/stats.js';

/** @typedef {import('./report/load.js').LoadedCase} LoadedCase */
/** @typedef {import('./report/format.js').TableRow} TableRow */

/**
 * The cases of the steps that have one.
 * @param {import('./report/load.js').LoadedStep[]} steps
 * @returns {LoadedCase[]}
 */
const stepCases = (steps) => steps.flatMap((x) => (x.data ? [x.data] : []));

/**
 * Steps that broke a budget and then passed when run again.
 * @param {import('./report/load.js').LoadedStress} st
 */
const flakySteps = (st) => [...new Set(st.steps.filter((x) => x.attempt > 0 && x.passed).map((x) => x.users))];

/** @param {import('./records.js').CaseRecord} rec */
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
  /** @type {string[]} */
  const html = [];
  /** @type {string[]} */
  const md = [];
  /** @type {string[]} */
  const plots = [];
  /** @param {string} name @param {string} svg @param {boolean} [inMd] */
  const plot = (name, svg, inMd = false) => {
    writeFileSync(path.join(outDir, 'plots', `${name}.svg`), svg);
    plots.push(name);
    html.push(`<figure>${svg}</figure>`);
    if (inMd) md.push(`![${name}](plots/${name}.svg)\n`);
  };
  /** @param {number} level @param {string} text @param {string} [id] */
  const h = (level, text, id) => {
    html.push(`<h${level}${id ? ` id="${id}"` : ''}>${esc(text)}</h${level}>`);
    md.push(`${'#'.repeat(level)} ${text}\n`);
  };
  /** @param {string} text */
  const p = (text) => {
    html.push(`<p>${esc(text)}</p>`);
    md.push(`${text}\n`);
  };
  /** @param {string[]} head @param {TableRow[]} rows @param {string} [cls] */
  const table = (head, rows, cls) => {
    html.push(htmlTable(head, rows, cls));
    md.push(`${mdTable(head, rows)}\n`);
  };

  /** @type {LoadedCase[]} */
  const allCases = [
    ...found.campaigns.flatMap((c) => c.cases),
    ...found.cases,
    ...found.stresses.flatMap((s) => stepCases(s.steps)),
  ];
  const anyRec = allCases[0]?.rec ?? found.soaks[0]?.rec;
  h(1, 'scorecast load tests');
  p(`Generated ${new Date().toISOString()} from ${inputs.map((i) => path.relative(QA_DIR, i) || '.').join(', ')}.`);
  if (anyRec) {
    const host = allCases[0]?.rec.host;
    p(
      `Server: ${anyRec.server?.command ?? ''}; source ${anyRec.server?.source ?? '?'}. ${host ? `Load generator: Artillery ${host.artillery} on Node ${host.node}, on the same machine as the server (${host.cpus} cores, ${host.memGiB} GiB).` : ''}`,
    );
  }
  p(
    `How to read: every latency is in milliseconds. "scorecast" rows are ours; the rows under them are the seed report (ZScore, 2019) for the same kind of request and the same number of clients, where it has one. Push latency = time of receipt − the envelope's t (server wall time when the change was produced); page load = the whole page (HTML, JS, CSS, /api/score and the preload audio, ≈ 1.9 MB) for one client; poll = one /live/poll response. Error % = failed pages / pages, failed polls / polls, failed clients / clients (push rows). Throughput = samples per second of the measured run. Server CPU is % of one core (from /proc), RSS the server's resident memory, loop lag the server's event-loop delay (prom-client, less its ${LAG_RESOLUTION_MS} ms sampling interval). Each case ran a small warm-up first; its numbers are shown apart and are not in the tables. Budgets: page load p99 ≤ 5 s, push latency max ≤ 1 s, no failed client. Percentiles (median, p90, p95, p99) are Artillery's, read from a sketch with 1% relative accuracy (DDSketch) and shown as Artillery reported and checked them; min, max and avg are exact, so a p99 may read up to 1% above the max.`,
  );

  // ---- campaign summary
  for (const camp of found.campaigns) {
    h(2, `Campaign ${path.basename(camp.dir)}`, 'campaign');
    p(`Command: ${camp.rec.command}. Each case: a fresh server, a warm-up run, then the measured run.`);
    const users = [...new Set(camp.cases.map((k) => k.rec.users))].sort((a, b) => a - b);
    const scen = [...new Set(camp.cases.map((k) => k.rec.scenario))];
    /** @param {LoadedCase} k */
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
      if (mm.otherCpu != null && mm.otherCpu > SHARED_PCT)
        bits.push(`[shared machine: others ${f0(mm.otherCpu)}% avg, ${f0(mm.otherPeak)}% peak]`);
      const ar = arrivals(k);
      if (ar?.late)
        bits.push(
          `[load generator late: arrivals took ${ar.lo}–${ar.hi} s, not ${RAMP_S}; at most ${f0(ar.activePeak)} clients in flight at a time]`,
        );
      return `${k.rec.passed ? 'ok' : 'BROKEN'}: ${bits.join(', ')}`;
    };
    table(
      ['scenario', ...users.map((u) => `${u} users`)],
      scen.map((s) => [
        s,
        ...users.map((u) => {
          const k = camp.cases.find((c) => c.rec.scenario === s && c.rec.users === u);
          return k ? key(k) : '';
        }),
      ]),
      'grid',
    );
    md.push('Latency against users, per scenario (plots/ next to this file):\n');
    for (const s of scen) {
      const cs = camp.cases.filter((k) => k.rec.scenario === s);
      if (['ws', 'sse', 'mixed'].includes(s))
        plot(
          `campaign-${s}-push-vs-users`,
          usersPlot(
            `${s}: push latency against users`,
            cs,
            summaryOf(s === 'mixed' ? 'push_latency' : 'push_latency'),
            { y: BUDGET.pushMax, label: 'budget: max 1 s' },
          ),
          true,
        );
      if (['poll', 'page', 'mixed'].includes(s))
        plot(
          `campaign-${s}-page-vs-users`,
          usersPlot(`${s}: page load against users`, cs, summaryOf('page.load_time'), {
            y: BUDGET.pageP99,
            label: 'budget: p99 5 s',
          }),
          true,
        );
      if (['poll', 'mixed'].includes(s) && cs.some((k) => pollSum(k)))
        plot(`campaign-${s}-poll-vs-users`, usersPlot(`${s}: poll response time against users`, cs, pollSum), true);
    }
  }

  // ---- stress
  for (const st of found.stresses) {
    const r = st.rec;
    h(2, `Stress: ${r.transport} (${path.basename(st.dir)})`, `stress-${r.transport}`);
    p(
      `Command: ${r.command}. ${r.breakingPoint ? `Breaking point: ${r.breakingPoint} users (${(r.breakingBudgets || []).join('; ')}); last step within budget: ${r.lastGood ?? 'none'}.` : r.stopped ? `${r.stopped[0].toUpperCase()}${r.stopped.slice(1)}.` : ''}${flakySteps(st).length ? ` Borderline: at ${flakySteps(st).join(', ')} users a budget broke once and the confirming run passed.` : ''}`,
    );
    const rows = st.steps
      .flatMap((x) => (x.data ? [{ ...x, data: x.data }] : []))
      .map((x) => {
        const k = x.data;
        const s = k.measured?.summaries || {};
        const m = machineStats(k.samples, ['measured'], windowOf(k.measured));
        const main = r.transport === 'poll' ? s['page.load_time'] : s.push_latency;
        const c = k.measured?.counters || {};
        return [
          `${x.users}${x.attempt ? ` (retry ${x.attempt})` : ''}`,
          x.passed ? 'ok' : `broken: ${x.broken.join('; ')}`,
          ms(main?.median),
          ms(main?.p95),
          ms(main?.p99),
          ms(main?.max),
          r.transport === 'poll' ? ms((s['poll.response_time'] ?? s['http.response_time'])?.p99) : '',
          `${c['vusers.failed'] || 0} / ${c['vusers.created'] || 0}`,
          (() => {
            const ar = arrivals(k);
            return ar ? `${ar.periods <= 3 ? `≤ ${ar.hi}` : `${ar.lo}–${ar.hi}`} s / ${f0(ar.activePeak)}` : '';
          })(),
          ms(m.fanoutAvgMs),
          ms(clientLagMax(k)),
          m.serverCpu?.avg != null ? `${f0(m.serverCpu.avg)}% / ${f0(m.serverCpu.peak)}%` : '',
          mb(m.rssMax),
          ms(m.lagMax),
          m.loadgenCpu?.avg != null ? `${f0(m.loadgenCpu.avg)}% / ${f0(m.loadgenCpu.peak)}%` : '',
          m.machineBusy ? `${f0(m.machineBusy.avg)}% / ${f0(m.machineBusy.peak)}%` : '',
          m.otherCpu != null ? `${f0(m.otherCpu)}%` : '',
        ];
      });
    const head = [
      'users',
      'verdict',
      r.transport === 'poll' ? 'page p50' : 'push p50',
      'p95',
      'p99',
      'max',
      'poll p99',
      'failed / clients',
      'arrivals over / most in flight',
      'server fan-out avg',
      'Artillery loop delay max',
      'server CPU avg / peak',
      'server RSS',
      'server loop lag max',
      'Artillery CPU avg / peak',
      'machine busy avg / peak',
      'others',
    ];
    // The poll column only for polling; the server's fan-out (scorecast_push_lag_seconds, a change
    // to its last socket write) only for the push transports: polls are not pushed.
    const drop = r.transport === 'poll' ? 9 : 6;
    table(
      head.filter((_, n) => n !== drop),
      rows.map((row) => row.filter((_, n) => n !== drop)),
    );
    p(
      `Arrivals over: how long Artillery took to start the step's clients (planned: ${RAMP_S} s; read from its 10 s report periods, so "≤ 30 s" means on schedule); most in flight: the most clients started and not yet finished at the end of one of Artillery's 10 s periods (its counters; a lower bound of the true peak). A step whose arrivals took much longer than planned put fewer clients on the server at a time than its user count.`,
    );
    const cs = stepCases(st.steps.filter((x) => !x.attempt));
    const retried = stepCases(st.steps.filter((x) => x.attempt));
    if (r.transport === 'poll') {
      plot(
        `stress-poll-page-vs-users`,
        usersPlot(
          'stress poll: page load against users',
          cs,
          summaryOf('page.load_time'),
          { y: BUDGET.pageP99, label: 'budget: p99 5 s', q: 'p99' },
          r.breakingPoint,
          retried,
        ),
        true,
      );
      plot(
        `stress-poll-poll-vs-users`,
        usersPlot('stress poll: poll response against users', cs, pollSum, null, r.breakingPoint),
        true,
      );
    } else {
      plot(
        `stress-${r.transport}-push-vs-users`,
        usersPlot(
          `stress ${r.transport}: push latency against users`,
          cs,
          summaryOf('push_latency'),
          { y: BUDGET.pushMax, label: 'budget: max 1 s', q: 'max' },
          r.breakingPoint,
          retried,
        ),
        true,
      );
    }
  }

  // ---- soak
  for (const so of found.soaks) {
    const r = so.rec;
    h(2, `Soak (${path.basename(so.dir)})`, 'soak');
    p(`Command: ${r.command}. ${r.plan}. Verdict: ${r.passed ? 'passed' : `FAILED: ${r.broken.join('; ')}`}.`);
    const from =
      r.rss.baselineFrom && r.startedAt
        ? ` from minute ${((r.rss.baselineFrom - Date.parse(r.startedAt)) / 60000).toFixed(1)}`
        : '';
    const why =
      r.rss.historyFullAt == null
        ? ''
        : r.rss.historyFilled
          ? `, once the warm-up was over and the resync history full (${r.rss.historyDeltas} deltas)`
          : ', the run being too short for the resync history to fill';
    p(
      `RSS after warm-up (median of the first ${r.rss.windowS == null ? '?' : Math.round(r.rss.windowS)} s counted${from}${why}) ${mb(r.rss.baseline)}, at the end ${mb(r.rss.end)}: ${r.rss.growthPct == null ? '?' : `${r.rss.growthPct.toFixed(1)}%`} (budget ≤ 10%); max ${mb(r.rss.max)}.`,
    );
    /** @param {string} prefix @returns {string[][]} */
    const soakRows = (prefix) =>
      caseRows('mixed', so.measured, prefix).map((x) => {
        /** @type {Partial<import('./records.js').Summary>} */
        const q = x.sum || {};
        return [
          x.label,
          f0(prefix ? q.count : x.samples),
          ms(q.mean),
          ms(q.min),
          ms(q.median),
          ms(q.max),
          ms(q.p90),
          ms(q.p95),
          ms(q.p99),
          prefix ? '' : pct(x.errorsPct),
          prefix ? '' : x.throughput != null ? `${f1(x.throughput)} ${x.unit}` : '',
        ];
      });
    const soakHead = (/** @type {string} */ label) => [label, ...HEAD.slice(2, 12)];
    table(soakHead('measured part (after warm-up)'), soakRows('measured.'));
    table(soakHead('whole soak (warm-up included)'), soakRows(''));
    const c = so.measured?.counters || {};
    p(
      `Clients ${f0(c['vusers.created'])}, failed ${f0(c['vusers.failed'] || 0)} (whole soak); ${errorsOf(so.measured).length ? `errors: ${errorsOf(so.measured).join(', ')}` : 'no errors'}; taps sent ${f0(c['taps.sent'] || 0)}, answered SC_ERR_NO_VOTE_WINDOW ${f0(c['taps.no_vote_window'] || 0)} (not failures). Samples of the measured part count the clients' histograms after the warm-up; failures are counted over the whole soak.`,
    );
    const mW = machineStats(so.samples, ['warmup']);
    const mM = machineStats(so.samples, ['measured']);
    table(
      [
        'part',
        'server CPU avg / peak',
        'server RSS start → max',
        'loop lag max',
        'Artillery CPU avg / peak',
        'machine busy avg / peak',
        'peak connections',
      ],
      /** @type {[string, import('./report/stats.js').MachineStats][]} */ ([
        ['warm-up', mW],
        ['measured', mM],
      ]).map(([n, m]) => [
        n,
        m.serverCpu?.avg != null ? `${f0(m.serverCpu.avg)}% / ${f0(m.serverCpu.peak)}%` : '',
        `${mb(m.rssStart)} → ${mb(m.rssMax)}`,
        ms(m.lagMax),
        m.loadgenCpu?.avg != null ? `${f0(m.loadgenCpu.avg)}% / ${f0(m.loadgenCpu.peak)}%` : '',
        m.machineBusy ? `${f0(m.machineBusy.avg)}% / ${f0(m.machineBusy.peak)}%` : '',
        f0(m.clientsPeak),
      ]),
    );
    const start = r.runs.measured.start;
    const wEnd = ((r.runs.measured.warmupEnd ?? NaN) - start) / 1000;
    /** @type {[number, number][]} */
    const rssPts = so.samples.flatMap((s) => {
      const rss = s.serverProc?.rss ?? s.server?.rss;
      return rss ? [[(s.ts - start) / 60000, rss / 2 ** 20]] : [];
    });
    /** @type {[number, number][]} */
    const conn = so.samples.map((s) => [
      (s.ts - start) / 60000,
      Object.values(s.server?.clients ?? {}).reduce((a, b) => a + b, 0),
    ]);
    plot(
      'soak-rss',
      lineChart({
        title: 'soak: server RSS and connections',
        xLabel: 'minutes',
        yLabel: 'MiB',
        yMin: 0,
        series: [
          { name: 'RSS', points: rssPts, color: '#d62728' },
          { name: 'connections', points: conn, axis: 'right', color: '#999' },
        ],
        rightLabel: 'connections',
        bands: [
          { x0: 0, x1: wEnd / 60, label: 'warm-up' },
          ...(r.runs.measured.drainStart
            ? [{ x0: (r.runs.measured.drainStart - start) / 60000, x1: Infinity, label: 'drain' }]
            : []),
        ],
        hLines: r.rss.baseline ? [{ y: (r.rss.baseline * 1.1) / 2 ** 20, label: '+10% of RSS after warm-up' }] : [],
      }),
      true,
    );
    const per = (so.intermediate || []).map((x) => ({ t: (Number(x.period) - start) / 60000, s: x.summaries || {} }));
    /** @param {string} name @param {'p99' | 'max'} q @returns {[number, number][]} */
    const perPoints = (name, q) =>
      per.flatMap((x) => {
        const v = x.s[name];
        return v ? [[x.t, v[q]]] : [];
      });
    plot(
      'soak-latency',
      lineChart({
        title: 'soak: latency per 10 s period',
        xLabel: 'minutes',
        yLabel: 'ms',
        yLog: true,
        series: [
          { name: 'push p99', points: perPoints('push_latency', 'p99') },
          { name: 'push max', points: perPoints('push_latency', 'max') },
          { name: 'page p99', points: perPoints('page.load_time', 'p99') },
          { name: 'poll p99', points: perPoints('poll.response_time', 'p99') },
        ],
        bands: [{ x0: 0, x1: wEnd / 60, label: 'warm-up' }],
        hLines: [{ y: BUDGET.pushMax, label: 'push budget 1 s' }],
      }),
      true,
    );
    p(
      `Loopback only: ${r.loopbackOnly ? 'yes' : 'NO'} (${r.sampling.net.checks} socket checks, ${r.sampling.net.offLoopbackOurs} non-loopback sockets of the server or Artillery).`,
    );
  }

  // ---- every case
  const groups = [
    ...found.campaigns.map((c) => ({ title: `Test cases of ${path.basename(c.dir)}`, cases: c.cases })),
    ...found.stresses.map((s) => ({
      title: `Steps of stress ${s.rec.transport} (${path.basename(s.dir)})`,
      cases: s.steps.flatMap((x) =>
        x.data ? [Object.assign(x.data, { runLabel: x.attempt ? ` (confirming run ${x.attempt})` : '' })] : [],
      ),
    })),
    ...(found.cases.length ? [{ title: 'Single runs', cases: found.cases }] : []),
  ];
  for (const g of groups) {
    h(2, g.title);
    for (const k of g.cases) {
      const r = k.rec;
      h(3, `${r.scenario} at ${r.users} users${k.runLabel ?? ''}: ${verdict(r)}`);
      p(`${r.runs?.measured?.plan ?? ''}.`);
      const ar = arrivals(k);
      if (ar)
        p(
          `Arrivals: Artillery started the ${f0(k.measured?.counters?.['vusers.created'])} clients ${arrivalsText(ar)} (from its 10 s report periods); at most ${f0(ar.activePeak)} were in flight at the end of a period.${ar.late ? ' The load generator fell behind its schedule (see its CPU and event-loop delay below), so the server had fewer clients at a time than the user count says.' : ''}`,
        );
      table(HEAD, tableRows(k, seed), 'case');
      if (
        ['ws', 'sse', 'poll', 'page'].includes(r.scenario) &&
        !seedFor(seed, r.scenario, r.scenario === 'poll' || r.scenario === 'page' ? 'page' : 'push', r.users).length
      ) {
        p(`The seed report has no ${r.scenario === 'poll' ? 'JMeter' : 'custom-client'} case with ${r.users} clients.`);
      }
      if (r.scenario === 'mixed') p('The seed report has no mixed-audience case.');
      p(`Machine: ${machineLine(k)}.`);
      p(`Counters: ${countersLine(k)}.`);
      const w = warmupRow(k);
      if (w) p(`Warm-up (${r.runs?.warmup?.users} users, kept apart from the table): ${w}.`);
      const checks = r.runs?.measured?.checks ?? [];
      p(
        `Budgets (Artillery ensure): ${checks.map((c) => `${c.ok ? 'ok' : 'FAIL'} ${c.expression}${c.strict ? '' : ' (informational)'}`).join('; ') || 'none printed'}. Artillery exit code ${r.runs?.measured?.exitCode}.`,
      );
      p(
        `Loopback only: ${r.loopbackOnly ? 'yes' : 'NO'} (${r.sampling?.net?.checks ?? 0} socket checks; ${r.sampling?.net?.offLoopbackOurs ?? '?'} non-loopback sockets of the server or Artillery).`,
      );
      if (k.trace.length) {
        const svg1 = overTimePlot(k);
        const svg2 = serverPlot(k);
        html.push(`<div class="pair"><figure>${svg1}</figure><figure>${svg2}</figure></div>`);
      }
    }
  }

  // ---- audio onsets (npm run bench:audio -- --out FILE)
  for (const a of found.audio) {
    h(2, `Audio onsets: ${path.basename(a.file)}`, 'audio');
    p(
      `From ${path.relative(QA_DIR, a.file)} (bench/audio.js, run ${a.at}): browser processes click on the beats into channels of one recorded sound device (infra/audio-lab/README.md). Spread = the latest minus the earliest onset of a beat heard on two pages or more; offset = |onset − the beat's server time|; clock = each page's clock error when it placed its clicks; notation = whether the pages painted their notation (off: \`?notation=off\`, the same click on the same clock); renderer CPU = % of one core each page's renderer used over the measurement. Issue targets on loopback, 10 pages: spread p50 ≤ 1, p99 ≤ 5; offset p99 ≤ 5 ms; busy WiFi p99 ≤ 10 ms. A run whose tie did not hold (tie valid: no) measured the machine, not scorecast.`,
    );
    /** @param {any} x */
    const q3 = (x) => (x ? `${x.p50 ?? '–'} / ${x.p99 ?? '–'} / ${x.max ?? '–'}` : '–');
    table(
      [
        'profile',
        'pages',
        'beats',
        'spread p50 / p99 / max',
        'offset p50 / p99 / max',
        'clock at click p50 / p99 / max',
        'notation',
        'renderer CPU p50 / max',
        'load1',
        'sink lag',
        'tie valid',
      ],
      Object.entries(a.results).map(([profile, r]) => [
        profile,
        String(r.pages),
        String(r.beats),
        q3(r.onsetSpreadMs),
        q3(r.offsetMs),
        q3(r.clockErrorAtClickMs),
        // Runs from before the flag painted it.
        r.notation === false ? 'off' : 'painted',
        r.cpuPercent ? `${r.cpuPercent.renderer.p50} / ${r.cpuPercent.renderer.max} %` : '–',
        String(r.load1 ?? '–'),
        r.tie?.sinkLagMs === undefined ? '–' : `${r.tie.sinkLagMs} ms`,
        r.tie?.valid === false ? 'no' : 'yes',
      ]),
    );
    for (const [profile, r] of Object.entries(a.results)) {
      if (!r.series.length) continue;
      plot(
        `audio-onsets-${profile}`,
        onsetPlot(r.series, { title: `${profile}, ${r.pages} pages, load ${r.load1 ?? '?'}` }),
        true,
      );
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

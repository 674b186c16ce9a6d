#!/usr/bin/env node
// One cell of the venue lab: the server in its namespace, an Artillery suite from a client
// namespace through the profile's network, and the seed-style report for that cell.
//
//   npm run lab -- --profile wifi+firewall --clients 100 --suite ws|sse|poll|page
//     [--duration S]   shorten the arrival ramp so the cell takes about S seconds (default: the
//                      seed method's 10 s ramp)
//     [--no-warmup]    skip the small warm-up run
//     [--out DIR]      default infra/lab/out/<profile>-<suite>-<clients>-<time>/
//     [--keep-up]      leave the lab's namespaces up afterwards (they are left up anyway when
//                      they were up before)
//     [--wait S]       wait up to S seconds for another run on this copy of the lab to end
//                      (default: refuse at once); SCORECAST_LAB_ID=ID runs in a copy of its own
// Exit 1 when a budget broke, 2 when the cell could not run (the reason is printed).

import { parseArgs } from 'node:util';
import { spawn } from 'node:child_process';
import { createWriteStream, mkdirSync, writeFileSync, readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { labSupport, up, down, isUp, inNs, holdLab } from './lab.js';
import { NS, PROFILES, PROFILE_NAMES, SERVER_PORT } from './topology.js';
import { loadSeedRows, seedRowsFor } from './seed-cells.js';
import { labPeers } from './peers.js';
import {
  ARTILLERY_BIN,
  QA_DIR,
  REPO_ROOT,
  SCENARIO_DIR,
  childEnv,
  ensureInstalled,
  installedArtillery,
  gitDescribe,
  sleep,
} from '../../artillery/lib/env.js';
import { ensureBuilt } from '../../artillery/lib/server.js';
import { parseChecks, oneLine, runRecord } from '../../artillery/lib/run-case.js';
import { plan, RAMP_S } from '../../artillery/lib/plans.js';
import { createSampler } from '../../artillery/lib/sampler.js';
import { caseRows, machineStats } from '../../artillery/lib/report.js';
import { usageOf } from '../../artillery/lib/usage.js';

export const LAB_OUT = path.join(path.dirname(fileURLToPath(import.meta.url)), 'out');
export const SUITES = ['ws', 'sse', 'poll', 'page'];

/** Seconds of a ws/sse/poll cell after its ramp: 16 beats at 80 bpm, or 23 polls at 500 ms. */
const AFTER_RAMP_S = 12;

const stamp = () => new Date().toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);

/**
 * Start scorecast in the server namespace (seed profile, port 8080 on all its addresses).
 * @param {{ dir: string, log: (s: string) => void, clientNs: string, target: string }} o
 */
export async function startLabServer({ dir, log, clientNs, target }) {
  ensureBuilt(REPO_ROOT, { log });
  const args = [
    'server/commands/start.js',
    '--score',
    'scores/seed-profile',
    '--port',
    String(SERVER_PORT),
    '--host',
    '0.0.0.0',
    '--autoplay',
    '--log-level',
    'warn',
  ];
  const out = createWriteStream(path.join(dir, 'server.log'));
  const child = spawn('ip', ['netns', 'exec', NS.server, process.execPath, ...args], {
    cwd: REPO_ROOT,
    env: childEnv({
      // Every lab client comes from one address (its namespace's, or the access point's after
      // toxiproxy), where a venue's phones each have their own: no per-address caps, as for the
      // QA suite on loopback (doc/security.md). Without this, 500 polling clients got HTTP 429.
      SCORECAST_CONNECTIONS_PER_ADDRESS: '0',
      SCORECAST_PHONES_PER_ADDRESS: '0',
      SCORECAST_QR: '0',
      SCORECAST_TOKEN: `lab-${randomBytes(12).toString('hex')}`,
      NODE_ENV: 'production',
    }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.pipe(out);
  child.stderr.pipe(out);
  let exited = false;
  const exit = new Promise((r) =>
    child.on('exit', () => {
      exited = true;
      r(undefined);
    }),
  );
  // Ready when the client namespace reaches it through the profile's path (NAT, proxy and all).
  const t0 = Date.now();
  for (;;) {
    if (
      inNs(clientNs, ['curl', '-sf', '--max-time', '2', '-o', '/dev/null', `${target}/healthz`], { quiet: true }) !==
      null
    )
      break;
    if (exited || Date.now() - t0 > 40_000) {
      child.kill('SIGKILL');
      throw new Error(
        `the server did not answer ${target}/healthz from ${clientNs} within 40 s (see ${path.join(dir, 'server.log')})`,
      );
    }
    await sleep(300);
  }
  log(`lab: server pid ${child.pid} in ${NS.server}, reached from ${clientNs} as ${target}`);
  return {
    pid: /** @type {number} */ (child.pid),
    command: `ip netns exec ${NS.server} node ${args.join(' ')}`,
    get exited() {
      return exited;
    },
    async stop() {
      if (!exited) {
        child.kill('SIGTERM');
        const t = setTimeout(() => child.kill('SIGKILL'), 8000);
        await exit;
        clearTimeout(t);
      }
    },
  };
}

/**
 * Artillery in a client namespace.
 * @param {{ ns: string, scenarioFile: string, target: string, overrides: object, outJson: string, logFile: string, traceFile: string, onSpawn: (pid: number) => void }} o
 * @returns {Promise<{ exitCode: number, checks: import('../../artillery/lib/records.js').Check[], ms: number, command: string }>}
 */
function runArtilleryIn({ ns, scenarioFile, target, overrides, outJson, logFile, traceFile, onSpawn }) {
  const args = [
    'netns',
    'exec',
    ns,
    process.execPath,
    ARTILLERY_BIN,
    'run',
    scenarioFile,
    '--target',
    target,
    '--overrides',
    JSON.stringify(overrides),
    '--output',
    outJson,
  ];
  const command = `ip netns exec ${ns} artillery run ${path.relative(QA_DIR, scenarioFile)} --target ${target} --overrides '${JSON.stringify(overrides)}'`;
  return new Promise((resolve) => {
    const t0 = Date.now();
    const child = spawn('ip', args, {
      cwd: QA_DIR,
      env: childEnv({ QA_TRACE_FILE: traceFile }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    onSpawn(/** @type {number} */ (child.pid));
    const log = createWriteStream(logFile);
    let text = '';
    const take = (/** @type {Buffer | string} */ d) => {
      log.write(d);
      text += d;
      if (text.length > 2e6) text = text.slice(-1e6);
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    const killer = setTimeout(() => {
      take('\nlab: artillery ran longer than 30 min: killed\n');
      child.kill('SIGKILL');
    }, 30 * 60_000);
    child.on('close', (code, signal) => {
      clearTimeout(killer);
      log.end();
      resolve({ exitCode: code ?? (signal ? 128 : 1), checks: parseChecks(text), ms: Date.now() - t0, command });
    });
  });
}

/**
 * @typedef {{ profile: string, suite: string, clients: number, durationS?: number, warmup?: boolean,
 *   out?: string, keepUp?: boolean, log?: (s: string) => void, seedCase?: number, waitMs?: number }} CellOptions
 */

/**
 * Run one cell, holding this copy of the lab meanwhile (a second run waits up to `waitMs`, then
 * refuses). Returns the case record (also written as case.json, with report.md beside it).
 * @param {CellOptions} o
 */
export async function runCell(o) {
  const { profile, suite, clients, waitMs = 0, log = console.log } = o;
  const support = labSupport();
  if (!support.ok)
    throw Object.assign(new Error(`the lab cannot run here: ${support.reasons.join('; ')}`), { cannotRun: true });
  const release = await holdLab({ what: `lab cell ${profile} ${suite} ${clients}`, waitMs, log });
  try {
    return await runHeld(o);
  } finally {
    release();
  }
}

/** @param {CellOptions} o */
async function runHeld({
  profile,
  suite,
  clients,
  durationS,
  warmup = true,
  out,
  keepUp = false,
  log = console.log,
  seedCase,
}) {
  const p = PROFILES[profile];
  if (!p) throw new Error(`--profile must be one of ${PROFILE_NAMES.join(', ')}`);
  if (!SUITES.includes(suite)) throw new Error(`--suite must be one of ${SUITES.join(', ')}`);
  if (!Number.isInteger(clients) || clients < 1) throw new Error('--clients must be a whole number of at least 1');
  const dir = path.resolve(out ?? path.join(LAB_OUT, `${profile}-${suite}-${clients}-${stamp()}`));
  mkdirSync(dir, { recursive: true });
  const wasUp = isUp();
  await up({ profile, log });
  ensureInstalled({ log });
  const rampS = durationS ? Math.max(1, Math.round(durationS - AFTER_RAMP_S)) : RAMP_S;
  const scenarioFile = path.join(SCENARIO_DIR, `${suite}.yml`);
  const server = await startLabServer({ dir, log, clientNs: p.ns, target: p.target });
  // /metrics is not reachable from the host (nothing routes into the lab): the sampler records
  // the server's and Artillery's CPU and memory from /proc, which the host sees.
  const sampler = createSampler({
    metricsUrl: 'http://127.0.0.1:1/metrics',
    serverPid: server.pid,
    file: path.join(dir, 'samples.jsonl'),
  });
  sampler.start();
  /** @type {{ measured?: import('../../artillery/lib/records.js').RunRecord, warmup?: import('../../artillery/lib/records.js').RunRecord }} */
  const runs = {};
  /** @type {Set<string>} */
  const peers = new Set();
  let loadgen = 0;
  const peerTimer = setInterval(() => {
    for (const a of labPeers([server.pid, loadgen])) peers.add(a);
  }, 1000);
  /** @type {Awaited<ReturnType<typeof sampler.stop>>} */
  let sampling;
  try {
    if (warmup) {
      const w = Math.min(clients, suite === 'page' ? 10 : 20);
      const wp = plan(suite, w, { warmup: true, payloadFile: path.join(dir, 'warmup-groups.csv') });
      sampler.setPhase('warmup');
      const t0 = Date.now();
      const r = await runArtilleryIn({
        ns: p.ns,
        scenarioFile,
        target: p.target,
        overrides: wp.overrides,
        outJson: path.join(dir, 'warmup.json'),
        logFile: path.join(dir, 'warmup.log'),
        traceFile: path.join(dir, 'warmup-trace.jsonl'),
        onSpawn: (pid) => {
          loadgen = pid;
          sampler.setLoadgen(pid);
        },
      });
      runs.warmup = runRecord({ users: w, plan: wp.describe, start: t0, json: 'warmup.json' }, r);
      log(`  warm-up  ${suite} ${w} clients: ${oneLine(path.join(dir, 'warmup.json'))}`);
      sampler.setPhase('settle');
      await sleep(2000);
    }
    const mp = plan(suite, clients, { payloadFile: path.join(dir, 'groups.csv'), rampS });
    sampler.setPhase('measured');
    const t0 = Date.now();
    const r = await runArtilleryIn({
      ns: p.ns,
      scenarioFile,
      target: p.target,
      overrides: mp.overrides,
      outJson: path.join(dir, 'measured.json'),
      logFile: path.join(dir, 'measured.log'),
      traceFile: path.join(dir, 'trace.jsonl'),
      onSpawn: (pid) => {
        loadgen = pid;
        sampler.setLoadgen(pid);
      },
    });
    runs.measured = runRecord({ users: clients, plan: mp.describe, start: t0, json: 'measured.json' }, r);
    sampler.setPhase('after');
    await sleep(1000);
  } finally {
    clearInterval(peerTimer);
    sampling = await sampler.stop();
    await server.stop();
    if (!wasUp && !keepUp) down({ log });
  }
  const m = runs.measured;
  if (!m) throw new Error('the measured run did not run');
  const broken = m.checks.filter((c) => !c.ok && c.strict).map((c) => c.expression);
  if (m.exitCode !== 0 && broken.length === 0) broken.push(`artillery exited ${m.exitCode}`);
  const outside = [...peers].filter((a) => a !== 'lab');
  if (outside.length) broken.push(`traffic left the lab: ${outside.join(', ')}`);
  const rec = {
    kind: 'case',
    scenario: suite,
    users: clients,
    startedAt: new Date(m.start).toISOString(),
    lab: {
      profile,
      ns: p.ns,
      target: p.target,
      connection: p.connection,
      firewall: p.firewall,
      wifi: p.wifi,
      rampS,
      seedCase: seedCase ?? null,
      peersOutsideLab: outside,
    },
    host: { node: process.version, artillery: installedArtillery() },
    server: { url: p.target, pid: server.pid, command: server.command, source: gitDescribe(REPO_ROOT) },
    qaCommand: `npm run lab -- --profile ${profile} --clients ${clients} --suite ${suite}${durationS ? ` --duration ${durationS}` : ''}${warmup ? '' : ' --no-warmup'}`,
    runs: { ...runs, measured: m },
    sampling,
    passed: broken.length === 0 && m.checks.length > 0,
    broken,
    // The lab's sockets are in its namespaces, which the host's loopback check cannot see: the
    // peers of the server's and Artillery's sockets were checked instead (lab.peersOutsideLab).
    loopbackOnly: outside.length === 0,
  };
  writeFileSync(path.join(dir, 'case.json'), `${JSON.stringify(rec, null, 2)}\n`);
  writeFileSync(path.join(dir, 'report.md'), cellReport(dir, rec));
  log(
    `  measured ${profile} ${suite} ${clients} clients: ${oneLine(path.join(dir, 'measured.json'))} -> ${rec.passed ? 'budgets ok' : `BUDGET BROKEN: ${broken.join('; ')}`}`,
  );
  log(`lab: report ${path.join(dir, 'report.md')}`);
  return { ...rec, dir };
}

const ms = (/** @type {number | null | undefined} */ v) =>
  v == null || !Number.isFinite(v) ? '' : v < 10 ? v.toFixed(1) : String(Math.round(v));

/**
 * Where a cell ran: its profile of the lab (topology.js) and what else was seen on the network.
 * @typedef {Pick<import('./topology.js').Profile, 'ns' | 'target' | 'connection' | 'firewall' | 'wifi'> & { profile: string, rampS: number, seedCase: number | null, peersOutsideLab: unknown[] }} LabInfo
 */
/**
 * case.json of a lab cell (written by runCell): a case record with the lab's fields, all set.
 * @typedef {import('../../artillery/lib/records.js').CaseRecord & { lab: LabInfo, server: import('../../artillery/lib/records.js').ServerRecord,
 *   host: { node: string, artillery: string | null }, runs: { measured: import('../../artillery/lib/records.js').RunRecord }, broken: string[] }} CellRecord
 */

/**
 * Our rows and the seed's for one cell, as the seed report's table.
 * @param {string} dir @param {CellRecord} rec
 */
export function cellRows(dir, rec) {
  /** @type {import('../../artillery/lib/records.js').ArtilleryPeriod} */
  const a = JSON.parse(readFileSync(path.join(dir, 'measured.json'), 'utf8')).aggregate;
  const rows = [];
  const ours = caseRows(rec.scenario, a);
  for (const r of ours) {
    /** @type {Partial<import('../../artillery/lib/records.js').Summary>} */
    const s = r.sum || {};
    rows.push([
      `scorecast lab: ${r.label}`,
      r.clients ?? rec.users,
      r.samples,
      ms(s.mean),
      ms(s.min),
      ms(s.median ?? s.p50),
      ms(s.max),
      ms(s.p90),
      ms(s.p95),
      ms(s.p99),
      r.errorsPct == null ? '' : r.errorsPct.toFixed(2),
    ]);
  }
  const seed = seedRowsFor(loadSeedRows(), {
    profile: rec.lab.profile,
    suite: rec.scenario === 'sse' ? 'ws' : rec.scenario,
    clients: rec.users,
  });
  for (const z of seed) {
    rows.push([
      `ZScore 2019 #${z.case} ${z.client} ${z.request}, ${z.connection}${z.firewall === 'yes' ? ', firewall' : ''}${z.note ? ` [${z.note}]` : ''}`,
      z.clients,
      z.samples ?? '',
      ms(z.avg_ms),
      ms(z.min_ms),
      ms(z.median_ms),
      ms(z.max_ms),
      ms(z.p90_ms),
      ms(z.p95_ms),
      ms(z.p99_ms),
      z.errors_pct ?? '',
    ]);
  }
  return rows;
}

const HEAD = ['', 'Clients', 'Samples', 'Avg', 'Min', 'Median', 'Max', 'p90', 'p95', 'p99', 'Error %'];

/** @param {unknown[][]} rows */
export function mdTable(rows, head = HEAD) {
  return [
    `| ${head.join(' | ')} |`,
    `| ${head.map(() => '---').join(' | ')} |`,
    ...rows.map((r) => `| ${r.join(' | ')} |`),
  ].join('\n');
}

/** @param {string} dir @param {CellRecord} rec */
function cellReport(dir, rec) {
  const a = JSON.parse(readFileSync(path.join(dir, 'measured.json'), 'utf8')).aggregate;
  /** @type {import('../../artillery/lib/records.js').Sample[]} */
  const samples = readFileSync(path.join(dir, 'samples.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
  const mstats = machineStats(samples, ['measured']);
  const w = rec.lab.wifi;
  const lines = [
    `# Lab cell: ${rec.lab.profile}, ${rec.scenario}, ${rec.users} clients`,
    '',
    `${rec.startedAt}, scorecast ${rec.server.source}, Artillery ${rec.host.artillery}, Node ${rec.host.node}. Command: \`${rec.qaCommand}\`.`,
    '',
    `Network: clients in \`${rec.lab.ns}\` reach the server as ${rec.lab.target}` +
      `${rec.lab.firewall ? " through the router's guest bridge (nftables firewall, NAT of port 80 to the server, 150 Mbit/s htb queue)" : " over the router's main bridge (250 Mbit/s htb queue, no firewall)"}` +
      `${w ? `, over the WiFi path: toxiproxy latency ${w.latencyMs} ms ± ${w.jitterMs} ms each way, radio ${w.radioMbit} Mbit/s (tbf)${w.lossPermille ? `, ${w.lossPermille / 10}% random loss (nftables)` : ''}` : ''}.`,
    `Load: ${rec.runs.measured.plan}.`,
    '',
    mdTable(cellRows(dir, rec)),
    '',
    `Budgets: ${rec.runs.measured.checks.map((c) => `${c.ok ? 'ok' : 'FAIL'} ${c.expression}${c.strict ? '' : ' (informational)'}`).join('; ')}. Verdict: ${rec.passed ? 'passed' : `BROKEN (${rec.broken.join('; ')})`}.`,
    '',
    `Server: CPU ${mstats.serverCpu?.avg != null ? `${Math.round(mstats.serverCpu.avg)}% avg, ${Math.round(mstats.serverCpu.peak ?? 0)}% peak of one core` : 'not sampled'}; RSS max ${mstats.rssMax ? `${Math.round(mstats.rssMax / 2 ** 20)} MiB` : '?'}. Load generator CPU ${mstats.loadgenCpu?.avg != null ? `${Math.round(mstats.loadgenCpu.avg)}%` : '?'} (both on this one machine).`,
    `Errors: ${
      Object.entries(a.counters || {})
        .filter(([k]) => k.startsWith('errors.'))
        .map(([k, v]) => `${k.slice(7)} × ${v}`)
        .join(', ') || 'none'
    }. Traffic outside the lab's addresses: ${rec.lab.peersOutsideLab.length ? rec.lab.peersOutsideLab.join(', ') : 'none'}.`,
    '',
  ];
  return lines.join('\n');
}

async function main() {
  const { values: o } = parseArgs({
    options: {
      profile: { type: 'string', default: 'wifi+firewall' },
      clients: { type: 'string', default: '100' },
      suite: { type: 'string', default: 'ws' },
      duration: { type: 'string' },
      'no-warmup': { type: 'boolean' },
      out: { type: 'string' },
      'keep-up': { type: 'boolean' },
      wait: { type: 'string', default: '0' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (o.help) {
    process.stdout.write(`${usageOf(import.meta.url, 15)}\n`);
    return 0;
  }
  try {
    const rec = await runCell({
      profile: /** @type {string} */ (o.profile),
      suite: /** @type {string} */ (o.suite),
      clients: Number(o.clients),
      durationS: o.duration ? Number(o.duration) : undefined,
      warmup: !o['no-warmup'],
      out: o.out,
      keepUp: o['keep-up'],
      waitMs: Number(o.wait) * 1000,
    });
    return rec.passed ? 0 : 1;
  } catch (err) {
    process.stderr.write(`lab: ${/** @type {Error} */ (err).message}\n`);
    return 2;
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().then((code) => {
    process.exitCode = code;
  });
}

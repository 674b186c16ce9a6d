// One test case: a scenario at N users against a server we start on 127.0.0.1 (or --target),
// as a warm-up run and a measured run of Artillery, with the sampler running throughout.
// Everything lands in one directory: case.json (what ran, budgets, verdict), warmup.json and
// measured.json (Artillery's reports), *.log, samples.jsonl (server and machine), *-trace.jsonl
// (per-second client-side latencies).

import { spawn } from 'node:child_process';
import { createWriteStream, mkdirSync, writeFileSync, readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import { ARTILLERY_BIN, SCENARIO_DIR, childEnv, installedArtillery, gitDescribe, sleep, QA_DIR } from './env.js';
import { startServer } from './server.js';
import { createSampler } from './sampler.js';
import { plan } from './plans.js';

/**
 * Parse the `ensure` verdicts Artillery prints after "Checks:".
 * @param {string} log
 * @returns {import('./records.js').Check[]}
 */
export function parseChecks(log) {
  const i = log.lastIndexOf('\nChecks:');
  if (i < 0) return [];
  const checks = [];
  for (const raw of log.slice(i).split('\n')) {
    // Artillery's colours: ESC [ ... m.
    const line = raw.replace(new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g'), '').trim();
    const m = /^(ok|fail): (.*?)( \(optional\))?$/.exec(line);
    if (m) checks.push({ ok: m[1] === 'ok', expression: m[2], strict: !m[3] });
  }
  return checks;
}

/**
 * Artillery processes running now, so that an interrupted qa run can stop them (stopChildren).
 * @type {Set<import('node:child_process').ChildProcess>}
 */
const running = new Set();

/** Stop every Artillery process this qa run started (on SIGINT/SIGTERM). */
export function stopChildren() {
  for (const child of running) child.kill('SIGTERM');
}

/**
 * One Artillery run's outcome.
 * @typedef {object} ArtilleryRun
 * @property {number} exitCode
 * @property {NodeJS.Signals | null} signal
 * @property {import('./records.js').Check[]} checks
 * @property {number} ms
 * @property {string} command
 * @property {number | undefined} pid
 */

/**
 * Run Artillery once. Resolves with its exit code and the checks it printed.
 * @param {{ scenarioFile: string, target: string, overrides: object, outJson: string, logFile: string,
 *   traceFile?: string, onSpawn?: (pid: number) => void, maxMs?: number, echo?: boolean }} o
 * @returns {Promise<ArtilleryRun>}
 */
export function runArtillery({
  scenarioFile,
  target,
  overrides,
  outJson,
  logFile,
  traceFile,
  onSpawn,
  maxMs = 3 * 3600_000,
  echo = false,
}) {
  const args = [
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
  const command = `ARTILLERY_DISABLE_TELEMETRY=true artillery run ${path.relative(QA_DIR, scenarioFile)} --target ${target} --overrides '${JSON.stringify(overrides)}' --output ${path.relative(QA_DIR, outJson)}`;
  return new Promise((resolve) => {
    const t0 = Date.now();
    const child = spawn(process.execPath, args, {
      cwd: QA_DIR,
      env: childEnv(traceFile ? { QA_TRACE_FILE: traceFile } : {}),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    running.add(child);
    onSpawn?.(/** @type {number} */ (child.pid));
    const log = createWriteStream(logFile);
    let text = '';
    /** @param {Buffer | string} d */
    const take = (d) => {
      log.write(d);
      text += d;
      if (text.length > 2e6) text = text.slice(-1e6);
      if (echo) process.stdout.write(d);
    };
    child.stdout?.on('data', take);
    child.stderr?.on('data', take);
    const killer = setTimeout(() => {
      take(`\nqa: artillery ran longer than ${maxMs} ms: killed\n`);
      child.kill('SIGKILL');
    }, maxMs);
    child.on('close', (code, signal) => {
      running.delete(child);
      clearTimeout(killer);
      log.end();
      resolve({
        exitCode: code ?? (signal ? 128 : 1),
        signal,
        checks: parseChecks(text),
        ms: Date.now() - t0,
        command,
        pid: child.pid,
      });
    });
  });
}

/**
 * What a run of Artillery did, for the case's record: ended now.
 * @param {{ users: number, plan: string, start: number, json: string }} o  json: its report's name
 * @param {{ exitCode: number | null, checks: import('./records.js').Check[], command: string }} r  runArtillery's answer
 * @returns {import('./records.js').RunRecord}
 */
export function runRecord({ users, plan, start, json }, r) {
  return { users, plan, exitCode: r.exitCode, checks: r.checks, command: r.command, start, end: Date.now(), json };
}

/**
 * A one-line summary of an Artillery report for the terminal.
 * @param {string} jsonFile
 */
export function oneLine(jsonFile) {
  try {
    /** @type {import('./records.js').ArtilleryReport} */
    const { aggregate: a } = JSON.parse(readFileSync(jsonFile, 'utf8'));
    const c = a.counters || {};
    const s = a.summaries || {};
    const parts = [`vusers ${c['vusers.created'] ?? 0} (failed ${c['vusers.failed'] ?? 0})`];
    if (s.push_latency) parts.push(`push p99 ${s.push_latency.p99} max ${s.push_latency.max} ms`);
    if (s['page.load_time']) parts.push(`page p99 ${s['page.load_time'].p99} ms`);
    const poll = s['poll.response_time'] ?? s['http.response_time'];
    if (poll) parts.push(`poll p99 ${poll.p99} ms`);
    const errs = Object.entries(c)
      .filter(([k]) => k.startsWith('errors.'))
      .map(([k, v]) => `${k.slice(7)}=${v}`);
    if (errs.length) parts.push(`errors ${errs.join(' ')}`);
    if (c['taps.sent']) parts.push(`taps ${c['taps.sent']} (no vote window ${c['taps.no_vote_window'] ?? 0})`);
    return parts.join(', ');
  } catch {
    return '(no report)';
  }
}

/**
 * The server a run measures: started here (with its pid), or given by --target.
 * @typedef {{ url: string, pid: number | undefined, command: string, source: string, stop: () => Promise<void>, exited?: boolean }} AcquiredServer
 */

/**
 * Start the server unless a target is given. Returns the target URL and a stop function.
 * @param {{ target?: string, root: string, dir: string, log: (s: string) => void }} o
 * @returns {Promise<AcquiredServer>}
 */
export async function acquireServer({ target, root, dir, log }) {
  if (target)
    return {
      url: target.replace(/\/+$/, ''),
      pid: undefined,
      command: `(given) ${target}`,
      stop: async () => {},
      source: 'external',
    };
  const server = await startServer({ root, logFile: path.join(dir, 'server.log'), log });
  log(
    `qa: server pid ${server.pid} on ${server.url} (${path.relative(process.cwd(), root) || '.'}, ${gitDescribe(root)})`,
  );
  // Assigned, not spread: a spread would copy `exited` once (false) instead of its getter.
  return Object.assign(server, { source: gitDescribe(root) });
}

/**
 * @param {{ scenario: string, users: number, root: string, dir: string, target?: string,
 *   warmup?: boolean, server?: AcquiredServer, log?: (s: string) => void,
 *   ensureOverride?: object, argv?: string[] }} o
 * @returns {Promise<import('./records.js').CaseRecord & { broken: string[] }>}
 */
export async function runCase({
  scenario,
  users,
  root,
  dir,
  target,
  warmup = true,
  server,
  log = console.log,
  ensureOverride,
  argv,
}) {
  mkdirSync(dir, { recursive: true });
  const own = !server;
  server ??= await acquireServer({ target, root, dir, log });
  const sampler = createSampler({
    metricsUrl: `${server.url}/metrics`,
    serverPid: server.pid,
    file: path.join(dir, 'samples.jsonl'),
  });
  sampler.start();
  const scenarioFile = path.join(SCENARIO_DIR, `${scenario}.yml`);
  /** @type {Omit<import('./records.js').CaseRecord, 'passed'> & { passed?: boolean }} */
  const record = {
    kind: 'case',
    scenario,
    users,
    startedAt: new Date().toISOString(),
    host: {
      cpus: os.cpus().length,
      memGiB: Math.round(os.totalmem() / 2 ** 30),
      node: process.version,
      artillery: installedArtillery(),
    },
    server: { url: server.url, pid: server.pid ?? null, command: server.command, source: server.source },
    qaCommand: argv ? `node artillery/bin/qa.js ${argv.join(' ')}` : undefined,
  };
  /** @type {{ measured?: import('./records.js').RunRecord, warmup?: import('./records.js').RunRecord }} */
  const runs = {};
  try {
    if (warmup) {
      const wUsers = Math.min(users, scenario === 'page' ? 10 : 20);
      const p = plan(scenario, wUsers, { warmup: true, payloadFile: path.join(dir, 'warmup-groups.csv') });
      sampler.setPhase('warmup');
      const t0 = Date.now();
      const r = await runArtillery({
        scenarioFile,
        target: server.url,
        overrides: p.overrides,
        outJson: path.join(dir, 'warmup.json'),
        logFile: path.join(dir, 'warmup.log'),
        traceFile: path.join(dir, 'warmup-trace.jsonl'),
        onSpawn: (pid) => sampler.setLoadgen(pid),
      });
      runs.warmup = runRecord({ users: wUsers, plan: p.describe, start: t0, json: 'warmup.json' }, r);
      log(`  warm-up  ${scenario} ${wUsers} users: ${oneLine(path.join(dir, 'warmup.json'))}`);
      sampler.setPhase('settle');
      await sleep(3000);
    }
    const p = plan(scenario, users, { payloadFile: path.join(dir, 'groups.csv') });
    const overrides = ensureOverride
      ? { ...p.overrides, config: { ...p.overrides.config, ensure: ensureOverride } }
      : p.overrides;
    sampler.setPhase('measured');
    const t0 = Date.now();
    const r = await runArtillery({
      scenarioFile,
      target: server.url,
      overrides,
      outJson: path.join(dir, 'measured.json'),
      logFile: path.join(dir, 'measured.log'),
      traceFile: path.join(dir, 'trace.jsonl'),
      onSpawn: (pid) => sampler.setLoadgen(pid),
    });
    runs.measured = runRecord({ users, plan: p.describe, start: t0, json: 'measured.json' }, r);
    sampler.setPhase('after');
    await sleep(1500);
  } finally {
    const s = await sampler.stop();
    record.sampling = s;
    // Before our own server is stopped: whether it lived through the run.
    record.serverAlive = server.exited === undefined ? null : !server.exited;
    if (own) await server.stop();
  }
  const m = runs.measured;
  const broken = m ? m.checks.filter((c) => !c.ok && c.strict).map((c) => c.expression) : ['did not run'];
  const passed = !!m && m.exitCode === 0 && broken.length === 0 && m.checks.length > 0;
  if (m && m.exitCode !== 0 && broken.length === 0) broken.push(`artillery exited ${m.exitCode}`);
  const done = { ...record, runs, passed, broken, loopbackOnly: s_ok(record.sampling) };
  writeFileSync(path.join(dir, 'case.json'), `${JSON.stringify(done, null, 2)}\n`);
  const summary = existsSync(path.join(dir, 'measured.json'))
    ? oneLine(path.join(dir, 'measured.json'))
    : '(no report)';
  log(
    `  measured ${scenario} ${users} users: ${summary} -> ${done.passed ? 'budgets ok' : `BUDGET BROKEN: ${done.broken.join('; ')}`}`,
  );
  if (!done.loopbackOnly)
    log(
      `  WARNING: sockets of the server or load generator with a non-loopback peer: ${JSON.stringify(done.sampling?.net?.oursSamples)}`,
    );
  return done;
}

/** @param {import('./records.js').SamplingRecord | undefined} sampling */
function s_ok(sampling) {
  return sampling?.net?.offLoopbackOurs === 0;
}

#!/usr/bin/env node
// scorecast QA: load, stress and soak tests with Artillery against a server started here on
// 127.0.0.1 (or --target URL), and their report. See artillery/README.md.
//
//   node artillery/bin/qa.js setup
//   node artillery/bin/qa.js run      --scenario poll|ws|sse|page|mixed [--users 100]
//   node artillery/bin/qa.js campaign [--users 100,200,500,1000,1500] [--scenarios poll,ws,sse,page,mixed]
//   node artillery/bin/qa.js stress   --transport ws|sse|poll [--max 3000] [--max-duration 30m]
//   node artillery/bin/qa.js soak     [--duration 1h] [--users 200] [--warmup 5m]
//   node artillery/bin/qa.js report   [--in DIR|bench-audio.json ...] [--out DIR]
//   node artillery/bin/qa.js smoke
// Common: [--target URL] test a running server instead (non-loopback only when given here),
//         [--server-root DIR] the scorecast checkout to start (default: this repository),
//         [--out DIR] where results go (default artillery/out/<kind>-<time>).

import { parseArgs } from 'node:util';
import { mkdirSync, writeFileSync, readFileSync, existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { OUT_DIR, REPO_ROOT, SCENARIO_DIR, ensureInstalled, setup, isLoopbackHost, sleep } from '../lib/env.js';
import { runCase, runArtillery, acquireServer, oneLine, stopChildren } from '../lib/run-case.js';
import { SCENARIOS, soakPlan } from '../lib/plans.js';
import { createSampler } from '../lib/sampler.js';
import { soakRss } from '../lib/soak.js';
import { writeReport } from '../lib/report.js';
import { usageOf } from '../lib/usage.js';

const argv = process.argv.slice(2);
const command = argv[0]?.startsWith('-') ? 'help' : argv[0];
const { values: opt } = parseArgs({
  args: argv[0]?.startsWith('-') ? [] : argv.slice(1),
  options: {
    scenario: { type: 'string' },
    scenarios: { type: 'string' },
    users: { type: 'string' },
    transport: { type: 'string' },
    target: { type: 'string' },
    'server-root': { type: 'string' },
    out: { type: 'string' },
    in: { type: 'string', multiple: true },
    max: { type: 'string' },
    steps: { type: 'string' },
    'max-duration': { type: 'string' },
    confirm: { type: 'string' },
    'fail-below': { type: 'string' },
    duration: { type: 'string' },
    warmup: { type: 'string' },
    'no-warmup': { type: 'boolean' },
    'no-report': { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  },
  strict: true,
});

/** @param {string} s */
const log = (s) => process.stdout.write(`${s}\n`);
const stamp = () => new Date().toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);

/**
 * "90s", "30m", "1h", "1500ms" or seconds -> seconds.
 * @param {string | undefined} text
 * @param {number} dflt
 * @returns {number}
 */
function seconds(text, dflt) {
  if (text === undefined) return dflt;
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text.trim());
  if (!m) throw new Error(`bad duration "${text}" (e.g. 90s, 30m, 1h)`);
  const n = Number(m[1]);
  /** @type {Record<string, number>} */
  const scale = { ms: n / 1000, s: n, m: n * 60, h: n * 3600, undefined: n };
  return scale[String(m[2])];
}

/** The server under test: --target (explicit; non-loopback allowed with a warning), else ours. */
function targetOption() {
  if (!opt.target) return undefined;
  let u;
  try {
    u = new URL(opt.target);
  } catch {
    throw new Error(`--target must be a URL like http://127.0.0.1:8080, got "${opt.target}"`);
  }
  if (!/^https?:$/.test(u.protocol)) throw new Error('--target must be http:// or https://');
  if (!isLoopbackHost(u.hostname)) {
    log(
      `qa: WARNING: --target ${u.host} is not loopback: load goes over the network to it, because you asked for it explicitly.`,
    );
  }
  return u.origin;
}

const serverRoot = () => path.resolve(opt['server-root'] ?? REPO_ROOT);

/** @param {string} kind */
function outDir(kind) {
  const dir = path.resolve(opt.out ?? path.join(OUT_DIR, `${kind}-${stamp()}`));
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** @param {string | undefined} text @param {string} dflt */
function usersList(text, dflt) {
  const list = (text ?? dflt).split(',').map((s) => Number(s.trim()));
  if (list.some((n) => !Number.isInteger(n) || n < 1)) throw new Error(`--users must be whole numbers, got "${text}"`);
  return list;
}

// ---------------------------------------------------------------- commands

async function cmdRun() {
  const scenario = opt.scenario ?? '';
  if (!SCENARIOS.includes(scenario)) throw new Error(`--scenario must be one of ${SCENARIOS.join(', ')}`);
  ensureInstalled({ log });
  const users = usersList(opt.users, '100')[0];
  const dir = outDir(`run-${scenario}-${users}`);
  log(`qa run: ${scenario} at ${users} users -> ${dir}`);
  const rec = await runCase({
    scenario,
    users,
    root: serverRoot(),
    dir,
    target: targetOption(),
    warmup: !opt['no-warmup'],
    log,
    argv,
  });
  if (!opt['no-report']) report([dir], dir);
  return rec.passed ? 0 : 1;
}

async function cmdCampaign() {
  ensureInstalled({ log });
  const users = usersList(opt.users, '100,200,500,1000,1500');
  const scenarios = (opt.scenarios ?? SCENARIOS.join(',')).split(',');
  for (const s of scenarios) if (!SCENARIOS.includes(s)) throw new Error(`unknown scenario ${s}`);
  const dir = outDir('campaign');
  const target = targetOption();
  log(`qa campaign: ${scenarios.join(', ')} at ${users.join(', ')} users -> ${dir}`);
  /** @type {import('../lib/records.js').CampaignRecord} */
  const index = {
    kind: 'campaign',
    startedAt: new Date().toISOString(),
    users,
    scenarios,
    command: `node artillery/bin/qa.js ${argv.join(' ')}`,
    cases: [],
  };
  for (const n of users) {
    for (const scenario of scenarios) {
      const rec = await runCase({
        scenario,
        users: n,
        root: serverRoot(),
        dir: path.join(dir, `${scenario}-${n}`),
        target,
        log,
        argv,
      });
      index.cases.push({ dir: `${scenario}-${n}`, scenario, users: n, passed: rec.passed, broken: rec.broken });
      writeFileSync(path.join(dir, 'campaign.json'), `${JSON.stringify(index, null, 2)}\n`);
      await sleep(3000);
    }
  }
  index.finishedAt = new Date().toISOString();
  writeFileSync(path.join(dir, 'campaign.json'), `${JSON.stringify(index, null, 2)}\n`);
  log('\nqa campaign: budgets per case');
  for (const c of index.cases)
    log(
      `  ${c.scenario.padEnd(6)} ${String(c.users).padStart(5)}  ${c.passed ? 'ok' : `BROKEN: ${c.broken.join('; ')}`}`,
    );
  if (!opt['no-report']) report([dir], dir);
  // The campaign measures: a budget broken at high load is a result, not a failure of the command.
  return 0;
}

async function cmdStress() {
  const transport = opt.transport ?? '';
  if (!['ws', 'sse', 'poll'].includes(transport)) throw new Error('--transport must be ws, sse or poll');
  ensureInstalled({ log });
  const max = Number(opt.max ?? 3000);
  const maxS = seconds(opt['max-duration'], 30 * 60);
  const confirm = Number(opt.confirm ?? 1);
  const steps = usersList(opt.steps, '100,200,300,500,750,1000,1250,1500,1750,2000,2500,3000').filter((n) => n <= max);
  if (!steps.includes(max) && max > (steps.at(-1) ?? 0)) steps.push(max);
  const dir = outDir(`stress-${transport}`);
  const target = targetOption();
  const t0 = Date.now();
  log(
    `qa stress: ${transport}, steps ${steps.join(', ')} (stop at the first broken budget, at ${max} users or after ${maxS} s) -> ${dir}`,
  );
  const server = await acquireServer({ target, root: serverRoot(), dir, log });
  /** @type {import('../lib/records.js').StressRecord} */
  const result = {
    kind: 'stress',
    transport,
    max,
    maxDurationS: maxS,
    steps: [],
    command: `node artillery/bin/qa.js ${argv.join(' ')}`,
    startedAt: new Date().toISOString(),
  };
  let stepMs = 45_000;
  try {
    for (const [i, n] of steps.entries()) {
      if ((Date.now() - t0) / 1000 + stepMs / 1000 > maxS) {
        result.stopped = `max duration ${maxS} s reached before ${n} users`;
        break;
      }
      let attempt = 0;
      let rec;
      const s0 = Date.now();
      for (;;) {
        rec = await runCase({
          scenario: transport,
          users: n,
          root: serverRoot(),
          dir: path.join(dir, `step-${n}${attempt ? `-retry${attempt}` : ''}`),
          server,
          warmup: i === 0 && attempt === 0,
          log,
          argv,
        });
        result.steps.push({
          users: n,
          attempt,
          dir: path.basename(path.join(dir, `step-${n}${attempt ? `-retry${attempt}` : ''}`)),
          passed: rec.passed,
          broken: rec.broken,
        });
        if (rec.passed || attempt >= confirm) break;
        attempt++;
        log(`  ${n} users broke a budget: running it again to confirm (${attempt}/${confirm})`);
        await sleep(5000);
      }
      if (rec.passed && attempt > 0) (result.flaky ??= []).push(n);
      stepMs = Math.max(stepMs, Date.now() - s0);
      writeFileSync(path.join(dir, 'stress.json'), `${JSON.stringify(result, null, 2)}\n`);
      if (!rec.passed) {
        result.breakingPoint = n;
        result.breakingBudgets = rec.broken;
        break;
      }
      result.lastGood = n;
      if (server.exited) {
        result.stopped = 'the server exited';
        break;
      }
      await sleep(5000);
    }
  } finally {
    await server.stop();
  }
  if (!result.breakingPoint && !result.stopped)
    result.stopped = `no budget broke up to ${result.lastGood} users (the maximum asked)`;
  result.finishedAt = new Date().toISOString();
  writeFileSync(path.join(dir, 'stress.json'), `${JSON.stringify(result, null, 2)}\n`);
  if (result.flaky)
    log(
      `qa stress ${transport}: borderline at ${result.flaky.join(', ')} users: a budget broke once, the confirming run passed`,
    );
  log(
    `\nqa stress ${transport}: ${result.breakingPoint ? `breaking point ${result.breakingPoint} users (${(result.breakingBudgets ?? []).join('; ')}); last good ${result.lastGood ?? 'none'}` : result.stopped}`,
  );
  if (!opt['no-report']) report([dir], dir);
  const failBelow = opt['fail-below'] ? Number(opt['fail-below']) : 0;
  if (failBelow && result.breakingPoint && result.breakingPoint <= failBelow) {
    log(`qa stress: breaking point ${result.breakingPoint} <= --fail-below ${failBelow}`);
    return 1;
  }
  return 0;
}

async function cmdSoak() {
  ensureInstalled({ log });
  const durationS = seconds(opt.duration, 3600);
  const warmupS = seconds(opt.warmup, Math.min(300, Math.round(durationS * 0.2)));
  const users = usersList(opt.users, '200')[0];
  const dir = outDir('soak');
  const target = targetOption();
  const p = soakPlan(users, durationS, warmupS);
  log(`qa soak: ${p.describe} -> ${dir}`);
  const server = await acquireServer({ target, root: serverRoot(), dir, log });
  const sampler = createSampler({
    metricsUrl: `${server.url}/metrics`,
    serverPid: server.pid,
    file: path.join(dir, 'samples.jsonl'),
    intervalMs: 5000,
    netEveryMs: 5000,
  });
  const t0 = Date.now();
  sampler.setPhase('warmup');
  sampler.start();
  // Phases by the clock (Artillery starts in about 2.5 s): warm-up, measured, then 'drain' while
  // the last sessions end after the arrivals stop (left out of the RSS comparison).
  const switcher = setTimeout(() => sampler.setPhase('measured'), warmupS * 1000 + 2500);
  const drainer = setTimeout(() => sampler.setPhase('drain'), durationS * 1000 + 2500);
  /** @type {import('../lib/run-case.js').ArtilleryRun} */
  let r;
  /** @type {Awaited<ReturnType<typeof sampler.stop>>} */
  let sampling;
  try {
    r = await runArtillery({
      scenarioFile: path.join(SCENARIO_DIR, 'mixed.yml'),
      target: server.url,
      overrides: p.overrides,
      outJson: path.join(dir, 'measured.json'),
      logFile: path.join(dir, 'measured.log'),
      traceFile: path.join(dir, 'trace.jsonl'),
      onSpawn: (pid) => sampler.setLoadgen(pid),
      maxMs: (durationS + 600) * 1000,
    });
  } finally {
    clearTimeout(switcher);
    clearTimeout(drainer);
    sampler.setPhase('after');
    await sleep(1000);
    sampling = await sampler.stop();
    await server.stop();
  }
  const rss = soakRss(path.join(dir, 'samples.jsonl'));
  /** @type {import('../lib/records.js').ArtilleryPeriod} */
  const a = JSON.parse(readFileSync(path.join(dir, 'measured.json'), 'utf8')).aggregate;
  const failedVusers = a.counters?.['vusers.failed'] ?? 0;
  const broken = r.checks.filter((c) => !c.ok && c.strict).map((c) => c.expression);
  if (r.exitCode !== 0 && broken.length === 0) broken.push(`artillery exited ${r.exitCode}`);
  if (rss.growthPct === null) broken.push('RSS could not be sampled');
  else if (rss.growthPct > 10) broken.push(`RSS grew ${rss.growthPct.toFixed(1)}% after warm-up (> 10%)`);
  if (failedVusers > 0 && !broken.some((b) => b.includes('vusers.failed')))
    broken.push(`${failedVusers} clients failed`);
  const rec = {
    kind: 'soak',
    users,
    durationS,
    warmupS,
    plan: p.describe,
    startedAt: new Date(t0).toISOString(),
    command: `node artillery/bin/qa.js ${argv.join(' ')}`,
    server: { url: server.url, pid: server.pid ?? null, command: server.command, source: server.source },
    runs: {
      measured: {
        users,
        exitCode: r.exitCode,
        checks: r.checks,
        command: r.command,
        start: t0,
        end: Date.now(),
        json: 'measured.json',
        warmupEnd: t0 + warmupS * 1000 + 2500,
        drainStart: t0 + durationS * 1000 + 2500,
      },
    },
    rss,
    sampling,
    loopbackOnly: sampling.net.offLoopbackOurs === 0,
    passed: broken.length === 0,
    broken,
  };
  writeFileSync(path.join(dir, 'soak.json'), `${JSON.stringify(rec, null, 2)}\n`);
  log(`qa soak: ${oneLine(path.join(dir, 'measured.json'))}`);
  log(
    `qa soak: RSS after warm-up ${fmtMB(rss.baseline)} -> end ${fmtMB(rss.end)} (${rss.growthPct?.toFixed(1)}%), max ${fmtMB(rss.max)}`,
  );
  log(`qa soak: ${rec.passed ? 'passed' : `FAILED: ${broken.join('; ')}`}`);
  if (!opt['no-report']) report([dir], dir);
  return rec.passed ? 0 : 1;
}

/** @param {number | null | undefined} b */
const fmtMB = (b) => (b ? `${(b / 2 ** 20).toFixed(1)} MB` : '?');

/** @param {string[]} inputs @param {string} [dflt] */
function report(inputs, dflt) {
  const out = path.resolve(opt.out && command === 'report' ? opt.out : (dflt ?? path.join(OUT_DIR, 'report')));
  const files = writeReport(inputs, out);
  log(`qa report: ${files.html}\nqa report: ${files.md}`);
  return files;
}

async function cmdReport() {
  let inputs = opt.in;
  if (!inputs || inputs.length === 0) {
    inputs = latestResults();
    if (inputs.length === 0)
      throw new Error(`no results in ${OUT_DIR}: run a campaign, stress or soak first, or pass --in DIR`);
  }
  report(
    inputs.map((d) => path.resolve(d)),
    path.join(OUT_DIR, 'report'),
  );
  return 0;
}

/** The newest campaign, the newest stress run per transport, the newest soak, and bench:audio's
 * results where its documented command leaves them (bench/out/audio.json). */
function latestResults() {
  const audio = path.join(REPO_ROOT, 'bench', 'out', 'audio.json');
  const pick = existsSync(audio) ? [audio] : [];
  if (!existsSync(OUT_DIR)) return pick;
  const dirs = readdirSync(OUT_DIR).sort();
  /** @param {RegExp} re */
  const newest = (re) => dirs.filter((d) => re.test(d)).at(-1);
  for (const re of [/^campaign-/, /^stress-ws-/, /^stress-sse-/, /^stress-poll-/, /^soak-/]) {
    const d = newest(re);
    if (d) pick.push(path.join(OUT_DIR, d));
  }
  return pick;
}

async function cmdSmoke() {
  const { smoke } = await import('../lib/smoke.js');
  return smoke({ root: serverRoot(), target: targetOption(), log, out: opt.out });
}

// ---------------------------------------------------------------- main

const HELP = usageOf(import.meta.url, 15);

async function main() {
  if (opt.help || !command || command === 'help') {
    log(HELP);
    return 0;
  }
  switch (command) {
    case 'setup':
      setup({ log });
      return 0;
    case 'run':
      return cmdRun();
    case 'campaign':
      return cmdCampaign();
    case 'stress':
      return cmdStress();
    case 'soak':
      return cmdSoak();
    case 'report':
      return cmdReport();
    case 'smoke':
      return cmdSmoke();
    default:
      throw new Error(`unknown command "${command}" (setup, run, campaign, stress, soak, report, smoke)`);
  }
}

// Interrupted: stop Artillery; the server we forked exits when our IPC channel closes.
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    log(`qa: ${signal}: stopping Artillery and the server`);
    stopChildren();
    setTimeout(() => process.exit(130), 500);
  });
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    process.stderr.write(`qa: ${err.message}\n`);
    process.exitCode = 2;
  },
);

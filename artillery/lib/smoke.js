// The smoke test `npm test` runs so the suites never rot: a few dozen users of the polling,
// WebSocket and SSE scenarios for a few seconds each, one run whose budget cannot be met (it must
// make Artillery exit non-zero), and the report built from those results. Installs the pinned
// Artillery first when it is missing. Prints what it did; exits non-zero when anything is off.

import { mkdirSync, mkdtempSync, rmSync, existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ensureInstalled, SCENARIO_DIR } from './env.js';
import { acquireServer, runArtillery, oneLine } from './run-case.js';
import { createSampler } from './sampler.js';
import { writeReport } from './report.js';

const USERS = 20;

const CASES = [
  {
    name: 'poll',
    file: 'poll.yml',
    expect: 0,
    overrides: { config: { phases: [{ duration: 2, arrivalCount: USERS }], variables: { polls: 4, pollMs: 500 } } },
  },
  {
    name: 'ws',
    file: 'ws.yml',
    expect: 0,
    overrides: { config: { phases: [{ duration: 2, arrivalCount: USERS }], variables: { beats: 3, rampMs: 2000 } } },
  },
  {
    name: 'sse',
    file: 'sse.yml',
    expect: 0,
    overrides: { config: { phases: [{ duration: 2, arrivalCount: USERS }], variables: { beats: 3, rampMs: 2000 } } },
  },
  {
    name: 'impossible budget (push latency max <= 0 ms): must fail',
    file: 'ws.yml',
    expect: 'nonzero',
    overrides: {
      config: {
        phases: [{ duration: 1, arrivalCount: 3 }],
        variables: { beats: 1, rampMs: 0 },
        ensure: { conditions: [{ expression: 'push_latency.max <= 0' }] },
      },
    },
  },
];

/**
 * @param {{ root: string, target?: string, log: (s: string) => void, out?: string }} o
 */
export async function smoke({ root, target, log, out }) {
  const t0 = Date.now();
  if (process.env.SCORECAST_SKIP_QA_SMOKE === '1') {
    log('qa smoke: skipped (SCORECAST_SKIP_QA_SMOKE=1)');
    return 0;
  }
  log('qa smoke: polling, WebSocket and SSE scenarios at a few dozen users, and a budget that must fail');
  const inst = ensureInstalled({ log });
  log(
    inst.installed
      ? `qa smoke: installed artillery ${inst.version}`
      : `qa smoke: artillery ${inst.version} already installed (artillery/node_modules)`,
  );
  const dir = out ? path.resolve(out) : mkdtempSync(path.join(os.tmpdir(), 'scorecast-qa-smoke-'));
  mkdirSync(dir, { recursive: true });
  const server = await acquireServer({ target, root, dir, log });
  const sampler = createSampler({
    metricsUrl: `${server.url}/metrics`,
    serverPid: server.pid,
    file: path.join(dir, 'samples.jsonl'),
  });
  sampler.start();
  /** @type {{ name: string, ok: boolean, exitCode?: number, checks?: import('./records.js').Check[] }[]} */
  const results = [];
  try {
    for (const c of CASES) {
      const slug = c.name.split(' ')[0];
      const json = path.join(dir, `${slug}.json`);
      const r = await runArtillery({
        scenarioFile: path.join(SCENARIO_DIR, c.file),
        target: server.url,
        overrides: c.overrides,
        outJson: json,
        logFile: path.join(dir, `${slug}.log`),
        onSpawn: (pid) => sampler.setLoadgen(pid),
        maxMs: 120_000,
      });
      const ok = c.expect === 0 ? r.exitCode === 0 : r.exitCode !== 0 && r.checks.some((x) => !x.ok);
      results.push({ ...c, ...r, ok });
      log(
        `  ${ok ? 'ok  ' : 'FAIL'} ${c.name}: exit ${r.exitCode}${r.checks.length ? `, checks ${r.checks.map((x) => `${x.ok ? 'ok' : 'fail'} ${x.expression}`).join('; ')}` : ''}; ${oneLine(json)} (${(r.ms / 1000).toFixed(1)} s)`,
      );
    }
  } finally {
    const s = await sampler.stop();
    await server.stop();
    const loopback = s.net.offLoopbackOurs === 0;
    results.push({ name: 'loopback only', ok: loopback });
    log(
      `  ${loopback ? 'ok  ' : 'FAIL'} loopback only: ${s.net.checks} socket checks, ${s.net.offLoopbackOurs} non-loopback sockets of the server or Artillery`,
    );
  }
  // The report generator must keep working on real results.
  try {
    const caseDir = path.join(dir, 'report-input', 'ws-smoke');
    mkdirSync(caseDir, { recursive: true });
    const { writeFileSync, copyFileSync } = await import('node:fs');
    copyFileSync(path.join(dir, 'ws.json'), path.join(caseDir, 'measured.json'));
    copyFileSync(path.join(dir, 'samples.jsonl'), path.join(caseDir, 'samples.jsonl'));
    const ws = results.find((r) => r.name === 'ws');
    if (!ws) throw new Error('the ws case did not run');
    writeFileSync(
      path.join(caseDir, 'case.json'),
      JSON.stringify({
        kind: 'case',
        scenario: 'ws',
        users: USERS,
        server: { url: server.url, command: server.command, source: server.source },
        runs: {
          measured: {
            users: USERS,
            plan: 'smoke',
            exitCode: ws.exitCode,
            checks: ws.checks,
            start: t0,
            end: Date.now(),
          },
        },
        passed: ws.ok,
        broken: [],
        loopbackOnly: true,
        sampling: { net: { checks: 1, offLoopbackOurs: 0 } },
      }),
    );
    const files = writeReport([caseDir], path.join(dir, 'report'));
    const html = readFileSync(files.html, 'utf8');
    const ok =
      html.includes('<table') &&
      existsSync(files.md) &&
      !/https?:\/\/(?!127\.0\.0\.1)[a-z]/i.test(html.replace(/xmlns="http:\/\/www\.w3\.org\/2000\/svg"/g, ''));
    results.push({ name: 'report', ok });
    log(`  ${ok ? 'ok  ' : 'FAIL'} report: ${files.html}`);
  } catch (err) {
    results.push({ name: 'report', ok: false });
    log(`  FAIL report: ${/** @type {Error} */ (err).message}`);
  }
  const failed = results.filter((r) => !r.ok);
  const keep = out || failed.length > 0;
  if (!keep) rmSync(dir, { recursive: true, force: true });
  log(
    `qa smoke: ${failed.length ? `FAILED (${failed.map((r) => r.name).join(', ')})` : 'passed'} in ${((Date.now() - t0) / 1000).toFixed(0)} s; ${keep ? `results in ${dir}` : 'results removed (keep them with --out DIR)'}`,
  );
  return failed.length ? 1 : 0;
}

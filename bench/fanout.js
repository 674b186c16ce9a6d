#!/usr/bin/env node
// Fan-out benchmark (`npm run bench:fanout`): N WebSocket clients in separate processes receive
// a score's live stream from our server and from a bare `ws` server that pushes the same bytes on
// the same schedule (the floor, bench/floor-server.js). Reports push latency, errors, and the
// server's CPU time and RSS over a measured window that starts after every client is connected,
// then our/floor ratios and the targets of the issue. Results and how to read them: RESULTS.md.
//
//   node bench/fanout.js [--profile seed|small] [--clients 100,1000,1500] [--duration loops]
//                        [--client-procs 1] [--repeat 3] [--targets floor,ours] [--cpu-prof]
//                        [--max-noise 25] [--retries 2] [--server-root DIR] [--base-root DIR]
//                        [--settle 60s] [--grace 3s] [--ramp-every 50ms] [--ours-flags '--max-semi-space-size=2']
//                        [--base-flags '…'] [--talk-every 0|4s]
//   node bench/fanout.js --report bench/out/fanout-….json     print a saved run's report again
//
// --ramp-every: 100 clients are opened this often (all client processes together), and never more
// than MAX_PENDING handshakes at once: the ramp waits for the server's answers. Until 2026-11-27
// the ramp was not bounded and the floor listened with Node's default backlog of 511: on a busy
// machine thousands of 10,000 clients failed to connect to the floor (the kernel's listen queue
// overflowed: reset, or no answer before the timeout). A trial that loses clients says why.
// --talk-every: each load client sends a clock-sync `ping` message this often, as an audience
// page does (client/src/time/clock.js, every 4 s: the default), echoing the last `pong`'s proof
// token as a page does, and every server answers it with a `pong` (the floor too); 0: the clients
// only read, as in the fan-out runs before 2026-11-27 evening (no page does that: a reading-only
// client costs ours a liveness ping and its pong every ~5.5 s, the floor nothing).
// --duration `loops` (the default) measures whole loops of the piece and whole 6 s steps of the
// CPU timeline, at least 15 s (24 s for both profiles): a window that is not whole loops holds
// more or fewer big deltas depending on where it starts.
// --server-root runs server/commands/start.js of another checkout (e.g. a `git archive` of a commit); the
// score packages always come from this one. --base-root names a second checkout that runs as the
// target `base`, so a change is measured against the code before it in the same run.
//
// Targets: `floor` (bench/floor-server.js), `ours` (server/commands/start.js), and three diagnostics, the
// floor plus liveness traffic done three ways (see floor-server.js): `floor-ka` (heartbeat and
// ping, separate writes), `floor-kc` (both in one write) and `floor-kr` (what ours does now);
// `base` is our server from --base-root.
//
// Exits non-zero only when a process crashes or cannot start; a missed target is a result.

import { execFileSync, fork } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { wholeLoopsWindow } from './score-schedule.js';
import { cpuMs, cpuSplitMs, listenOverflows, machineMs, rssBytes, socketStates } from './proc-stats.js';
import { completion, parseDuration, summarize } from './latency-stats.js';
import { formatReport } from './fanout-report.js';
import { LIFTED_CAPS, children, probeSchedule, shippedFlags, startServer, stopChild, waitFor } from './servers.js';
import { benchArgs } from './cli-args.js';

const BENCH = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(BENCH, '..');

/**
 * @typedef {object} Profile
 * @property {string} scoreDir
 * @property {number[]} clients  default client counts
 */

/** @type {Record<string, Profile>} */
const PROFILES = {
  seed: { scoreDir: path.join(ROOT, 'scores', 'seed-profile'), clients: [100, 1000, 1500] },
  small: { scoreDir: path.join(BENCH, 'scores', 'small-delta'), clients: [5000] },
};

/** Clients opened per --ramp-every (50 ms by default), over all client processes. */
const RAMP_BATCH = 100;
/**
 * Handshakes under way at once, over all client processes: the ramp waits for answers beyond this,
 * so a slow server or a starved machine is never handed more connections than its accept queue
 * holds (both servers listen with a backlog of 4,096).
 */
const MAX_PENDING = 256;
/**
 * A handshake not answered within HANDSHAKE_MS (or reset) is opened again, at most
 * CONNECT_RETRIES times; the report counts them. On a machine saturated by other jobs a few
 * hundred of 10,000 connections sat in the server's accept queue for the whole connect phase, the
 * floor's as ours' (bench/RESULTS.md, 2026-11-27 10:30).
 */
const HANDSHAKE_MS = 10_000;
const CONNECT_RETRIES = 3;
/** RSS is sampled this often during the window. */
const RSS_EVERY_MS = 250;
/** The CPU timeline's step: half a loop of the seed profile, so each step holds 4 of its big deltas. */
const TIMELINE_STEP_MS = 6000;
/** The shortest window `--duration loops` picks. */
const MIN_WINDOW_MS = 15_000;
const START_TIMEOUT_MS = 30_000;
const EXIT_TIMEOUT_MS = 10_000;
/** Longest wait for other jobs on the machine to quiet down before a trial. */
const QUIET_WAIT_MS = 120_000;

/** @typedef {'floor' | 'ours' | 'base' | 'floor-ka' | 'floor-kc' | 'floor-kr'} Target */
const TARGET_NAMES = ['floor', 'ours', 'base', 'floor-ka', 'floor-kc', 'floor-kr'];
/** The floor's keepalive mode for each diagnostic variant (bench/floor-server.js). */
const KEEPALIVE_OF = /** @type {Record<string, string>} */ ({
  'floor-ka': 'separate',
  'floor-kc': 'corked',
  'floor-kr': 'ride',
});

/**
 * @typedef {object} TrialOptions
 * @property {Target} target
 * @property {number} clients
 * @property {number} clientProcs
 * @property {string} scoreDir
 * @property {string} serverRoot  checkout whose server/commands/start.js is `ours`
 * @property {string | null} baseRoot  checkout whose server/commands/start.js is `base`
 * @property {import('./score-schedule.js').ScoreSchedule} schedule
 * @property {number} durationMs  measured window
 * @property {number} settleMs    wait after the last client is ready, before the window
 * @property {number} rampEveryMs  RAMP_BATCH clients are opened this often
 * @property {number} [talkEveryMs] each client sends a clock-sync ping this often (0: never)
 * @property {number} graceMs     wait after the window for its last deltas to arrive
 * @property {string | null} cpuProfDir  run the server with --cpu-prof into this folder
 * @property {Record<string, string[]>} [nodeFlags]  more Node flags for a target's server (by target)
 */

/**
 * @typedef {object} TrialResult
 * @property {Target} target
 * @property {number} clients
 * @property {number} clientProcs
 * @property {number} ready         clients that got their snapshot
 * @property {number} connectMs
 * @property {Record<string, number>} connectWhy  clients that did not connect, by cause (load-client.js)
 * @property {number} listenOverflows  connections the kernel dropped from full listen queues while
 *   the clients connected (the whole machine's count: other jobs' servers too)
 * @property {Record<string, number>} connectRetried  connections opened again (load-client.js), by cause
 * @property {Record<string, number>} connectStates  when clients are missing: the TCP sockets of the
 *   server's port by state, side and whether bytes wait (proc-stats.js socketStates)
 * @property {number} msgs          deltas recorded in the window, all clients
 * @property {number} broadcasts    deltas the schedule sends in the window (msgs = clients x this)
 * @property {number} avgBytes      mean size of a recorded delta
 * @property {number} perClientMin
 * @property {number} perClientMax
 * @property {Record<string, number>} errors by kind (see ClientErrors in load-client.js)
 * @property {number} errorCount    sum of the kinds that are errors (clients not ready are `connect`)
 * @property {import('./latency-stats.js').LatencySummary} latency ms
 * @property {{ broadcasts: number, median: number }} completion  ms to the last client of a big
 *   delta, median over the window's big deltas (robust to a noisy moment; see latency-stats.js)
 * @property {number} serverCpuMs   user + system over the window
 * @property {number} serverCpuPct  of one core
 * @property {number} serverUserMs  of serverCpuMs, user time (JS, V8, libuv)
 * @property {number} serverSystemMs  of serverCpuMs, system time (the kernel, in our syscalls)
 * @property {number} clientCpuPct  all client processes, of one core
 * @property {number} machineBusyPct  both cores, of the whole machine (100 = both cores busy)
 * @property {number} softirqPct    of the whole machine: network work charged to no process
 * @property {number} stealPct      of the whole machine: time the hypervisor gave elsewhere
 * @property {number} otherPct      % of one core busy with neither the server nor the clients
 *   (other people's jobs on this shared machine, plus softirq): the trial's noise
 * @property {number[]} timeline  server CPU ms in each TIMELINE_STEP_MS from the last client ready
 *   to the end of the window: shows the settling (bench/RESULTS.md, "steady state")
 * @property {number} rssEndMB
 * @property {number} rssPeakMB     highest of the samples every RSS_EVERY_MS in the window
 * @property {number} durationMs
 * @property {number[]} loadavg     1, 5, 15 min, before the trial
 * @property {string | null} crashed what crashed, if anything
 */

/** @param {number} ms */
const sleep = (ms) =>
  new Promise((resolve) => {
    setTimeout(resolve, ms);
  });
const wall = () => performance.timeOrigin + performance.now();

/** How the per-address caps were lifted, for the report: the load clients share one address. */
const CAPS_NOTE =
  `every load client connects from 127.0.0.1 (one source address), so ours and base run with the per-address caps lifted: ` +
  `${Object.entries(LIFTED_CAPS)
    .map(([k, v]) => `${k}=${v}`)
    .join(', ')} (no limit; the floor has none)`;

/**
 * @param {Pick<TrialOptions, 'target' | 'scoreDir' | 'serverRoot' | 'schedule' | 'cpuProfDir' | 'nodeFlags'> & { baseRoot?: string | null }} o
 */
function startTarget(o) {
  return startServer({
    target: o.target,
    scoreDir: o.scoreDir,
    schedule: o.schedule,
    root: o.target === 'base' ? /** @type {string} */ (o.baseRoot) : o.serverRoot,
    keepalive: /** @type {any} */ (KEEPALIVE_OF[o.target] ?? null),
    execArgv: [
      ...(o.cpuProfDir ? ['--cpu-prof', '--cpu-prof-dir', o.cpuProfDir] : []),
      ...(o.nodeFlags?.[o.target] ?? []),
    ],
  });
}

/**
 * Count the deltas the schedule sends with `t` in a window of `ms` (one per beat; the start
 * phase does not matter for whole loops, and rounds for the rest).
 * @param {import('./score-schedule.js').ScoreSchedule} s
 * @param {number} ms
 */
function broadcastsIn(s, ms) {
  return Math.round((ms / s.loopMs) * s.atMs.length);
}

/**
 * One server, one set of clients, one measured window.
 * @param {TrialOptions} o
 * @returns {Promise<TrialResult>}
 */
async function runTrial(o) {
  const loadavg = os.loadavg();
  /** @type {string | null} */
  let crashed = null;
  let stopping = false;
  const server = startTarget(o);
  server.on('exit', (code, signal) => {
    if (!stopping) crashed ??= `${o.target} server exited (${signal ?? code})`;
  });
  const clientsList = [];
  try {
    const listening = await waitFor(server, 'listening', START_TIMEOUT_MS, `${o.target} server`);
    const serverPid = /** @type {number} */ (server.pid);
    const url = `ws://127.0.0.1:${listening.port}/live`;

    const procs = Math.max(1, Math.min(o.clientProcs, o.clients));
    const overflows0 = listenOverflows();
    const minGapMs = Math.min(
      ...o.schedule.atMs.map((t, i, a) => (i + 1 < a.length ? a[i + 1] : o.schedule.loopMs) - t),
    );
    const rampMs = Math.ceil(o.clients / RAMP_BATCH) * o.rampEveryMs;
    const connectTimeoutMs = START_TIMEOUT_MS + 2 * rampMs + CONNECT_RETRIES * HANDSHAKE_MS;
    const maxSeconds = Math.ceil((connectTimeoutMs + o.settleMs + o.durationMs + o.graceMs) / 1000) + 120;
    for (let p = 0; p < procs; p++) {
      const count = Math.floor(o.clients / procs) + (p < o.clients % procs ? 1 : 0);
      const child = fork(path.join(BENCH, 'load-client.js'), [], {
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
        serialization: 'advanced',
      });
      children.add(child);
      child.on('exit', (code, signal) => {
        if (!stopping) crashed ??= `load client ${p} exited (${signal ?? code})`;
      });
      clientsList.push(child);
      child.send({
        type: 'connect',
        url,
        count,
        batch: Math.ceil(RAMP_BATCH / procs),
        maxPending: Math.ceil(MAX_PENDING / procs),
        handshakeMs: HANDSHAKE_MS,
        connectRetries: CONNECT_RETRIES,
        everyMs: o.rampEveryMs,
        talkEveryMs: o.talkEveryMs ?? 0,
        timeoutMs: connectTimeoutMs,
        maxSamples: count * (Math.ceil(o.durationMs / minGapMs) + 4),
        maxSeconds,
      });
    }
    const readies = await Promise.all(
      clientsList.map((c, p) => waitFor(c, 'ready', connectTimeoutMs + 5000, `load client ${p}`)),
    );
    const ready = readies.reduce((n, r) => n + r.ready, 0);
    /** @type {Record<string, number>} */
    const connectRetried = {};
    for (const r of readies)
      for (const [k, v] of Object.entries(r.connectRetried ?? {})) connectRetried[k] = (connectRetried[k] ?? 0) + v;
    if (Object.keys(connectRetried).length > 0)
      process.stderr.write(`(connections opened again: ${JSON.stringify(connectRetried)}) `);
    /** @type {Record<string, number>} */
    const connectWhy = {};
    for (const r of readies)
      for (const [k, v] of Object.entries(r.connectWhy ?? {})) connectWhy[k] = (connectWhy[k] ?? 0) + v;
    const overflows = listenOverflows() - overflows0;
    // Where the missing clients' connections were left (`ss`): the server's side not yet read
    // (a request waiting in its receive queue), the client's SYN not answered, and so on.
    const connectStates = ready < o.clients ? socketStates(listening.port) : {};
    if (ready < o.clients)
      process.stderr.write(
        `(${o.clients - ready} not connected: ${JSON.stringify(connectWhy)}; listen overflows on the machine ${overflows}; ` +
          `sockets of the port: ${JSON.stringify(connectStates)}) `,
      );
    const connectMs = Math.max(...readies.map((r) => r.connectMs));

    // Announce the window now, a whole settle time ahead: a busy client process may read its IPC
    // late, and it must know the window before the first delta in it arrives.
    // The settle time is long (60 s) so that the window sees the steady state. Our server's heap
    // grows while the score loads and the clients connect; some 20-35 s later V8's memory reducer
    // runs three full collections in a row (once; RSS falls 30-40 MB), and for about 12 s from
    // then on the server runs up to 80% above its steady CPU (bench/RESULTS.md). The floor's heap
    // is too small to be shrunk. Each trial's `timeline` shows it.
    const readyAt = wall();
    const from = readyAt + o.settleMs;
    const to = from + o.durationMs;
    for (const c of clientsList) c.send({ type: 'window', from, to });
    const clientPids = clientsList.map((c) => /** @type {number} */ (c.pid));
    const clientCpu = () => clientPids.reduce((n, pid) => n + cpuMs(pid), 0);
    /** @type {number[]} */
    const timeline = [];
    let stepCpu = cpuMs(serverPid);
    const stepper = setInterval(() => {
      const now = cpuMs(serverPid);
      timeline.push(now - stepCpu);
      stepCpu = now;
    }, TIMELINE_STEP_MS);
    stepper.unref();

    await sleep(from - wall());
    const cpu0 = cpuMs(serverPid);
    const split0 = cpuSplitMs(serverPid);
    const clientCpu0 = clientCpu();
    const machine0 = machineMs();
    let rssPeak = rssBytes(serverPid);
    const sampler = setInterval(() => {
      rssPeak = Math.max(rssPeak, rssBytes(serverPid));
    }, RSS_EVERY_MS);
    await sleep(to - wall());
    const cpu1 = cpuMs(serverPid);
    const split1 = cpuSplitMs(serverPid);
    const clientCpu1 = clientCpu();
    const machine1 = machineMs();
    const rssEnd = rssBytes(serverPid);
    clearInterval(sampler);
    clearInterval(stepper);
    // The window ends on a step boundary: its last step is taken here if the interval did not.
    if (timeline.length < Math.round((to - readyAt) / TIMELINE_STEP_MS)) timeline.push(cpu1 - stepCpu);
    rssPeak = Math.max(rssPeak, rssEnd);

    await sleep(o.graceMs);
    stopping = true;
    const results = await Promise.all(
      clientsList.map((c, p) => {
        const r = waitFor(c, 'result', EXIT_TIMEOUT_MS * 3, `load client ${p}`);
        c.send({ type: 'stop' });
        return r;
      }),
    );

    /** @type {Record<string, number>} */
    const errors = {};
    for (const r of results)
      for (const [k, v] of Object.entries(r.errors)) errors[k] = (errors[k] ?? 0) + /** @type {number} */ (v);
    const errorCount = Object.entries(errors).reduce((n, [k, v]) => (k === 'overflow' ? n : n + v), 0);
    const msgs = results.reduce((n, r) => n + r.msgs, 0);
    const bytes = results.reduce((n, r) => n + r.bytes, 0);
    const wallMs = to - from;
    const machineBusy = machine1.busyMs - machine0.busyMs;
    const machineTotal = machine1.totalMs - machine0.totalMs;
    return {
      target: o.target,
      clients: o.clients,
      clientProcs: procs,
      ready,
      connectMs,
      connectWhy,
      listenOverflows: overflows,
      connectRetried,
      connectStates,
      msgs,
      broadcasts: broadcastsIn(o.schedule, o.durationMs),
      avgBytes: msgs > 0 ? bytes / msgs : NaN,
      perClientMin: Math.min(...results.map((r) => r.perClientMin)),
      perClientMax: Math.max(...results.map((r) => r.perClientMax)),
      errors,
      errorCount,
      latency: summarize(results.map((r) => r.samples)),
      completion: completion(results),
      serverCpuMs: cpu1 - cpu0,
      serverCpuPct: (100 * (cpu1 - cpu0)) / wallMs,
      serverUserMs: split1.userMs - split0.userMs,
      serverSystemMs: split1.systemMs - split0.systemMs,
      clientCpuPct: (100 * (clientCpu1 - clientCpu0)) / wallMs,
      machineBusyPct: machineTotal > 0 ? (100 * machineBusy) / machineTotal : NaN,
      softirqPct: machineTotal > 0 ? (100 * (machine1.softirqMs - machine0.softirqMs)) / machineTotal : NaN,
      stealPct: machineTotal > 0 ? (100 * (machine1.stealMs - machine0.stealMs)) / machineTotal : NaN,
      otherPct: (100 * (machineBusy - (cpu1 - cpu0) - (clientCpu1 - clientCpu0))) / wallMs,
      timeline,
      rssEndMB: rssEnd / 2 ** 20,
      rssPeakMB: rssPeak / 2 ** 20,
      durationMs: wallMs,
      loadavg,
      crashed,
    };
  } finally {
    stopping = true;
    await Promise.all([...clientsList.map(stopChild), stopChild(server)]);
  }
}

/**
 * The commit a checkout is at, and whether its working tree differs ("+changes").
 * A `git archive` copy has no .git: say so.
 * @param {string} dir
 */
function gitCommit(dir) {
  try {
    const head = execFileSync('git', ['-C', dir, 'rev-parse', '--short', 'HEAD'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
    const dirty = execFileSync('git', ['-C', dir, 'status', '--porcelain', '--', 'server', 'core'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
    return `${head}${dirty ? ' + uncommitted changes in server/ or core/' : ''}`;
  } catch {
    return 'not a git checkout';
  }
}

/**
 * Wait until the machine is quiet: at most `maxPct` % of one core busy over a second (nothing of
 * ours runs between trials, so that is other people's work). Gives up after `limitMs`.
 * @param {number} maxPct
 * @param {number} limitMs
 * @returns {Promise<number>} the last busy % of one core seen
 */
async function waitForQuiet(maxPct, limitMs) {
  const cores = os.cpus().length;
  const until = performance.now() + limitMs;
  let pct = NaN;
  for (let i = 0; i < 600 && performance.now() < until; i++) {
    const a = machineMs();
    await sleep(1000);
    const b = machineMs();
    pct = (100 * cores * (b.busyMs - a.busyMs)) / Math.max(1, b.totalMs - a.totalMs);
    if (pct <= maxPct) break;
    if (i === 0) process.stderr.write(`(machine busy: ${pct.toFixed(0)}% of a core, waiting) `);
  }
  return pct;
}

async function main() {
  const { values } = benchArgs(import.meta.url, {
    options: {
      profile: { type: 'string', default: 'seed' },
      clients: { type: 'string' },
      duration: { type: 'string', default: 'loops' },
      'client-procs': { type: 'string', default: '1' },
      repeat: { type: 'string', default: '3' },
      targets: { type: 'string', default: 'floor,ours' },
      settle: { type: 'string', default: '60s' },
      'ramp-every': { type: 'string', default: '50ms' },
      'talk-every': { type: 'string', default: '4s' },
      grace: { type: 'string', default: '3s' },
      'max-noise': { type: 'string', default: '25' },
      retries: { type: 'string', default: '2' },
      'cpu-prof': { type: 'boolean', default: false },
      out: { type: 'string' },
      'server-root': { type: 'string', default: ROOT },
      'base-root': { type: 'string' },
      'ours-flags': { type: 'string', default: '' },
      'base-flags': { type: 'string', default: '' },
      report: { type: 'string' },
    },
    strict: true,
  });
  if (values.report) {
    // Print the report of a saved run again (e.g. after changing how it is summarized).
    const saved = JSON.parse(readFileSync(values.report, 'utf8'));
    process.stdout.write(
      formatReport({
        ...saved,
        server: `${saved.serverRoot === ROOT ? 'this checkout' : saved.serverRoot} (${saved.serverCommit})`,
        addressCaps: saved.addressCaps ?? 'not recorded (a run from before the report said)',
        clientsNote: saved.clientsNote ?? 'they only read (no client messages)',
        discarded: saved.discarded.length,
      }),
    );
    return;
  }
  const profileName = /** @type {string} */ (values.profile);
  const profile = PROFILES[profileName];
  if (!profile) throw new Error(`--profile: expected ${Object.keys(PROFILES).join(' or ')}, got "${profileName}"`);
  const clients = values.clients ? values.clients.split(',').map((s) => Number(s.replace(/_/g, ''))) : profile.clients;
  if (!clients.every((n) => Number.isInteger(n) && n > 0 && n <= 10_000)) {
    throw new Error('--clients: expected a comma-separated list of integers in 1..10000');
  }
  const clientProcs = Number(values['client-procs']);
  const repeat = Number(values.repeat);
  if (!(Number.isInteger(clientProcs) && clientProcs >= 1 && clientProcs <= 4)) throw new Error('--client-procs: 1..4');
  if (!(Number.isInteger(repeat) && repeat >= 1 && repeat <= 10)) throw new Error('--repeat: 1..10');
  const targets = /** @type {Target[]} */ (String(values.targets).split(','));
  if (!targets.every((t) => TARGET_NAMES.includes(t)))
    throw new Error(`--targets: a comma-separated list of ${TARGET_NAMES.join(', ')}`);
  const durationArg = /** @type {string} */ (values.duration);
  const fixedDurationMs = durationArg === 'loops' ? null : parseDuration(durationArg);
  const maxNoise = Number(values['max-noise']);
  const retries = Number(values.retries);
  if (!(maxNoise >= 0)) throw new Error('--max-noise: a percentage of one core, e.g. 25');
  if (!(Number.isInteger(retries) && retries >= 0 && retries <= 5)) throw new Error('--retries: 0..5');
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const outDir = path.join(BENCH, 'out');
  mkdirSync(outDir, { recursive: true });
  const cpuProfDir = values['cpu-prof'] ? path.join(outDir, `prof-${stamp}`) : null;

  const serverRoot = path.resolve(/** @type {string} */ (values['server-root']));
  const baseRoot = values['base-root'] ? path.resolve(values['base-root']) : null;
  if (targets.includes('base') !== (baseRoot !== null))
    throw new Error('--targets base and --base-root DIR go together');
  // The floor needs our schedule: measure it on the wire from our server, one loop of the piece.
  process.stderr.write(`measuring what our server sends for ${path.relative(ROOT, profile.scoreDir)} (one loop) ... `);
  const schedule = await probeSchedule(profile.scoreDir, serverRoot, START_TIMEOUT_MS);
  process.stderr.write('done\n');
  const durationMs = fixedDurationMs ?? wholeLoopsWindow(schedule.loopMs, TIMELINE_STEP_MS, MIN_WINDOW_MS);
  const command = ['node', 'bench/fanout.js', ...process.argv.slice(2)].join(' ');
  process.stderr.write(
    `${command}\nscore ${schedule.id}: ${schedule.atMs.length} deltas per ${schedule.loopMs} ms loop, ` +
      `${Math.min(...schedule.deltaBytes)}..${Math.max(...schedule.deltaBytes)} bytes; snapshot ${schedule.snapshotBytes} bytes\n`,
  );

  /** @type {TrialResult[]} */
  const trials = [];
  /** Trials run again because other jobs on the machine were busy during their window. */
  /** @type {TrialResult[]} */
  const discarded = [];
  const settleMs = parseDuration(/** @type {string} */ (values.settle));
  const rampEveryMs = parseDuration(/** @type {string} */ (values['ramp-every']));
  const talkEveryMs = parseDuration(/** @type {string} */ (values['talk-every']));
  const clientsNote =
    talkEveryMs > 0
      ? `each sends a clock-sync ping every ${talkEveryMs} ms (as an audience page does), answered by every server`
      : 'they only read (no client messages)';
  /** @param {unknown} v */
  const flags = (v) =>
    String(v ?? '')
      .split(/\s+/)
      .filter(Boolean);
  const nodeFlags = { ours: flags(values['ours-flags']), base: flags(values['base-flags']) };
  const graceMs = parseDuration(/** @type {string} */ (values.grace));
  for (const n of clients) {
    for (let r = 0; r < repeat; r++) {
      for (const target of targets) {
        for (let attempt = 0; attempt <= retries; attempt++) {
          process.stderr.write(
            `  ${target} x ${n} (run ${r + 1}/${repeat}${attempt ? `, retry ${attempt}` : ''}) ... `,
          );
          await waitForQuiet(maxNoise, QUIET_WAIT_MS);
          const result = await runTrial({
            target,
            clients: n,
            clientProcs,
            scoreDir: profile.scoreDir,
            serverRoot,
            baseRoot,
            schedule,
            durationMs,
            settleMs,
            rampEveryMs,
            talkEveryMs,
            graceMs,
            cpuProfDir,
            nodeFlags,
          });
          const l = result.latency;
          const noisy = result.otherPct > maxNoise;
          process.stderr.write(
            `p99 ${l.p99.toFixed(1)} ms, max ${l.max.toFixed(1)} ms, cpu ${result.serverCpuMs} ms, errors ${result.errorCount}, ` +
              `others ${result.otherPct.toFixed(0)}% of a core${noisy ? ' (noisy)' : ''}${result.crashed ? `, CRASHED: ${result.crashed}` : ''}\n`,
          );
          if (noisy && attempt < retries && !result.crashed) {
            discarded.push(result);
            continue;
          }
          trials.push(result);
          break;
        }
      }
    }
  }

  const machine = {
    cpus: os.cpus().length,
    model: os.cpus()[0]?.model ?? '?',
    memGiB: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    kernel: os.release(),
  };
  // The flags each checkout ships with (bench/servers.js starts it with them), then the extra ones.
  /** @param {string} root @param {string[]} extra */
  const started = (root, extra) => {
    const all = [...shippedFlags(root), ...extra];
    return ` started with ${all.length ? all.join(' ') : 'no Node flags'}`;
  };
  const serverCommit =
    gitCommit(serverRoot) +
    started(serverRoot, nodeFlags.ours) +
    (baseRoot ? `; base: ${baseRoot} (${gitCommit(baseRoot)})${started(baseRoot, nodeFlags.base)}` : '');
  const outFile = values.out ?? path.join(outDir, `fanout-${profileName}-${stamp}.json`);
  writeFileSync(
    outFile,
    JSON.stringify(
      {
        command,
        date: new Date().toISOString(),
        machine,
        serverRoot,
        serverCommit,
        addressCaps: CAPS_NOTE,
        clientsNote,
        profile: profileName,
        schedule,
        durationMs,
        settleMs,
        timelineStepMs: TIMELINE_STEP_MS,
        maxNoise,
        trials,
        discarded,
      },
      null,
      2,
    ),
  );
  process.stdout.write(
    formatReport({
      command,
      machine,
      server: `${serverRoot === ROOT ? 'this checkout' : serverRoot} (${serverCommit})`,
      addressCaps: CAPS_NOTE,
      clientsNote,
      profile: profileName,
      schedule,
      trials,
      discarded: discarded.length,
      maxNoise,
      settleMs,
      timelineStepMs: TIMELINE_STEP_MS,
    }),
  );
  process.stderr.write(`wrote ${path.relative(process.cwd(), outFile)}\n`);
  if (trials.some((t) => t.crashed)) process.exitCode = 1;
}

main().catch((err) => {
  process.stderr.write(`\nfanout: ${err.stack ?? err}\n`);
  process.exit(1);
});

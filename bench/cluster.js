#!/usr/bin/env node
// Cluster benchmark (`npm run bench:cluster`): the same WebSocket audience on one process and on
// a cluster behind nginx (`npm run cluster`: Redis, two conductors, N edges), in the same run.
// Measures push latency (receipt minus the envelope's `t`, one machine's clock) and the CPU each
// process spends per state change delivered, then restarts nginx (the join storm: every client
// reconnecting at once), kills an edge (how long until every client is live again, and whether
// any lost a state) and the active conductor (how long until the beats resume). Every client has
// a loopback address of its own (127.1.x.y), as phones have, so nginx's per-address limits and
// its hashing over the edges see a crowd. The efficiency per edge compares an edge's CPU per
// client with the one process's, both measured in this run (and, after each one's idle cost
// measured in the same run, their costs per added client). Everything on loopback. Results and
// how to read them: bench/RESULTS.md, "Cluster".
//
// The one process and every cluster node run with the Node flags the server ships with
// (server/commands/node-flags.js, as the systemd unit starts it). With --profile DIR every Node
// process (the one process, the cluster runner, the conductors and edges) writes a V8 CPU
// profile to DIR, the measured windows are saved beside it (monotonic clock, for
// bench/cluster-profile.js), and the storm and the kills are left out (a killed node writes no
// profile). With --pin (Linux, taskset) the one process, then edge-1, has CPU 1 to itself among
// this run's processes, and everything else (this load process, nginx, the other edges, the
// conductors, Redis) shares CPU 0: the one process and edge-1 measured in the same conditions,
// without the other edges and nginx taking turns on their core. Other programs on the machine
// are not moved.
//
// With --split the one process is measured a second time with as many clients as one edge holds
// (the others closed): the one process at N against itself at N / edges tells what it saves by
// spreading its per-change cost over more clients, apart from what an edge costs per client.
//
// With --probe every server (the one process, every cluster node) runs bench/work-probe.js: the
// same instructions four times a second, timed on its own thread, so that the table says whether
// the edges pay more than the one process for the same work (this machine's CPUs have no
// instruction or cycle counters). Every window also reads each process's run-queue wait
// (schedstat), its minor page faults and the machine's steal time. --name PREFIX saves the run as
// PREFIX-cluster-….json, which `scorecast plan` does not take for the newest run.
//
//   node bench/cluster.js [--clients 1000] [--edges 3] [--window 20 (s)] [--idle 8 (s, the idle baselines)]
//                         [--score DIR] [--profile DIR] [--via-nginx (the one process behind nginx too)] [--pin] [--split] [--warmup 3 (s)]
//                         [--probe] [--name PREFIX]

import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import {
  cpuMs,
  cpuSplitMs,
  ioCounts,
  machineMs,
  minorFaults,
  parentPid,
  rssBytes,
  schedDelta,
  schedStats,
  switchesByThread,
  threadDelta,
  v8WorkerCpuMs,
} from './proc-stats.js';
import { SERVER_NODE_FLAGS } from '../server/commands/node-flags.js';
import { freePort, waitForPort } from '../server/lib/ports.js';
import { nginxConfig } from '../infra/cluster/run.js';
import { summarize } from './latency-stats.js';
import { BENCH_TOKEN, startChild, stopChild } from './children.js';
import { benchArgs } from './cli-args.js';

const BENCH = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(BENCH, '..');
const TOKEN = BENCH_TOKEN;

const { values } = benchArgs(import.meta.url, {
  options: {
    clients: { type: 'string', default: '1000' },
    edges: { type: 'string', default: '3' },
    window: { type: 'string', default: '20' },
    idle: { type: 'string', default: '8' },
    score: { type: 'string' },
    profile: { type: 'string' },
    'via-nginx': { type: 'boolean' },
    pin: { type: 'boolean' },
    split: { type: 'boolean' },
    warmup: { type: 'string', default: '3' },
    probe: { type: 'boolean' },
    name: { type: 'string' },
  },
});
const CLIENTS = Number(values.clients);
const EDGES = Number(values.edges);
const WINDOW_MS = Number(values.window) * 1000;
const IDLE_MS = Number(values.idle) * 1000;
const SCORE = path.resolve(values.score ?? path.join(ROOT, 'scores', 'seed-profile'));
const VIA_NGINX = values['via-nginx'] === true;
const PROFILE = values.profile ? path.resolve(values.profile) : null;
const PIN = values.pin === true;
const SPLIT = values.split === true;
// Seconds between the last client's connection and the measured window. V8 optimizes a process's
// write path only once it carries load (its compiler runs on the V8 helper threads), so a longer
// wait tells whether a window still holds that warm-up: each edge goes through it as the one
// process does.
const WARMUP_MS = Number(values.warmup) * 1000;
const NAME = values.name ?? '';
if (NAME && !/^[a-z0-9][a-z0-9.-]*$/.test(NAME))
  throw new Error(`--name ${NAME}: lower-case letters, digits, dots, dashes`);
const PROBE_DIR = values.probe ? mkdtempSync(path.join(os.tmpdir(), 'scorecast-bench-probe-')) : null;
const PROBE_FLAGS = PROBE_DIR ? ['--import', path.join(BENCH, 'work-probe.js')] : [];
/** @type {Record<string, string>} */
const PROBE_ENV = PROBE_DIR ? { SCORECAST_PROBE_DIR: PROBE_DIR } : {};
/**
 * The median compute and memory µs of the work probe's runs in a process between two wall-clock
 * times (ms since the epoch), and how many; NaN without --probe or runs.
 * @param {number} pid @param {number} from @param {number} to
 */
function probeMedians(pid, from, to) {
  /** @param {number[]} xs */
  const median = (xs) => {
    const v = xs.toSorted((a, b) => a - b);
    return v.length ? (v.length % 2 ? v[(v.length - 1) / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2) : Number.NaN;
  };
  try {
    /** @type {[number, number, number][]} */
    const recent = JSON.parse(readFileSync(path.join(/** @type {string} */ (PROBE_DIR), `${pid}.json`), 'utf8')).recent;
    const inWindow = recent.filter(([at]) => at >= from && at <= to);
    return {
      sampled: inWindow.length,
      medianComputeUs: median(inWindow.map((r) => r[1])),
      medianMemoryUs: median(inWindow.map((r) => r[2])),
    };
  } catch {
    return { sampled: 0, medianComputeUs: Number.NaN, medianMemoryUs: Number.NaN };
  }
}

/** The work probe's totals in a process (bench/work-probe.js), zeros without --probe. @param {number} pid */
function probeTotals(pid) {
  if (!PROBE_DIR) return { runs: 0, computeUs: 0, memoryUs: 0 };
  try {
    const t = JSON.parse(readFileSync(path.join(PROBE_DIR, `${pid}.json`), 'utf8'));
    return { runs: t.runs, computeUs: t.computeUs, memoryUs: t.memoryUs };
  } catch {
    return { runs: Number.NaN, computeUs: Number.NaN, memoryUs: Number.NaN };
  }
}

/**
 * Run a process, all its threads and its children's (nginx's workers) on one CPU only (taskset).
 * @param {number} pid @param {number} cpu
 */
function pinTree(pid, cpu) {
  const pids = [pid];
  for (const entry of readdirSync('/proc'))
    if (/^\d+$/.test(entry) && parentPid(Number(entry)) === pid) pids.push(Number(entry));
  for (const p of pids) {
    const r = spawnSync('taskset', ['-a', '-p', '-c', String(cpu), String(p)], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`taskset on ${p} failed: ${r.stderr || r.error?.message}`);
  }
}
if (PIN) pinTree(process.pid, 0);
/** @param {string} sub */
const profFlags = (sub) =>
  PROFILE ? ['--cpu-prof', '--cpu-prof-interval=2000', `--cpu-prof-dir=${path.join(PROFILE, sub)}`] : [];

const nginxBin = () =>
  spawnSync('sh', ['-c', 'command -v nginx || echo /usr/sbin/nginx'], { encoding: 'utf8' }).stdout.trim();
/** @param {number} ms */
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * @param {() => boolean} cond
 * @param {number} ms
 */
async function until(cond, ms) {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) return false;
    await sleep(10);
  }
  return true;
}

/** The `i`th client's loopback address (127.1.0.1 on; any 127.x.y.z binds). @param {number} i */
const loopbackOf = (i) => `127.1.${Math.floor(i / 250)}.${(i % 250) + 1}`;

/** A state envelope's head: the hub writes type, epoch, seq and t first (server/live/hub.js). */
const HEAD = /^\{"type":"(delta|snapshot)","epoch":"([^"]*)","seq":(\d+),"t":([\d.]+)/;

/**
 * The type, epoch, seq and t of a state message, read from its first bytes: parsing the whole
 * message (18 KB at the seed profile's big changes) cost the one load process most of a core at
 * 5,000 clients, more than the servers it measures. Null for any other message.
 * @param {Buffer} data
 * @returns {{ type: string, epoch: string, seq: number, t: number } | null}
 */
function envelopeHead(data) {
  const head = HEAD.exec(data.subarray(0, 160).toString('latin1'));
  if (head) return { type: head[1], epoch: head[2], seq: Number(head[3]), t: Number(head[4]) };
  const m = JSON.parse(data.toString());
  return m.type === 'delta' || m.type === 'snapshot' ? m : null;
}

/**
 * N WebSocket clients that reconnect at once (saying what they hold) and record every state's
 * seq and latency.
 * @param {string} url
 * @param {number} n
 */
async function openClients(url, n) {
  /** @typedef {{ epoch: string | null, seq: number, gaps: number, dups: number, reconnects: number, lastAt: number, openedAt: number, lat: number[], closed: boolean, ws: WebSocket | null }} Client */
  /** @type {Client[]} */
  const clients = [];
  for (let i = 0; i < n; i++) {
    /** @type {Client} */
    const c = {
      epoch: null,
      seq: -1,
      gaps: 0,
      dups: 0,
      reconnects: 0,
      lastAt: 0,
      openedAt: 0,
      lat: [],
      closed: false,
      ws: null,
    };
    const open = () => {
      const q = c.epoch ? `?epoch=${c.epoch}&seq=${c.seq}` : '';
      // An address of its own, as phones have: nginx limits connections and upgrades per client
      // address and sends each address to one edge (infra/nginx/scorecast.conf.template).
      const ws = new WebSocket(`${url.replace('http', 'ws')}/live${q}`, { localAddress: loopbackOf(i) });
      c.ws = ws;
      ws.on('open', () => {
        c.openedAt = Date.now();
      });
      ws.on('message', (data) => {
        const at = performance.timeOrigin + performance.now();
        const m = envelopeHead(/** @type {Buffer} */ (data));
        if (!m) return;
        if (m.type === 'delta' && m.epoch === c.epoch) {
          if (m.seq <= c.seq) c.dups++;
          else if (m.seq > c.seq + 1) c.gaps++;
        }
        c.epoch = m.epoch;
        c.seq = m.seq;
        c.lastAt = Date.now();
        c.lat.push(at - m.t);
      });
      ws.on('error', () => {});
      ws.on('close', () => {
        if (!c.closed) {
          c.reconnects++;
          setTimeout(open, Math.random() * 200);
        }
      });
    };
    open();
    clients.push(c);
    if (i % 100 === 99) await sleep(50);
  }
  await until(() => clients.every((c) => c.seq >= 0), 30_000);
  return {
    clients,
    /** Drop the samples so far (the window starts now). */
    reset() {
      for (const c of clients) c.lat = [];
    },
    close() {
      for (const c of clients) {
        c.closed = true;
        c.ws?.terminate();
      }
    },
  };
}

/**
 * CPU time of a process and its children (nginx's workers do its work, not its master).
 * @param {number} pid
 */
function treeCpuMs(pid) {
  let total = cpuMs(pid);
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    if (parentPid(Number(entry)) === pid) total += cpuMs(Number(entry));
  }
  return total;
}

/**
 * Kernel (system) CPU time of a process and its children: socket writes and reads, and on
 * loopback the receiving side's TCP work done in the sender's system call.
 * @param {number} pid
 */
function treeSystemMs(pid) {
  let total = cpuSplitMs(pid).systemMs;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    if (parentPid(Number(entry)) === pid) total += cpuSplitMs(Number(entry)).systemMs;
  }
  return total;
}

/**
 * A per-process reading summed over a process and its children (nginx's workers), field by field.
 * @template {Record<string, number>} T
 * @param {number} pid
 * @param {(pid: number) => T} read
 * @returns {T}
 */
function treeSum(pid, read) {
  const total = read(pid);
  /** @type {Record<string, number>} */
  const sum = total;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || parentPid(Number(entry)) !== pid) continue;
    const child = read(Number(entry));
    for (const k of Object.keys(sum)) sum[k] += child[k];
  }
  return total;
}

/** Context switches of a process's and its children's threads, thread by thread. @param {number} pid */
function treeSwitches(pid) {
  const threads = switchesByThread(pid);
  for (const entry of readdirSync('/proc'))
    if (/^\d+$/.test(entry) && parentPid(Number(entry)) === pid)
      for (const [k, t] of switchesByThread(Number(entry))) threads.set(k, t);
  return threads;
}

/** Read and write system calls of a process and its children, and their bytes. @param {number} pid */
const treeIo = (pid) => treeSum(pid, ioCounts);

/**
 * Time on a CPU and waiting for one of a process's and its children's threads, thread by thread,
 * and their minor page faults (which /proc keeps for ended threads too).
 * @param {number} pid
 */
function treeSched(pid) {
  const threads = schedStats(pid);
  for (const entry of readdirSync('/proc'))
    if (/^\d+$/.test(entry) && parentPid(Number(entry)) === pid)
      for (const [k, t] of schedStats(Number(entry))) threads.set(k, t);
  return { threads, minorFaults: treeSum(pid, (p) => ({ n: minorFaults(p) })).n };
}

/**
 * @param {ReturnType<typeof treeSched>} a @param {ReturnType<typeof treeSched>} b
 * @returns {{ runMs: number, waitMs: number, slices: number, minorFaults: number }}
 */
const schedMinus = (a, b) => ({ ...schedDelta(a.threads, b.threads), minorFaults: b.minorFaults - a.minorFaults });

/**
 * Every field of `b` less `a`'s.
 * @template {Record<string, number>} T
 * @param {T} a @param {T} b
 * @returns {T}
 */
const minus = (a, b) => /** @type {T} */ (Object.fromEntries(Object.keys(a).map((k) => [k, b[k] - a[k]])));

/**
 * Measure a window: latency over every client, CPU of each named process, changes delivered.
 * @param {Awaited<ReturnType<typeof openClients>>} load
 * @param {Record<string, number>} pids
 */
async function measure(load, pids, ms = WINDOW_MS) {
  load.reset();
  const seq0 = Math.max(...load.clients.map((c) => c.seq));
  const cpu0 = Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, treeCpuMs(pid)]));
  const sys0 = Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, treeSystemMs(pid)]));
  const sw0 = Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, treeSwitches(pid)]));
  const gc0 = Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, v8WorkerCpuMs(pid)]));
  const io0 = Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, treeIo(pid)]));
  const sched0 = Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, treeSched(pid)]));
  const probe0 = Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, probeTotals(pid)]));
  const machine0 = machineMs();
  const self0 = process.cpuUsage();
  // The window on the monotonic clock V8's profiles use (µs), to cut the profiles to it.
  const from = Number(process.hrtime.bigint() / 1000n);
  const wallFrom = Date.now();
  await sleep(ms);
  const to = Number(process.hrtime.bigint() / 1000n);
  const wallTo = Date.now();
  const self = process.cpuUsage(self0);
  const machine = minus(machine0, machineMs());
  const sched = Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, schedMinus(sched0[k], treeSched(pid))]));
  const probe = Object.fromEntries(
    Object.entries(pids).map(([k, pid]) => [
      k,
      { ...minus(probe0[k], probeTotals(pid)), ...(PROBE_DIR ? probeMedians(pid, wallFrom, wallTo) : {}) },
    ]),
  );
  const cpu = Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, treeCpuMs(pid) - cpu0[k]]));
  const sys = Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, treeSystemMs(pid) - sys0[k]]));
  const v8Workers = Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, v8WorkerCpuMs(pid) - gc0[k]]));
  const switches = Object.fromEntries(
    Object.entries(pids).map(([k, pid]) => {
      // Thread by thread: a thread that ended in the window would take its whole count off a sum.
      return [k, threadDelta(sw0[k], treeSwitches(pid), { voluntary: 0, involuntary: 0 })];
    }),
  );
  const io = Object.fromEntries(
    Object.entries(pids).map(([k, pid]) => {
      const now = treeIo(pid);
      return [
        k,
        {
          reads: now.reads - io0[k].reads,
          writes: now.writes - io0[k].writes,
          readBytes: now.readBytes - io0[k].readBytes,
          writtenBytes: now.writtenBytes - io0[k].writtenBytes,
        },
      ];
    }),
  );
  // Resident memory at the window's end (a process and its children: nginx's workers), MB.
  const rssMB = Object.fromEntries(
    Object.entries(pids).map(([k, pid]) => [k, treeSum(pid, (p) => ({ n: rssBytes(p) })).n / 2 ** 20]),
  );
  const changes = Math.max(...load.clients.map((c) => c.seq)) - seq0;
  const latency = summarize(load.clients.map((c) => Float64Array.from(c.lat)));
  return {
    changes,
    latency,
    cpuMs: cpu,
    systemMs: sys,
    v8WorkerMs: v8Workers,
    switches,
    io,
    rssMB,
    // Per process: ms on a CPU and ms runnable but waiting (schedstat), minor page faults.
    sched,
    // Per process (--probe): the probe's runs over the window, the µs they lasted (the monotonic
    // clock: about their CPU, as a run never waits) and the median run's.
    probe,
    // The machine over the window: busy, total, softirq and steal ms (all cores).
    machine,
    loadAverageAtEnd: readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' '),
    loadCpuMs: (self.user + self.system) / 1000,
    windowMs: ms,
    monotonicUs: [from, to],
    // The same window by the wall clock (ms since the Unix epoch), to line it up with other logs.
    wallMs: [wallFrom, wallTo],
  };
}

/**
 * CPU of each process over `ms` with no client connected (the idle baseline).
 * @param {Record<string, number>} pids @param {number} ms
 * @returns {Promise<Record<string, number>>} ms of CPU per s
 */
async function idleCpu(pids, ms) {
  const cpu0 = Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, treeCpuMs(pid)]));
  await sleep(ms);
  return Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, ((treeCpuMs(pid) - cpu0[k]) / ms) * 1000]));
}

/** @type {{ date: string, load: string, clients: number, edges: number, windowMs: number, score: string, pinned: boolean, single: any, singleViaNginx?: any, cluster: any }} */
const out = {
  date: new Date().toISOString(),
  load: readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' '),
  clients: CLIENTS,
  edges: EDGES,
  windowMs: WINDOW_MS,
  score: path.relative(ROOT, SCORE),
  pinned: PIN,
  single: null,
  cluster: null,
};

/**
 * The one process again with as many clients as one edge holds (the others closed), over a window
 * of its own (--split). An edge's efficiency mixes what an edge costs per client with what the one
 * process saves by spreading its per-change cost over EDGES times the clients: this window tells
 * the two apart, in the same run.
 * @param {Awaited<ReturnType<typeof openClients>>} load
 * @param {Record<string, number>} pids
 */
async function splitWindow(load, pids) {
  const kept = Math.round(CLIENTS / EDGES);
  for (const c of load.clients.slice(kept)) {
    c.closed = true;
    c.ws?.terminate();
  }
  const part = load.clients.slice(0, kept);
  await sleep(3000);
  const sub = {
    clients: part,
    reset() {
      for (const c of part) c.lat = [];
    },
    close() {},
  };
  return { clients: kept, ...(await measure(sub, pids)) };
}

/**
 * The one process and the same audience: first idle, then with every client; with `viaNginx`,
 * behind an nginx of the cluster's template (one upstream: this process, trusting it as the edges
 * do), so that it serves its clients through the same proxy as the edges.
 * @param {boolean} viaNginx
 */
async function onePhase(viaNginx) {
  const { child, msg } = await startChild(
    path.join(ROOT, 'server', 'commands', 'start.js'),
    // Direct, the one process sees every client's own address, as it would on the venue's network.
    [
      '--score',
      SCORE,
      '--port',
      '0',
      '--host',
      '127.0.0.1',
      '--autoplay',
      '--log-level',
      'warn',
      ...(viaNginx ? ['--trust-proxy', '127.0.0.1'] : []),
    ],
    'listening',
    // As the systemd unit starts it (fork would otherwise give it this benchmark's flags: none).
    {
      execArgv: [...SERVER_NODE_FLAGS, ...PROBE_FLAGS, ...profFlags(viaNginx ? 'single-nginx' : 'single')],
      env: PROBE_ENV,
    },
  );
  /** @type {Record<string, number>} */
  const pids = { server: /** @type {number} */ (child.pid) };
  if (PIN) pinTree(pids.server, 1);
  let url = `http://127.0.0.1:${msg.port}`;
  /** @type {import('node:child_process').ChildProcess | null} */
  let nginx = null;
  const dir = viaNginx ? mkdtempSync(path.join(os.tmpdir(), 'scorecast-bench-nginx-')) : '';
  if (viaNginx) {
    chmodSync(dir, 0o755);
    for (const d of ['tmp', 'cache']) mkdirSync(path.join(dir, d));
    const listen = await freePort();
    writeFileSync(
      path.join(dir, 'nginx.conf'),
      nginxConfig({ ports: [msg.port], listen: `127.0.0.1:${listen}`, prefix: dir }),
    );
    nginx = spawn(nginxBin(), ['-c', path.join(dir, 'nginx.conf'), '-p', dir], { stdio: 'ignore' });
    await waitForPort(listen, 5000);
    pids.nginx = /** @type {number} */ (nginx.pid);
    if (PIN) pinTree(pids.nginx, 0);
    url = `http://127.0.0.1:${listen}`;
  }
  await sleep(2000);
  const idleFrom = Number(process.hrtime.bigint() / 1000n);
  const idle = await idleCpu(pids, IDLE_MS);
  const idleMonotonicUs = [idleFrom, Number(process.hrtime.bigint() / 1000n)];
  const load = await openClients(url, CLIENTS);
  await sleep(WARMUP_MS);
  const steady = await measure(load, pids);
  const split = SPLIT && !viaNginx ? await splitWindow(load, pids) : null;
  const result = { ...steady, idleCpuPerS: idle, idleMonotonicUs, pids, split };
  load.close();
  await stopChild(child);
  if (nginx) {
    const gone = new Promise((r) => nginx?.once('exit', r));
    nginx.kill('SIGQUIT');
    await Promise.race([gone, sleep(5000)]);
    rmSync(dir, { recursive: true, force: true });
  }
  return result;
}

out.single = await onePhase(false);
if (VIA_NGINX) out.singleViaNginx = await onePhase(true);

// The cluster.
{
  const { child, msg } = await startChild(
    path.join(ROOT, 'infra', 'cluster', 'run.js'),
    ['--edges', String(EDGES), '--port', '0', '--token', TOKEN, '--score', SCORE],
    'ready',
    // The runner starts every node with the server's flags; a profile is asked of each by NODE_OPTIONS.
    PROFILE || PROBE_DIR
      ? { env: { ...PROBE_ENV, NODE_OPTIONS: [...PROBE_FLAGS, ...profFlags('cluster')].join(' ') } }
      : {},
  );
  /** @type {Record<string, number>} */
  const pids = Object.fromEntries(msg.procs.map((/** @type {any} */ p) => [p.name, p.pid]));
  if (PIN) {
    pinTree(/** @type {number} */ (child.pid), 0);
    for (const [name, pid] of Object.entries(pids)) pinTree(pid, name === 'edge-1' ? 1 : 0);
  }
  await sleep(2000);
  const idleFrom = Number(process.hrtime.bigint() / 1000n);
  const idle = await idleCpu(pids, IDLE_MS);
  const idleMonotonicUs = [idleFrom, Number(process.hrtime.bigint() / 1000n)];
  const load = await openClients(msg.url, CLIENTS);
  await sleep(WARMUP_MS);
  // Each edge's WebSockets, from its own /metrics, at the window's start and end (GET
  // /api/cluster's counts lag, and were off by thousands at 3,000 and 5,000 clients).
  const edgeClients = async () => {
    /** @type {Record<string, number>} */
    const on = {};
    for (const p of msg.procs.filter((/** @type {any} */ q) => q.name.startsWith('edge-'))) {
      const text = await (await fetch(`http://127.0.0.1:${p.port}/metrics`)).text();
      on[p.name] = Number(/^scorecast_clients\{transport="ws"\} (\d+)/m.exec(text)?.[1] ?? 0);
    }
    return on;
  };
  const clientsAtStart = await edgeClients();
  const steady = await measure(load, pids);
  const clientsAtEnd = await edgeClients();

  // Through nginx, which may have just lost the node it asked: asked again up to 5 times.
  const nodes = async () => {
    for (let i = 0; ; i++) {
      try {
        const res = await fetch(`${msg.url}/api/cluster`, { headers: { authorization: `Bearer ${TOKEN}` } });
        return (await res.json()).nodes;
      } catch (err) {
        if (i >= 4) throw err;
        await sleep(500);
      }
    }
  };
  const clientsOn = Object.fromEntries(
    Object.keys(clientsAtStart).map((k) => [k, Math.round((clientsAtStart[k] + clientsAtEnd[k]) / 2)]),
  );

  // The join storm, then an edge and the active conductor killed (not while profiling, nor with
  // one edge: its clients would have no other).
  const failovers = async () => {
    // The join storm: nginx stops (every client's socket closes) and starts again at once; every
    // client reconnects (within 0.2 s of its close, then every 0.2 s while refused).
    const nginx = msg.procs.find((/** @type {any} */ p) => p.name === 'nginx');
    const before = load.clients.map((c) => c.reconnects);
    const seqAtStop = Math.max(...load.clients.map((c) => c.seq));
    process.kill(nginx.pid, 'SIGTERM');
    await until(() => load.clients.every((c, i) => c.reconnects > before[i]), 15_000);
    const restartedAt = Date.now();
    const again = spawn(nginxBin(), ['-c', path.join(msg.dir, 'nginx.conf'), '-p', msg.dir], { stdio: 'ignore' });
    // This nginx is the benchmark's own child, not the cluster runner's: stopped however the run ends.
    process.on('exit', () => again.kill('SIGQUIT'));
    const allOpen = await until(() => load.clients.every((c) => c.openedAt >= restartedAt), 30_000);
    const openMs = Date.now() - restartedAt;
    const allLive = await until(() => load.clients.every((c) => c.seq > seqAtStop), 30_000);
    const liveMs = Date.now() - restartedAt;
    const storm = {
      clients: CLIENTS,
      allOpenMs: allOpen ? openMs : null,
      allLiveMs: allLive ? liveMs : null,
      lostStates: load.clients.reduce((n, c) => n + c.gaps, 0),
    };
    await sleep(3000);

    const edges = (await nodes()).filter((/** @type {any} */ n) => n.role === 'edge');
    const victim = edges.sort((/** @type {any} */ a, /** @type {any} */ b) => b.clients - a.clients)[0];
    // Kill the busiest edge: every client must have a state from after the kill.
    const beforeKill = load.clients.map((c) => c.reconnects);
    let killedAt = Date.now();
    process.kill(victim.pid, 'SIGKILL');
    await until(() => load.clients.some((c, i) => c.reconnects > beforeKill[i]), 10_000);
    const seqAtKill = Math.max(...load.clients.map((c) => c.seq));
    const edgeLive = await until(() => load.clients.every((c) => c.seq > seqAtKill), 30_000);
    const edgeMs = Date.now() - killedAt;
    // Counted once every client is back (counted at the first reconnect, it was that one alone).
    const moved = load.clients.filter((c, i) => c.reconnects > beforeKill[i]);
    // Kill the active conductor: how long until a new state reaches the clients.
    await sleep(2000);
    const active = (await nodes()).find((/** @type {any} */ n) => n.active);
    const seqBefore = Math.max(...load.clients.map((c) => c.seq));
    killedAt = Date.now();
    process.kill(active.pid, 'SIGKILL');
    await until(() => load.clients.some((c) => c.seq > seqBefore), 10_000);
    const conductorMs = Date.now() - killedAt;
    await sleep(3000);
    return {
      storm,
      edgeKill: { edge: victim.id, clientsMoved: moved.length, allLiveMs: edgeLive ? edgeMs : null },
      conductorKill: {
        conductor: active.id,
        beatsResumedMs: conductorMs,
        note: 'seed profile: a state change every 1.5 s or so, so this includes the wait for the next change',
      },
      again,
    };
  };
  const { again, ...failed } =
    PROFILE || EDGES < 2 ? { again: null, storm: null, edgeKill: null, conductorKill: null } : await failovers();
  out.cluster = {
    ...steady,
    idleCpuPerS: idle,
    idleMonotonicUs,
    pids,
    clientsOn,
    ...failed,
    lostStates: load.clients.reduce((n, c) => n + c.gaps, 0),
    duplicateStates: load.clients.reduce((n, c) => n + c.dups, 0),
  };
  load.close();
  again?.kill('SIGQUIT');
  await stopChild(child);
}

const perChange = (/** @type {number} */ cpu, /** @type {number} */ changes) =>
  changes > 0 ? +(cpu / changes).toFixed(2) : null;
const s = out.single;
const c = out.cluster;
const v = out.singleViaNginx;
const perS = (/** @type {number} */ ms, /** @type {number} */ w) => (ms / w) * 1000;
const edgeNames = Object.keys(c.cpuMs).filter((k) => k.startsWith('edge-'));
const edgeCpu = edgeNames.reduce((a, k) => a + c.cpuMs[k], 0);
// CPU per client per second: the one process's, and each edge's for the clients it held.
/**
 * The work probe's own CPU in a process over a phase's window (--probe), ms: its runs times the
 * median run. The runs' summed lengths by the clock would count the time a run lost its core, and
 * take more off the processes that wait most (the edges).
 * @param {any} phase @param {string} k
 */
const probeMs = (phase, k) =>
  PROBE_DIR ? (phase.probe[k].runs * (phase.probe[k].medianComputeUs + phase.probe[k].medianMemoryUs)) / 1000 : 0;
// A process's CPU per second less the probe's (the idle windows are not probed apart, so the
// figures above idle keep it in both terms, where it cancels).
/** @param {any} phase @param {string} k */
const busyPerS = (phase, k) => perS(phase.cpuMs[k] - probeMs(phase, k), phase.windowMs);
const singlePerClient = busyPerS(s, 'server') / CLIENTS;
const singleMarginal = (perS(s.cpuMs.server, s.windowMs) - s.idleCpuPerS.server) / CLIENTS;
// The one process behind nginx (--via-nginx) serves the same clients through the same proxy, with
// the same load process and nginx beside it, as the edges do: the baseline measured under the
// company the edges keep, printed beside the one process direct.
const viaPerClient = v ? busyPerS(v, 'server') / CLIENTS : Number.NaN;
/** @type {Record<string, { clients: number, usPerClient: number, efficiency: number, efficiencyViaNginx: number, marginalUs: number, marginalEfficiency: number }>} */
const perEdge = {};
for (const k of edgeNames) {
  const n = c.clientsOn[k] ?? 0;
  const cpuPerS = perS(c.cpuMs[k], c.windowMs);
  const busy = busyPerS(c, k);
  perEdge[k] = {
    clients: n,
    usPerClient: n ? (busy / n) * 1000 : Number.NaN,
    efficiency: n ? singlePerClient / (busy / n) : Number.NaN,
    efficiencyViaNginx: n ? viaPerClient / (busy / n) : Number.NaN,
    marginalUs: n ? ((cpuPerS - c.idleCpuPerS[k]) / n) * 1000 : Number.NaN,
    marginalEfficiency: n ? singleMarginal / ((cpuPerS - c.idleCpuPerS[k]) / n) : Number.NaN,
  };
}
c.perEdge = perEdge;
const nginxName = Object.keys(c.cpuMs).find((k) => k === 'nginx');
const f1 = (/** @type {number} */ x) => x.toFixed(1);
const f2 = (/** @type {number} */ x) => x.toFixed(2);
/** A process's context switches per second over a phase's window. @param {any} phase @param {string} k */
const switchesPerS = (phase, k) =>
  `${Math.round(perS(phase.switches[k].voluntary, phase.windowMs))} / ${Math.round(perS(phase.switches[k].involuntary, phase.windowMs))}`;
/** A process's V8 helper threads' CPU per second over a phase's window. @param {any} phase @param {string} k */
const helpersPerS = (phase, k) => f1(perS(phase.v8WorkerMs[k], phase.windowMs));
/** A process's resident memory at the end of a phase's window, MB. @param {any} phase @param {string} k */
const rssAt = (phase, k) => (phase.rssMB ? Math.round(phase.rssMB[k]) : '');
/**
 * A process's system calls over a window, per client: reads per second, writes and KB per change.
 * @param {string} name @param {any} phase @param {string} k @param {number} n  clients
 */
const ioRow = (name, phase, k, n) => {
  const io = phase.io[k];
  const per = (/** @type {number} */ x) => (n && phase.changes ? x / n / phase.changes : Number.NaN);
  return `| ${name} | ${n} | ${f2(perS(io.reads, phase.windowMs) / n)} | ${f2(per(io.writes))} | ${f1(per(io.writtenBytes) / 1024)} |`;
};
/**
 * A process's time on a CPU and waiting for one over a window, its minor faults per client, and
 * (--probe) what the probe's fixed work cost it.
 * @param {string} name @param {any} phase @param {string} k @param {number} n  clients
 */
const schedRow = (name, phase, k, n) => {
  const sc = phase.sched[k];
  const pr = phase.probe[k];
  const probe = PROBE_DIR
    ? ` ${pr.runs} | ${f1(pr.computeUs / pr.runs)} / ${f1(pr.memoryUs / pr.runs)} | ${f1(pr.medianComputeUs)} / ${f1(pr.medianMemoryUs)} |`
    : '';
  return `| ${name} | ${n} | ${f1(perS(sc.runMs, phase.windowMs))} | ${f1(perS(sc.waitMs, phase.windowMs))} | ${f2(sc.waitMs / sc.runMs)} | ${f2(perS(sc.minorFaults, phase.windowMs) / n)} |${probe}`;
};
const lines = [
  `cluster benchmark ${out.date} (load average ${out.load}): ${CLIENTS} WebSocket clients from ${CLIENTS} addresses, ${EDGES} edges, window ${WINDOW_MS / 1000} s, ${out.score}`,
  '',
  '| | changes | push p50 ms | p95 | p99 | max |',
  '| --- | --- | --- | --- | --- | --- |',
  `| one process | ${s.changes} | ${f1(s.latency.p50)} | ${f1(s.latency.p95)} | ${f1(s.latency.p99)} | ${f1(s.latency.max)} |`,
  ...(v
    ? [
        `| one process via nginx | ${v.changes} | ${f1(v.latency.p50)} | ${f1(v.latency.p95)} | ${f1(v.latency.p99)} | ${f1(v.latency.max)} |`,
      ]
    : []),
  `| cluster via nginx | ${c.changes} | ${f1(c.latency.p50)} | ${f1(c.latency.p95)} | ${f1(c.latency.p99)} | ${f1(c.latency.max)} |`,
  '',
  '| process | idle CPU ms per s | CPU ms per s | of which system | of which V8 helper threads | CPU ms per change | switches per s, voluntary / involuntary | RSS MB at the end |',
  '| --- | --- | --- | --- | --- | --- | --- | --- |',
  ...(v
    ? Object.keys(v.cpuMs).map(
        (k) =>
          `| one process via nginx: ${k} | ${f1(v.idleCpuPerS[k])} | ${f1(perS(v.cpuMs[k], v.windowMs))} | ${f1(perS(v.systemMs[k], v.windowMs))} | ${helpersPerS(v, k)} | ${perChange(v.cpuMs[k], v.changes)} | ${switchesPerS(v, k)} | ${rssAt(v, k)} |`,
      )
    : []),
  ...(s.split
    ? [
        `| one process with ${s.split.clients} clients: server | ${f1(s.idleCpuPerS.server)} | ${f1(perS(s.split.cpuMs.server, s.split.windowMs))} | ${f1(perS(s.split.systemMs.server, s.split.windowMs))} | ${helpersPerS(s.split, 'server')} | ${perChange(s.split.cpuMs.server, s.split.changes)} | ${switchesPerS(s.split, 'server')} | ${rssAt(s.split, 'server')} |`,
      ]
    : []),
  `| one process: server | ${f1(s.idleCpuPerS.server)} | ${f1(perS(s.cpuMs.server, s.windowMs))} | ${f1(perS(s.systemMs.server, s.windowMs))} | ${helpersPerS(s, 'server')} | ${perChange(s.cpuMs.server, s.changes)} | ${switchesPerS(s, 'server')} | ${rssAt(s, 'server')} |`,
  ...Object.entries(c.cpuMs).map(
    ([k, v]) =>
      `| cluster: ${k} | ${f1(c.idleCpuPerS[k])} | ${f1(perS(/** @type {number} */ (v), c.windowMs))} | ${f1(perS(c.systemMs[k], c.windowMs))} | ${helpersPerS(c, k)} | ${perChange(/** @type {number} */ (v), c.changes)} | ${switchesPerS(c, k)} | ${rssAt(c, k)} |`,
  ),
  `| the load process (both runs' clients) | | ${f1(perS(s.loadCpuMs, s.windowMs))}, ${f1(perS(c.loadCpuMs, c.windowMs))} | | | | | |`,
  '',
  `| per client | clients | CPU us per s${PROBE_DIR ? ' (the probe taken off)' : ''} | efficiency | us per s above idle | efficiency above idle |${v ? ' efficiency against the one process via nginx |' : ''}`,
  `| --- | --- | --- | --- | --- | --- |${v ? ' --- |' : ''}`,
  `| one process | ${CLIENTS} | ${f1(singlePerClient * 1000)} | 1 | ${f1(singleMarginal * 1000)} | 1 |`,
  ...(s.split
    ? [
        `| one process with one edge's share (--split) | ${s.split.clients} | ${f1((busyPerS(s.split, 'server') / s.split.clients) * 1000)} | ${f2(singlePerClient / (busyPerS(s.split, 'server') / s.split.clients))} | ${f1(((perS(s.split.cpuMs.server, s.split.windowMs) - s.idleCpuPerS.server) / s.split.clients) * 1000)} | ${f2(singleMarginal / ((perS(s.split.cpuMs.server, s.split.windowMs) - s.idleCpuPerS.server) / s.split.clients))} |`,
      ]
    : []),
  ...(v
    ? [
        `| one process via nginx | ${CLIENTS} | ${f1(viaPerClient * 1000)} | ${f2(singlePerClient / viaPerClient)} | ${f1(((perS(v.cpuMs.server, v.windowMs) - v.idleCpuPerS.server) / CLIENTS) * 1000)} | ${f2(singleMarginal / ((perS(v.cpuMs.server, v.windowMs) - v.idleCpuPerS.server) / CLIENTS))} |`,
      ]
    : []),
  ...Object.entries(perEdge).map(
    ([k, e]) =>
      `| ${k} | ${e.clients} | ${f1(e.usPerClient)} | ${f2(e.efficiency)} | ${f1(e.marginalUs)} | ${f2(e.marginalEfficiency)} |${v ? ` ${f2(e.efficiencyViaNginx)} |` : ''}`,
  ),
  ...(nginxName ? [`| nginx | ${CLIENTS} | ${f1((perS(c.cpuMs.nginx, c.windowMs) / CLIENTS) * 1000)} | | | |`] : []),
  '',
  '| system calls (/proc/PID/io) | clients | reads per client-second | writes per client per change | KB written per client per change |',
  '| --- | --- | --- | --- | --- |',
  ioRow('one process', s, 'server', CLIENTS),
  ...(s.split ? [ioRow("one process with one edge's share", s.split, 'server', s.split.clients)] : []),
  ...edgeNames.map((k) => ioRow(k, c, k, c.clientsOn[k] ?? 0)),
  '',
  `| the price of the same work | clients | CPU ms per s (schedstat) | waiting for a CPU, ms per s | waited per ms run | minor faults per client-second |${PROBE_DIR ? ' probe runs | probe µs per run, mean: registers / 256 KB chase | median |' : ''}`,
  `| --- | --- | --- | --- | --- | --- |${PROBE_DIR ? ' --- | --- | --- |' : ''}`,
  schedRow('one process', s, 'server', CLIENTS),
  ...(s.split ? [schedRow("one process with one edge's share", s.split, 'server', s.split.clients)] : []),
  ...(v
    ? [schedRow('one process via nginx', v, 'server', CLIENTS), schedRow('nginx in front of it', v, 'nginx', CLIENTS)]
    : []),
  ...edgeNames.map((k) => schedRow(k, c, k, c.clientsOn[k] ?? 0)),
  ...(nginxName ? [schedRow('nginx in front of the edges', c, 'nginx', CLIENTS)] : []),
  '',
  ...[
    ['one process', s],
    ...(s.split ? [["one process with one edge's share", s.split]] : []),
    ...(v ? [['one process via nginx', v]] : []),
    ['cluster', c],
  ].map(
    ([name, phase]) =>
      `machine over the ${name}'s window: ${f2(phase.machine.busyMs / phase.windowMs)} cores busy, softirq ${f1(perS(phase.machine.softirqMs, phase.windowMs))} ms/s, steal ${f1(perS(phase.machine.stealMs, phase.windowMs))} ms/s, load average at its end ${phase.loadAverageAtEnd}`,
  ),
  '',
  `clients on the edges over the window (their /metrics, start and end averaged): ${Object.values(c.clientsOn).reduce((a, b) => a + b, 0)} of ${CLIENTS}${Object.values(c.clientsOn).reduce((a, b) => a + b, 0) < 0.98 * CLIENTS ? ' (clients dropped and reconnecting: the load process fell behind; the per-client figures above are not comparable)' : ''}`,
  `edges together / one process, CPU for the same clients: ${f2((edgeCpu / Math.max(1, s.cpuMs.server)) * (s.windowMs / c.windowMs))}`,
  ...(c.storm
    ? [
        `join storm (nginx stopped and started again): every client's socket open again after ${c.storm.allOpenMs} ms, a newer state at every client after ${c.storm.allLiveMs} ms`,
        `kill ${c.edgeKill.edge} (${c.edgeKill.clientsMoved} clients on it): all clients live again after ${c.edgeKill.allLiveMs} ms`,
        `kill ${c.conductorKill.conductor}: a new state at the clients after ${c.conductorKill.beatsResumedMs} ms`,
      ]
    : [`join storm and kills: not run (${PROFILE ? '--profile' : 'one edge: no other to fail over to'})`]),
  `states lost: ${c.lostStates}, states twice: ${c.duplicateStates}`,
  ...(PIN
    ? [
        'pinned (--pin): the one process, then edge-1, alone on CPU 1; this load process, nginx, the other edges, the conductors and Redis on CPU 0. Compare edge-1 with the one process; the other edges shared a core with everything else',
      ]
    : []),
];
process.stdout.write(`${lines.join('\n')}\n`);
// A profiled run (its nodes slowed by the profiler, no storm or kills) stays beside its profiles,
// out of bench/results/ where `scorecast plan` takes the newest cluster run.
const dir = PROFILE ?? path.join(BENCH, 'results');
mkdirSync(dir, { recursive: true });
const file = PROFILE
  ? path.join(PROFILE, 'run.json')
  : // A pinned run is not a deployment's figures (its other edges shared a core with the load):
    // named so that `scorecast plan` does not take it.
    path.join(
      dir,
      `${NAME ? `${NAME}-` : ''}${PIN ? 'pinned-' : ''}cluster-${out.date.slice(0, 19).replace(/:/g, '')}.json`,
    );
writeFileSync(file, `${JSON.stringify(out, null, 2)}\n`);
if (PROBE_DIR) rmSync(PROBE_DIR, { recursive: true, force: true });
process.stdout.write(`saved ${path.relative(ROOT, file)}\n`);
process.exit(0);

#!/usr/bin/env node
// Heap snapshot of a fan-out server with N clients connected (where the memory per connection
// goes: bench/heap-summary.js reads the snapshots). Starts the target as bench/fanout.js does,
// with --heapsnapshot-signal, opens the clients, waits, asks for a snapshot (SIGUSR2), then stops.
//
//   node bench/heap-probe.js --target ours|floor [--clients 1500] [--profile seed|small]
//                            [--settle 20s] [--window 20s] [--snapshot] [--strace 10s] [--out DIR]
//                            [--node-flag=--max-semi-space-size=2 ...] [--talk-every 4s] [--trace 10s]
// --talk-every: each client sends a clock-sync ping this often (as bench/fanout.js --talk-every).
// --trace: after the window, every write, read and wait of the server's threads over that time,
// written whole to DIR/strace-TARGET.txt and summarized (calls and bytes per kind, per broadcast).
// Prints RSS (by kind of mapping; the anonymous mappings that hold the most, as `RSS of size`), user and system CPU over the window, and with --strace the
// server's system calls counted over that time (strace -c, after the window: it slows the server).

import { fork, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseDuration } from './latency-stats.js';
import { children, probeSchedule, startServer, stopChild, waitFor } from './servers.js';
import { CLK_TCK, rssBytes } from './proc-stats.js';
import { benchArgs } from './cli-args.js';

const BENCH = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(BENCH, '..');
const SCORES = {
  seed: path.join(ROOT, 'scores', 'seed-profile'),
  small: path.join(BENCH, 'scores', 'small-delta'),
};
/**
 * RSS by kind of mapping (MB): the brk heap (malloc), anonymous mappings (V8's heap pages,
 * malloc's mmap arenas, stacks) and files (the node binary, libraries).
 * @param {number} pid
 */
function smapsRss(pid) {
  /** @type {Record<string, number>} */
  const by = { brk: 0, anon: 0, file: 0 };
  let kind = 'anon';
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const head = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (head) kind = head[1] === '[heap]' ? 'brk' : head[1] === '' || head[1].startsWith('[') ? 'anon' : 'file';
    else if (line.startsWith('Rss:')) by[kind] += Number(line.split(/\s+/)[1]) / 1024;
  }
  for (const k of Object.keys(by)) by[k] = Math.round(by[k] * 10) / 10;
  return by;
}
/**
 * The anonymous mappings holding the most RSS (MB), with their size: V8's heap is one large
 * reservation (the pointer-compression cage), each thread's malloc arena a 64 MB one, stacks 8 MB.
 * @param {number} pid
 * @param {number} [top]
 */
function anonMappings(pid, top = 8) {
  /** @type {{ sizeMB: number, rssMB: number }[]} */
  const maps = [];
  let anon = false;
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const head = /^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (head) {
      anon = head[3] === '';
      if (anon)
        maps.push({ sizeMB: (Number.parseInt(head[2], 16) - Number.parseInt(head[1], 16)) / 2 ** 20, rssMB: 0 });
    } else if (anon && line.startsWith('Rss:')) maps[maps.length - 1].rssMB = Number(line.split(/\s+/)[1]) / 1024;
  }
  return maps
    .sort((a, b) => b.rssMB - a.rssMB)
    .slice(0, top)
    .map(
      (m) =>
        `${m.rssMB.toFixed(1)} of ${m.sizeMB >= 1024 ? `${(m.sizeMB / 1024).toFixed(0)} GB` : `${m.sizeMB.toFixed(1)} MB`}`,
    );
}
/**
 * User and system CPU time of a process so far (proc(5) fields 14, 15), ms.
 * @param {number} pid
 */
function userSystemMs(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { user: (Number(f[11]) * 1000) / CLK_TCK, system: (Number(f[12]) * 1000) / CLK_TCK };
}
/** @param {string} dir */
const probeScheduleOf = (dir) => probeSchedule(dir, ROOT);

/**
 * Calls and bytes per system call over a raw strace (`-o`), and per broadcast per client.
 * @param {string} text @param {number} secs
 * @param {import('./score-schedule.js').ScoreSchedule} schedule @param {number} clients
 */
function summarizeTrace(text, secs, schedule, clients) {
  /** @type {Record<string, { calls: number, bytes: number }>} */
  const by = {};
  for (const line of text.split('\n')) {
    const m = /^\d+\s+(?:<\.\.\. )?(\w+)(?:\(| resumed>).*\)?\s+= (-?\d+)/.exec(line);
    if (!m) continue;
    const k = (by[m[1]] ??= { calls: 0, bytes: 0 });
    k.calls++;
    if (/^(write|writev|read|readv|sendmsg|recvfrom)$/.test(m[1]) && Number(m[2]) > 0) k.bytes += Number(m[2]);
  }
  const beats = (secs * 1000 * schedule.atMs.length) / schedule.loopMs;
  const rows = Object.entries(by)
    .sort((a, b) => b[1].calls - a[1].calls)
    .map(
      ([k, v]) =>
        `${k.padEnd(12)} ${String(v.calls).padStart(8)} calls ${String(v.bytes).padStart(11)} bytes ` +
        `${(v.calls / beats / clients).toFixed(3).padStart(7)} calls/beat/client ${(v.bytes / Math.max(1, v.calls)).toFixed(0).padStart(7)} B/call`,
    );
  return `trace over ${secs} s (~${beats.toFixed(0)} beats, ${clients} clients):\n${rows.join('\n')}\n`;
}

/** @param {number} ms */
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function main() {
  const { values } = benchArgs(import.meta.url, {
    options: {
      target: { type: 'string', default: 'ours' },
      clients: { type: 'string', default: '1500' },
      profile: { type: 'string', default: 'seed' },
      settle: { type: 'string', default: '20s' },
      out: { type: 'string', default: path.join(BENCH, 'out', 'heap') },
      strace: { type: 'string' },
      snapshot: { type: 'boolean', default: false },
      'node-flag': { type: 'string', multiple: true, default: [] },
      window: { type: 'string', default: '20s' },
      'talk-every': { type: 'string', default: '0' },
      trace: { type: 'string' },
      gc: { type: 'boolean', default: false },
    },
    strict: true,
  });
  const target = /** @type {string} */ (values.target);
  const clients = Number(values.clients);
  if (!(Number.isInteger(clients) && clients > 0 && clients <= 10_000)) throw new Error('--clients: 1..10000');
  const scoreDir = SCORES[/** @type {'seed' | 'small'} */ (values.profile)];
  if (!scoreDir) throw new Error('--profile: seed or small');
  const out = path.resolve(/** @type {string} */ (values.out));
  mkdirSync(out, { recursive: true });
  const schedule = target.startsWith('floor') ? await probeSchedule(scoreDir, ROOT) : null;
  // The floor's process gets no env of ours (bench/servers.js): the watch's folder is inherited.
  if (values.gc) process.env.GC_WATCH_DIR = out;
  const server = startServer({
    target,
    keepalive: target === 'floor-kr' ? 'ride' : null,
    scoreDir,
    root: ROOT,
    schedule,
    execArgv: [
      '--heapsnapshot-signal=SIGUSR2',
      `--diagnostic-dir=${out}`,
      ...(values.gc ? ['--import', path.join(BENCH, 'gc-watch.js')] : []),
      ...(values['node-flag'] ?? []),
    ],
  });
  try {
    const { port } = await waitFor(server, 'listening', 30_000, target);
    const procs = clients > 5000 ? 2 : 1;
    const loads = [];
    for (let p = 0; p < procs; p++) {
      const child = fork(path.join(BENCH, 'load-client.js'), [], {
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
        serialization: 'advanced',
      });
      children.add(child);
      loads.push(child);
      child.send({
        type: 'connect',
        url: `ws://127.0.0.1:${port}/live`,
        count: Math.floor(clients / procs) + (p < clients % procs ? 1 : 0),
        batch: 50,
        everyMs: 50,
        talkEveryMs: parseDuration(/** @type {string} */ (values['talk-every'])),
        timeoutMs: 120_000,
        maxSamples: 1000,
        maxSeconds: 600,
      });
    }
    const readies = await Promise.all(loads.map((c) => waitFor(c, 'ready', 180_000, 'load client')));
    const ready = readies.reduce((n, r) => n + r.ready, 0);
    await sleep(parseDuration(/** @type {string} */ (values.settle)));
    const pid = /** @type {number} */ (server.pid);
    // User and system CPU apart over a window: system is the kernel's work in our syscalls.
    const windowMs = parseDuration(/** @type {string} */ (values.window));
    const gcFile = path.join(out, `gc-${pid}.json`);
    const readGc = () => (values.gc && existsSync(gcFile) ? JSON.parse(readFileSync(gcFile, 'utf8')) : null);
    const t0 = userSystemMs(pid);
    const gc0 = readGc();
    await sleep(windowMs);
    const t1 = userSystemMs(pid);
    const gc1 = readGc();
    const cpu = { windowMs, userMs: t1.user - t0.user, systemMs: t1.system - t0.system };
    /** @type {Record<string, unknown> | null} */
    let gc = null;
    if (gc0 && gc1) {
      /** @type {Record<string, { n: number, ms: number }>} */
      const kinds = {};
      for (const [k, v] of Object.entries(gc1.gc)) {
        const b = gc0.gc[k] ?? { n: 0, ms: 0 };
        kinds[k] = { n: v.n - b.n, ms: Math.round((v.ms - b.ms) * 10) / 10 };
      }
      /** @type {Record<string, number>} */
      const spacesMB = {};
      for (const [k, v] of Object.entries(gc1.spaces)) if (v > 0) spacesMB[k] = Math.round((v / 2 ** 20) * 10) / 10;
      gc = { kinds, spacesMB, heapUsedMB: Math.round((gc1.mem.heapUsed / 2 ** 20) * 10) / 10 };
    }
    /** @type {string} */
    let syscalls = '';
    if (values.strace) {
      const secs = Math.min(60, Math.max(1, parseDuration(values.strace) / 1000));
      const r = spawnSync('timeout', ['-s', 'INT', String(secs), 'strace', '-c', '-f', '-p', String(pid)], {
        encoding: 'utf8',
        timeout: (secs + 30) * 1000,
      });
      syscalls = r.stderr;
    }
    if (values.trace) {
      const secs = Math.min(60, Math.max(1, parseDuration(values.trace) / 1000));
      const file = path.join(out, `strace-${target}.txt`);
      spawnSync(
        'timeout',
        [
          '-s',
          'INT',
          String(secs),
          'strace',
          '-f',
          '-qq',
          '-o',
          file,
          '-e',
          'trace=write,writev,read,readv,epoll_pwait,epoll_wait,sendmsg,recvfrom',
          '-e',
          'abbrev=all',
          '-s',
          '0',
          '-p',
          String(pid),
        ],
        { encoding: 'utf8', timeout: (secs + 30) * 1000 },
      );
      syscalls += summarizeTrace(
        readFileSync(file, 'utf8'),
        secs,
        schedule ?? (await probeScheduleOf(scoreDir)),
        clients,
      );
    }
    const before = new Set(readdirSync(out));
    const rss = rssBytes(/** @type {number} */ (server.pid));
    const maps = smapsRss(/** @type {number} */ (server.pid));
    const anonTop = anonMappings(/** @type {number} */ (server.pid));
    // Ours exports V8's heap spaces (prom-client's default metrics): what of the RSS is V8's.
    /** @type {Record<string, number>} */
    const v8MB = {};
    if (target !== 'floor') {
      const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
      for (const m of text.matchAll(
        /^nodejs_(heap_space_size_total_bytes\{space="(\w+)"\}|external_memory_bytes|heap_size_used_bytes|heap_size_total_bytes) (\S+)$/gm,
      ))
        v8MB[m[2] ?? m[1]] = Math.round((Number(m[3]) / 2 ** 20) * 10) / 10;
    }
    if (values.snapshot) server.kill('SIGUSR2');
    // The snapshot is written while the server is stopped; done when its size holds for 2 s.
    let file = '';
    let size = -1;
    for (let i = 0; values.snapshot && i < 300; i++) {
      await sleep(1000);
      const fresh = readdirSync(out).filter((f) => f.endsWith('.heapsnapshot') && !before.has(f));
      if (fresh.length === 0) continue;
      file = path.join(out, fresh[0]);
      const s = existsSync(file) ? statSync(file).size : -1;
      if (s > 0 && s === size) break;
      size = s;
    }
    process.stdout.write(
      `${JSON.stringify({ target, clients, ready, rssMB: rss / 2 ** 20, smapsMB: maps, anonTop, v8MB, cpu, gc, file })}\n${syscalls}`,
    );
    await Promise.all(loads.map(stopChild));
  } finally {
    await stopChild(server);
  }
}

main().catch((err) => {
  process.stderr.write(`heap-probe: ${err.stack ?? err}\n`);
  process.exit(1);
});

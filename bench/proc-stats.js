// The Linux /proc readers of the benchmarks, the QA sampler and the lab: a process's CPU time,
// resident memory, threads and parent, and the whole machine's busy time. They measure a process
// from outside, so the numbers include everything it does (event loop, GC, kernel time in its
// socket writes).

import { readFileSync, readdirSync } from 'node:fs';
import { execFileSync } from 'node:child_process';

/** Clock ticks per second of /proc's CPU times (USER_HZ; 100 on Linux unless told otherwise). */
export const CLK_TCK = (() => {
  try {
    const n = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
    return Number.isInteger(n) && n > 0 ? n : 100;
  } catch {
    return 100;
  }
})();

/**
 * The fields of /proc/<pid>/stat after the command name (proc(5) field 3 is [0]), or null when
 * the process is gone. The command name (field 2) may hold spaces and parentheses: the fields are
 * counted after the last ')'.
 * @param {number} pid
 */
function statFields(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/**
 * CPU time a process has used so far, user + system, all threads (proc(5): fields 14, 15).
 * @param {number} pid
 * @returns {number} milliseconds, in steps of 1000 / CLK_TCK; NaN when the process is gone
 */
export function cpuMs(pid) {
  const f = statFields(pid);
  return f ? ((Number(f[11]) + Number(f[12])) * 1000) / CLK_TCK : NaN;
}

/**
 * CPU time a process has used so far, user and system apart (proc(5): fields 14, 15): system is
 * the kernel's work in its system calls (socket writes and reads), user is JS, V8 and libuv.
 * @param {number} pid
 * @returns {{ userMs: number, systemMs: number }} NaN when the process is gone
 */
export function cpuSplitMs(pid) {
  const f = statFields(pid);
  return f
    ? { userMs: (Number(f[11]) * 1000) / CLK_TCK, systemMs: (Number(f[12]) * 1000) / CLK_TCK }
    : { userMs: NaN, systemMs: NaN };
}

/**
 * CPU time (user + system) a process's V8 helper threads have used so far: the threads named
 * `V8Worker`, where the parallel scavenge, concurrent marking and sweeping and background
 * compilation run, apart from the main thread's (the event loop and the GC pauses' own share).
 * @param {number} pid
 * @returns {number} milliseconds; NaN when the process is gone
 */
export function v8WorkerCpuMs(pid) {
  /** @type {string[]} */
  let tids;
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return NaN;
  }
  let ticks = 0;
  for (const tid of tids) {
    try {
      if (readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim() !== 'V8Worker') continue;
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(f[11]) + Number(f[12]);
    } catch {
      // a thread that ended since the listing
    }
  }
  return (ticks * 1000) / CLK_TCK;
}

/**
 * Context switches of a process so far, thread by thread (voluntary_ctxt_switches and
 * nonvoluntary_ctxt_switches of /proc/<pid>/task/<tid>/status), keyed `pid/tid` as schedStats:
 * voluntary, it waited (epoll, a lock); involuntary, the scheduler took its core for another
 * process. Many involuntary switches per second mean the process shares its core, and pays for
 * the caches the others filled. Empty when the process is gone.
 * @param {number} pid
 * @returns {Map<string, { voluntary: number, involuntary: number }>}
 */
export function switchesByThread(pid) {
  /** @type {Map<string, { voluntary: number, involuntary: number }>} */
  const threads = new Map();
  /** @type {string[]} */
  let tids;
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return threads;
  }
  for (const tid of tids) {
    let status = '';
    try {
      status = readFileSync(`/proc/${pid}/task/${tid}/status`, 'utf8');
    } catch {
      continue; // a thread that ended since the listing
    }
    threads.set(`${pid}/${tid}`, {
      voluntary: Number(/^voluntary_ctxt_switches:\s+(\d+)/m.exec(status)?.[1] ?? 0),
      involuntary: Number(/^nonvoluntary_ctxt_switches:\s+(\d+)/m.exec(status)?.[1] ?? 0),
    });
  }
  return threads;
}

/**
 * Context switches of a process so far, every thread's summed (switchesByThread). A sum goes
 * down when a thread ends: take the difference of two readings with switchDelta instead.
 * @param {number} pid
 * @returns {{ voluntary: number, involuntary: number }} NaN when the process is gone
 */
export function contextSwitches(pid) {
  const threads = switchesByThread(pid);
  if (threads.size === 0) return { voluntary: NaN, involuntary: NaN };
  return threadDelta(new Map(), threads, { voluntary: 0, involuntary: 0 });
}

/**
 * What the threads did between two readings keyed by thread (schedStats, switchesByThread; merged
 * over processes if need be), field by field: every thread alive at the second, less its figures
 * at the first (a thread born since counts whole). A thread that ended between them is left out:
 * its last part is lost, never negative.
 * @template {Record<string, number>} T
 * @param {Map<string, T>} before
 * @param {Map<string, T>} after
 * @param {T} zero  every field at 0: the shape of the answer
 * @returns {T}
 */
export function threadDelta(before, after, zero) {
  /** @type {Record<string, number>} */
  const d = { ...zero };
  for (const [tid, now] of after) {
    const was = before.get(tid);
    for (const k of Object.keys(d)) d[k] += now[k] - (was?.[k] ?? 0);
  }
  return /** @type {T} */ (d);
}

/**
 * A process's read and write system calls so far, and the bytes they moved, all threads
 * (/proc/<pid>/io: syscr, syscw, rchar, wchar). On a server those are its socket reads (client
 * frames, pongs, Redis replies) and writes (a write or writev per socket per message, more when a
 * write is taken in part): counts, so they compare two processes without CPU time's noise.
 * @param {number} pid
 * @returns {{ reads: number, writes: number, readBytes: number, writtenBytes: number }} NaN when
 *   the process is gone or its io file cannot be read
 */
export function ioCounts(pid) {
  try {
    const io = readFileSync(`/proc/${pid}/io`, 'utf8');
    /** @param {string} k */
    const field = (k) => Number(new RegExp(`^${k}:\\s+(\\d+)`, 'm').exec(io)?.[1] ?? Number.NaN);
    return { reads: field('syscr'), writes: field('syscw'), readBytes: field('rchar'), writtenBytes: field('wchar') };
  } catch {
    return { reads: Number.NaN, writes: Number.NaN, readBytes: Number.NaN, writtenBytes: Number.NaN };
  }
}

/**
 * A process's time on a CPU and its time runnable but waiting for one, thread by thread
 * (/proc/<pid>/task/<tid>/schedstat: ns on a CPU, ns in a run queue, slices run). The wait is the
 * contention itself, in ns rather than /proc/<pid>/stat's 10 ms ticks: two processes that do the
 * same work on a shared machine differ here first. By thread, because a thread that ends takes
 * its figures with it: a sum over a process's threads can fall (see schedDelta).
 * @param {number} pid
 * @returns {Map<string, { runMs: number, waitMs: number, slices: number }>} empty when the process is gone
 */
export function schedStats(pid) {
  /** @type {Map<string, { runMs: number, waitMs: number, slices: number }>} */
  const threads = new Map();
  /** @type {string[]} */
  let tids;
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return threads;
  }
  for (const tid of tids) {
    try {
      const [run, wait, n] = readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').trim().split(' ');
      threads.set(`${pid}/${tid}`, { runMs: Number(run) / 1e6, waitMs: Number(wait) / 1e6, slices: Number(n) });
    } catch {
      // a thread that ended since the listing
    }
  }
  return threads;
}

/**
 * What the threads did between two readings of schedStats (threadDelta).
 * @param {Map<string, { runMs: number, waitMs: number, slices: number }>} before
 * @param {Map<string, { runMs: number, waitMs: number, slices: number }>} after
 */
export function schedDelta(before, after) {
  return threadDelta(before, after, { runMs: 0, waitMs: 0, slices: 0 });
}

/**
 * Minor page faults of a process so far, all threads (proc(5): field 10): pages it touched for
 * the first time, its heap's growth and the kernel's socket buffers it mapped, a count of memory
 * work that does not move with the machine's load as CPU time does.
 * @param {number} pid
 * @returns {number} NaN when the process is gone
 */
export function minorFaults(pid) {
  const f = statFields(pid);
  return f ? Number(f[7]) : NaN;
}

/**
 * The parent of a process (proc(5): field 4), or NaN when it is gone.
 * @param {number} pid
 */
export function parentPid(pid) {
  const f = statFields(pid);
  return f ? Number(f[1]) : NaN;
}

/**
 * A process's threads now (Threads of /proc/<pid>/status), or NaN when it is gone.
 * @param {number} pid
 */
export function threadCount(pid) {
  try {
    const m = /^Threads:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : NaN;
  } catch {
    return NaN;
  }
}

/**
 * Resident set size of a process now (VmRSS of /proc/<pid>/status).
 * @param {number} pid
 * @returns {number} bytes; NaN when the process is gone
 */
export function rssBytes(pid) {
  try {
    const m = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : NaN;
  } catch {
    return NaN;
  }
}

/**
 * The machine's CPU time so far, all cores (first line of /proc/stat), in ms. `softirqMs` is
 * kept apart because it is not in any process's time: on loopback most of TCP's receive work
 * runs as a softirq inside the sender's write, and /proc charges it to no process.
 * @returns {{ busyMs: number, totalMs: number, softirqMs: number, stealMs: number }}
 */
export function machineMs() {
  const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0];
  // user nice system idle iowait irq softirq steal
  const t = line
    .trim()
    .split(/\s+/)
    .slice(1, 9)
    .map((n) => (Number(n) * 1000) / CLK_TCK);
  const total = t.reduce((a, b) => a + b, 0);
  return { busyMs: total - t[3] - t[4], totalMs: total, softirqMs: t[6], stealMs: t[7] };
}

/** @type {number | undefined} */
let cores;
/** The machine's CPU cores as /proc/stat lists them. */
export function cpuCount() {
  cores ??= readFileSync('/proc/stat', 'utf8')
    .split('\n')
    .filter((l) => /^cpu\d+ /.test(l)).length;
  return cores;
}

/**
 * Bytes a local TCP server has written that its peers have not taken yet, summed over its
 * connections (the kernel's send queues, `ss` Send-Q): what a never-reading client leaves behind
 * sits here, outside the server's RSS.
 * @param {number} port  the server's listening port
 * @returns {{ bytes: number, connections: number }} connections in any state but listening; NaN
 *   when `ss` cannot be run
 */
export function unsentBytes(port) {
  try {
    const out = execFileSync('ss', ['-tnH', 'state', 'connected', 'sport', '=', `:${port}`], {
      encoding: 'utf8',
      maxBuffer: 64 * 2 ** 20,
    });
    let bytes = 0;
    let connections = 0;
    for (const line of out.split('\n')) {
      const f = line.trim().split(/\s+/);
      if (f.length < 4) continue;
      // State Recv-Q Send-Q Local Peer (ss leaves State out when one state is asked for). Sockets
      // the server has closed but the kernel still holds (FIN-WAIT with unsent bytes) count too.
      bytes += Number(/^\d+$/.test(f[0]) ? f[1] : f[2]) || 0;
      connections++;
    }
    return { bytes, connections };
  } catch {
    return { bytes: NaN, connections: NaN };
  }
}

/**
 * The kernel's count of connections dropped because a listen queue was full
 * (`TcpExtListenOverflows` in /proc/net/netstat), for the whole network namespace: on a shared
 * machine other jobs' servers add to it. NaN where it cannot be read.
 * @returns {number}
 */
export function listenOverflows() {
  try {
    const lines = readFileSync('/proc/net/netstat', 'utf8').split('\n');
    for (let i = 0; i + 1 < lines.length; i += 2) {
      if (!lines[i].startsWith('TcpExt:')) continue;
      const names = lines[i].split(/\s+/);
      const values = lines[i + 1].split(/\s+/);
      const at = names.indexOf('ListenOverflows');
      return at < 0 ? NaN : Number(values[at]);
    }
  } catch {
    // not Linux
  }
  return NaN;
}

/**
 * The TCP sockets of a local port (both ends on this machine: the server's and its loopback
 * clients'), counted by state, side (`server` or `client`) and whether bytes wait in the receive
 * queue (`unread`) or the send queue (`unsent`), from `ss`. Empty where `ss` is missing.
 * @param {number} port
 * @returns {Record<string, number>}
 */
export function socketStates(port) {
  /** @type {Record<string, number>} */
  const states = {};
  try {
    const out = execFileSync('ss', ['-tanH', `( dport = :${port} or sport = :${port} )`], {
      encoding: 'utf8',
      maxBuffer: 64 * 2 ** 20,
    });
    for (const line of out.split('\n')) {
      const f = line.trim().split(/\s+/);
      if (f.length < 5) continue;
      if (f[0] === 'LISTEN') {
        // A listening socket's queues are its accept queue and its backlog.
        states[`LISTEN, accept queue ${f[1]} of ${f[2]}`] = 1;
        continue;
      }
      const side = f[3].endsWith(`:${port}`) ? 'server' : 'client';
      const key = `${f[0]} ${side}${Number(f[1]) > 0 ? ' unread' : ''}${Number(f[2]) > 0 ? ' unsent' : ''}`;
      states[key] = (states[key] ?? 0) + 1;
    }
  } catch {
    // no ss
  }
  return states;
}

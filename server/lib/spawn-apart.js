// A child process whose CPU time is not charged to the server's scheduling group. Linux with
// autogroup scheduling (/proc/sys/kernel/sched_autogroup_enabled, on in Debian's kernels) shares
// the CPU between sessions first and between a session's threads after: a nice value ranks a
// thread only within its own session. Poppler and the PNG encoder at nice 10 inside the server's
// session still spent that session's share, so when other sessions were busy the beat's thread
// waited for a CPU behind them (12 ms gaps of which 11 ms were run-queue wait, bench/RESULTS.md).
// Here the child gets a session of its own (setsid, through spawn's `detached`), and that
// session's group a low weight (its nice value in /proc/<pid>/autogroup): the server's group then
// spends its share on the server alone. The child is also killed when the thread that started it
// ends (setpriv's parent-death signal), since a child in another session gets no signal from the
// server's terminal and would outlive a server that stops.
//
// The child also runs under SCHED_IDLE (chrt --idle). That alone does not make the kernel switch
// to the beat's thread when it wakes: the "a waking task preempts an idle one" rule compares the
// two where they share a run queue, and across sessions those are two autogroups, and an
// autogroup is never idle. So while PDFs loaded the beat's thread was woken on time and then
// waited for the next 4 ms tick behind the helper or pdftoppm on both cores (beat p99 2.1-4.9 ms
// against 0.4-0.6 ms idle; perf sched, bench/RESULTS.md, helper h35s).
//
// Where it can, the child is therefore put in a cpu cgroup whose `cpu.idle` is 1
// (cpu-group.js: `scorecast-tools` inside this process's own cpu group, cgroup v1 or v2, made
// once per process and shared by the scorecast processes of that group): such a group is an idle
// entity beside the server's, so the server's threads preempt it as soon as they wake, and the
// tools take only the CPU nobody else wants (on this 2-core VM, in the runs quiet enough to read:
// beat p99 while PDFs loaded cold 0.42-0.88 ms with the group against 3.1-4.0 ms without, idle
// 0.4-0.65 ms; bench/RESULTS.md, helper h35g). The child moves itself there (a shell's `echo $$ >
// cgroup.procs` before it execs the rest) so that the processes it starts, pdftoppm started by
// the helper, are born in the group; a helper already in an idle group leaves its children
// where they are. Without the right to make the group (not root, a read-only cgroupfs, a kernel
// before 5.15 without cpu.idle, cgroup v2 with processes in the server's group), the child runs
// as before, in its session and under SCHED_IDLE. Under a busy machine the group's tools get
// little CPU (an idle group's weight is 3 against 1,024), which a cold render's time shows.
// In the group the session's autogroup no longer weighs (the kernel uses autogroups only for
// tasks of the root cpu group); the session itself and the parent-death signal stay.
//
// Spawning blocks the calling thread until the child has begun its program: call this from a
// worker thread, never from the one that plays the beats.

import { spawn } from 'node:child_process';
import { accessSync, constants, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ownCpuGroup, toolsGroup } from './cpu-group.js';

/**
 * The nice value given to a child's own autogroup: weight 110 against the server group's 1,024
 * (the kernel's nice-to-weight table), as the tools' own nice 10 ranks them in a single group.
 */
export const GROUP_NICE = 10;

/** Without CAP_SYS_ADMIN the kernel allows one autogroup change in 100 ms (EAGAIN otherwise). */
const RETRY_MS = 110;
const RETRIES = 3;

/** @type {Map<string, string | null>} */
const found = new Map();

/**
 * A util-linux tool's absolute path (setpriv, chrt), or null; looked up once.
 * @param {string} name
 */
function findUtil(name) {
  let file = found.get(name);
  if (file !== undefined) return file;
  file = null;
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    try {
      accessSync(path.join(dir, name), constants.X_OK);
      file = path.join(dir, name);
      break;
    } catch {
      // not in this folder
    }
  }
  found.set(name, file);
  return file;
}

/**
 * The autogroup a process is in ("/autogroup-12"), or null (no autogroup in this kernel, the
 * process is in the default group of init's session, whose file is empty, or it is gone).
 * @param {number | 'self'} pid
 */
export function autogroupOf(pid) {
  try {
    return /^(\S+)\s+nice\s+(-?\d+)/.exec(readFileSync(`/proc/${pid}/autogroup`, 'utf8'))?.[1] ?? null;
  } catch {
    return null;
  }
}

/**
 * Give the child's autogroup the nice value `nice`, only when the child is in a group other than
 * this process's: the server's own group is never lowered. Best effort: without autogroups, or
 * when the child has already ended, nothing is done.
 * @param {number} pid
 * @param {number} nice
 * @param {number} [tries]
 */
function lowerGroup(pid, nice, tries = RETRIES) {
  const theirs = autogroupOf(pid);
  if (!theirs || theirs === autogroupOf('self')) return;
  try {
    writeFileSync(`/proc/${pid}/autogroup`, String(nice));
  } catch (err) {
    if (/** @type {NodeJS.ErrnoException} */ (err).code === 'EAGAIN' && tries > 0)
      setTimeout(() => lowerGroup(pid, nice, tries - 1), RETRY_MS).unref();
  }
}

/**
 * Spawn `cmd` (an absolute path) with `args` (no shell) in a session of its own whose autogroup
 * has the nice value GROUP_NICE, under SCHED_IDLE where util-linux's chrt is installed, killed
 * (SIGKILL) when the calling thread ends where its setpriv is (without it the child's own limits
 * end it). The returned child's pid is the program's own: setpriv and chrt exec it in place, so
 * killing the child kills the program.
 * @param {string} cmd
 * @param {string[]} args
 * @param {import('node:child_process').SpawnOptions} [options]  `detached` is always set
 * @param {{ own?: () => import('./cpu-group.js').CpuGroup | { why: string } }} [where]  own: this
 *   process's cpu group (default: the one /proc/self says; tests give another)
 * @returns {import('node:child_process').ChildProcess}
 */
export function spawnApart(cmd, args, options = {}, { own = ownCpuGroup } = {}) {
  /** @type {string[]} */
  let argv = [cmd, ...args];
  const chrt = findUtil('chrt');
  // chrt takes no `--` after the priority: the command is an absolute path, never an option.
  if (chrt) argv = [chrt, '--idle', '0', ...argv];
  const setpriv = findUtil('setpriv');
  if (setpriv) argv = [setpriv, '--pdeathsig', 'KILL', '--', ...argv];
  const group = toolsGroup(own);
  const procs = 'dir' in group ? path.join(group.dir, 'cgroup.procs') : null;
  const sh = procs && findUtil('sh');
  // The child moves itself into the group before it runs the program, so that every process the
  // program starts is born there; a failed move (the group removed since) is no failure.
  if (sh) argv = [sh, '-c', '{ echo $$ > "$0"; } 2>/dev/null; exec "$@"', procs, ...argv];
  const [file, ...rest] = argv;
  const child = spawn(file, rest, { ...options, detached: true });
  if (child.pid) {
    if (procs && !sh) {
      // Without a shell, moved from here: spawn returns once the child has exec'd, which is as
      // a rule before the program can have started a process of its own.
      try {
        writeFileSync(procs, String(child.pid));
      } catch {
        // it has ended already, or this process may make the group but not move into it
      }
    }
    // Its setsid is done too: its autogroup is its own.
    lowerGroup(child.pid, GROUP_NICE);
  }
  return child;
}

import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync, writeSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  contextSwitches,
  cpuCount,
  cpuMs,
  ioCounts,
  machineMs,
  minorFaults,
  parentPid,
  rssBytes,
  schedDelta,
  schedStats,
  switchesByThread,
  threadDelta,
  threadCount,
  v8WorkerCpuMs,
} from '../../bench/proc-stats.js';

/**
 * Work until this process has used `ms` more CPU time by its own account (getrusage), or 10 s have
 * passed: a loop on the wall clock gets a few ticks or none on a loaded machine (CI: 60 ms of wall
 * time, no 10 ms tick of CPU), where the kernel's counters move only with time actually on a CPU.
 * @param {number} ms
 */
function burnCpu(ms) {
  const start = process.cpuUsage();
  const deadline = Date.now() + 10_000;
  let x = 0;
  for (;;) {
    for (let i = 0; i < 10_000; i++) x += Math.sqrt(x + 1);
    const used = process.cpuUsage(start);
    if ((used.user + used.system) / 1000 >= ms || Date.now() > deadline) break;
  }
  return x;
}

describe.skipIf(process.platform !== 'linux')('/proc readers', () => {
  it('read this process: CPU time that grows with work, its memory, threads and parent', () => {
    const before = cpuMs(process.pid);
    expect(burnCpu(60)).toBeGreaterThan(0);
    expect(cpuMs(process.pid)).toBeGreaterThan(before);
    expect(rssBytes(process.pid)).toBeGreaterThan(10 * 1024 * 1024);
    expect(threadCount(process.pid)).toBeGreaterThanOrEqual(1);
    expect(parentPid(process.pid)).toBe(process.ppid);
  });

  it('count context switches: a wait is a voluntary one, and a process that is gone gives NaN', async () => {
    const before = contextSwitches(process.pid);
    await new Promise((r) => setTimeout(r, 20));
    const after = contextSwitches(process.pid);
    expect(after.voluntary).toBeGreaterThan(before.voluntary);
    expect(after.involuntary).toBeGreaterThanOrEqual(before.involuntary);
    const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
    await new Promise((r) => child.once('exit', r));
    expect(contextSwitches(/** @type {number} */ (child.pid)).voluntary).toBeNaN();
  });

  it('count read and write system calls and their bytes, and give NaN for a process that is gone', async () => {
    const before = ioCounts(process.pid);
    readFileSync('/proc/self/stat');
    const fd = openSync('/dev/null', 'w');
    writeSync(fd, 'x'.repeat(100));
    closeSync(fd);
    const after = ioCounts(process.pid);
    expect(after.reads).toBeGreaterThan(before.reads);
    expect(after.writes).toBeGreaterThan(before.writes);
    expect(after.writtenBytes - before.writtenBytes).toBeGreaterThanOrEqual(100);
    const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
    await new Promise((r) => child.once('exit', r));
    expect(ioCounts(/** @type {number} */ (child.pid)).writes).toBeNaN();
  });

  it('name a child by its parent, and give NaN for a process that is gone', async () => {
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 10000)'], { stdio: 'ignore' });
    await new Promise((r) => child.once('spawn', r));
    expect(parentPid(/** @type {number} */ (child.pid))).toBe(process.pid);
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    expect(cpuMs(/** @type {number} */ (child.pid))).toBeNaN();
    expect(rssBytes(/** @type {number} */ (child.pid))).toBeNaN();
    expect(threadCount(/** @type {number} */ (child.pid))).toBeNaN();
  });

  it("read the V8 helper threads' CPU apart: part of the process's, NaN for a process that is gone", async () => {
    const helpers = v8WorkerCpuMs(process.pid);
    expect(helpers).toBeGreaterThanOrEqual(0);
    expect(helpers).toBeLessThanOrEqual(cpuMs(process.pid));
    const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
    await new Promise((r) => child.once('exit', r));
    expect(v8WorkerCpuMs(/** @type {number} */ (child.pid))).toBeNaN();
  });

  it('read the time on a CPU and waiting for one, thread by thread: run time that grows with work; nothing for a process that is gone', async () => {
    const before = schedStats(process.pid);
    expect(before.has(`${process.pid}/${process.pid}`)).toBe(true);
    expect(burnCpu(60)).toBeGreaterThan(0);
    const d = schedDelta(before, schedStats(process.pid));
    expect(d.runMs).toBeGreaterThan(0);
    expect(d.waitMs).toBeGreaterThanOrEqual(0);
    expect(d.slices).toBeGreaterThan(0);
    const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
    await new Promise((r) => child.once('exit', r));
    expect(schedStats(/** @type {number} */ (child.pid)).size).toBe(0);
  });

  it('count context switches thread by thread: a worker thread that ends in between takes nothing off the delta', async () => {
    const { Worker } = await import('node:worker_threads');
    const worker = new Worker(
      'const { parentPort } = require("node:worker_threads"); parentPort.once("message", () => process.exit(0)); setInterval(() => {}, 1);',
      { eval: true },
    );
    await new Promise((r) => worker.once('online', r));
    await new Promise((r) => setTimeout(r, 50));
    const before = switchesByThread(process.pid);
    const zero = { voluntary: 0, involuntary: 0 };
    const summedBefore = threadDelta(new Map(), before, zero).voluntary;
    worker.postMessage('go');
    await new Promise((r) => worker.once('exit', r));
    const after = switchesByThread(process.pid);
    expect(after.size).toBeLessThan(before.size);
    const d = threadDelta(before, after, zero);
    expect(d.voluntary).toBeGreaterThanOrEqual(0);
    expect(d.involuntary).toBeGreaterThanOrEqual(0);
    // A difference of sums takes the ended thread's whole count off (its 1 ms timer woke it about
    // fifty times): what the thread-by-thread delta leaves out instead.
    expect(threadDelta(new Map(), after, zero).voluntary - summedBefore).toBeLessThan(d.voluntary);
  });

  it('leave a thread that ended out of a delta rather than take its time off, and count a new one whole', () => {
    const t = (/** @type {number} */ runMs) => ({ runMs, waitMs: runMs / 2, slices: 1 });
    const before = new Map([
      ['1/1', t(100)],
      ['1/2', t(50)],
    ]);
    const after = new Map([
      ['1/1', t(130)],
      ['1/3', t(5)],
    ]);
    expect(schedDelta(before, after)).toEqual({ runMs: 35, waitMs: 17.5, slices: 1 });
  });

  it('count minor page faults: memory touched for the first time adds to them; NaN for a process that is gone', async () => {
    const before = minorFaults(process.pid);
    const pages = new Uint8Array(8 * 1024 * 1024);
    for (let i = 0; i < pages.length; i += 4096) pages[i] = 1;
    expect(minorFaults(process.pid)).toBeGreaterThan(before);
    const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
    await new Promise((r) => child.once('exit', r));
    expect(minorFaults(/** @type {number} */ (child.pid))).toBeNaN();
  });

  it('read the machine: busy within total, and its cores', () => {
    const m = machineMs();
    expect(m.busyMs).toBeGreaterThan(0);
    expect(m.busyMs).toBeLessThanOrEqual(m.totalMs);
    expect(cpuCount()).toBeGreaterThanOrEqual(1);
  });
});

import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync, writeSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  contextSwitches,
  cpuCount,
  cpuMs,
  ioCounts,
  machineMs,
  parentPid,
  rssBytes,
  threadCount,
  v8WorkerCpuMs,
} from '../../bench/proc-stats.js';

describe.skipIf(process.platform !== 'linux')('/proc readers', () => {
  it('read this process: CPU time that grows with work, its memory, threads and parent', () => {
    const before = cpuMs(process.pid);
    const until = Date.now() + 60;
    let x = 0;
    while (Date.now() < until) x += Math.sqrt(x + 1);
    expect(x).toBeGreaterThan(0);
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

  it('read the machine: busy within total, and its cores', () => {
    const m = machineMs();
    expect(m.busyMs).toBeGreaterThan(0);
    expect(m.busyMs).toBeLessThanOrEqual(m.totalMs);
    expect(cpuCount()).toBeGreaterThanOrEqual(1);
  });
});

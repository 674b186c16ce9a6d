import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeChildGroup, ownCpuGroup, removeGroup, toolsGroup } from '../../../server/lib/cpu-group.js';

let dir = '';
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'sc-cpu-group-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** /proc/<pid>/cgroup and /proc/<pid>/mountinfo as given, written to files: their paths. */
const procFiles = (/** @type {string} */ cgroup, /** @type {string} */ mountinfo) => {
  writeFileSync(path.join(dir, 'cgroup'), cgroup);
  writeFileSync(path.join(dir, 'mountinfo'), mountinfo);
  return { cgroup: path.join(dir, 'cgroup'), mountinfo: path.join(dir, 'mountinfo') };
};

const V1_MOUNTS = [
  '31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755',
  '32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu',
  '33 31 0:30 / /sys/fs/cgroup/cpuacct rw,relatime - cgroup cgroup rw,cpuacct',
  '41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw',
].join('\n');

describe("this process's cpu group", () => {
  it('is the cgroup v1 line that lists cpu, under where that hierarchy is mounted', () => {
    const files = procFiles('4:memory:/a\n2:cpuacct:/b\n1:cpu:/lab/cell-3\n0::/\n', V1_MOUNTS);
    expect(ownCpuGroup(files)).toEqual({ dir: '/sys/fs/cgroup/cpu/lab/cell-3', version: 1 });
  });

  it('takes the mount\'s own root off the path (a container sees its group mounted as "/")', () => {
    const files = procFiles(
      '5:cpu,cpuacct:/docker/abc\n0::/\n',
      '40 31 0:29 /docker/abc /sys/fs/cgroup/cpu,cpuacct ro,nosuid - cgroup cgroup rw,cpu,cpuacct',
    );
    expect(ownCpuGroup(files)).toEqual({ dir: '/sys/fs/cgroup/cpu,cpuacct', version: 1 });
  });

  it("is cgroup v2's only where the v2 hierarchy has the cpu controller", () => {
    mkdirSync(path.join(dir, 'v2'));
    const mounts = `41 31 0:38 / ${path.join(dir, 'v2')} rw,relatime - cgroup2 cgroup2 rw`;
    writeFileSync(path.join(dir, 'v2', 'cgroup.controllers'), 'memory pids\n');
    expect(ownCpuGroup(procFiles('0::/user.slice/app\n', mounts))).toHaveProperty('why');
    writeFileSync(path.join(dir, 'v2', 'cgroup.controllers'), 'cpuset cpu io memory pids\n');
    expect(ownCpuGroup(procFiles('0::/user.slice/app\n', mounts))).toEqual({
      dir: path.join(dir, 'v2', 'user.slice/app'),
      version: 2,
    });
  });

  it('is none, with a reason, without a cpu hierarchy or its /proc files', () => {
    expect(ownCpuGroup(procFiles('4:memory:/\n', V1_MOUNTS))).toHaveProperty('why');
    expect(ownCpuGroup({ cgroup: path.join(dir, 'none'), mountinfo: path.join(dir, 'none') })).toHaveProperty('why');
  });
});

describe('a child group', () => {
  it('is made with its settings, and removed with the groups in it', () => {
    const made = makeChildGroup({ dir, version: 1 }, 'tools', [['cpu.idle', '1']]);
    expect(made).toEqual({ dir: path.join(dir, 'tools'), version: 1 });
    expect(readFileSync(path.join(dir, 'tools', 'cpu.idle'), 'utf8')).toBe('1');
    // A cgroup's own files cannot be removed; here the test's are, so that rmdir can work.
    rmSync(path.join(dir, 'tools', 'cpu.idle'));
    mkdirSync(path.join(dir, 'tools', 'inner'));
    removeGroup(path.join(dir, 'tools'), 1);
    expect(() => readFileSync(path.join(dir, 'tools'))).toThrow(/ENOENT/);
  });

  it('is none, with a reason, where it cannot be made', () => {
    expect(makeChildGroup({ dir: path.join(dir, 'missing'), version: 1 }, 'tools', [])).toHaveProperty('why');
  });

  it('is looked for once per process, the answer remembered', () => {
    let calls = 0;
    const own = () => {
      calls += 1;
      return { why: 'none here' };
    };
    expect(toolsGroup(own)).toEqual({ why: 'none here' });
    expect(toolsGroup(own)).toEqual({ why: 'none here' });
    expect(calls).toBe(1);
  });

  it("is the process's own group when that is idle already (the helper's children are born there)", () => {
    writeFileSync(path.join(dir, 'cpu.idle'), '1\n');
    expect(toolsGroup(() => ({ dir, version: 1 }))).toEqual({ inherited: dir });
  });
});

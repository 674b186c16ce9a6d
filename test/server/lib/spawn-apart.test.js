import { describe, it, expect, vi } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { GROUP_NICE, autogroupOf, spawnApart } from '../../../server/lib/spawn-apart.js';
import { ownCpuGroup, TOOLS_GROUP, toolsGroup } from '../../../server/lib/cpu-group.js';

/** A process's session id: /proc/<pid>/stat's sixth field. */
const sessionOf = (/** @type {number | 'self'} */ pid) => {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[3]);
};

/** The nice value of a process's autogroup, or null without one (or in the default group). */
const groupNice = (/** @type {number} */ pid) => {
  try {
    const nice = /nice\s+(-?\d+)/.exec(readFileSync(`/proc/${pid}/autogroup`, 'utf8'))?.[1];
    return nice === undefined ? null : Number(nice);
  } catch {
    return null;
  }
};

/** A process's scheduling policy: /proc/<pid>/stat's 41st field (5 is SCHED_IDLE). */
const policyOf = (/** @type {number | 'self'} */ pid) => {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[38]);
};
const SCHED_IDLE = 5;

/** Whether an executable is on PATH. */
const onPath = (/** @type {string} */ name) =>
  (process.env.PATH ?? '').split(':').some((dir) => dir && existsSync(`${dir}/${name}`));

describe('a child process apart from the server', () => {
  it('runs in a session of its own, its autogroup (where the kernel has them) at low weight', async () => {
    const ownNice = groupNice(process.pid);
    const child = spawnApart('/bin/sleep', ['30'], { stdio: 'ignore' });
    const pid = /** @type {number} */ (child.pid);
    const exited = new Promise((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
    try {
      expect(sessionOf(pid)).toBe(pid);
      expect(sessionOf(pid)).not.toBe(sessionOf('self'));
      // A kernel built with autogroups gives every new session a group of its own, also when
      // the server is in the default group (init's session, as under a container's PID 1,
      // where /proc/<pid>/autogroup is empty): the child's group is then its own all the same.
      if (!existsSync('/proc/self/autogroup')) expect(autogroupOf(pid)).toBeNull();
      else {
        expect(autogroupOf(pid)).toMatch(/^\/autogroup-\d+$/);
        expect(autogroupOf(pid)).not.toBe(autogroupOf('self'));
        expect(groupNice(pid)).toBe(GROUP_NICE);
        // The server's own group is left as it was (none to read in the default group).
        expect(groupNice(process.pid)).toBe(ownNice);
      }
    } finally {
      // The child's pid is the program's own (setpriv execs it): killing it ends the program.
      child.kill('SIGKILL');
    }
    expect(await exited).toBe('SIGKILL');
  });

  it.runIf(onPath('chrt'))('runs under SCHED_IDLE, the server left under its own policy', async () => {
    const own = policyOf('self');
    const child = spawnApart('/bin/sleep', ['30'], { stdio: 'ignore' });
    const pid = /** @type {number} */ (child.pid);
    const exited = new Promise((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
    try {
      // The pid becomes sleep's own (setpriv and chrt exec in place, after spawn has returned),
      // and the policy chrt set survives the exec.
      await vi.waitFor(() => expect(readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0]).toBe('/bin/sleep'));
      expect(policyOf(pid)).toBe(SCHED_IDLE);
      expect(policyOf('self')).toBe(own);
    } finally {
      child.kill('SIGKILL');
    }
    expect(await exited).toBe('SIGKILL');
  });
});

/** The folder of a process's cpu group, read from its own /proc files. */
const groupDirOf = (/** @type {number | 'self'} */ pid) => {
  const group = ownCpuGroup({ cgroup: `/proc/${pid}/cgroup`, mountinfo: `/proc/${pid}/mountinfo` });
  return 'dir' in group ? group.dir : null;
};

/** A group's cpu.idle, or null without one (no such file: the root group, a kernel before 5.15). */
const cpuIdleOf = (/** @type {string | null} */ dir) => {
  try {
    return readFileSync(`${dir}/cpu.idle`, 'utf8').trim();
  } catch {
    return null;
  }
};

/** Where this process can make the tools' group: root with the cpu controller (here and in CI). */
const tools = toolsGroup();

/**
 * A child that starts a child of its own (as the PDF helper starts pdftoppm), and the pids of
 * both once the grandchild has started.
 * @param {Parameters<typeof spawnApart>[3]} [where]
 */
async function childAndGrandchild(where) {
  const child = spawnApart(
    '/bin/sh',
    ['-c', 'sleep 30 & echo $!; wait'],
    { stdio: ['ignore', 'pipe', 'ignore'] },
    where,
  );
  const exited = new Promise((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
  const line = await new Promise((resolve) =>
    child.stdout?.once('data', (/** @type {Buffer} */ b) => resolve(String(b))),
  );
  // The child is the leader of its own process group (its own session): this kills both.
  const end = async () => {
    process.kill(-(/** @type {number} */ (child.pid)), 'SIGKILL');
    return exited;
  };
  return { pid: /** @type {number} */ (child.pid), grandchild: Number(line), end };
}

describe('the tools in an idle cpu group', () => {
  it.runIf('dir' in tools)(
    'where this process may make a cpu group (root, a cpu controller, cpu.idle): the child and its own children are in one whose cpu.idle is 1, the server is not',
    async () => {
      const own = groupDirOf('self');
      const { pid, grandchild, end } = await childAndGrandchild();
      try {
        const theirs = groupDirOf(pid);
        expect(theirs).toBe(path.join(/** @type {string} */ (own), TOOLS_GROUP));
        expect(cpuIdleOf(theirs)).toBe('1');
        expect(groupDirOf(grandchild)).toBe(theirs);
        expect(groupDirOf('self')).toBe(own);
        expect(cpuIdleOf(own)).not.toBe('1');
      } finally {
        expect(await end()).toBe('SIGKILL');
      }
    },
  );

  it.runIf('why' in tools)(
    `where no group can be made (${'why' in tools ? tools.why : ''}), the child stays in the server's group`,
    async () => {
      const { pid, end } = await childAndGrandchild();
      try {
        expect(groupDirOf(pid)).toBe(groupDirOf('self'));
      } finally {
        expect(await end()).toBe('SIGKILL');
      }
    },
  );

  it("when the group cannot be made, the child starts as without it: its own session, SCHED_IDLE where chrt is, the server's cpu group", async () => {
    // A base where no group can be made (no such folder), whatever this process's rights.
    const where = { own: () => ({ dir: '/proc/self/no-such-group', version: /** @type {const} */ (1) }) };
    expect(toolsGroup(where.own)).toHaveProperty('why');
    const { pid, grandchild, end } = await childAndGrandchild(where);
    try {
      expect(sessionOf(pid)).toBe(pid);
      if (onPath('chrt')) expect(policyOf(pid)).toBe(SCHED_IDLE);
      expect(groupDirOf(pid)).toBe(groupDirOf('self'));
      expect(groupDirOf(grandchild)).toBe(groupDirOf('self'));
      expect(readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0]).toBe('/bin/sh');
    } finally {
      expect(await end()).toBe('SIGKILL');
    }
  });
});

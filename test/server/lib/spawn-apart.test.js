import { describe, it, expect, vi } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { GROUP_NICE, autogroupOf, spawnApart } from '../../../server/lib/spawn-apart.js';

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

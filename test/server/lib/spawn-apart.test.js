import { describe, it, expect } from 'vitest';
import { readFileSync } from 'node:fs';
import { GROUP_NICE, autogroupOf, spawnApart } from '../../../server/lib/spawn-apart.js';

/** A process's session id: /proc/<pid>/stat's sixth field. */
const sessionOf = (/** @type {number | 'self'} */ pid) => {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[3]);
};

/** The nice value of a process's autogroup, or null without autogroups. */
const groupNice = (/** @type {number} */ pid) => {
  try {
    return Number(/nice\s+(-?\d+)/.exec(readFileSync(`/proc/${pid}/autogroup`, 'utf8'))?.[1]);
  } catch {
    return null;
  }
};

describe('a child process apart from the server', () => {
  it('runs in a session of its own, its autogroup (where the kernel has them) at low weight', async () => {
    const ownNice = groupNice(process.pid);
    const child = spawnApart('/bin/sleep', ['30'], { stdio: 'ignore' });
    const pid = /** @type {number} */ (child.pid);
    const exited = new Promise((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
    try {
      expect(sessionOf(pid)).toBe(pid);
      expect(sessionOf(pid)).not.toBe(sessionOf('self'));
      if (autogroupOf('self') === null) expect(autogroupOf(pid)).toBeNull();
      else {
        expect(autogroupOf(pid)).not.toBe(autogroupOf('self'));
        expect(groupNice(pid)).toBe(GROUP_NICE);
        // The server's own group is left as it was.
        expect(groupNice(process.pid)).toBe(ownNice);
      }
    } finally {
      // The child's pid is the program's own (setpriv execs it): killing it ends the program.
      child.kill('SIGKILL');
    }
    expect(await exited).toBe('SIGKILL');
  });
});

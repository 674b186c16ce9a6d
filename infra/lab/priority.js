// The roaming cell measures how soon a page is back on the beat after its radio returns, on a
// machine that may be busy with other jobs (in `npm test`, two other test files at a time on two
// cores, some with browsers and servers of their own). At a venue a phone has its own CPU and the
// server its own machine, so the cell's browser and server run at a raised priority, and what the
// cell measures is the link's return and the page's recovery rather than who else wanted the CPU.
//
// Linux schedules each session as one group (autogroup: /proc/PID/autogroup), and a nice value
// counts only inside its group. Playwright starts Chromium in a session of its own, so the browser
// is raised by its session's group; the server shares the session of whoever started it, so it is
// raised inside that group (os.setPriority). Both need root, as the lab does; where refused (not
// root, no autogroup) nothing changes and the cell runs as before.

import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';

/** The nice value the cell's browser session and server get. */
export const CELL_NICE = -10;

/**
 * Raise a process above the other processes of its session.
 * @param {number} pid
 * @returns {boolean} whether the kernel took it
 */
export function raiseProcess(pid) {
  try {
    os.setPriority(pid, CELL_NICE);
    return true;
  } catch {
    return false;
  }
}

/**
 * Raise the session (autogroup) of each child process of `parent` whose command is `name`: e.g.
 * the browser Playwright launched, with every renderer it starts.
 * @param {number} parent
 * @param {RegExp} name  matched against /proc/PID/comm
 * @returns {number[]} the pids whose session was raised
 */
export function raiseChildSessions(parent, name) {
  /** @type {number[]} */
  const raised = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // pid (comm) state ppid ...: comm may hold spaces and parentheses, so read after the last ')'.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid !== parent || !name.test(readFileSync(`/proc/${entry}/comm`, 'utf8').trim())) continue;
      writeFileSync(`/proc/${entry}/autogroup`, String(CELL_NICE));
      raised.push(Number(entry));
    } catch {
      // Gone meanwhile, not ours to change, or no autogroup on this kernel.
    }
  }
  return raised;
}

// Is a process still running? For files a process leaves behind with its pid in the name (save
// temp files, engraving temp folders, cache use markers, state-file locks): those of a dead
// process can go.

import { readFileSync } from 'node:fs';

/**
 * @param {number} pid
 * @returns {boolean} true while the process runs (also when it is another user's: EPERM)
 */
export function isRunning(pid) {
  try {
    // Signal 0 checks without sending anything.
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return /** @type {NodeJS.ErrnoException} */ (err).code === 'EPERM';
  }
}

/**
 * When a process started, in clock ticks since boot (Linux /proc/PID/stat, field 22), or null
 * where /proc cannot tell. A pid names a process only together with its start: after a crash and
 * a reboot, the pid in a file left behind may belong to a process that has nothing to do with it.
 * @param {number} pid
 * @returns {string | null}
 */
export function processStart(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may hold spaces: count from after it.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[19] ?? null;
  } catch {
    return null;
  }
}

// One save per running server (README, "Resume after restart"): a server holds its state file
// with a lock file beside it (`performance.json.lock`, naming its pid). A second server on the
// same file would overwrite the first one's save four times a second, and a restart of either
// could come back with the other's piece and position; it refuses to start instead. A lock left by a process that no
// longer runs (kill -9, power loss) is taken over.

import { closeSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import path from 'node:path';
import { ScorecastError } from '../../../core/errors.js';
import { isRunning, processStart } from '../../lib/pid.js';

/** Lock files this process holds, so that a second server built in the same process refuses too. */
const held = new Set();

/**
 * The lock file's text: the pid first (what a person reading it wants), the process's start
 * (so that a pid reused after a reboot is not taken for the server), then when.
 * @param {number} pid
 */
const lockText = (pid) => `${pid}\n${processStart(pid) ?? '-'}\n${new Date().toISOString()}\n`;

/**
 * The running server a lock file names, or null when it names none that runs: empty (a holder
 * killed between the create and the write), not a lock, a dead pid, or a pid that now belongs to
 * a process started at another time.
 * @param {string} lockFile
 * @returns {number | null}
 */
function liveHolder(lockFile) {
  let lines;
  try {
    lines = readFileSync(lockFile, 'utf8').split('\n');
  } catch {
    return null;
  }
  const pid = Number(lines[0]);
  if (!(Number.isInteger(pid) && pid > 0) || !isRunning(pid)) return null;
  const started = lines[1];
  const now = processStart(pid);
  if (started && started !== '-' && now !== null && now !== started) return null;
  return pid;
}

/**
 * Hold `stateFile` for this server. Throws SC_ERR_STATE_FILE_IN_USE, naming the file, the pid
 * that holds it and `--state-file`, when another running server (in this process or another)
 * holds it. Synchronous on purpose: nothing can run between the check and the take-over.
 * @param {string} stateFile
 * @returns {{ file: string, release: () => void }}
 */
export function lockStateFile(stateFile) {
  const file = `${stateFile}.lock`;
  const inUse = (/** @type {number} */ pid) =>
    new ScorecastError(
      'SC_ERR_STATE_FILE_IN_USE',
      `${stateFile} is held by the server running as pid ${pid}${pid === process.pid ? ' (this process)' : ''} (${file}); ` +
        'give this server a save of its own with --state-file PATH (or SCORECAST_STATE_FILE), or stop the other one',
    );
  if (held.has(file)) throw inUse(process.pid);
  // A fresh clone has no .cache yet.
  try {
    mkdirSync(path.dirname(file), { recursive: true });
  } catch {
    /* the create below says why */
  }
  // Two tries: the second after taking over a stale lock. A lock that another server takes over
  // between our look and our create is theirs (our create fails again: in use).
  for (let attempt = 0; attempt < 2; attempt++) {
    let fd;
    try {
      fd = openSync(file, 'wx');
    } catch (err) {
      if (/** @type {NodeJS.ErrnoException} */ (err).code !== 'EEXIST') {
        throw new ScorecastError(
          'SC_ERR_STATE_FILE_IN_USE',
          `cannot create the lock ${file} for ${stateFile}: ${/** @type {Error} */ (err).message}`,
        );
      }
      const pid = liveHolder(file);
      if (pid !== null && pid !== process.pid) throw inUse(pid);
      // Stale: its server is gone (or it was this process's, left by nobody alive to use it).
      try {
        unlinkSync(file);
      } catch {
        /* another server took it over first: the retry says */
      }
      continue;
    }
    try {
      writeSync(fd, lockText(process.pid));
    } finally {
      closeSync(fd);
    }
    held.add(file);
    let released = false;
    return {
      file,
      release() {
        if (released) return;
        released = true;
        held.delete(file);
        // Only our own: never remove a lock another server took over after ours was removed by hand.
        if (liveHolder(file) === process.pid) {
          try {
            unlinkSync(file);
          } catch {
            /* gone already */
          }
        }
      },
    };
  }
  throw inUse(liveHolder(file) ?? 0);
}

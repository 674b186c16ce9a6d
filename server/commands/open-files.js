// The open-file limit caps how many clients can connect: each WebSocket, SSE stream or long poll
// holds one file descriptor. Many Linux logins start programs with a soft limit of 1,024, so a
// server started from such a shell stops accepting at about 1,000 phones, and does so silently
// (libuv sheds the connections it cannot accept). Node cannot raise the limit itself; the start
// banner says how (server/commands/start.js).

import { readFileSync } from 'node:fs';

/** Below this soft limit the banner warns (the seed report's breaking point is ~1,500 users). */
export const WANT_OPEN_FILES = 8192;

/**
 * The open-file limits in the text of /proc/<pid>/limits.
 * @param {string} text
 * @returns {{ soft: number, hard: number } | null} Infinity for "unlimited"; null when absent
 */
export function parseOpenFiles(text) {
  const m = /^Max open files\s+(\S+)\s+(\S+)/m.exec(text);
  if (!m) return null;
  const n = (/** @type {string} */ s) => (s === 'unlimited' ? Infinity : Number(s));
  const soft = n(m[1]);
  const hard = n(m[2]);
  return Number.isFinite(soft) || soft === Infinity ? { soft, hard } : null;
}

/** This process's open-file limits (Linux), or null where /proc is not there. */
export function openFilesLimit() {
  try {
    return parseOpenFiles(readFileSync('/proc/self/limits', 'utf8'));
  } catch {
    return null;
  }
}

/**
 * A warning for the start banner when the soft limit is low, with the command that raises it.
 * @param {{ soft: number, hard: number } | null} limit
 * @returns {string | null}
 */
export function openFilesWarning(limit) {
  if (!limit || limit.soft >= WANT_OPEN_FILES) return null;
  const raise = Math.min(limit.hard, 65_536);
  const fix =
    raise > limit.soft
      ? `raise it before starting: ulimit -n ${raise}`
      : `the hard limit is ${limit.hard} too: raise it (LimitNOFILE= in a systemd unit, nofile in /etc/security/limits.conf)`;
  return (
    `warning: this process may hold only ${limit.soft} open files, one per connected client: ` +
    `about ${Math.max(0, limit.soft - 64)} clients can connect; ${fix}`
  );
}

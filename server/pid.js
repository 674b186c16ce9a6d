// Is a process still running? For files a process leaves behind with its pid in the name (save
// temp files, engraving temp folders, cache use markers): those of a dead process can go.

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

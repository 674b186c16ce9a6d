// An X server for one test run: WebKitGTK's MiniBrowser has no headless mode. Xvfb picks a free
// display itself (-displayfd), so runs beside each other (other worktrees, CI jobs) never collide
// on a display number or its lock file.

import { firstLine, start } from './processes.js';

/** Xvfb answers within this even on a loaded machine (measured: about 0.3 s). */
const START_TIMEOUT_MS = 10_000;

/**
 * Start Xvfb on a free display.
 * @param {{ size?: string }} [options]  size: WIDTHxHEIGHTxDEPTH of its one screen
 * @returns {Promise<{ display: string, stop: () => Promise<void> }>}  display: ":N"
 */
export async function startXvfb({ size = '1280x900x24' } = {}) {
  // fd 3 is where Xvfb writes the display number once it accepts clients; no TCP listener.
  const xvfb = start('Xvfb', ['-displayfd', '3', '-screen', '0', size, '-nolisten', 'tcp', '-noreset'], {
    extraFds: 1,
  });
  const fd3 = /** @type {import('node:stream').Readable} */ (xvfb.child.stdio[3]);
  try {
    const n = await firstLine(xvfb, fd3, START_TIMEOUT_MS, 'Xvfb -displayfd');
    if (!/^\d+$/.test(n)) throw new Error(`Xvfb wrote "${n}" for its display:\n${xvfb.output()}`);
    return { display: `:${n}`, stop: xvfb.stop };
  } catch (err) {
    await xvfb.stop();
    throw err;
  }
}

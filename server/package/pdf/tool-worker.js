// Worker entry for tool-thread.js (the worker pool's messages): Poppler's tools are started from
// this thread, not from the thread that plays the beats. Starting a child process forks this process, and the forking
// thread waits until the child has begun its program; from the loading thread that held the beat
// timer 8-33 ms per tool on a loaded machine (a CPU profile of cold PDF loads, bench/RESULTS.md).
// Messages in: { id, task: { cmd, args, timeoutMs } }; out: { id, type: 'done', data } (a
// ToolResult of poppler.js).

import { execFile } from 'node:child_process';
import { parentPort } from 'node:worker_threads';

/**
 * Run `cmd` with `args` (no shell), killed past `timeoutMs` of wall time.
 * @param {string} cmd
 * @param {string[]} args
 * @param {number} timeoutMs
 * @returns {Promise<import('./poppler.js').ToolResult>}
 */
export function execTool(cmd, args, timeoutMs) {
  return new Promise((resolve) => {
    execFile(
      cmd,
      args,
      { timeout: timeoutMs, killSignal: 'SIGKILL', maxBuffer: 8 * 1024 * 1024, encoding: 'utf8', windowsHide: true },
      (err, stdout, stderr) => {
        const e = /** @type {(Error & { code?: number | string, killed?: boolean, signal?: string }) | null} */ (err);
        const code = e ? (typeof e.code === 'number' ? e.code : null) : 0;
        resolve({
          code,
          stdout,
          stderr,
          timedOut: Boolean((e?.killed && e.signal === 'SIGKILL') || e?.signal === 'SIGXCPU'),
          outOfMemory: /bad_alloc|out of memory|Cannot allocate memory/i.test(stderr),
        });
      },
    );
  });
}

const port = parentPort;
port?.on(
  'message',
  async (/** @type {{ id: number, task: { cmd: string, args: string[], timeoutMs: number } }} */ { id, task }) => {
    port.postMessage({ id, type: 'done', data: await execTool(task.cmd, task.args, task.timeoutMs) });
  },
);

// Worker entry for tool-thread.js (the worker pool's messages): Poppler's tools are started from
// this thread, not from the thread that plays the beats. Starting a child process forks this
// process, and the forking thread waits until the child has begun its program; from the loading
// thread that held the beat timer 8-33 ms per tool on a loaded machine (a CPU profile of cold PDF
// loads, bench/RESULTS.md). Each tool runs in a session of its own (server/lib/spawn-apart.js),
// and is killed if this thread ends first.
// Messages in: { id, task: { cmd, args, timeoutMs } }; out: { id, type: 'done', data } (a
// ToolResult of poppler.js).

import { parentPort } from 'node:worker_threads';
import { spawnApart } from '../../lib/spawn-apart.js';

/** Output kept of each stream; a tool that writes more is killed, as execFile's maxBuffer does. */
const MAX_OUTPUT = 8 * 1024 * 1024;

/**
 * Run `cmd` with `args` (no shell) in a session of its own (spawn-apart.js: its CPU time is not
 * charged to the server's group), killed past `timeoutMs` of wall time.
 * @param {string} cmd
 * @param {string[]} args
 * @param {number} timeoutMs
 * @returns {Promise<import('./poppler.js').ToolResult>}
 */
export function execTool(cmd, args, timeoutMs) {
  return new Promise((resolve) => {
    /** @type {{ stdout: Buffer[], stderr: Buffer[] }} */
    const out = { stdout: [], stderr: [] };
    let bytes = 0;
    /** Why this thread killed the tool: its wall time ran out, or it wrote too much. */
    let killedFor = '';
    const child = spawnApart(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], windowsHide: true });
    const kill = (/** @type {string} */ why) => {
      killedFor ||= why;
      child.kill('SIGKILL');
    };
    const timer = setTimeout(() => kill('time'), timeoutMs);
    for (const name of /** @type {const} */ (['stdout', 'stderr']))
      child[name]?.on('data', (/** @type {Buffer} */ chunk) => {
        bytes += chunk.length;
        if (bytes > MAX_OUTPUT) kill('output');
        else out[name].push(chunk);
      });
    const text = (/** @type {Buffer[]} */ chunks) => Buffer.concat(chunks).toString('utf8');
    let settled = false;
    /** @param {number | null} code @param {NodeJS.Signals | null} signal @param {string} [why] */
    const end = (code, signal, why = '') => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      const stderr =
        text(out.stderr) +
        why +
        (killedFor === 'output' ? `\nit wrote more than ${MAX_OUTPUT} bytes and was stopped` : '');
      resolve({
        code,
        stdout: text(out.stdout),
        stderr,
        timedOut: (killedFor === 'time' && signal === 'SIGKILL') || signal === 'SIGXCPU',
        outOfMemory: /bad_alloc|out of memory|Cannot allocate memory/i.test(stderr),
      });
    };
    // 'close': the exit and the end of both streams, so the output is whole.
    child.on('close', end);
    child.on('error', (err) => end(null, null, err.message));
  });
}

const port = parentPort;
port?.on(
  'message',
  async (/** @type {{ id: number, task: { cmd: string, args: string[], timeoutMs: number } }} */ { id, task }) => {
    port.postMessage({ id, type: 'done', data: await execTool(task.cmd, task.args, task.timeoutMs) });
  },
);

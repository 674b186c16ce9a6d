// A Poppler tool run for the PDF helper process (helper-process.js), in a session of its own
// (server/lib/spawn-apart.js), killed past its wall time or when it writes too much. It runs in the
// helper, not the server: starting a child forks the starting process, and a fork of a 177 MB
// process held its main thread about 5 ms each time (10 ms at 360 MB, 1 ms at 96 MB), even when
// made from another of its threads, since the fork holds the process's memory map while that thread faults a page in
// (bench/RESULTS.md); a fork of the helper costs the server nothing.

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
    /** Why the tool was killed: its wall time ran out, or it wrote too much. */
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

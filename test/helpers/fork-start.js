// `scorecast start` in a child process, as `node server/commands/start.js` runs it: its output
// kept, and the IPC message it sends once it listens awaited. The wait is a hang guard, not a
// timing bound: beside the timed test files, at a low CPU weight, a start can take many seconds.

import { fork } from 'node:child_process';

export const START = new URL('../../server/commands/start.js', import.meta.url).pathname;
const LISTEN_WAIT_MS = 60_000;

/**
 * @typedef {object} Started
 * @property {import('node:child_process').ChildProcess} child
 * @property {Promise<{ type: 'listening', port: number, url?: string, httpPort?: number | null }>} listening
 *   the server's message once it listens; rejects if it exits first or does not listen within 60 s
 * @property {Promise<number | null>} exited  its exit code (null: killed by a signal)
 * @property {() => string} stdout
 * @property {() => string} stderr
 * @property {() => string} output  stdout and stderr as they came
 */

/**
 * @param {string[]} args  the command line after the script
 * @param {{ env?: Record<string, string>, script?: string, cwd?: string }} [options]
 *   `env` over the test's own (with SCORECAST_QR=0); `script`: another checkout's start.js
 * @returns {Started}
 */
export function forkStart(args, { env = {}, script = START, cwd } = {}) {
  const child = fork(script, args, {
    cwd,
    env: { ...process.env, SCORECAST_QR: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  const text = { stdout: '', stderr: '', output: '' };
  for (const name of /** @type {const} */ (['stdout', 'stderr']))
    child[name]?.on('data', (d) => {
      text[name] += d;
      text.output += d;
    });
  /** @type {Promise<number | null>} */
  const exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  /** @type {Started['listening']} */
  const listening = new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`no start within ${LISTEN_WAIT_MS / 1000} s\n${text.output}`)),
      LISTEN_WAIT_MS,
    );
    child.on('message', (/** @type {any} */ m) => {
      if (m?.type !== 'listening') return;
      clearTimeout(timer);
      resolve(m);
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`exited ${code ?? signal} before listening\n${text.output}`));
    });
  });
  listening.catch(() => {}); // a test that never awaits it must not see an unhandled rejection
  return { child, listening, exited, stdout: () => text.stdout, stderr: () => text.stderr, output: () => text.output };
}

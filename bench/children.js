// The benches' child processes: a server or a cluster runner forked with the bench's token, ready
// when it sends its IPC message (`listening`, `ready`), stopped with SIGTERM.

import { fork } from 'node:child_process';

/** The conductor's token of the cluster benches' servers. */
export const BENCH_TOKEN = 'bench-cluster-token';

/**
 * @param {string} script @param {string[]} args @param {string} readyType
 * @param {{ execArgv?: string[], env?: Record<string, string> }} [options]
 * @returns {Promise<{ child: import('node:child_process').ChildProcess, msg: any }>}
 */
export function startChild(script, args, readyType, options = {}) {
  const child = fork(script, args, {
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    env: { ...process.env, SCORECAST_QR: '0', SCORECAST_TOKEN: BENCH_TOKEN, ...options.env },
    execArgv: options.execArgv ?? [],
  });
  return new Promise((resolve, reject) => {
    child.on('message', (m) => {
      if (/** @type {any} */ (m).type === readyType) resolve({ child, msg: m });
    });
    child.on('exit', (code) => reject(new Error(`${script} exited (${code})`)));
  });
}

/**
 * SIGTERM, and up to 15 s for the exit.
 * @param {import('node:child_process').ChildProcess} child
 */
export async function stopChild(child) {
  if (child.exitCode !== null) return;
  const gone = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await Promise.race([gone, new Promise((r) => setTimeout(r, 15_000))]);
}

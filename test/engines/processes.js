// The processes an engine test starts (Xvfb, WebKitWebDriver): started with their output kept for
// the error message, and stopped for sure, SIGKILL after a grace period.

import { spawn } from 'node:child_process';

/** Children still running: killed when this process exits however it does (a cancelled run). */
/** @type {Set<import('node:child_process').ChildProcess>} */
const running = new Set();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/**
 * A child process this test started, with the tail of what it wrote.
 * @typedef {object} Started
 * @property {import('node:child_process').ChildProcess} child
 * @property {() => string} output  the last 4,000 characters of its stdout and stderr
 * @property {() => Promise<void>} stop  SIGTERM, SIGKILL after 3 s; resolves when it has exited
 */

/**
 * @param {string} command
 * @param {string[]} args
 * @param {{ env?: NodeJS.ProcessEnv, extraFds?: number }} [options]  extraFds: pipes after
 *   stderr (fd 3, ...), for programs that report on a descriptor of their own
 * @returns {Started}
 */
export function start(command, args, { env, extraFds = 0 } = {}) {
  const child = spawn(command, args, {
    env: env ?? process.env,
    stdio: ['ignore', 'pipe', 'pipe', ...Array.from({ length: extraFds }, () => /** @type {const} */ ('pipe'))],
  });
  running.add(child);
  child.once('exit', () => running.delete(child));
  let out = '';
  const keep = (/** @type {Buffer} */ chunk) => {
    out = (out + chunk.toString()).slice(-4000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  // A program missing from PATH is reported when it is awaited, not as an uncaught error.
  child.on('error', (err) => keep(Buffer.from(`\n${command}: ${err.message}\n`)));
  return {
    child,
    output: () => out,
    stop: () => stop(child),
  };
}

/**
 * @param {import('node:child_process').ChildProcess} child
 * @param {number} [graceMs]
 * @returns {Promise<void>}
 */
export function stop(child, graceMs = 3000) {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) {
      resolve();
      return;
    }
    const kill = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(kill);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/**
 * Resolves with the first line the readable gives, or rejects after `ms` (or when the process
 * exits first), naming `what` and the process's output.
 * @param {Started} started
 * @param {import('node:stream').Readable} readable
 * @param {number} ms
 * @param {string} what
 * @returns {Promise<string>}
 */
export function firstLine(started, readable, ms, what) {
  return new Promise((resolve, reject) => {
    let text = '';
    const done = (/** @type {Error | null} */ err, /** @type {string} */ line = '') => {
      clearTimeout(timer);
      readable.off('data', onData);
      started.child.off('exit', onExit);
      if (err) reject(err);
      else resolve(line);
    };
    const onData = (/** @type {Buffer} */ chunk) => {
      text += chunk.toString();
      const nl = text.indexOf('\n');
      if (nl >= 0) done(null, text.slice(0, nl).trim());
    };
    const onExit = (/** @type {number | null} */ code) =>
      done(new Error(`${what}: the process exited (${code}) first:\n${started.output()}`));
    const timer = setTimeout(() => done(new Error(`${what}: nothing after ${ms} ms:\n${started.output()}`)), ms);
    readable.on('data', onData);
    started.child.once('exit', onExit);
  });
}

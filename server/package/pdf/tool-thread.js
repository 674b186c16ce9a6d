// One worker thread that starts Poppler's tools for the loading thread (tool-worker.js says why),
// several at once (the two widths render side by side). Started on the first tool, it ends after
// IDLE_MS without one; while a tool runs it keeps the process alive, as a child process would.

import { Worker } from 'node:worker_threads';

/** A thread idle this long ends (the next tool starts another, about 30 ms). */
const IDLE_MS = 30_000;

/**
 * @typedef {object} Thread
 * @property {Worker} worker
 * @property {Map<number, (r: import('./poppler.js').ToolResult) => void>} pending
 * @property {NodeJS.Timeout | null} idle
 * @property {string} failure
 */

/** @type {Thread | null} */
let current = null;
let nextId = 1;

/** @returns {Thread} */
function thread() {
  if (current) return current;
  /** @type {Thread} */
  const t = {
    // The thread holds only the tools' output (maxBuffer 8 MB each, as text).
    worker: new Worker(new URL('./tool-worker.js', import.meta.url), {
      resourceLimits: { maxOldGenerationSizeMb: 64, maxYoungGenerationSizeMb: 8 },
    }),
    pending: new Map(),
    idle: null,
    failure: '',
  };
  t.worker.on('message', (/** @type {{ id: number, result: import('./poppler.js').ToolResult }} */ m) => {
    const resolve = t.pending.get(m.id);
    t.pending.delete(m.id);
    resolve?.(m.result);
    if (t.pending.size === 0) rest(t);
  });
  t.worker.on('error', (err) => {
    t.failure ||= err.message;
  });
  t.worker.on('exit', (code) => {
    if (current === t) current = null;
    if (t.idle) clearTimeout(t.idle);
    // A tool whose thread stopped is not waited for (its limits still end it): it failed.
    const stderr = `the thread that starts the PDF tools stopped (${t.failure || `exit code ${code}`})`;
    for (const resolve of t.pending.values())
      resolve({ code: -1, stdout: '', stderr, timedOut: false, outOfMemory: false });
    t.pending.clear();
  });
  current = t;
  return t;
}

/** @param {Thread} t */
function rest(t) {
  t.worker.unref();
  t.idle = setTimeout(() => {
    if (current === t) current = null;
    t.worker.terminate();
  }, IDLE_MS);
  t.idle.unref();
}

/**
 * Run `cmd` with `args` (no shell) from the tool thread, killed past `timeoutMs` of wall time.
 * A thread that stops meanwhile gives exit code -1.
 * @param {string} cmd
 * @param {string[]} args
 * @param {number} timeoutMs
 * @returns {Promise<import('./poppler.js').ToolResult>}
 */
export function runInToolThread(cmd, args, timeoutMs) {
  const t = thread();
  if (t.idle) clearTimeout(t.idle);
  t.idle = null;
  t.worker.ref();
  const id = nextId++;
  return new Promise((resolve) => {
    t.pending.set(id, resolve);
    t.worker.postMessage({ id, cmd, args, timeoutMs });
  });
}

/** The tool thread's id while it is alive, else null (tests). */
export function toolThreadId() {
  return current?.worker.threadId ?? null;
}

/** Stop the tool thread (tests and shutdown; tools running fail with code -1). */
export async function closeToolThread() {
  const t = current;
  current = null;
  await t?.worker.terminate();
}

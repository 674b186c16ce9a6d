// The PDF helper, as the loading thread sees it: one worker thread (helper-thread.js) holding one
// helper process (helper-process.js) that starts Poppler's tools and encodes their pages, several
// tasks at once. Starting it forks the server (a fork of a 177 MB process held its main thread
// about 5 ms, bench/RESULTS.md), so it is started once and kept for HELPER_IDLE_MS after its last
// task, not started again for each tool or each load; idle, it is one small process at the
// lowest CPU priority.

import { Worker } from 'node:worker_threads';

/** The helper is let go after this long without a task. */
export const HELPER_IDLE_MS = 10 * 60_000;

/**
 * @typedef {object} Pending
 * @property {(data: any) => void} resolve
 * @property {(err: Error) => void} reject
 * @property {NodeJS.Timeout} timer
 */

/**
 * @typedef {object} Thread
 * @property {Worker} worker
 * @property {Map<number, Pending>} pending
 * @property {NodeJS.Timeout | null} idle
 */

/** @type {Thread | null} */
let thread = null;
let nextId = 1;

/** @param {Thread} t @param {Error} err */
function failAll(t, err) {
  for (const p of t.pending.values()) {
    clearTimeout(p.timer);
    p.reject(err);
  }
  t.pending.clear();
}

/** @returns {Thread} */
function startThread() {
  // The thread holds only file names and the tools' output (8 MiB at most each, exec-tool.js).
  const worker = new Worker(new URL('./helper-thread.js', import.meta.url), {
    resourceLimits: { maxOldGenerationSizeMb: 64, maxYoungGenerationSizeMb: 8 },
  });
  worker.unref();
  /** @type {Thread} */
  const t = { worker, pending: new Map(), idle: null };
  worker.on('message', (/** @type {{ id: number, data?: unknown, failed?: string }} */ m) => {
    const p = t.pending.get(m.id);
    if (!p) return;
    t.pending.delete(m.id);
    clearTimeout(p.timer);
    if (m.failed) p.reject(new Error(m.failed));
    else p.resolve(m.data);
    if (t.pending.size === 0) idleThread(t);
  });
  worker.on('error', () => {});
  worker.on('exit', (code) => {
    if (thread === t) thread = null;
    if (t.idle) clearTimeout(t.idle);
    failAll(t, new Error(`the PDF helper's thread stopped (exit code ${code})`));
  });
  return t;
}

/** @param {Thread} t */
function idleThread(t) {
  t.worker.unref();
  if (t.idle) clearTimeout(t.idle);
  t.idle = setTimeout(() => {
    if (thread === t) thread = null;
    // The thread lets the helper go and ends once it has exited.
    t.worker.postMessage({ close: true });
  }, HELPER_IDLE_MS);
  t.idle.unref();
}

/**
 * Run a task in the helper process. Rejects when the helper or its thread stops first, or past
 * `timeoutMs` (the thread and its helper are then stopped, failing their other tasks).
 * @param {{ kind: 'png', from: string, to: string } | { kind: 'tool', cmd: string, args: string[], timeoutMs: number }} task
 * @param {number} timeoutMs
 * @returns {Promise<any>}
 */
export function runInHelper(task, timeoutMs) {
  thread ??= startThread();
  const t = thread;
  if (t.idle) clearTimeout(t.idle);
  t.idle = null;
  t.worker.ref();
  const id = nextId++;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      if (thread === t) thread = null;
      // Ending the thread kills the helper (setpriv's parent-death signal), and its tools with it.
      t.worker.terminate();
    }, timeoutMs);
    t.pending.set(id, { resolve, reject, timer });
    t.worker.postMessage({ id, task });
  });
}

/** The helper thread's id while one is alive, else null (tests). */
export function helperThreadId() {
  return thread?.worker.threadId ?? null;
}

/** Stop the helper and its thread (tests and shutdown; tasks running fail). */
export async function closePdfHelper() {
  const t = thread;
  thread = null;
  if (!t) return;
  if (t.idle) clearTimeout(t.idle);
  await t.worker.terminate();
}

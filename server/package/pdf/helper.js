// The worker threads that start Poppler's tools for the loading thread (tool-worker.js says why):
// the server's worker pool (server/lib/worker-pool.js: bounded heaps, idle threads end, a thread
// that stops fails its task only), a tool a thread, the two widths' runs side by side.

import { createPool } from '../../lib/worker-pool.js';

/** Tools started at once: a run of pages at each width, and the load's probes beside them. */
const THREADS = 4;
/** Past a tool's own wall-time limit (its thread kills it), the thread is stopped too. */
const GRACE_MS = 5000;

/** @type {ReturnType<typeof createPool> | null} */
let pool = null;

/**
 * Run `cmd` with `args` (no shell) from a tool thread, killed past `timeoutMs` of wall time.
 * A thread that stops meanwhile gives exit code -1.
 * @param {string} cmd
 * @param {string[]} args
 * @param {number} timeoutMs
 * @returns {Promise<import('./poppler.js').ToolResult>}
 */
export async function runInToolThread(cmd, args, timeoutMs) {
  // The threads hold only the tools' output (maxBuffer 8 MB each, as text).
  pool ??= createPool({
    size: THREADS,
    url: new URL('./exec-tool.js', import.meta.url),
    resourceLimits: { maxOldGenerationSizeMb: 64, maxYoungGenerationSizeMb: 8 },
    name: 'thread that starts the PDF tools',
  });
  try {
    return await pool.run('tool', { cmd, args, timeoutMs }, { timeoutMs: timeoutMs + GRACE_MS });
  } catch (err) {
    // A tool whose thread stopped is not waited for (its limits still end it): it failed.
    const stderr = `the thread that starts the PDF tools stopped (${/** @type {Error} */ (err).message})`;
    return { code: -1, stdout: '', stderr, timedOut: false, outOfMemory: false };
  }
}

/** A tool thread's id while one is alive, else null (tests). */
export function toolThreadId() {
  return pool?.threadIds[0] ?? null;
}

/** Stop the tool threads (tests and shutdown; tools running fail with code -1). */
export async function closeToolThread() {
  const p = pool;
  pool = null;
  await p?.close();
}

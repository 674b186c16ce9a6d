// The worker's side of a task that failed (server/lib/worker-pool.js): the pool is told why, and the
// worker leaves, since after an exception inside Verovio or a parser its state may be broken; the
// pool starts a fresh worker for the next task.

/**
 * @param {import('node:worker_threads').MessagePort} port
 * @param {number} id  the task's id
 * @param {unknown} err
 * @param {{ atStart?: boolean, prefix?: string }} [how]  atStart: the worker could not start its
 *   engine (the pool then fails the tasks queued behind it); prefix: put before the error's message
 * @returns {never}
 */
export function failAndLeave(port, id, err, { atStart = false, prefix = '' } = {}) {
  port.postMessage({
    id,
    type: 'failed',
    data: { message: `${prefix}${err instanceof Error ? err.message : String(err)}`, atStart },
  });
  port.close();
  process.exit(1);
}

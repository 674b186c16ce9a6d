// A small pool of worker threads for work on untrusted input that must not stall the beats or
// take the server's memory: engraving (server/package/engrave/worker.js: Verovio is synchronous
// and a 56-page score takes many seconds), SVG cleaning and package parsing. Each worker has a
// bounded heap (resourceLimits); a worker that dies (an exception, a timeout, a crash, its heap
// full) fails its task only and is replaced on demand; idle workers exit after a while, since a
// Verovio instance keeps hundreds of MB of wasm memory.

import { Worker } from 'node:worker_threads';

/**
 * @typedef {object} Job
 * @property {number} id
 * @property {string} kind
 * @property {unknown} task
 * @property {(data: any) => void} onProgress
 * @property {(data: any) => void} resolve
 * @property {(err: PoolError) => void} reject
 * @property {AbortSignal | undefined} signal
 * @property {Promise<unknown> | undefined} input  sent to the task when it resolves
 * @property {number} timeoutMs
 * @property {NodeJS.Timeout | null} timer
 * @property {boolean} timedOut
 * @property {boolean} background  queued behind every other job (a part's narrower layouts)
 */

/**
 * @typedef {object} Slot
 * @property {Worker} worker
 * @property {Job | null} job
 * @property {NodeJS.Timeout | null} idleTimer
 * @property {string} failure  why the worker is going away, if it is
 * @property {boolean} leaving  let go while idle: terminated, not exited yet (takes no task)
 * @property {boolean} failedAtStart  the worker could not start its engraver
 * @property {boolean} outOfMemory  the worker's heap reached its resourceLimits
 */

/**
 * Why a task did not complete: 'failed' (the task threw), 'unavailable' (the worker could not
 * start), 'timeout', 'memory' (the worker's heap reached its limit: ERR_WORKER_OUT_OF_MEMORY),
 * 'crashed' (the worker exited), 'closed', 'aborted'.
 */
export class PoolError extends Error {
  /**
   * @param {'failed' | 'unavailable' | 'timeout' | 'memory' | 'crashed' | 'closed' | 'aborted'} reason
   * @param {string} message
   */
  constructor(reason, message) {
    super(message);
    this.name = 'PoolError';
    this.reason = reason;
  }
}

/**
 * @param {{ size: number, url: URL, resourceLimits: import('node:worker_threads').ResourceLimits, idleMs?: number, name?: string }} options
 *   url: the worker's module; resourceLimits: each worker's heap bounds (a worker past them exits,
 *   failing its task only, with reason 'memory'); name: what the workers do, for messages
 */
export function createPool({ size, url, resourceLimits, idleMs = 30_000, name = 'worker' }) {
  /** @type {Slot[]} */
  const slots = [];
  /** @type {Job[]} */
  const queue = [];
  let nextId = 1;
  let closed = false;

  function spawn() {
    /** @type {Slot} */
    const slot = {
      worker: new Worker(url, { resourceLimits }),
      job: null,
      idleTimer: null,
      failure: '',
      leaving: false,
      failedAtStart: false,
      outOfMemory: false,
    };
    slot.worker.unref();
    slot.worker.on('message', (/** @type {{ id: number, type: string, data: any }} */ msg) => {
      const job = slot.job;
      if (!job || msg.id !== job.id) return;
      if (msg.type === 'progress') job.onProgress(msg.data);
      else if (msg.type === 'done') {
        settle(slot);
        job.resolve(msg.data);
        pump();
      } else if (msg.type === 'failed') {
        slot.failure = msg.data.message;
        slot.failedAtStart = msg.data.atStart;
      }
    });
    slot.worker.on('error', (err) => {
      if (/** @type {NodeJS.ErrnoException} */ (err).code === 'ERR_WORKER_OUT_OF_MEMORY') slot.outOfMemory = true;
      slot.failure ||= err.message;
    });
    slot.worker.on('exit', (code) => {
      slots.splice(slots.indexOf(slot), 1);
      const job = slot.job;
      if (slot.idleTimer) clearTimeout(slot.idleTimer);
      if (job) {
        if (job.timer) clearTimeout(job.timer);
        slot.job = null;
        if (job.timedOut)
          job.reject(new PoolError('timeout', `took longer than ${Math.round(job.timeoutMs / 1000)} s`));
        else if (closed) job.reject(new PoolError('closed', `the ${name} was closed`));
        else if (slot.outOfMemory)
          job.reject(new PoolError('memory', `the ${name} ran out of its ${heapMb(resourceLimits)} MB of memory`));
        else if (slot.failure) job.reject(new PoolError(slot.failedAtStart ? 'unavailable' : 'failed', slot.failure));
        else job.reject(new PoolError('crashed', `the ${name} stopped (exit code ${code})`));
      }
      pump();
    });
    slots.push(slot);
    return slot;
  }

  /** Workers not on their way out. */
  const staying = () => slots.filter((s) => !s.leaving).length;

  /** @param {Slot} slot */
  function settle(slot) {
    const job = slot.job;
    if (job?.timer) clearTimeout(job.timer);
    slot.job = null;
    slot.worker.unref();
    if (slot.idleTimer) clearTimeout(slot.idleTimer);
    // terminate() is asynchronous: until the worker has exited, the slot is leaving and no task
    // is given to it (one given then failed as "stopped").
    slot.idleTimer = setTimeout(() => {
      slot.leaving = true;
      slot.worker.terminate();
    }, idleMs);
    slot.idleTimer.unref();
  }

  function pump() {
    while (queue.length > 0 && !closed) {
      // A score to be played comes before the layouts of one already playing.
      const at = Math.max(
        0,
        queue.findIndex((j) => !j.background),
      );
      const job = /** @type {Job} */ (queue[at]);
      if (job.signal?.aborted) {
        queue.splice(at, 1);
        job.reject(new PoolError('aborted', `the ${name}'s task was abandoned`));
        continue;
      }
      const slot = slots.find((s) => !s.job && !s.failure && !s.leaving) ?? (staying() < size ? spawn() : null);
      if (!slot) return;
      queue.splice(at, 1);
      if (slot.idleTimer) clearTimeout(slot.idleTimer);
      slot.job = job;
      slot.worker.ref();
      job.timer = setTimeout(() => {
        job.timedOut = true;
        slot.worker.terminate();
      }, job.timeoutMs);
      slot.worker.postMessage({ id: job.id, kind: job.kind, task: job.task });
      job.input?.then((data) => {
        if (slot.job === job) slot.worker.postMessage({ id: job.id, type: 'input', data });
      });
    }
  }

  return {
    /**
     * Run a task on the next free worker. `input`, when it resolves, is sent to the running task.
     * A background task waits until no other task is queued.
     * @param {string} kind
     * @param {unknown} task
     * @param {{ onProgress?: (data: any) => void, signal?: AbortSignal, input?: Promise<unknown>, timeoutMs?: number, background?: boolean }} [options]
     * @returns {Promise<any>}
     */
    run(kind, task, { onProgress = () => {}, signal, input, timeoutMs = 300_000, background = false } = {}) {
      if (closed) return Promise.reject(new PoolError('closed', `the ${name} was closed`));
      return new Promise((resolve, reject) => {
        queue.push({
          id: nextId++,
          kind,
          task,
          onProgress,
          resolve,
          reject,
          signal,
          input,
          timeoutMs,
          timer: null,
          timedOut: false,
          background,
        });
        pump();
      });
    },
    /** Start idle workers up to the pool's size now (Verovio takes 0.5 s to start), for tasks to come. */
    prestart() {
      while (!closed && staying() < size) settle(spawn());
    },
    /** Stop every worker; running and queued tasks fail with reason 'closed'. */
    async close() {
      closed = true;
      for (const job of queue.splice(0)) job.reject(new PoolError('closed', `the ${name} was closed`));
      await Promise.all(slots.map((s) => s.worker.terminate()));
    },
    /** Workers alive now (for tests and the benchmark). */
    get size() {
      return slots.length;
    },
    /** Thread ids of the workers alive now. */
    get threadIds() {
      return slots.map((s) => s.worker.threadId);
    },
  };
}

/**
 * A worker's heap bound in MB: its old and young generations (Node's defaults where not set).
 * @param {import('node:worker_threads').ResourceLimits} limits
 */
function heapMb(limits) {
  return (limits.maxOldGenerationSizeMb ?? 0) + (limits.maxYoungGenerationSizeMb ?? 0);
}

/** @typedef {ReturnType<typeof createPool>} Pool */

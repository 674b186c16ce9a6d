// Worker entry for encode-png.js (the worker pool's messages): it keeps one PNG encoder process
// (png-worker.js) and passes it the pages. A process, not this thread, encodes: its CPU time is
// then charged to a scheduling group of its own, not the server's (server/lib/spawn-apart.js),
// and it is started from this thread because starting a process holds the starting thread up.
// Messages in: { id, task: { from, to } }; out: { id, type: 'done', data: { ok, width, height } }.

import { fileURLToPath } from 'node:url';
import { parentPort } from 'node:worker_threads';
import { spawnApart } from '../../lib/spawn-apart.js';

/** The encoder's heap (a page's pixels are Buffers, outside it: an A4 page at 1,600 px is 11 MB). */
const HEAP_MB = 64;
/**
 * The encoder is let go after this long without a page: before the pool ends this thread (10 s
 * idle, encode-png.js), so that this thread sees it exit; a child whose starting thread has gone
 * is never waited for, and would stay a zombie until the server stops.
 */
export const ENCODER_IDLE_MS = 8000;

const ENCODER = fileURLToPath(new URL('./png-worker.js', import.meta.url));

const port = /** @type {import('node:worker_threads').MessagePort} */ (parentPort);

/**
 * @typedef {object} Encoder
 * @property {import('node:child_process').ChildProcess} child
 * @property {Set<number>} pages  sent to it and not answered yet
 * @property {NodeJS.Timeout | null} idle
 */

/** @type {Encoder | null} */
let encoder = null;

/** @param {Encoder} e @param {number} id @param {{ ok: boolean, width?: number, height?: number }} data */
function answer(e, id, data) {
  if (!e.pages.delete(id)) return;
  port.postMessage({ id, type: 'done', data });
  if (e.pages.size === 0 && encoder === e)
    e.idle = setTimeout(() => {
      if (encoder === e) encoder = null;
      e.child.disconnect();
    }, ENCODER_IDLE_MS);
}

/** @returns {Encoder} */
function start() {
  const child = spawnApart(process.execPath, [`--max-old-space-size=${HEAP_MB}`, ENCODER], {
    stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
  });
  /** @type {Encoder} */
  const e = { child, pages: new Set(), idle: null };
  child.on('message', (/** @type {{ id: number, ok: boolean, width?: number, height?: number }} */ m) => {
    const { id, ...data } = m;
    answer(e, id, data);
  });
  // An encoder that stops (its heap full, a crash) fails the pages it had; the next page starts
  // another.
  const fail = () => {
    if (encoder === e) encoder = null;
    for (const id of [...e.pages]) answer(e, id, { ok: false });
  };
  child.on('exit', fail);
  child.on('error', fail);
  return e;
}

port?.on('message', (/** @type {{ id: number, task: { from: string, to: string } }} */ { id, task }) => {
  encoder ??= start();
  const e = encoder;
  if (e.idle) clearTimeout(e.idle);
  e.idle = null;
  e.pages.add(id);
  try {
    e.child.send({ id, from: task.from, to: task.to });
  } catch {
    // Its channel is closed: it could not start, or has just stopped.
    if (encoder === e) encoder = null;
    answer(e, id, { ok: false });
  }
});

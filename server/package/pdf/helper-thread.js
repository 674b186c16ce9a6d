// Worker entry for helper.js: this thread starts the PDF helper process (helper-process.js) and
// passes it the tasks, several at once. It is started from this thread because starting a process
// holds the starting thread up for the whole fork; and it is one process for every tool and page,
// since each fork of the server also holds the beat's thread up while it copies the memory map.
// Messages in: { id, task } (a task of helper-process.js), or { close: true } (let the helper go,
// wait for it to exit so that it is not left a zombie, then end); out: { id, data } or
// { id, failed } (the helper stopped before answering).

import { fileURLToPath } from 'node:url';
import { parentPort } from 'node:worker_threads';
import { spawnApart } from '../../lib/spawn-apart.js';

/** The helper's heap (a page's pixels are Buffers, outside it: an A4 page at 1,600 px is 11 MB). */
const HEAP_MB = 64;

const HELPER = fileURLToPath(new URL('./helper-process.js', import.meta.url));

const port = /** @type {import('node:worker_threads').MessagePort} */ (parentPort);

/**
 * @typedef {object} Helper
 * @property {import('node:child_process').ChildProcess} child
 * @property {Set<number>} tasks  sent to it and not answered yet
 */

/** @type {Helper | null} */
let helper = null;

/** @returns {Helper} */
function start() {
  const child = spawnApart(process.execPath, [`--max-old-space-size=${HEAP_MB}`, HELPER], {
    stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
  });
  /** @type {Helper} */
  const h = { child, tasks: new Set() };
  child.on('message', (/** @type {{ id: number, data: unknown }} */ { id, data }) => {
    if (h.tasks.delete(id)) port.postMessage({ id, data });
  });
  // A helper that stops (its heap full, a crash) fails the tasks it had; the next task starts another.
  const fail = () => {
    if (helper === h) helper = null;
    for (const id of h.tasks) port.postMessage({ id, failed: 'the PDF helper process stopped' });
    h.tasks.clear();
  };
  child.on('exit', fail);
  child.on('error', fail);
  return h;
}

port?.on('message', (/** @type {{ id: number, task: object } | { close: true }} */ m) => {
  if ('close' in m) {
    const h = helper;
    helper = null;
    if (h && h.child.exitCode === null && h.child.signalCode === null) {
      h.child.once('exit', () => port.close());
      h.child.disconnect();
    } else port.close();
    return;
  }
  helper ??= start();
  const h = helper;
  h.tasks.add(m.id);
  try {
    h.child.send({ id: m.id, ...m.task });
  } catch {
    // Its channel is closed: it could not start, or has just stopped.
    if (helper === h) helper = null;
    h.tasks.delete(m.id);
    port.postMessage({ id: m.id, failed: 'the PDF helper process could not be started' });
  }
});

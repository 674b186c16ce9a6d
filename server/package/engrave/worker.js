// An engraving worker thread: one Verovio toolkit, initialised once (about 0.5 s), doing one
// task at a time for the pool (server/lib/worker-pool.js). Messages in: { id, kind: 'score' | 'part' | 'layouts', task }, and
// { id, type: 'input', data } for a running task; out: { id, type: 'progress' | 'done' | 'failed', data }, where a failure's
// data is { message, atStart } (atStart: Verovio itself did not start).

import os from 'node:os';
import { parentPort } from 'node:worker_threads';
import { failAndLeave } from '../../lib/worker-exit.js';
import { layoutsTask, partTask, scoreTask } from './tasks.js';

// Imported by a computed name: verovio ships no type declarations, and a static import makes
// tsc type-check its 7 MB emscripten bundle. tasks.js types the toolkit methods we use.
const VEROVIO = { module: 'verovio/wasm', toolkit: 'verovio/esm' };

const port = /** @type {import('node:worker_threads').MessagePort} */ (parentPort);

// Engraving yields to the live server: on Linux, setpriority(2) with pid 0 renices only the
// calling thread, so the main thread keeps its priority.
try {
  os.setPriority(10);
} catch {
  // not permitted here: run at normal priority
}

const ready = (async () => {
  const [{ default: createVerovioModule }, { VerovioToolkit, enableLogToBuffer }] = await Promise.all([
    import(VEROVIO.module),
    import(VEROVIO.toolkit),
  ]);
  const module = await createVerovioModule();
  // Verovio logs to stdout by default; keep its log for problem messages instead.
  enableLogToBuffer(1, module);
  return /** @type {import('./tasks.js').Toolkit} */ (new VerovioToolkit(module));
})();

/** Input sent to a running task (a part's timing), by task id: a value or a waiting reader. */
/** @type {Map<number, { value: unknown } | { resolve: (value: any) => void }>} */
const inputs = new Map();

/** @param {number} id */
const inputOf = (id) =>
  new Promise((resolve) => {
    const sent = inputs.get(id);
    if (sent && 'value' in sent) resolve(sent.value);
    else inputs.set(id, { resolve });
  });

port.on(
  'message',
  async (/** @type {{ id: number, type?: 'input', data?: unknown, kind: string, task: any }} */ msg) => {
    const { id, kind, task } = msg;
    if (msg.type === 'input') {
      const waiting = inputs.get(id);
      if (waiting && 'resolve' in waiting) waiting.resolve(msg.data);
      else inputs.set(id, { value: msg.data });
      return;
    }
    let tk;
    try {
      tk = await ready;
    } catch (err) {
      failAndLeave(port, id, err, { atStart: true, prefix: 'Verovio did not start: ' });
    }
    try {
      const result =
        kind === 'score'
          ? scoreTask(tk, task, (data) => port.postMessage({ id, type: 'progress', data }))
          : kind === 'layouts'
            ? layoutsTask(tk, task)
            : await partTask(tk, task, () => inputOf(id));
      inputs.delete(id);
      port.postMessage({ id, type: 'done', data: result });
    } catch (err) {
      // After an exception inside Verovio its wasm instance may be broken.
      failAndLeave(port, id, err);
    }
  },
);

// Worker entry for sanitize-pages.js: cleans the SVG page it is sent, off the event loop that
// plays the beats. Messages in: { id, kind: 'sanitize', task: text }; out: { id, type: 'done',
// data } (the protocol of server/lib/worker-pool.js).

import { parentPort } from 'node:worker_threads';
import { sanitizeSvg } from './sanitize.js';

const port = /** @type {import('node:worker_threads').MessagePort} */ (parentPort);

port.on('message', (/** @type {{ id: number, task: string }} */ { id, task }) => {
  // sanitizeSvg never throws: a page it cannot clean is an error value.
  port.postMessage({ id, type: 'done', data: sanitizeSvg(task) });
});

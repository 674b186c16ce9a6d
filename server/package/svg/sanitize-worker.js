// Worker entry for sanitize-pages.js: cleans the SVG pages it is sent, off the event loop
// that plays the beats.

import { parentPort } from 'node:worker_threads';
import { sanitizeSvg } from './sanitize.js';

parentPort?.on('message', (/** @type {string[]} */ texts) => {
  parentPort?.postMessage(texts.map((t) => sanitizeSvg(t)));
});

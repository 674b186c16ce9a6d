// SVG pages of a package cleaned (sanitize.js) in a worker thread: DOMPurify on a 200 KB
// engraved page takes about 0.2 s (bench/RESULTS.md), which would stall the beats if a reload
// did it on the event loop. Results are kept by content hash, so a reload that did not change a
// page does not clean it again.

import { createHash } from 'node:crypto';
import { Worker } from 'node:worker_threads';

/** @typedef {import('./sanitize.js').SanitizeResult} SanitizeResult */

/** Cleaned pages kept across loads (each is at most a page's size). */
const CACHE_ENTRIES = 256;
/** @type {Map<string, SanitizeResult>} */
const cache = new Map();

/** @param {Buffer} data */
const keyOf = (data) => createHash('sha256').update(data).digest('hex');

/**
 * Clean SVG pages in a worker thread.
 * @param {Buffer[]} pages  the files as read from the package
 * @param {{ timeoutMs?: number }} [options]  how long the whole batch may take
 * @returns {Promise<SanitizeResult[]>}  one result per page, in order
 */
export async function sanitizeSvgPages(pages, { timeoutMs = 60_000 } = {}) {
  const keys = pages.map(keyOf);
  const todo = [...new Set(keys.filter((k) => !cache.has(k)))];
  if (todo.length > 0) {
    const texts = todo.map((k) => pages[keys.indexOf(k)].toString('utf8'));
    const { results, checked } = await inWorker(texts, timeoutMs);
    // A batch the worker did not finish says nothing about the pages: they are tried again.
    if (!checked) return keys.map((k) => cache.get(k) ?? results[todo.indexOf(k)]);
    for (const [i, k] of todo.entries()) {
      cache.set(k, results[i]);
      if (cache.size > CACHE_ENTRIES) cache.delete(/** @type {string} */ (cache.keys().next().value));
    }
  }
  return keys.map((k) => /** @type {SanitizeResult} */ (cache.get(k)));
}

/**
 * @param {string[]} texts
 * @param {number} timeoutMs
 * @returns {Promise<{ results: SanitizeResult[], checked: boolean }>}
 */
function inWorker(texts, timeoutMs) {
  return new Promise((resolve) => {
    const worker = new Worker(new URL('./sanitize-worker.js', import.meta.url));
    /**
     * @param {SanitizeResult[]} results
     * @param {boolean} checked
     */
    const done = (results, checked) => {
      clearTimeout(timer);
      worker.removeAllListeners();
      worker.terminate().catch(() => {});
      resolve({ results, checked });
    };
    /** @param {string} reason */
    const failAll = (reason) =>
      done(
        texts.map(() => ({ ok: false, reason })),
        false,
      );
    const timer = setTimeout(
      () => failAll(`could not be checked within ${timeoutMs / 1000} s; make the page smaller`),
      timeoutMs,
    );
    worker.once('message', (results) => done(results, true));
    worker.once('error', (err) => failAll(`could not be checked (${err.message})`));
    worker.once('exit', (code) => failAll(`could not be checked (the checker stopped with code ${code})`));
    worker.postMessage(texts);
  });
}

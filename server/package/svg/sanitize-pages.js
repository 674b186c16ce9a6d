// SVG pages of a package cleaned (sanitize.js) in a worker thread: DOMPurify on a 200 KB
// engraved page takes about 0.2 s (bench/RESULTS.md), which would stall the beats if a reload
// did it on the event loop. One page a task, in one worker with a bounded heap
// (server/lib/worker-pool.js): a page that fills it is refused alone. Results are kept by content
// hash, so a reload that did not change a page does not clean it again.

import { createHash } from 'node:crypto';
import { createPool } from '../../lib/worker-pool.js';

/** @typedef {import('./sanitize.js').SanitizeResult} SanitizeResult */
/**
 * A page's result; `outOfMemory` when cleaning it filled the worker's heap.
 * @typedef {SanitizeResult | { ok: false, reason: string, outOfMemory: true }} PageResult
 */

/** Cleaned pages kept across loads (each is at most a page's size). */
const CACHE_ENTRIES = 256;
/** @type {Map<string, SanitizeResult>} */
const cache = new Map();

/**
 * The cleaning worker's heap, old and young generations. A 232 KB engraved page (the largest of
 * bench/make-large-score.js) cleans with 64 + 32 MB and not with 32 + 32; ten of them in one
 * 2.3 MB page clean with 512 + 32; 8 MB of empty elements (2 million nodes) do not.
 */
const HEAP_MB = 512;
const YOUNG_MB = 32;

/** @type {import('../../lib/worker-pool.js').Pool | null} */
let pool = null;

/** @param {Buffer} data */
const keyOf = (data) => createHash('sha256').update(data).digest('hex');

/**
 * Clean SVG pages in a worker thread.
 * @param {Buffer[]} pages  the files as read from the package
 * @param {{ timeoutMs?: number }} [options]  how long one page may take
 * @returns {Promise<PageResult[]>}  one result per page, in order
 */
export async function sanitizeSvgPages(pages, { timeoutMs = 60_000 } = {}) {
  const keys = pages.map(keyOf);
  const todo = [...new Set(keys.filter((k) => !cache.has(k)))];
  /** @type {Map<string, PageResult>} */
  const unchecked = new Map();
  await Promise.all(
    todo.map(async (k) => {
      const text = pages[keys.indexOf(k)].toString('utf8');
      const result = await clean(text, timeoutMs);
      // A page the worker did not finish says nothing about the page: it is tried again.
      if ('checked' in result) {
        unchecked.set(k, result.checked);
        return;
      }
      cache.set(k, result);
      if (cache.size > CACHE_ENTRIES) cache.delete(/** @type {string} */ (cache.keys().next().value));
    }),
  );
  return keys.map((k) => /** @type {PageResult} */ (unchecked.get(k) ?? cache.get(k)));
}

/**
 * @param {string} text
 * @param {number} timeoutMs
 * @returns {Promise<SanitizeResult | { checked: PageResult }>}
 */
async function clean(text, timeoutMs) {
  pool ??= createPool({
    size: 1,
    idleMs: 10_000,
    url: new URL('./sanitize-worker.js', import.meta.url),
    resourceLimits: { maxOldGenerationSizeMb: HEAP_MB, maxYoungGenerationSizeMb: YOUNG_MB },
    name: 'SVG checker',
  });
  try {
    return await pool.run('sanitize', text, { timeoutMs });
  } catch (err) {
    const e = /** @type {import('../../lib/worker-pool.js').PoolError} */ (err);
    if (e.reason === 'memory')
      return {
        checked: {
          ok: false,
          reason: `needed more than the ${HEAP_MB + YOUNG_MB} MB of memory checking a page may take; make the page smaller`,
          outOfMemory: true,
        },
      };
    const why =
      e.reason === 'timeout'
        ? `could not be checked within ${timeoutMs / 1000} s`
        : `could not be checked (${e.message})`;
    return { checked: { ok: false, reason: `${why}; make the page smaller` } };
  }
}

/** Stop the cleaning worker (tests and shutdown; the next page starts a new one). */
export async function closeSanitizer() {
  const p = pool;
  pool = null;
  await p?.close();
}

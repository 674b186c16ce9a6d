// Parsing a package's untrusted text (the manifest's YAML, the beat maps) in a worker thread
// (parse-worker.js), so that a large package never stalls the beats and updates of a
// running performance. One worker, started on demand and gone when idle, with a bounded heap: a
// package that still blows it up fails its load, not the server.

import { ScorecastError } from '../../core/errors.js';
import { BEATMAP_CSV_COLUMNS } from '../../core/beatmap.js';
import { createPool } from '../lib/worker-pool.js';

/** Longest parse: a 2 MiB manifest takes about 2 s on the target machine. */
const TIMEOUT_MS = 60_000;
/** The worker's heap: a 2 MiB manifest of 17,000 cues builds about 250 MB. */
const HEAP_MB = 768;
const YOUNG_MB = 32;

/** @type {ReturnType<typeof createPool> | null} */
let pool = null;

/**
 * Run a parse task; a worker that fails, runs out of memory or time becomes a package problem.
 * @param {'manifest' | 'lines' | 'beatmap' | 'retempo'} kind
 * @param {object} task
 * @param {string} file  named in the problem
 */
async function run(kind, task, file) {
  pool ??= createPool({
    size: 1,
    idleMs: 10_000,
    url: new URL('./parse-worker.js', import.meta.url),
    resourceLimits: { maxOldGenerationSizeMb: HEAP_MB, maxYoungGenerationSizeMb: YOUNG_MB },
    name: 'package reader',
  });
  try {
    return await pool.run(kind, task, { timeoutMs: TIMEOUT_MS });
  } catch (err) {
    const e = /** @type {import('../lib/worker-pool.js').PoolError} */ (err);
    if (e.reason === 'memory')
      throw new ScorecastError('SC_ERR_SCORE_OUT_OF_MEMORY', [
        `${file}: reading it needed more than the ${HEAP_MB + YOUNG_MB} MB of memory a package file may take; it is larger or more nested than a score needs`,
      ]);
    const why =
      e.reason === 'timeout' ? `took more than ${TIMEOUT_MS / 1000} s to read` : `could not be read (${e.message})`;
    throw new ScorecastError(
      'SC_ERR_SCORE_INVALID',
      `\n${file}: ${why}; it is larger or more nested than a score needs`,
    );
  }
}

/**
 * The manifest as data, or its problems ("score.yaml line N: ..."), YAML alias bombs included.
 * @param {string} text
 * @returns {Promise<{ ok: true, raw: unknown } | { ok: false, problems: string[] }>}
 */
export async function parseManifest(text) {
  const result = await run('manifest', { text }, 'score.yaml');
  return result.ok ? { ok: true, raw: JSON.parse(result.json) } : result;
}

/**
 * " line N" (or "") for each field path of the manifest, e.g. "cues[3].bar".
 * @param {string} text
 * @param {string[]} fields
 * @returns {Promise<string[]>}
 */
export function manifestLines(text, fields) {
  return fields.length === 0 ? Promise.resolve([]) : run('lines', { text, fields }, 'score.yaml');
}

/**
 * Read and check a beat map (core/beatmap.js rules) from its bytes.
 * @param {Uint8Array} bytes
 * @param {'csv' | 'json'} form
 * @param {import('../../core/beatmap.js').BeatMapOptions} options
 * @returns {Promise<import('../../core/beatmap.js').BeatMapResult>}
 */
export async function parseBeatMap(bytes, form, options) {
  const result = await run('beatmap', { bytes, form, options }, options.file);
  if (!result.ok) return result;
  const packed = /** @type {Float64Array} */ (result.packed);
  const n = BEATMAP_CSV_COLUMNS.length;
  /** @type {import('../../core/beatmap.js').BeatEntry[]} */
  const beats = [];
  for (let i = 0; i < packed.length; i += n) {
    beats.push({
      beat: packed[i],
      page: packed[i + 1],
      system: packed[i + 2],
      bar: packed[i + 3],
      x0: packed[i + 4],
      x1: packed[i + 5],
      y0: packed[i + 6],
      y1: packed[i + 7],
    });
  }
  return { ok: true, value: { beats } };
}

/**
 * score.yaml's text with its `meter` replaced by `meter` and `comment` written above it, the rest
 * as it was (the preview's tap-along).
 * @param {string} text
 * @param {object[]} meter
 * @param {string} comment  one line
 * @returns {Promise<{ ok: true, text: string } | { ok: false, problems: string[] }>}
 */
export function retempoManifest(text, meter, comment) {
  return run('retempo', { text, meter, comment }, 'score.yaml');
}

/** Stop the parse worker (tests and shutdown; the next parse starts a new one). */
export async function closeParser() {
  const p = pool;
  pool = null;
  await p?.close();
}

// Engraved notation: a MusicXML, compressed MusicXML or MEI file engraved by Verovio
// into SVG pages for the full score and for each part, with a beat map per view and the bars in
// performance order for the tempo map. Engraving runs in worker threads (server/lib/worker-pool.js) and happens
// once per content: results are cached on disk by hash (cache.js), and a warm load reads one
// JSON file without starting Verovio. A part's narrower layouts (options.js, PART_LAYOUTS) are
// engraved after the rest, in the background: the cache entry is committed without them and
// marked pending, and completed when they are done (by this process, or the next one to load it).

import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ScorecastError } from '../../../core/errors.js';
import { PACKAGE_LIMITS } from '../../../core/package-limits.js';
import {
  PENDING_TIMING,
  commitEntry,
  completeEntry,
  markUse,
  pendingFile,
  pruneCache,
  readEntry,
  tempDir,
} from './cache.js';
import { FORMAT_VERSION, PART_LAYOUTS, SCORE_SIZE } from './options.js';
import { PoolError, createPool } from '../../lib/worker-pool.js';
import { EXTENSIONS } from './source.js';

/** Largest notation file engraved (doc/score-format.md, "Limits"). */
const MAX_FILE_BYTES = PACKAGE_LIMITS.notationBytes;

/**
 * @typedef {import('./place-beats.js').View} View
 * @typedef {import('./place-beats.js').Beat} Beat
 */

/**
 * @typedef {object} EngravedScore
 * @property {string} hash        cache key: the file's content, Verovio's version, our options
 * @property {string} dir         cacheDir/<hash>, holding <view>-<n>.svg (.br, .gz) and engraved.json
 * @property {import('../../../core/tempo-map.js').BarSpec[]} bars  performance order, for createTempoMapFromBars
 * @property {Record<string, View>} views  `score` and one per part id
 * @property {string[]} warnings  what a composer should know (assumed tempo, rounded beats)
 * @property {boolean} cached     read from the cache, without engraving
 * @property {string[]} pending    layouts of the parts not engraved yet (none once complete)
 * @property {Promise<EngravedScore>} complete  the same score with every layout, when they are
 *   engraved (itself when none is pending); rejects as engraveScore does if they cannot be
 */

/**
 * @typedef {object} EngraveOptions
 * @property {string} file      absolute path of a .musicxml, .xml, .mxl or .mei file
 * @property {Buffer} [bytes]   its content, when the caller has read it (the package loader
 *                              reads it without following links); default: read from `file`
 * @property {import('./parts.js').PartRequest[]} [parts]  our part ids; source: MusicXML part id
 *                              (P1...) or MEI staff number(s); default: the score's parts in order
 * @property {string} cacheDir  e.g. <repo>/.cache/engrave
 * @property {boolean} [deferLayouts]  resolve once the full score and the A4 parts are ready,
 *   with the narrower layouts `pending` (what a performance waits for); default false: resolve
 *   when every layout is engraved (check, the engrave CLI)
 */

/** @type {import('../../lib/worker-pool.js').Pool | null} */
let pool = null;
/** Engravings under way, by cache folder: the same score asked for twice is engraved once. */
/** @type {Map<string, Promise<EngravedScore>>} */
const inflight = new Map();
/** Pending layouts being engraved, by cache folder. */
/** @type {Map<string, Promise<EngravedScore>>} */
const finishing = new Map();
/** @type {string | null} */
let verovioVersion = null;

/**
 * Each engraving worker's heap, old and young generations (Verovio's wasm memory is outside it;
 * the notation bound keeps what it is given bounded). The 965-bar, 56-page score of
 * bench/make-large-score.js engraves with 192 + 64 MB and fails with 96 + 64: 768 + 64 leaves
 * three times what it needs, while two workers stay under 1.7 GB.
 */
const HEAP_MB = 768;
const YOUNG_MB = 64;

/** Workers: two by default (a 56-page score in under 30 s on two cores), at most the cores. */
function poolSize() {
  const wanted = Number(process.env.SCORECAST_ENGRAVE_WORKERS) || 2;
  return Math.max(1, Math.min(wanted, os.availableParallelism()));
}

/** The installed Verovio's version, from its package.json (not exported by the package). */
function verovio() {
  verovioVersion ??= /** @type {{ version: string }} */ (
    JSON.parse(
      readFileSync(
        path.join(path.dirname(fileURLToPath(import.meta.resolve('verovio/esm'))), '..', 'package.json'),
        'utf8',
      ),
    )
  ).version;
  return verovioVersion;
}

/**
 * @param {string} name
 * @param {string[]} lines "<file>: <what is wrong>; <what to do>"
 */
const invalid = (name, lines) =>
  new ScorecastError(
    'SC_ERR_SCORE_INVALID',
    lines.map((l) => (l.startsWith(`${name}:`) ? l : `${name}: ${l}`)),
  );

/**
 * Engrave a notation file, or load its engraving from the cache.
 * Rejects with ScorecastError SC_ERR_SCORE_INVALID (one problem per line) for a file that is
 * not a score we can engrave, or parts that it does not have.
 * @param {EngraveOptions} options
 * @returns {Promise<EngravedScore>}
 */
export async function engraveScore({ file, bytes: given, parts = [], cacheDir, deferLayouts = false }) {
  if (typeof file !== 'string' || !path.isAbsolute(file))
    throw new TypeError('engraveScore: file must be an absolute path');
  if (typeof cacheDir !== 'string' || cacheDir === '') throw new TypeError('engraveScore: cacheDir is required');
  const name = path.basename(file);
  if (!Object.hasOwn(EXTENSIONS, path.extname(file).toLowerCase())) {
    throw invalid(name, [
      `"${path.extname(file) || '(none)'}" is not a notation file extension we engrave; use MusicXML (.musicxml, .xml), compressed MusicXML (.mxl) or MEI (.mei)`,
    ]);
  }
  let bytes = given;
  try {
    bytes ??= await readFile(file);
  } catch (err) {
    throw invalid(name, [
      `cannot be read (${/** @type {NodeJS.ErrnoException} */ (err).code ?? 'error'}); check the notation file's path in score.yaml`,
    ]);
  }
  if (bytes.length > MAX_FILE_BYTES)
    throw invalid(name, [
      `is ${bytes.length} bytes, more than ${MAX_FILE_BYTES}; a score is smaller than this, so check that it is the right file`,
    ]);
  const requests = parts.map((p) => ({ id: p.id, ...(p.source !== undefined ? { source: p.source } : {}) }));
  const hash = createHash('sha256')
    .update(bytes)
    .update(
      JSON.stringify({
        format: FORMAT_VERSION,
        verovio: verovio(),
        parts: requests,
        score: SCORE_SIZE,
        part: PART_LAYOUTS,
      }),
    )
    .digest('hex')
    .slice(0, 32);
  const dir = path.join(path.resolve(cacheDir), hash);

  const job = { file, name, cacheDir: path.resolve(cacheDir), hash, dir };
  let ready;
  const cached = await readEntry(dir, hash);
  if (cached) {
    await markUse(dir);
    const { bars, views, warnings, pending } = cached;
    ready = scoreOf({ hash, dir, bars, views, warnings, cached: true }, pending, (self, p) => finish(job, self, p));
  } else {
    ready = await once(inflight, dir, () => engrave({ ...job, bytes, requests }));
  }
  // A caller that does not wait for the layouts may never ask: its failure is reported there.
  ready.complete.catch(() => {});
  return deferLayouts ? ready : ready.complete;
}

/**
 * An engraved score, and its completion: `later` engraves the pending layouts.
 * @param {Omit<EngravedScore, 'pending' | 'complete'>} base
 * @param {import('./cache.js').Pending | undefined} pending
 * @param {((self: EngravedScore, pending: import('./cache.js').Pending) => Promise<EngravedScore>) | null} later
 * @returns {EngravedScore}
 */
function scoreOf(base, pending, later) {
  const self = /** @type {EngravedScore} */ ({ ...base, pending: pending?.layouts ?? [] });
  self.complete = pending && later ? later(self, pending) : Promise.resolve(self);
  return self;
}

/**
 * Engrave a pending entry's layouts (once per entry in this process) and complete the entry.
 * @param {{ file: string, name: string, cacheDir: string, hash: string, dir: string }} job
 * @param {EngravedScore} primary  the entry as it is, without them
 * @param {import('./cache.js').Pending} pending
 * @returns {Promise<EngravedScore>}
 */
function finish(job, primary, pending) {
  return once(finishing, job.dir, () => engraveLayouts(job, primary, pending));
}

/**
 * The work under way for `key` in `running`, or `start()`'s, kept there until it settles: the
 * same engraving asked for twice is done once.
 * @param {Map<string, Promise<EngravedScore>>} running
 * @param {string} key
 * @param {() => Promise<EngravedScore>} start
 */
function once(running, key, start) {
  let work = running.get(key);
  if (!work) {
    work = start().finally(() => running.delete(key));
    running.set(key, work);
  }
  return work;
}

/**
 * @param {{ file: string, name: string, cacheDir: string, hash: string, dir: string }} job
 * @param {EngravedScore} primary
 * @param {import('./cache.js').Pending} pending
 * @returns {Promise<EngravedScore>}
 */
async function engraveLayouts({ file, name, cacheDir, hash, dir }, primary, pending) {
  const { workers, tmp: outDir } = await startJob(cacheDir, hash);
  try {
    const timing = await readFile(path.join(dir, PENDING_TIMING), 'utf8');
    const results = pending.parts.map(async (id) => {
      const mei = await readFile(path.join(dir, pendingFile(id)), 'utf8');
      return workers.run('layouts', { file, id, mei, timing, layouts: pending.layouts, outDir }, { background: true });
    });
    await Promise.allSettled(results);
    /** @type {Record<string, View>} */
    const views = { ...primary.views };
    for (const [i, id] of pending.parts.entries()) {
      const done = await results[i];
      if (!done.ok) throw invalid(name, done.problems);
      views[id] = { ...views[id], layouts: done.layouts };
    }
    await completeEntry(outDir, dir, {
      format: FORMAT_VERSION,
      hash,
      verovio: verovio(),
      bars: primary.bars,
      views,
      warnings: primary.warnings,
    });
    await markUse(dir);
    pruneCache(cacheDir).catch(() => {});
    const { complete: _, pending: __, ...rest } = primary;
    return scoreOf({ ...rest, views }, undefined, null);
  } catch (err) {
    await rm(outDir, { recursive: true, force: true });
    throw toScorecastError(name, err);
  }
}

/**
 * The worker pool (started on first use) and a new temporary folder in the cache to engrave into.
 * @param {string} cacheDir
 * @param {string} hash
 */
async function startJob(cacheDir, hash) {
  pool ??= createPool({
    size: poolSize(),
    url: new URL('./worker.js', import.meta.url),
    resourceLimits: { maxOldGenerationSizeMb: HEAP_MB, maxYoungGenerationSizeMb: YOUNG_MB },
    name: 'engraver',
  });
  try {
    return { workers: pool, tmp: await tempDir(cacheDir, hash) };
  } catch (err) {
    throw new ScorecastError(
      'SC_ERR_INTERNAL',
      `the engraving cache ${cacheDir} cannot be written: ${/** @type {Error} */ (err).message}`,
    );
  }
}

/**
 * Engrave into a temporary folder and commit it to the cache.
 * @param {{ file: string, name: string, bytes: Buffer, requests: import('./parts.js').PartRequest[], cacheDir: string, hash: string, dir: string }} job
 * @returns {Promise<EngravedScore>}
 */
async function engrave({ file, name, bytes, requests, cacheDir, hash, dir }) {
  const { workers, tmp } = await startJob(cacheDir, hash);
  const abort = new AbortController();
  /** @type {(timing: string | null) => void} */
  let settleTiming = () => {};
  /** The score's timing (JSON) for the part tasks' beat maps; null if the score fails. */
  const timing = new Promise((resolve) => {
    settleTiming = resolve;
  });
  /** @type {{ id: string, mei: string, result: Promise<any> }[]} */
  const partJobs = [];
  try {
    // The parts come a few seconds into the score task: have their workers ready by then.
    if (requests.length > 0) workers.prestart();
    const score = await workers.run(
      'score',
      { file, bytes: new Uint8Array(bytes), parts: requests, outDir: tmp },
      {
        signal: abort.signal,
        onProgress(/** @type {import('./tasks.js').ScoreProgress} */ progress) {
          if ('timing' in progress) {
            settleTiming(progress.timing);
            return;
          }
          for (const part of progress.parts) {
            const result = workers.run(
              'part',
              { file, id: part.id, mei: part.mei, outDir: tmp },
              { signal: abort.signal, input: timing },
            );
            result.catch(() => {}); // awaited below; failures are reported from there
            partJobs.push({ id: part.id, mei: part.mei, result });
          }
        },
      },
    );
    if (!score.ok) throw invalid(name, score.problems);
    /** @type {Record<string, View>} */
    const views = { score: score.view };
    const warnings = [...score.warnings];
    for (const { id, result } of partJobs) {
      const part = await result;
      if (!part.ok) throw invalid(name, part.problems);
      views[id] = part.view;
      warnings.push(...part.warnings);
    }
    /** @type {import('./cache.js').Pending | undefined} */
    let pending;
    const later = PART_LAYOUTS.slice(1).map((l) => l.name);
    if (partJobs.length > 0 && later.length > 0) {
      pending = { layouts: later, parts: partJobs.map((j) => j.id) };
      await writeFile(path.join(tmp, PENDING_TIMING), /** @type {string} */ (await timing));
      for (const { id, mei } of partJobs) await writeFile(path.join(tmp, pendingFile(id)), mei);
    }
    await commitEntry(tmp, dir, {
      format: FORMAT_VERSION,
      hash,
      verovio: verovio(),
      bars: score.bars,
      views,
      warnings,
      ...(pending ? { pending } : {}),
    });
    await markUse(dir);
    // A new entry may push the cache over its size: the least recently used unused ones go, in
    // the background (the caller does not wait for a walk of the whole cache).
    pruneCache(cacheDir).catch(() => {});
    return scoreOf({ hash, dir, bars: score.bars, views, warnings, cached: false }, pending, (self, p) =>
      finish({ file, name, cacheDir, hash, dir }, self, p),
    );
  } catch (err) {
    abort.abort();
    settleTiming(null);
    // Let running part tasks finish writing before the folder goes.
    await Promise.allSettled(partJobs.map((j) => j.result));
    await rm(tmp, { recursive: true, force: true });
    throw toScorecastError(name, err);
  }
}

/**
 * @param {string} name
 * @param {unknown} err
 */
function toScorecastError(name, err) {
  if (err instanceof ScorecastError) return err;
  if (err instanceof PoolError) {
    if (err.reason === 'failed' || err.reason === 'crashed') {
      return invalid(name, [
        `Verovio failed while engraving it (${err.message}); open it in your notation program and export it again, or report the file`,
      ]);
    }
    if (err.reason === 'memory')
      return new ScorecastError('SC_ERR_SCORE_OUT_OF_MEMORY', [
        `${name}: engraving it needed more than the ${HEAP_MB + YOUNG_MB} MB of memory an engraving may take (${err.message}); split the score into movements, or check that it is the right file`,
      ]);
    if (err.reason === 'timeout')
      return invalid(name, [
        `engraving ${err.message}; split the score into movements, or check that it is the right file`,
      ]);
    return new ScorecastError('SC_ERR_INTERNAL', `engraving ${name} stopped: ${err.message}`);
  }
  return new ScorecastError('SC_ERR_INTERNAL', `engraving ${name}: ${/** @type {Error} */ (err).message}`);
}

/** Stop the engraving workers (tests, the benchmark, server shutdown); the next engraving starts new ones. */
export async function closeEngraver() {
  const p = pool;
  pool = null;
  await p?.close();
}

/** Engraving workers alive now, and their thread ids (the benchmark samples their load). */
export function engraverThreads() {
  return pool ? pool.threadIds : [];
}

// Resume after restart (README, "Resume after restart"): the performance is saved as it changes to a small
// JSON file, so that a server restarted mid-piece comes back at the beat the piece has reached.
// Writes are atomic (temp file, then rename) and coalesced: a beat is a change, but at 600 bpm
// that would be ten files a second, so beats are written at most every SAVE_INTERVAL_MS;
// transport changes, seeks, jumps, new epochs and votes are written at once. The file carries
// a format version and a sha256 of its payload: a truncated, edited or foreign file is refused
// with the reason, kept aside for someone to look at, and the server starts fresh.
//
// This file is the policy: when to write (createSaver) and which save to take up at start
// (startRefusal, switchedScore, attachPersistence). The format is server/performance/save/format.js, the
// file operations server/performance/save/file.js; both are re-exported here for the server and its tests.

import path from 'node:path';
import { errorValue } from '../../../core/errors.js';
import { lockStateFile } from './state-lock.js';
import { encodeSave, saveMismatch, scoreFingerprint } from './format.js';
import { keepAside, readSave, removeStaleTemps, writeFileAtomic } from './file.js';

export { SAVE_FORMAT, SAVE_VERSION, decodeSave, encodeSave, saveMismatch, scoreFingerprint } from './format.js';
export { keepAside, readSave, removeStaleTemps, writeFileAtomic } from './file.js';

/** @typedef {import('./format.js').SavePayload} SavePayload */
/** @typedef {import('./format.js').ReadResult} ReadResult */
/** @typedef {import('./file.js').WriteOps} WriteOps */

/** At most one coalesced write per interval (ms) while beats stream. */
export const SAVE_INTERVAL_MS = 250;

/** @typedef {'SC_ERR_SAVE_UNREADABLE' | 'SC_ERR_SAVE_MISMATCH' | 'SC_ERR_SAVE_OTHER_START' | 'SC_ERR_SAVE_NOT_UNDER_WAY'} SaveRefusal */

/**
 * What `GET /api/status` shows as `resume`.
 * @typedef {object} ResumeStatus
 * @property {boolean} resumed
 * @property {string} file
 * @property {number} [beat]       resumed: the beat it came back at
 * @property {string} [playback]  resumed: playing, paused or stopped
 * @property {string} [transport]  deprecated: `playback`, still sent for one version
 * @property {number} [savedAt]    resumed: when the save it came back from was written
 * @property {string} [code]       a save that was not taken up: SC_ERR_SAVE_UNREADABLE,
 *   SC_ERR_SAVE_MISMATCH, SC_ERR_SAVE_OTHER_START or SC_ERR_SAVE_NOT_UNDER_WAY
 * @property {string} [problem]    why it was refused
 * @property {string | null} [keptAs]  where the refused file now is (null: it could not be moved, and
 *   nothing is saved so that it is not overwritten)
 * @property {string} [note]       why nothing was resumed, when that is no problem
 * @property {{ at: number | null, error?: string }} lastWrite
 */

/**
 * The start a save belongs to: the resolved `--score` of the server that wrote it. Saves written
 * before saves named their start do not say; they are taken to belong to the score they hold.
 * @param {SavePayload} payload
 * @returns {string | null}
 */
export function startOf(payload) {
  if (typeof payload.start === 'string') return path.resolve(payload.start);
  return typeof payload.score.dir === 'string' ? path.resolve(payload.score.dir) : null;
}

/**
 * Was the performance under way: playing, or paused or stopped past its first beat? A console
 * that loaded a score and never played it has nothing worth coming back to.
 * @param {import('../conductor.js').PerformanceRecord} performance
 */
export const underWay = (performance) =>
  (performance.playback ?? performance.transport) === 'playing' ||
  (typeof performance.beat === 'number' && performance.beat > 0);

/**
 * Whether a save may name `dir` as its score: a package of the scores folder (a folder right
 * inside it), as the console's library loads them. A save names a folder that is then loaded;
 * any other folder (`..`, an absolute path elsewhere) is refused, whoever wrote the save.
 * @param {string} dir
 * @param {string} scoresDir
 */
export function inScoresFolder(dir, scoresDir) {
  return path.dirname(path.resolve(dir)) === path.resolve(scoresDir);
}

/**
 * The package a server started with `--score start` goes on with, when its save says that the
 * console had switched to another score of the same folder and played it: that score's folder.
 * Otherwise null, and `--score` plays. The save must belong to this start (the same `--score`):
 * a save for another start never overrides the command line.
 * @param {SavePayload} payload
 * @param {string} start  the resolved `--score`
 * @returns {string | null}
 */
export function switchedScore(payload, start) {
  const dir = payload.score.dir;
  if (typeof dir !== 'string' || startOf(payload) !== path.resolve(start)) return null;
  const saved = path.resolve(dir);
  if (saved === path.resolve(start) || !inScoresFolder(saved, path.dirname(path.resolve(start)))) return null;
  return underWay(payload.performance) ? saved : null;
}

/**
 * Why a save that fits its score is still not taken up by a server started with `--score start`
 * now playing the package in `loadedDir`, or null when it is. Two reasons: it belongs to another
 * start; or the console had switched to another score that this server did not load (it never
 * played, or it cannot be loaded now: `switchProblem` says why).
 * @param {SavePayload} payload
 * @param {{ start: string, loadedDir: string | null, switchProblem?: string | null }} run
 * @returns {{ code: SaveRefusal, problem: string } | null}
 */
export function startRefusal(payload, { start, loadedDir, switchProblem = null }) {
  const saveStart = startOf(payload);
  const { dir, title } = payload.score;
  const playing = `"${title}"${typeof dir === 'string' ? ` (${dir})` : ''}`;
  if (saveStart !== null && saveStart !== path.resolve(start)) {
    return {
      code: 'SC_ERR_SAVE_OTHER_START',
      problem: `the save belongs to a server started with --score ${saveStart} (it held "${title}"${typeof dir === 'string' && path.resolve(dir) !== saveStart ? `, the console's switch to ${dir}` : ''}); this server was started with --score ${start}, which plays`,
    };
  }
  if (typeof dir !== 'string' || loadedDir === null || path.resolve(dir) === path.resolve(loadedDir)) return null;
  if (!underWay(payload.performance)) {
    return {
      code: 'SC_ERR_SAVE_NOT_UNDER_WAY',
      problem: `the console had switched to ${playing}, which never played (stopped at its first beat); --score ${start} plays`,
    };
  }
  return {
    code: 'SC_ERR_SAVE_MISMATCH',
    problem: `the console had switched to ${playing}, which cannot be loaded now${switchProblem ? `: ${switchProblem}` : ''}; --score ${start} plays`,
  };
}

/**
 * @typedef {object} SaverOptions
 * @property {(text: string) => Promise<void>} write
 * @property {() => string} text      the file's text now (called when a write starts, so a
 *   coalesced write carries the newest state)
 * @property {Pick<import('../conductor.js').Clock, 'now' | 'setTimer' | 'clearTimer'>} clock
 * @property {number} [intervalMs]
 * @property {(err: unknown) => void} [onError]
 * @property {(at: number) => void} [onWritten]  monotonic time the write started
 */

/**
 * Coalesces changes into writes: one write at a time; the first change after a quiet interval
 * is written at once, the next ones at most every `intervalMs`; an urgent change is written as
 * soon as the write in progress (if any) is done.
 * @param {SaverOptions} options
 */
export function createSaver({
  write,
  text,
  clock,
  intervalMs = SAVE_INTERVAL_MS,
  onError = () => {},
  onWritten = () => {},
}) {
  let dirty = false;
  let urgentPending = false;
  let lastStart = -Infinity;
  /** @type {Promise<void> | null} */
  let writing = null;
  /** @type {unknown} */
  let timer = null;
  let closed = false;

  function cancelTimer() {
    if (timer !== null) clock.clearTimer(timer);
    timer = null;
  }

  function start() {
    cancelTimer();
    if (!dirty || writing) return;
    dirty = false;
    lastStart = clock.now();
    const at = lastStart;
    writing = (async () => {
      try {
        await write(text());
        onWritten(at);
      } catch (err) {
        onError(err);
      }
    })().finally(() => {
      writing = null;
      if (dirty && !closed) schedule(urgentPending);
      urgentPending = false;
    });
  }

  /** @param {boolean} urgent */
  function schedule(urgent) {
    if (writing) {
      urgentPending ||= urgent;
      return;
    }
    const wait = urgent ? 0 : lastStart + intervalMs - clock.now();
    if (wait <= 0) start();
    else if (timer === null)
      timer = clock.setTimer(() => {
        timer = null;
        start();
      }, wait);
  }

  return {
    /**
     * The performance changed.
     * @param {boolean} [urgent] write it as soon as possible (not a plain beat)
     */
    changed(urgent = false) {
      if (closed) return;
      dirty = true;
      schedule(urgent);
    },

    /** Write the newest state now (after the write in progress) and wait for it. */
    async flush() {
      cancelTimer();
      while (writing) await writing;
      dirty = true;
      start();
      while (writing) await writing;
    },

    /** Resolves once no write is in progress (one a finished write started is waited for too). */
    async idle() {
      while (writing) await writing;
    },

    /** Last write: flush, then accept no more changes. */
    async close() {
      closed = true;
      await this.flush();
    },

    get pending() {
      return dirty || writing !== null;
    },
  };
}

/**
 * @typedef {object} PersistenceOptions
 * @property {string} file
 * @property {boolean} [resume]  take up the saved performance (default true); false starts fresh
 *   (and the next write replaces the file)
 * @property {number} [intervalMs]
 * @property {string} [start]  the resolved `--score` this server was started with: recorded in
 *   every save, and a save for another start is not taken up (unset: not checked; tests)
 * @property {string | null} [switchProblem]  why the score the save had switched to could not be
 *   loaded (start.js tried)
 * @property {{ file: string, release: () => void }} [lock]  the state file's lock, taken by the
 *   caller (start.js takes it before it reads the save); otherwise taken here
 */

/**
 * Resume the saved performance if it is valid and for this score (refusing it otherwise, with
 * the reason), then save the performance as it changes.
 * @param {PersistenceOptions & {
 *   conductor: import('../conductor.js').Conductor,
 *   bus: import('../../live/bus.js').Bus,
 *   clock: import('../conductor.js').Clock,
 *   log: { info: Function, warn: Function, error: Function },
 *   scoreDir?: () => string | null,
 * }} options
 */
export async function attachPersistence({
  file,
  resume = true,
  intervalMs,
  conductor,
  bus,
  clock,
  log,
  scoreDir = () => null,
  start,
  switchProblem = null,
  lock = lockStateFile(file),
}) {
  /** @type {Omit<ResumeStatus, 'lastWrite'>} */
  let outcome = { resumed: false, file };
  let saving = true;
  const stale = await removeStaleTemps(file);
  if (stale.length > 0) log.info({ file, removed: stale }, 'removed temp files of an interrupted save');
  if (!resume) {
    outcome.note = 'resume is off (--no-resume or SCORECAST_RESUME=0): started fresh';
  } else {
    const read = await readSave(file);
    /** @type {{ code: SaveRefusal, problem: string } | null} */
    let refused = null;
    if (read.ok) {
      const notOurs =
        start === undefined ? null : startRefusal(read.payload, { start, loadedDir: scoreDir(), switchProblem });
      const mismatch = notOurs === null ? saveMismatch(read.payload, conductor.model) : null;
      if (notOurs !== null) {
        refused = notOurs;
      } else if (mismatch !== null) {
        refused = { code: 'SC_ERR_SAVE_MISMATCH', problem: mismatch };
      } else {
        try {
          const state = conductor.resume(read.payload.performance);
          outcome = {
            resumed: true,
            file,
            beat: state.beat,
            playback: state.playback,
            // Deprecated: `playback`, still sent for one version.
            transport: state.playback,
            savedAt: read.payload.savedAt,
          };
          log.info(
            {
              file,
              beat: state.beat,
              playback: state.playback,
              savedAt: read.payload.savedAt,
              epoch: conductor.epoch,
            },
            'resumed the saved performance',
          );
        } catch (err) {
          // The checksum held, yet the record does not fit this score: written by a buggy
          // version, or by hand with the sum recomputed. Not to be guessed at.
          refused = {
            code: 'SC_ERR_SAVE_MISMATCH',
            problem: `the saved performance does not fit the score: ${/** @type {Error} */ (err).message}`,
          };
        }
      }
    } else if (read.missing) {
      outcome.note = 'no saved performance: started fresh';
    } else {
      refused = { code: read.code, problem: read.problem };
    }
    if (refused) {
      /** @type {string | null} */
      let keptAs = null;
      try {
        keptAs = await keepAside(file, clock.wall());
      } catch (err) {
        saving = false;
        log.error({ file, err }, 'cannot move the refused save aside; not saving, so that it is not overwritten');
      }
      outcome = { resumed: false, file, ...refused, keptAs };
      log.warn(
        { file, code: refused.code, problem: refused.problem, keptAs, hint: errorValue(refused.code).message },
        `saved performance not used: ${refused.problem}`,
      );
    }
  }

  /** @type {{ at: number | null, error?: string }} */
  const lastWrite = { at: null };
  let failing = false;
  const saver = createSaver({
    clock,
    intervalMs,
    write: (text) => writeFileAtomic(file, text),
    text: () =>
      encodeSave({
        savedAt: clock.wall(),
        epoch: conductor.epoch,
        seq: conductor.seq,
        score: {
          id: conductor.model.id,
          title: conductor.model.title,
          dir: scoreDir(),
          fingerprint: scoreFingerprint(conductor.model),
        },
        performance: conductor.record(),
        start: start ?? null,
      }),
    onWritten: () => {
      lastWrite.at = clock.wall();
      delete lastWrite.error;
      if (failing) log.info({ file }, 'saving the performance again');
      failing = false;
    },
    onError: (err) => {
      lastWrite.error = /** @type {Error} */ (err).message;
      // Once per failing streak: a full disk must not flood the log four times a second.
      if (!failing)
        log.error(
          { file, err },
          'cannot save the performance; resume after a restart may go back to an older position',
        );
      failing = true;
    },
  });

  let lastBeat = conductor.state.beat;
  /** @type {(() => void) | null} */
  let unsubscribe = null;
  if (saving) {
    unsubscribe = bus.subscribe((change) => {
      const patch = /** @type {Record<string, unknown> | null} */ (change.patch);
      const beat = /** @type {{ beat: number }} */ (change.state).beat;
      // A beat after the last one is the stream; anything else (a new epoch, play, pause, a
      // tempo, a seek, a jump, the loop, a page choice) is written at once.
      const urgent =
        patch === null ||
        'transport' in patch ||
        'rate' in patch ||
        'countIn' in patch ||
        'pages' in patch ||
        'section' in patch ||
        (typeof patch.beat === 'number' && patch.beat !== lastBeat + 1);
      lastBeat = beat;
      saver.changed(urgent);
    });
    saver.changed(true);
  }

  return {
    /** @returns {ResumeStatus} */
    status: () => ({ ...outcome, lastWrite: { ...lastWrite } }),
    /** Something not in the state changed (a vote): write it soon. */
    changed() {
      if (saving) saver.changed(true);
    },
    /** Resolves once the writes asked for so far are on disk (tests). */
    idle: () => (saving ? saver.idle() : Promise.resolve()),
    /** Stop listening and write the final state (shutdown). */
    async close() {
      unsubscribe?.();
      try {
        if (saving) await saver.close();
      } finally {
        lock.release();
      }
    },
  };
}

/** @typedef {Awaited<ReturnType<typeof attachPersistence>>} Persistence */

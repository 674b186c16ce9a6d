// Reading the files of a ZScore export, each within the bound of its kind, checked on the open
// file before any of it is read: a 150 MB CSV read whole and split into rows took the importer
// to 2.7 GiB. The bounds are those of the package the import becomes (core/package-limits.js),
// and for the score-level CSV (no package file of its own) one many times a real export's.

import { open } from 'node:fs/promises';
import path from 'node:path';
import { ScorecastError } from '../../../core/errors.js';
import { PACKAGE_LIMITS, formatBytes } from '../../../core/package-limits.js';

/** The most each kind of input may be, and what it is called in a problem. */
export const INPUT_LIMITS = Object.freeze({
  /**
   * The score-level BeatInfo CSV: a row per beat of every view (Union Rose: 6 views of 897 beats,
   * under 1 MB); a 1,000-bar symphony's 124,000 rows are about 19 MB.
   */
  scoreCsv: { bytes: 32 * 1024 * 1024, what: 'a score-level BeatInfo CSV' },
  /** A page's BeatInfo CSV becomes a beat map. */
  pageCsv: { bytes: PACKAGE_LIMITS.beatMapBytes, what: "a page's BeatInfo CSV" },
  /** A page image becomes a page of the package. */
  pagePng: { bytes: PACKAGE_LIMITS.pageBytes, what: 'a page image' },
  /** The YAML configuration; score.yaml has the same bound. */
  config: { bytes: PACKAGE_LIMITS.manifestBytes, what: 'a YAML configuration file' },
  /** The granulator's sound becomes an asset. */
  sound: { bytes: PACKAGE_LIMITS.assetBytes, what: 'a sound file' },
});

/**
 * Read an input file whole, after checking its size on the open file: one larger than its kind's
 * bound is refused (SC_ERR_SCORE_INVALID naming the file, its size and the bound) unread. A file
 * that grows after the check is read only up to the size checked.
 * @param {string} file
 * @param {keyof typeof INPUT_LIMITS} kind
 * @returns {Promise<Buffer>}
 */
export async function readInput(file, kind) {
  const { bytes: bound, what } = INPUT_LIMITS[kind];
  const handle = await open(file, 'r');
  try {
    const { size } = await handle.stat();
    if (size > bound)
      throw new ScorecastError('SC_ERR_SCORE_INVALID', [
        `${path.basename(file)}: is ${formatBytes(size)}, more than the ${formatBytes(bound)} ${what} may be; it was not read (check that it is the right file)`,
      ]);
    const buf = Buffer.alloc(size);
    let at = 0;
    while (at < size) {
      const { bytesRead } = await handle.read(buf, at, size - at, at);
      if (bytesRead === 0) break;
      at += bytesRead;
    }
    return at === size ? buf : buf.subarray(0, at);
  } finally {
    await handle.close();
  }
}

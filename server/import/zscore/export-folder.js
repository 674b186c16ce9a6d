// The files of a ZScore export folder: which is the score-level BeatInfo, which are the parts'
// pages, which are YAML configuration, and what is left aside (with the reason, for the report).

import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { ScorecastError } from '../../../core/errors.js';
import { readZScoreConfig } from './config.js';
import { parseBeatInfoCsv } from './csv.js';
import { readInput } from './input-file.js';
import { describe, invalid } from './log.js';
import { slug } from './views.js';

export const PAGE_FILE_RE = /^(.+)_page(\d+)(_BeatInfo\.csv|\.png)$/;
export const SCORE_FILE_RE = /_BeatInfo\.csv$/;
/** The master of a merged export, as ZScore's ScoreMerger names it (SCORE_PREFIX). */
const MASTER_RE = /^1_/;
/** ZScore's blank page per instrument (`Violin1_pagex.png`), and its INScore map. */
const PAGEX_RE = /^[^_]+_pagex(\.png|_InScoreMap\.txt)$/;

/**
 * @typedef {object} ScoreLevel
 * @property {string} file        the score-level BeatInfo read
 * @property {string[]} files     every score-level BeatInfo in the folder
 * @property {{ rows: import('./csv.js').BeatInfoRow[] }} csv
 * @property {string} name        the score's name (its title)
 * @property {string} filePrefix  the name as ZScore writes it in file names
 * @property {string[]} filePrefixes
 */

/**
 * The sound file the phones' granulator plays, read and named for the package.
 * @param {string | undefined} granulatorSound
 * @returns {Promise<{ out: string, bytes: Buffer } | null>}
 */
export async function readSoundOption(granulatorSound) {
  if (granulatorSound === undefined) return null;
  const ext = /\.(mp3|wav|ogg|oga|m4a|aac|flac|opus|webm)$/i.exec(granulatorSound)?.[1]?.toLowerCase();
  if (!ext)
    throw invalid([
      `${granulatorSound}: the granulator's sound must be an audio file (.mp3, .wav, .ogg, .m4a, .aac, .flac, .opus or .webm)`,
    ]);
  let bytes;
  try {
    bytes = await readInput(granulatorSound, 'sound');
  } catch (err) {
    if (err instanceof ScorecastError) throw err;
    throw invalid([
      `${granulatorSound}: ${/** @type {NodeJS.ErrnoException} */ (err).code === 'ENOENT' ? 'no such file' : /** @type {Error} */ (err).message}`,
    ]);
  }
  return {
    out: `audio/${slug(path.basename(granulatorSound, path.extname(granulatorSound)), 'granulator')}.${ext}`,
    bytes,
  };
}

/**
 * The export folder's entries, sorted by name.
 * @param {string} inDir
 */
export async function listExport(inDir) {
  try {
    return (await readdir(inDir, { withFileTypes: true })).sort((a, b) =>
      a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
    );
  } catch (err) {
    const code = /** @type {NodeJS.ErrnoException} */ (err).code;
    const what =
      code === 'ENOENT'
        ? 'no such folder'
        : code === 'ENOTDIR'
          ? 'is not a folder'
          : /** @type {Error} */ (err).message;
    throw new ScorecastError('SC_ERR_EXPORT_NOT_FOUND', `${inDir}: ${what}`);
  }
}

/**
 * The score-level file: its name is the score's, its rows carry every part and the scripts.
 * ZScore's export folder can hold it twice (`1_Union_Rose_BeatInfo.csv` beside
 * `Union_Rose_BeatInfo.csv`, byte for byte the same): identical copies are read once. When the
 * copies differ, the master that ZScore's ScoreMerger writes (`1_<Score>_BeatInfo.csv`) is the
 * one ZScore's loader reads, and so is read here; the others (an older, unmerged export of the
 * score) are left aside with a note. `beatInfo` names the file to read when that is not enough.
 * @param {string} inDir
 * @param {import('node:fs').Dirent[]} entries
 * @param {import('./log.js').ImportLog} log
 * @param {string} [beatInfo]  the score-level file to read, by name, as the composer chose it
 * @returns {Promise<ScoreLevel>}
 */
export async function readScoreLevel(inDir, entries, log, beatInfo) {
  const scoreFiles = entries
    .filter((e) => e.isFile() && SCORE_FILE_RE.test(e.name) && !PAGE_FILE_RE.test(e.name))
    .map((e) => e.name)
    .sort((a, b) => Number(/^\d+_/.test(a)) - Number(/^\d+_/.test(b)) || (a < b ? -1 : 1));
  if (scoreFiles.length === 0)
    throw invalid([
      `${inDir}: there is no score-level <Score>_BeatInfo.csv; ZScore's export writes one beside the page files (for a score "Mini": Mini_BeatInfo.csv)`,
    ]);
  if (beatInfo !== undefined && !scoreFiles.includes(beatInfo))
    throw invalid([
      `--beat-info ${beatInfo}: not a score-level BeatInfo file of ${inDir}; the folder has ${scoreFiles.join(', ')}`,
    ]);
  /** @type {Map<string, Buffer>} */
  const bytes = new Map();
  for (const f of scoreFiles) bytes.set(f, await readInput(path.join(inDir, f), 'scoreCsv'));
  const scoreFile = beatInfo ?? chooseScoreFile(inDir, scoreFiles, bytes);
  const scoreBytes = /** @type {Buffer} */ (bytes.get(scoreFile));
  const why =
    beatInfo !== undefined
      ? 'the one named with --beat-info'
      : "the master ZScore's ScoreMerger writes, the one ZScore's loader reads";
  for (const other of scoreFiles) {
    if (other === scoreFile) continue;
    if (scoreBytes.equals(/** @type {Buffer} */ (bytes.get(other))))
      log.notes.push(
        `${other} is a byte-identical copy of ${scoreFile} (ZScore's export can write the score-level file twice); it was read once`,
      );
    else {
      log.notes.push(
        `warning: ${other} differs from ${scoreFile}, ${why}: it was ignored (an older export of the score, before its movements were merged?)`,
      );
      log.notConverted.push({
        source: other,
        what: other,
        reason: `a second score-level BeatInfo that differs from ${scoreFile}, ${why}`,
      });
    }
  }
  const scoreCsv = parseBeatInfoCsv(scoreBytes.toString('utf8'), scoreFile);
  log.problems.push(...scoreCsv.problems.map(describe));
  const scoreName = scoreCsv.rows[0]?.scoreName || scoreFile.replace(SCORE_FILE_RE, '').replace(/^\d+_/, '');
  for (const row of scoreCsv.rows) {
    if (row.scoreName !== scoreName)
      log.problems.push(
        `${row.file} line ${row.line}: scoreName is "${row.scoreName}" but the file's first row says "${scoreName}"; keep one score per export`,
      );
  }
  // ZScore names the files after the score with its spaces turned into underscores
  // ("Union Rose" -> Union_Rose_Violin1_page1.png); the title keeps its spaces.
  return {
    file: scoreFile,
    files: scoreFiles,
    csv: scoreCsv,
    name: scoreName,
    filePrefixes: [...new Set([scoreName, fileName(scoreName)])],
    filePrefix: fileName(scoreName),
  };
}

/**
 * Which of several score-level files to read: all the same, the first; else the one master
 * (`1_` prefix, as ScoreMerger names it) whose content differs from the rest.
 * @param {string} inDir
 * @param {string[]} scoreFiles  unprefixed names first
 * @param {Map<string, Buffer>} bytes
 */
function chooseScoreFile(inDir, scoreFiles, bytes) {
  const first = /** @type {Buffer} */ (bytes.get(scoreFiles[0]));
  if (scoreFiles.every((f) => first.equals(/** @type {Buffer} */ (bytes.get(f))))) return scoreFiles[0];
  const masters = scoreFiles.filter((f) => MASTER_RE.test(f));
  const masterBytes = masters.length > 0 ? /** @type {Buffer} */ (bytes.get(masters[0])) : null;
  if (masterBytes && masters.every((f) => masterBytes.equals(/** @type {Buffer} */ (bytes.get(f))))) return masters[0];
  throw invalid([
    `${inDir}: there are ${scoreFiles.length} different score-level BeatInfo files (${scoreFiles.join(', ')}) and ${masters.length === 0 ? "no master 1_<Score>_BeatInfo.csv (as ZScore's ScoreMerger writes it)" : `${masters.length} different masters`} to choose; name the one to import with --beat-info FILE, or keep only it (identical copies may stay)`,
  ]);
}

/**
 * Page files by part; YAML configuration; everything else is listed, not dropped.
 * @param {import('node:fs').Dirent[]} entries
 * @param {ScoreLevel} score
 * @param {import('./log.js').ImportLog} log
 */
export function sortFiles(entries, score, log) {
  const { notConverted } = log;
  const { filePrefixes, filePrefix } = score;
  /** @type {Map<string, import('./views.js').PartFiles>} */
  const parts = new Map();
  /** @type {string[]} */
  const configFiles = [];
  for (const e of entries) {
    if (score.files.includes(e.name)) continue;
    const m = PAGE_FILE_RE.exec(e.name);
    if (!e.isFile())
      notConverted.push({
        source: e.name,
        what: `${e.name}/`,
        reason: 'a folder: the importer reads the files of the export folder itself',
      });
    else if (m && filePrefixes.some((p) => m[1].startsWith(`${p}_`) && m[1].length > p.length + 1)) {
      const prefix = /** @type {string} */ (filePrefixes.find((p) => m[1].startsWith(`${p}_`)));
      const instrument = m[1].slice(prefix.length + 1);
      const part = parts.get(instrument) ?? { instrument, pages: new Map() };
      parts.set(instrument, part);
      const page = part.pages.get(Number(m[2])) ?? {};
      if (m[3] === '.png') page.png = e.name;
      else page.csv = e.name;
      part.pages.set(Number(m[2]), page);
    } else if (m)
      notConverted.push({
        source: e.name,
        what: e.name,
        reason: `a page of another score: this export is of "${score.name}", whose pages are named ${filePrefix}_<Part>_page<N>`,
      });
    else if (/\.ya?ml$/i.test(e.name)) configFiles.push(e.name);
    else if (PAGEX_RE.test(e.name))
      notConverted.push({
        source: e.name,
        what: e.name,
        reason:
          "ZScore's blank page of an instrument, which its players show while a part has no page to play; scorecast shows the part's own pages",
      });
    else if (/_InScoreMap\.txt$/.test(e.name))
      notConverted.push({
        source: e.name,
        what: e.name,
        reason: "an INScore map: the beat positions of the BeatInfo CSV again, for ZScore's INScore clients",
      });
    else if (e.name === `${filePrefix}_NoteInfo.txt`)
      notConverted.push({
        source: e.name,
        what: e.name,
        reason:
          "ZScore's note names per page and part (text elements and their offsets) for its transposition strategy; scorecast shows the pages as drawn",
      });
    else
      notConverted.push({
        source: e.name,
        what: e.name,
        reason: "not part of ZScore's page export (page PNGs, BeatInfo CSVs, YAML configuration)",
      });
  }
  return { parts, configFiles };
}

/**
 * @typedef {Record<'rndStrategy' | 'pageRangeMapping' | 'builderStrategy', { value: unknown, line: number, file: string }[]>} RoseConfig
 *   the page strategy and the tile-to-page mapping, for the page choices (rose.js); the section
 *   builder, for the open form (open-form.js)
 */

/**
 * YAML configuration: presets for webScore.reset(N); the rest is listed.
 * @param {string} inDir
 * @param {string[]} configFiles
 * @param {string} scoreName
 * @param {import('./log.js').ImportLog} log
 * @returns {Promise<{ presets: Map<number, import('./script.js').Preset>, roseConfig: RoseConfig }>}
 */
export async function readConfigs(inDir, configFiles, scoreName, log) {
  const { notes } = log;
  /** @type {Map<number, import('./script.js').Preset>} */
  const presets = new Map();
  /** @type {RoseConfig} */
  const roseConfig = { rndStrategy: [], pageRangeMapping: [], builderStrategy: [] };
  for (const file of configFiles) {
    const config = readZScoreConfig((await readInput(path.join(inDir, file), 'config')).toString('utf8'), file);
    for (const key of /** @type {const} */ (['rndStrategy', 'pageRangeMapping', 'builderStrategy'])) {
      const found = config[key];
      if (found) roseConfig[key].push({ ...found, file });
    }
    log.problems.push(...config.problems.map(describe));
    log.notConverted.push(...config.skipped);
    notes.push(...config.notes);
    if (config.scoreName !== null && config.scoreName !== scoreName && config.presets.length > 0)
      notes.push(
        `${file}: scoreName is "${config.scoreName}" but the BeatInfo files are of "${scoreName}"; its presets were used anyway`,
      );
    for (const p of config.presets) {
      if (presets.has(p.id))
        notes.push(
          `${p.file} line ${p.line}: preset ${p.id} is also in ${presets.get(p.id)?.file}; the first one is used`,
        );
      else presets.set(p.id, p);
    }
  }
  if (configFiles.length === 0)
    notes.push('no YAML configuration in the export folder: webScore.reset(N) scripts have no presets to run');
  return { presets, roseConfig };
}

/**
 * A score name as ZScore's exporter writes it in file names: spaces become underscores.
 * @param {string} name
 */
export function fileName(name) {
  return name.replace(/ /g, '_');
}

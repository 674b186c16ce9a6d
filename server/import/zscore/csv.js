// ZScore's *_BeatInfo.csv, as its Illustrator exporter writes it (szcore-client/illustrator/
// zscoreManager.jsx) and its server reads it (szcore .../score/ScoreLoader.java): one row per beat
// of a part's page, plus rows whose `resource` is a script instead of the page file.

import { parseCsv } from '../../../core/beatmap.js';

/** The columns ZScore writes and expects, in its order. */
export const BEAT_INFO_COLUMNS = Object.freeze([
  'scoreName',
  'instrumentName',
  'pageName',
  'pageNo',
  'barName',
  'barNo',
  'timeSigNum',
  'timeSigDenom',
  'tempoBpm',
  'tempoBeatValue',
  'beatNo',
  'startTimeMillis',
  'durationTimeMillis',
  'endTimeMillis',
  'startBaseBeatUnits',
  'durationBeatUnits',
  'endBaseBeatUnits',
  'xStartPxl',
  'xEndPxl',
  'yStartPxl',
  'yEndPxl',
  'isUpbeat',
  'resource',
  'unitBeatNo',
]);

/** Whole numbers in ZScore's own parser (Integer.parseInt), and > 0 where a metre needs it. */
const WHOLE = ['pageNo', 'barNo', 'timeSigDenom', 'tempoBeatValue', 'beatNo', 'isUpbeat'];
const POSITIVE = ['timeSigDenom', 'tempoBpm', 'tempoBeatValue'];
/** Columns read as text (a metre's numerator may be additive: TIME_NUM_RE); every other is a number
 * (ZScore writes them rounded; a decimal does no harm). */
const TEXT = new Set(['scoreName', 'instrumentName', 'pageName', 'barName', 'timeSigNum', 'resource']);
const NUMERIC = BEAT_INFO_COLUMNS.filter((c) => !TEXT.has(c));
const NUMBER_RE = /^[+-]?(\d+(\.\d*)?|\.\d+)$/;
/** Additive metres ("3+2") are summed, as ScoreLoader.parseTimeSigNum does. */
const TIME_NUM_RE = /^\d+(\+\d+)*$/;
/** Script prefixes ScoreLoader.getResourceType knows; anything else names the page file. */
const SCRIPT_RE = /^(web|max|sce|javascript|transition):/;

/**
 * @typedef {object} BeatInfoRow
 * @property {string} file           the CSV it came from (name inside the export folder)
 * @property {number} line
 * @property {string} scoreName
 * @property {string} instrumentName
 * @property {string} pageName
 * @property {number} pageNo
 * @property {string} barName
 * @property {number} barNo
 * @property {number} timeSigNum     additive metres summed
 * @property {string} timeSigText    as written, e.g. "3+2"
 * @property {number} timeSigDenom
 * @property {number} tempoBpm       in tempoBeatValue notes a minute
 * @property {number} tempoBeatValue 4 = quarter, 8 = eighth...
 * @property {number} beatNo
 * @property {number} startTimeMillis
 * @property {number} durationTimeMillis
 * @property {number} xStartPxl
 * @property {number} xEndPxl
 * @property {number} yStartPxl
 * @property {number} yEndPxl
 * @property {boolean} isUpbeat
 * @property {string} resource
 * @property {'web' | 'max' | 'sce' | 'javascript' | 'transition' | null} script  the resource's kind
 */

/**
 * @typedef {object} SourceProblem
 * @property {string} file
 * @property {number} [line]
 * @property {string} message
 */

/**
 * Read one BeatInfo CSV. Rows with problems are left out; every problem names its line.
 * @param {string} text
 * @param {string} file
 * @returns {{ rows: BeatInfoRow[], problems: SourceProblem[] }}
 */
export function parseBeatInfoCsv(text, file) {
  /** @type {SourceProblem[]} */
  const problems = [];
  /** @type {BeatInfoRow[]} */
  const rows = [];
  const csv = parseCsv(text);
  if (!csv.ok) return { rows, problems: [{ file, line: csv.line, message: csv.message }] };
  const [header, ...body] = csv.rows;
  if (!header)
    return {
      rows,
      problems: [
        { file, message: `is empty; ZScore's BeatInfo files start with the header ${BEAT_INFO_COLUMNS.join(',')}` },
      ],
    };
  const names = header.cells.map((c) => c.trim());
  const missing = BEAT_INFO_COLUMNS.filter((c) => !names.includes(c));
  const unknown = names.filter((c) => !BEAT_INFO_COLUMNS.includes(c));
  if (missing.length > 0 || unknown.length > 0) {
    const parts = [
      missing.length ? `missing column${missing.length > 1 ? 's' : ''} ${missing.join(', ')}` : '',
      unknown.length
        ? `unknown column${unknown.length > 1 ? 's' : ''} ${unknown.map((u) => `"${u.slice(0, 40)}"`).join(', ')}`
        : '',
    ].filter(Boolean);
    problems.push({
      file,
      line: header.line,
      message: `${parts.join('; ')}; ZScore's BeatInfo header is ${BEAT_INFO_COLUMNS.join(',')}`,
    });
    return { rows, problems };
  }
  const headerText = names.join(',');
  for (const { line, cells } of body) {
    // The score-level file may repeat the header where part exports were appended.
    if (cells.map((c) => c.trim()).join(',') === headerText) continue;
    if (cells.length !== names.length) {
      problems.push({
        file,
        line,
        message: `has ${cells.length} cells, the header has ${names.length}; a comma inside a script must be written "|" as ZScore does`,
      });
      continue;
    }
    /** @type {Record<string, string>} */
    const cell = {};
    names.forEach((n, k) => {
      cell[n] = cells[k].trim();
    });
    /** @type {Record<string, number>} */
    const num = {};
    let ok = true;
    for (const n of NUMERIC) {
      const v = NUMBER_RE.test(cell[n]) ? Number(cell[n]) : NaN;
      if (!Number.isFinite(v)) {
        problems.push({
          file,
          line,
          message: `${n}: "${cell[n].slice(0, 40)}" is not a number; ZScore writes whole numbers here`,
        });
        ok = false;
      } else if (WHOLE.includes(n) && !Number.isInteger(v)) {
        problems.push({ file, line, message: `${n}: ${cell[n]} must be a whole number` });
        ok = false;
      } else if (POSITIVE.includes(n) && v <= 0) {
        problems.push({ file, line, message: `${n}: ${cell[n]} must be greater than 0` });
        ok = false;
      } else num[n] = v;
    }
    if (ok && num.isUpbeat !== 0 && num.isUpbeat !== 1) {
      problems.push({ file, line, message: `isUpbeat: ${cell.isUpbeat} must be 0 or 1` });
      ok = false;
    }
    if (!TIME_NUM_RE.test(cell.timeSigNum) || cell.timeSigNum.split('+').reduce((a, b) => a + Number(b), 0) <= 0) {
      problems.push({
        file,
        line,
        message: `timeSigNum: "${cell.timeSigNum.slice(0, 40)}" is not a number of beats (like 3, or 3+2)`,
      });
      ok = false;
    }
    if (!ok) continue;
    const match = SCRIPT_RE.exec(cell.resource);
    rows.push({
      file,
      line,
      scoreName: cell.scoreName,
      instrumentName: cell.instrumentName,
      pageName: cell.pageName,
      pageNo: num.pageNo,
      barName: cell.barName,
      barNo: num.barNo,
      timeSigNum: cell.timeSigNum.split('+').reduce((a, b) => a + Number(b), 0),
      timeSigText: cell.timeSigNum,
      timeSigDenom: num.timeSigDenom,
      tempoBpm: num.tempoBpm,
      tempoBeatValue: num.tempoBeatValue,
      beatNo: num.beatNo,
      startTimeMillis: num.startTimeMillis,
      durationTimeMillis: num.durationTimeMillis,
      xStartPxl: num.xStartPxl,
      xEndPxl: num.xEndPxl,
      yStartPxl: num.yStartPxl,
      yEndPxl: num.yEndPxl,
      isUpbeat: num.isUpbeat === 1,
      resource: cell.resource,
      script: match ? /** @type {BeatInfoRow['script']} */ (match[1]) : null,
    });
  }
  return { rows, problems };
}

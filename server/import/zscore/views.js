// The views of an imported ZScore score: one per part (and the full score), each with its page
// images and, for every beat of the performance, where it is drawn. ZScore numbers beats per part
// (beatNo, 0 for the opening upbeat in its exporter, possibly 1-based elsewhere) and opens every
// page after the first with a repeat of the previous page's last beat (isUpbeat=1): the lead-in
// a player reads before turning. Our beats are 0-based in performance order, each drawn once.

import { readInput } from './input-file.js';
import path from 'node:path';
import { parseBeatInfoCsv } from './csv.js';
import { imageSize } from '../../package/image-size.js';
import { movementNote, pagesMissing, pickPageRows } from './merged.js';

/**
 * @typedef {object} ViewBeat
 * @property {number} beatNo
 * @property {number} page      index into the view's pages
 * @property {number} system
 * @property {number} bar
 * @property {[number, number]} time
 * @property {number} bpm       beats (time[1] units) a minute: ZScore's tempo is in tempoBeatValue notes
 * @property {number} startMs
 * @property {number} x0
 * @property {number} x1
 * @property {number} y0
 * @property {number} y1
 * @property {string} source    "file line N"
 */

/**
 * @typedef {object} ViewPage
 * @property {number} no        ZScore's page number
 * @property {string} png       file name in the export folder
 * @property {string} csv
 * @property {Uint8Array} bytes
 * @property {number} width
 * @property {number} height
 * @property {string} out       package path, "pages/<view>-<no>.png"
 */

/**
 * @typedef {object} View
 * @property {string} id          scorecast view: "score" for ZScore's FullScore, else the part id
 * @property {string} instrument  ZScore's instrument name
 * @property {ViewPage[]} pages
 * @property {ViewBeat[]} beats
 * @property {Map<number, number>} index  ZScore beatNo -> our beat index
 * @property {({ name: string, page: number } | null)[]} movements  by page index: the movement
 *   of a merged export whose original the page file is (merged.js)
 */

/**
 * @typedef {object} PartFiles
 * @property {string} instrument
 * @property {Map<number, { csv?: string, png?: string }>} pages  by page number
 */

/** ZScore's exporter names the full score's pages with this instrument (NAME_FULL_SCORE). */
export const FULL_SCORE = 'FullScore';

/**
 * ZScore's audio-visual lane: an instrument named AV, the composer's script lane, which its
 * strategies skip as they skip the full score (Instrument.isAv in szcore).
 * @param {string} instrument
 */
export function isAvLane(instrument) {
  return instrument.toUpperCase() === 'AV';
}

/**
 * Read every page of every part. Problems are "file line N: message" strings.
 * @param {string} inDir
 * @param {string} scoreName
 * @param {PartFiles[]} parts  in view order
 * @param {string} [filePrefix]  the score name as the file names write it (spaces as "_")
 * @param {{ master?: import('./merged.js').Master, parsed?: Map<string, ParsedCsv> }} [merged]
 *   master: the score-level file's beats of a merged export: where it has the beats of a page,
 *   the page file is read only if it agrees (merged.js); parsed: page files already read
 * @returns {Promise<{ views: View[], scriptRows: import('./csv.js').BeatInfoRow[], notes: string[], problems: string[] }>}
 */
export async function readViews(inDir, scoreName, parts, filePrefix = scoreName, { master, parsed: cache } = {}) {
  /** @type {string[]} */
  const problems = [];
  /** @type {string[]} */
  const notes = [];
  /** beats whose tempo a merged export's lead-in gives (noted once, not once a view) */
  const leadTempo = new Set();
  /** @type {import('./csv.js').BeatInfoRow[]} */
  const scriptRows = [];
  /** @type {View[]} */
  const views = [];
  const taken = new Set(['audience']);
  for (const part of parts) {
    const id = viewId(part.instrument, taken);
    taken.add(id);
    const view = await readView(part, id);
    if (view) views.push(view);
  }
  return { views, scriptRows, notes, problems };

  /**
   * @param {PartFiles} part
   * @param {string} id
   * @returns {Promise<View | null>}
   */
  async function readView(part, id) {
    const before = problems.length;
    const numbers = [...part.pages.keys()].sort((a, b) => a - b);
    numbers.forEach((no, k) => {
      if (k > 0 && no !== numbers[k - 1] + 1)
        problems.push(
          `${filePrefix}_${part.instrument}_page${numbers[k - 1] + 1}.png: missing; ${part.instrument} has pages ${numbers.join(', ')} (pages must follow one another)`,
        );
    });
    /** @type {ViewPage[]} */
    const pages = [];
    for (const no of numbers) {
      const f = /** @type {{ csv?: string, png?: string }} */ (part.pages.get(no));
      const base = `${filePrefix}_${part.instrument}_page${no}`;
      if (!f.png && isAvLane(part.instrument) && f.csv) {
        // The script lane's pages are never shown: its beats and scripts are read without the image.
        pages.push({ no, png: '', csv: f.csv, bytes: new Uint8Array(0), width: 0, height: 0, out: '' });
        continue;
      }
      if (!f.png) {
        problems.push(
          `${base}_BeatInfo.csv: there is no page image ${base}.png beside it; export the page images with the beat info`,
        );
        continue;
      }
      if (!f.csv && !master?.byPage.has(`${part.instrument}\u0000${no}`)) {
        problems.push(
          `${base}.png: there is no ${base}_BeatInfo.csv beside it; export the beat info with the page images`,
        );
        continue;
      }
      const bytes = await readInput(path.join(inDir, f.png), 'pagePng');
      const size = imageSize(bytes, f.png);
      if (!size) {
        problems.push(`${f.png}: is not a PNG image (its first bytes are not a PNG header); export the pages as PNG`);
        continue;
      }
      pages.push({ no, png: f.png, csv: f.csv ?? master?.file ?? '', bytes, ...size, out: `pages/${id}-${no}.png` });
    }
    if (master)
      problems.push(
        ...pagesMissing(master, part.instrument, new Set(numbers), `${filePrefix}_${part.instrument}_page`),
      );
    if (problems.length > before) return null;

    /** @type {ViewBeat[]} */
    const beats = [];
    /** @type {Map<number, string>} beatNo -> source of its row */
    const seen = new Map();
    let orderOk = true;
    /** @type {View['movements']} */
    const movements = [];
    for (const [pi, page] of pages.entries()) {
      const csv = part.pages.get(page.no)?.csv;
      const parsed = csv ? (cache?.get(csv) ?? (await readPageCsv(inDir, csv))) : null;
      const pick = master
        ? pickPageRows({ master, scoreName, instrument: part.instrument, page: page.no, csv, parsed })
        : null;
      movements.push(pick?.movement ?? null);
      if (pick?.problem) problems.push(pick.problem);
      if (pick?.note) notes.push(pick.note);
      if (pick?.from === 'master' && master) page.csv = master.file;
      problems.push(
        ...(parsed?.problems ?? []).map((p) => `${p.file}${p.line ? ` line ${p.line}` : ''}: ${p.message}`),
      );
      const rows = pick ? (pick.rows ?? []) : (parsed?.rows ?? []);
      let firstOnPage = true;
      for (const row of rows) {
        const source = `${row.file} line ${row.line}`;
        if (row.scoreName !== scoreName) {
          problems.push(
            `${source}: scoreName is "${row.scoreName}" but this is an export of "${scoreName}"; keep one score per folder`,
          );
          continue;
        }
        if (row.instrumentName !== part.instrument) {
          problems.push(
            `${source}: instrumentName is "${row.instrumentName}" in a file of ${part.instrument}; the file name and its rows must agree`,
          );
          continue;
        }
        if (row.pageNo !== page.no) {
          problems.push(
            `${source}: pageNo is ${row.pageNo} in the file of page ${page.no}; the file name and its rows must agree`,
          );
          continue;
        }
        if (row.script) {
          scriptRows.push(row);
          continue;
        }
        const earlier = seen.get(row.beatNo);
        if (earlier !== undefined) {
          if (row.isUpbeat && firstOnPage && pi > 0) {
            notes.push(
              `${source}: beat ${row.beatNo} opens page ${page.no} again as ZScore's lead-in upbeat; the beat map keeps it where it is played (${earlier})`,
            );
            // ZScore's ScoreMerger writes a movement's opening lead-in with that movement's
            // tempo and upbeat length, not those of the beat it repeats (the last beat of the
            // movement before), and times the movement from it: in the master that beat lasts
            // as long as the lead-in says. Play it so, as the master's times do.
            const prev = beats[beats.length - 1];
            const ms = row.durationTimeMillis;
            if (master && prev?.beatNo === row.beatNo && ms > 0 && Math.abs(60000 / prev.bpm - ms) >= 1) {
              if (!leadTempo.has(row.beatNo))
                notes.push(
                  `${source}: the lead-in of page ${page.no} repeats beat ${row.beatNo} with tempo ${row.tempoBpm} and ${ms} ms, where it is played in ${Math.round(60000 / prev.bpm)} ms (${prev.source}); ZScore's ScoreMerger gives a movement's lead-in that movement's tempo and upbeat length and times the movement from it, so beat ${row.beatNo} lasts ${ms} ms, as the master's startTimeMillis have it`,
                );
              leadTempo.add(row.beatNo);
              prev.bpm = 60000 / ms;
            }
          } else
            problems.push(
              `${source}: beat ${row.beatNo} appears again (first at ${earlier}); each beat appears once, apart from the lead-in upbeat that opens a page`,
            );
          firstOnPage = false;
          continue;
        }
        firstOnPage = false;
        seen.set(row.beatNo, source);
        const prev = beats[beats.length - 1];
        if (orderOk && prev && row.beatNo !== prev.beatNo + 1) {
          orderOk = false;
          problems.push(
            row.beatNo > prev.beatNo + 1
              ? `${source}: beatNo jumps from ${prev.beatNo} to ${row.beatNo}; beat ${prev.beatNo + 1}${row.beatNo > prev.beatNo + 2 ? `..${row.beatNo - 1} are` : ' is'} missing`
              : `${source}: beatNo ${row.beatNo} comes after ${prev.beatNo}; beats must be listed in performance order`,
          );
        }
        if (row.xStartPxl > row.xEndPxl)
          problems.push(
            `${source}: xStartPxl ${row.xStartPxl} is right of xEndPxl ${row.xEndPxl}; a beat runs from left to right`,
          );
        // A new system starts where the beats go back to the left or move to another staff height.
        const samePage = prev && prev.page === pi;
        const system = !samePage
          ? 0
          : row.xStartPxl < prev.x0 || row.yStartPxl !== prev.y0 || row.yEndPxl !== prev.y1
            ? prev.system + 1
            : prev.system;
        beats.push({
          beatNo: row.beatNo,
          page: pi,
          system,
          bar: row.barNo,
          time: [row.timeSigNum, row.timeSigDenom],
          bpm: (row.tempoBpm * row.timeSigDenom) / row.tempoBeatValue,
          startMs: row.startTimeMillis,
          x0: row.xStartPxl,
          x1: row.xEndPxl,
          y0: row.yStartPxl,
          y1: row.yEndPxl,
          source,
        });
      }
      if ((pick?.from ?? 'file') === 'file' && parsed?.problems.length === 0 && parsed.rows.every((r) => r.script))
        problems.push(`${page.csv}: has no beats; every page of a part has at least one`);
    }
    if (problems.length > before) return null;
    const moved = master ? movementNote(part.instrument, pages, movements, master.file) : null;
    if (moved) notes.push(moved);
    return {
      id,
      instrument: part.instrument,
      pages,
      beats,
      index: new Map(beats.map((b, i) => [b.beatNo, i])),
      movements,
    };
  }
}

/**
 * @typedef {{ rows: import('./csv.js').BeatInfoRow[], problems: import('./csv.js').SourceProblem[] }} ParsedCsv
 */

/**
 * Read and parse one page's BeatInfo file.
 * @param {string} inDir
 * @param {string} csv  its name in the folder
 * @returns {Promise<ParsedCsv>}
 */
export async function readPageCsv(inDir, csv) {
  return parseBeatInfoCsv((await readInput(path.join(inDir, csv), 'pageCsv')).toString('utf8'), csv);
}

/**
 * Check that every view has the same beats with the same metre and times (one performance).
 * @param {View[]} views  the first is the reference
 * @returns {string[]} problems
 */
export function compareViews(views) {
  /** @type {string[]} */
  const problems = [];
  const [ref, ...others] = views;
  for (const v of others) {
    if (v.beats.length !== ref.beats.length) {
      problems.push(
        `${v.pages[0].csv}: ${v.instrument} has ${v.beats.length} beats but ${ref.instrument} has ${ref.beats.length}; every part covers the whole score`,
      );
      continue;
    }
    const k = v.beats.findIndex((b, i) => {
      const r = ref.beats[i];
      return (
        b.bar !== r.bar ||
        b.time[0] !== r.time[0] ||
        b.time[1] !== r.time[1] ||
        b.bpm !== r.bpm ||
        Math.abs(b.startMs - r.startMs) > 1
      );
    });
    if (k >= 0) {
      const b = v.beats[k];
      const r = ref.beats[k];
      problems.push(
        `${b.source}: beat ${k} is bar ${b.bar}, ${b.time.join('/')}, ${b.bpm} a minute at ${b.startMs} ms here but bar ${r.bar}, ${r.time.join('/')}, ${r.bpm} a minute at ${r.startMs} ms in ${r.source}; all parts share one timeline`,
      );
    }
  }
  return problems;
}

/**
 * The scorecast view id of a ZScore instrument: "score" for the full score, else a slug that is
 * a valid, unused part id.
 * @param {string} instrument
 * @param {Set<string>} taken
 */
export function viewId(instrument, taken) {
  if (instrument === FULL_SCORE && !taken.has('score')) return 'score';
  let base = slug(instrument, 'part');
  if (base === 'score' || base === 'audience') base = `${base}-part`;
  base = base.slice(0, 60);
  let id = base;
  for (let n = 2; taken.has(id); n++) id = `${base}-${n}`;
  return id;
}

/**
 * Lower-case letters, digits and "-" from any name ("Violin I" -> "violin-i"); `fallback` when
 * nothing is left. The result matches the manifest's id rule and is safe as a file name.
 * @param {string} name
 * @param {string} fallback
 */
export function slug(name, fallback) {
  const s = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+/, '')
    .slice(0, 64)
    .replace(/-+$/, '');
  return s || fallback;
}

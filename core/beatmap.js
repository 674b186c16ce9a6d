// Beat maps (doc/score-format.md, "Beat maps"): for one view, where every beat of the performance
// is drawn. Reads the CSV form and checks the JSON form; both return problems, never throw
// (a beat map is untrusted input). Also: bars in performance order from per-beat metre, for
// image-score importers that must build a tempo map from what their source says about each beat.
// Pure: no I/O; runs in Node and the browser.

import { PACKAGE_LIMITS as LIMITS } from './package-limits.js';
import { isObject } from './values.js';

/**
 * Bar numbers as ranges for a message: "3-5, 9".
 * @param {number[]} bars  sorted, without repeats
 */
export function barRanges(bars) {
  /** @type {string[]} */
  const out = [];
  let i = 0;
  while (i < bars.length) {
    let j = i;
    while (j + 1 < bars.length && bars[j + 1] === bars[j] + 1) j++;
    out.push(j > i ? `${bars[i]}-${bars[j]}` : String(bars[i]));
    i = j + 1;
  }
  return out.join(', ');
}

/**
 * @typedef {object} BeatEntry
 * @property {number} beat    global beat index, 0-based in performance order
 * @property {number} page    index into the view's pages
 * @property {number} system  system on the page, from 0
 * @property {number} bar     written bar number (a pickup bar is 0)
 * @property {number} x0      horizontal range of the beat, page units
 * @property {number} x1
 * @property {number} y0      vertical extent of its system, page units
 * @property {number} y1
 */

/**
 * @typedef {object} BeatMapPage
 * @property {string} file
 * @property {number} width
 * @property {number} height
 */

/**
 * @typedef {object} BeatMap
 * @property {BeatMapPage[]} [pages]  the JSON form lists its pages; the CSV form uses the view's files
 * @property {BeatEntry[]} beats
 */

/**
 * @typedef {object} BeatMapProblem
 * @property {string} file
 * @property {number} [line]   CSV line, from 1
 * @property {string} [field]  CSV column, or JSON path such as "beats[12].x0"
 * @property {string} message  what is wrong and what to do
 */

/**
 * @typedef {{ ok: true, value: BeatMap } | { ok: false, problems: BeatMapProblem[] }} BeatMapResult
 */

/**
 * @typedef {object} BeatMapOptions
 * @property {string} file           named in every problem, e.g. "beatmaps/violin1.csv"
 * @property {number} [totalBeats]   beats of the performance; the map must have exactly these
 * @property {number} [pageCount]    page files of the view; page indexes must be below it
 * @property {{ width: number, height: number }[]} [pageSizes]  of the view's page files, when
 *   known: every beat's box must lie on its page
 * @property {{ bar: number, startBeat: number, beats: number }[]} [bars]  the tempo map's bars in
 *   performance order, when known: a map short of beats names the bars without positions
 */

/** The header of the CSV form, in order. */
export const BEATMAP_CSV_COLUMNS = Object.freeze(['beat', 'page', 'system', 'bar', 'x0', 'x1', 'y0', 'y1']);
const INTEGER_FIELDS = new Set(['beat', 'page', 'system', 'bar']);
const NUMBER_RE = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

/**
 * Split CSV text into rows of cells (RFC 4180 quoting: a cell that starts with `"` runs to the
 * closing quote, `""` inside it is one quote). Lines end with LF, CRLF or a lone CR (old Mac
 * exports); each row carries the line it starts on. Blank lines are left out.
 * @param {string} text
 * @param {number} [maxRows]  stop with a problem past this many rows (a bound on untrusted input)
 * @returns {{ ok: true, rows: { line: number, cells: string[] }[] } | { ok: false, line: number, message: string }}
 */
export function parseCsv(text, maxRows = Infinity) {
  /** @type {{ line: number, cells: string[] }[]} */
  const rows = [];
  const src = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  let line = 1;
  let i = 0;
  while (i < src.length) {
    const start = line;
    /** @type {string[]} */
    const cells = [];
    for (;;) {
      let cell = '';
      if (src[i] === '"') {
        i++;
        for (;;) {
          if (i >= src.length)
            return { ok: false, line: start, message: 'a quoted cell is never closed; add the closing "' };
          const ch = src[i];
          if (ch === '"' && src[i + 1] === '"') {
            cell += '"';
            i += 2;
          } else if (ch === '"') {
            i++;
            break;
          } else {
            if (ch === '\n' || (ch === '\r' && src[i + 1] !== '\n')) line++;
            cell += ch;
            i++;
          }
        }
      }
      while (i < src.length && src[i] !== ',' && src[i] !== '\n' && src[i] !== '\r') cell += src[i++];
      cells.push(cell);
      if (src[i] === ',') {
        i++;
        continue;
      }
      break;
    }
    if (src[i] === '\r') i++;
    if (src[i] === '\n') i++;
    if (!(cells.length === 1 && cells[0].trim() === '')) rows.push({ line: start, cells });
    if (rows.length > maxRows) return { ok: false, line: start, message: `has more than ${maxRows} rows` };
    line++;
  }
  return { ok: true, rows };
}

/**
 * Read the CSV form of a beat map (header `beat,page,system,bar,x0,x1,y0,y1`, one row per beat).
 * @param {string} text
 * @param {BeatMapOptions} options
 * @returns {BeatMapResult}
 */
export function parseBeatMapCsv(text, { file, totalBeats, pageCount, pageSizes, bars }) {
  /** @type {BeatMapProblem[]} */
  const problems = [];
  if (typeof text !== 'string')
    return { ok: false, problems: [{ file, message: 'is not text; a CSV beat map is a text file' }] };
  // A header and a row per beat, at most: a longer file is refused before all of it is read.
  const csv = parseCsv(text, LIMITS.beats + 1);
  if (!csv.ok) {
    const message = /^has more/.test(csv.message)
      ? `has more rows than the ${LIMITS.beats} beats a score may have; give one row per beat`
      : csv.message;
    return { ok: false, problems: [{ file, line: csv.line, message }] };
  }
  const [header, ...rows] = csv.rows;
  const expected = BEATMAP_CSV_COLUMNS.join(',');
  if (!header)
    return {
      ok: false,
      problems: [{ file, message: `is empty; start with the header ${expected} and one row per beat` }],
    };
  if (header.cells.map((c) => c.trim()).join(',') !== expected) {
    return {
      ok: false,
      problems: [
        {
          file,
          line: header.line,
          message: `the header must be ${expected} (found ${header.cells.join(',').slice(0, 120)})`,
        },
      ],
    };
  }
  /** @type {BeatEntry[]} */
  const beats = [];
  /** @type {number[]} */
  const lines = [];
  for (const { line, cells } of rows) {
    if (cells.length !== BEATMAP_CSV_COLUMNS.length) {
      problems.push({
        file,
        line,
        message: `has ${cells.length} cells, the header has ${BEATMAP_CSV_COLUMNS.length}; give every beat ${expected}`,
      });
      continue;
    }
    /** @type {Record<string, number>} */
    const entry = {};
    let rowOk = true;
    BEATMAP_CSV_COLUMNS.forEach((name, k) => {
      const cell = cells[k].trim();
      const n = NUMBER_RE.test(cell) ? Number(cell) : NaN;
      if (!Number.isFinite(n)) {
        problems.push({ file, line, field: name, message: `"${cell.slice(0, 40)}" is not a number` });
        rowOk = false;
      } else if (INTEGER_FIELDS.has(name) && !Number.isInteger(n)) {
        problems.push({ file, line, field: name, message: `${cell} must be a whole number` });
        rowOk = false;
      } else entry[name] = n;
    });
    if (rowOk) {
      beats.push(/** @type {BeatEntry} */ (/** @type {unknown} */ (entry)));
      lines.push(line);
    }
  }
  if (problems.length > 0) return { ok: false, problems };
  const more = checkBeats(beats, (i, field) => ({ file, line: lines[i], field }), {
    file,
    totalBeats,
    pageCount,
    pageSizes,
    bars,
  });
  return more.length > 0 ? { ok: false, problems: more } : { ok: true, value: { beats } };
}

/**
 * Check a beat map (the JSON form, parsed, or what parseBeatMapCsv returns) against the rules
 * and the score, and return a clean copy.
 * @param {unknown} value
 * @param {BeatMapOptions} options
 * @returns {BeatMapResult}
 */
export function checkBeatMap(value, { file, totalBeats, pageCount, pageSizes, bars }) {
  /** @type {BeatMapProblem[]} */
  const problems = [];
  /** @param {string} field @param {string} message */
  const problem = (field, message) => {
    problems.push({ file, field, message });
  };
  if (!isObject(value))
    return { ok: false, problems: [{ file, message: 'must be a JSON object {"pages": [...], "beats": [...]}' }] };

  // `pages` is optional: a CSV map (parsed by parseBeatMapCsv) has none, its pages are the view's
  // files; when present it must describe each page file once, in order.
  /** @type {BeatMapPage[] | undefined} */
  let pages;
  if (value.pages !== undefined) {
    pages = [];
    if (!Array.isArray(value.pages) || value.pages.length === 0) {
      problem('pages', 'must list the pages in order, each {"file", "width", "height"}');
    } else {
      value.pages.forEach((/** @type {unknown} */ p, /** @type {number} */ i) => {
        const f = `pages[${i}]`;
        if (!isObject(p)) {
          problem(f, 'must be {"file", "width", "height"}');
          return;
        }
        if (typeof p.file !== 'string' || p.file === '') {
          problem(`${f}.file`, 'must be the page file, e.g. "pages/violin1-1.png"');
          return;
        }
        for (const k of /** @type {const} */ (['width', 'height'])) {
          if (!(typeof p[k] === 'number' && Number.isFinite(p[k]) && p[k] >= 1 && p[k] <= LIMITS.pageUnits)) {
            problem(
              `${f}.${k}`,
              `must be a number from 1 to ${LIMITS.pageUnits} (page units: SVG user units or image pixels)`,
            );
            return;
          }
        }
        /** @type {BeatMapPage[]} */ (pages).push({ file: p.file, width: p.width, height: p.height });
      });
      if (pageCount !== undefined && value.pages.length !== pageCount) {
        problem(
          'pages',
          `lists ${value.pages.length} pages but the view has ${pageCount} page files; list each page once, in order`,
        );
      }
    }
  }

  /** @type {BeatEntry[]} */
  const beats = [];
  if (!Array.isArray(value.beats)) {
    problem(
      'beats',
      'must be a list with one entry per beat, {"beat", "page", "system", "bar", "x0", "x1", "y0", "y1"}',
    );
  } else if (value.beats.length > LIMITS.beats) {
    problem(
      'beats',
      `lists ${value.beats.length} beats, more than the ${LIMITS.beats} a score may have; give one entry per beat`,
    );
  } else {
    value.beats.forEach((/** @type {unknown} */ b, /** @type {number} */ i) => {
      const f = `beats[${i}]`;
      if (!isObject(b)) {
        problem(f, 'must be {"beat", "page", "system", "bar", "x0", "x1", "y0", "y1"}');
        return;
      }
      /** @type {Record<string, number>} */
      const entry = {};
      let ok = true;
      for (const name of BEATMAP_CSV_COLUMNS) {
        const n = b[name];
        if (!(typeof n === 'number' && Number.isFinite(n))) {
          problem(`${f}.${name}`, n === undefined ? 'is missing' : 'must be a finite number');
          ok = false;
        } else if (INTEGER_FIELDS.has(name) && !Number.isInteger(n)) {
          problem(`${f}.${name}`, 'must be a whole number');
          ok = false;
        } else entry[name] = n;
      }
      if (ok) beats.push(/** @type {BeatEntry} */ (/** @type {unknown} */ (entry)));
    });
  }
  if (problems.length > 0) return { ok: false, problems };
  const known = pages ? Math.min(pages.length, pageCount ?? Infinity) : pageCount;
  const sizes = pageSizes ?? pages;
  const more = checkBeats(beats, (i, field) => ({ file, field: `beats[${i}].${field}` }), {
    file,
    totalBeats,
    pageCount: known,
    pageSizes: sizes,
    bars,
  });
  if (more.length > 0) return { ok: false, problems: more };
  return { ok: true, value: pages ? { pages, beats } : { beats } };
}

/**
 * The rules every beat map follows, whatever its form. Returns the problems found.
 * @param {BeatEntry[]} beats  numbers already known to be finite (and whole where they must be)
 * @param {(i: number, field: string) => Omit<BeatMapProblem, 'message'>} atField  where beat i's field is
 * @param {BeatMapOptions} options
 * @returns {BeatMapProblem[]}
 */
function checkBeats(beats, atField, { file, totalBeats, pageCount, pageSizes, bars }) {
  /** @type {BeatMapProblem[]} */
  const problems = [];
  /** @param {Omit<BeatMapProblem, 'message'>} where @param {string} message */
  const problem = (where, message) => {
    problems.push({ ...where, message });
  };
  let orderOk = true;
  beats.forEach((b, i) => {
    // After the first break in numbering every later beat would be "wrong" too: report it once.
    if (orderOk && b.beat !== i) {
      orderOk = false;
      if (b.beat < i)
        problem(
          atField(i, 'beat'),
          `beat ${b.beat} comes again (or out of order) where beat ${i} was expected; list every beat 0..N-1 once, in order`,
        );
      else
        problem(
          atField(i, 'beat'),
          `beat ${b.beat} where beat ${i} was expected; add the missing beat${b.beat - i > 1 ? `s ${i}..${b.beat - 1}` : ` ${i}`} or renumber`,
        );
    }
    if (b.page < 0 || (pageCount !== undefined && b.page >= pageCount)) {
      problem(
        atField(i, 'page'),
        pageCount === undefined
          ? `page ${b.page} is not a page index; pages count from 0`
          : `page ${b.page} does not exist; the view has ${pageCount} page${pageCount === 1 ? '' : 's'} (0..${pageCount - 1})`,
      );
    }
    if (b.system < 0)
      problem(atField(i, 'system'), `system ${b.system} is not a system index; systems count from 0 on each page`);
    if (b.bar < 0)
      problem(atField(i, 'bar'), `bar ${b.bar} is not a bar number; bars count from 1 (0 is a pickup bar)`);
    if (b.x0 > b.x1)
      problem(atField(i, 'x0'), `x0 ${b.x0} is right of x1 ${b.x1}; x0..x1 is the beat's range from left to right`);
    if (b.y0 > b.y1)
      problem(atField(i, 'y0'), `y0 ${b.y0} is below y1 ${b.y1}; y0..y1 is the system's extent from top to bottom`);
    const size = pageSizes?.[b.page];
    if (size) {
      for (const [k, v, most] of /** @type {const} */ ([
        ['x0', b.x0, size.width],
        ['x1', b.x1, size.width],
        ['y0', b.y0, size.height],
        ['y1', b.y1, size.height],
      ])) {
        if (v < 0 || v > most) {
          problem(
            atField(i, k),
            `${k} ${v} is off page ${b.page} (${size.width} x ${size.height}); positions are in page units from its top left corner`,
          );
          break;
        }
      }
    }
    const prev = beats[i - 1];
    if (!prev) return;
    // A repeat (or a jump back) in performance order returns to where that bar is drawn: the
    // position may go back exactly where the bar number does.
    if (b.bar < prev.bar) return;
    if (b.page < prev.page)
      problem(
        atField(i, 'page'),
        `page goes back from ${prev.page} to ${b.page}; beats run through the pages in order`,
      );
    else if (b.page === prev.page && b.system < prev.system)
      problem(
        atField(i, 'system'),
        `system goes back from ${prev.system} to ${b.system} on page ${b.page}; systems run down the page in order`,
      );
    else if (b.page === prev.page && b.system === prev.system && b.x0 < prev.x0) {
      problem(
        atField(i, 'x0'),
        `x0 ${b.x0} is left of the previous beat's (${prev.x0}) in the same system; start a new system there or fix the positions`,
      );
    }
  });
  if (totalBeats !== undefined && beats.length !== totalBeats) {
    const fix =
      beats.length < totalBeats ? 'add the missing beats or fix the meter' : 'remove the extra beats or fix the meter';
    // Beats run 0..N-1 in order, so the bars without positions are those past the map's end.
    const unplaced = [
      ...new Set((bars ?? []).filter((b) => b.startBeat + b.beats > beats.length).map((b) => b.bar)),
    ].sort((a, b) => a - b);
    const which =
      beats.length < totalBeats && unplaced.length > 0
        ? `; bar${unplaced.length === 1 ? '' : 's'} ${barRanges(unplaced)} ha${unplaced.length === 1 ? 's' : 've'} no position (place them in the preview's bar-line mode)`
        : '';
    problems.push({ file, message: `has ${beats.length} beats but the score has ${totalBeats}${which}; ${fix}` });
  }
  return problems;
}

/**
 * A problem as one line of text: "beatmaps/violin1.csv line 14: x0: ..." or
 * "beatmaps/violin1.json: beats[12].x0: ...".
 * @param {BeatMapProblem} p
 */
export function describeBeatMapProblem(p) {
  return `${p.file}${p.line ? ` line ${p.line}` : ''}: ${p.field ? `${p.field}: ` : ''}${p.message}`;
}

/**
 * What an image score says about one beat, in performance order.
 * @typedef {object} BeatMetre
 * @property {number} bar              written bar number
 * @property {[number, number]} time   time signature of the bar
 * @property {number} bpm              tempo at this beat, in beats (time[1] units) per minute
 */

/**
 * Bars in performance order from per-beat metre (consecutive beats with the same bar number form
 * a bar), with a tempo change wherever the tempo differs from the beat before. A short first bar
 * is a pickup; any other short bar keeps its `beats`. The result feeds createTempoMapFromBars.
 * @param {BeatMetre[]} beats
 * @returns {import('./tempo-map.js').BarSpec[]}
 */
export function barsFromBeats(beats) {
  /** @type {{ bar: number, time: [number, number], bpms: number[] }[]} */
  const groups = [];
  for (const b of beats) {
    const last = groups[groups.length - 1];
    if (last && last.bar === b.bar) last.bpms.push(b.bpm);
    else groups.push({ bar: b.bar, time: [b.time[0], b.time[1]], bpms: [b.bpm] });
  }
  /** @type {number | null} */
  let tempo = null;
  return groups.map((g, i) => {
    const count = g.bpms.length;
    const firstBeatInBar = i === 0 && count < g.time[0] ? g.time[0] - count + 1 : 1;
    /** @type {{ beat: number, bpm: number }[]} */
    const changes = [];
    g.bpms.forEach((bpm, k) => {
      if (bpm !== tempo) changes.push({ beat: firstBeatInBar + k, bpm });
      tempo = bpm;
    });
    return {
      bar: g.bar,
      time: g.time,
      ...(count !== g.time[0] ? { beats: count } : {}),
      ...(firstBeatInBar !== 1 ? { firstBeatInBar } : {}),
      ...(changes.length > 0 ? { tempo: changes } : {}),
    };
  });
}

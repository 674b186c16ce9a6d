// ZScore's merged exports: a piece of several movements assembled by ZScore's ScoreMerger
// (szcore ScoreMerger.java) from each movement's export. The merger renumbers pages, bars, beats
// and times into one master score and writes it as `1_<Score>_BeatInfo.csv`; it copies each
// movement's page files under the merged page numbers but unchanged, so a page file's rows keep
// the movement's scoreName, its page number within the movement and its own beat numbers and
// times. ZScore's loader (ScoreLoader.load) reads only the master. Here the master is the truth:
// a page file is used where it agrees with the master, and where it does not the master's rows
// for that page are used and the report says why.

/**
 * @typedef {import('./csv.js').BeatInfoRow} BeatInfoRow
 */

/**
 * @typedef {object} Master
 * @property {string} file
 * @property {Map<string, BeatInfoRow[]>} byPage  beat rows by instrument and page
 * @property {Map<string, number[]>} pages        the pages of each instrument with beats in it
 */

/**
 * @typedef {object} PagePick
 * @property {BeatInfoRow[] | null} rows   null: refused (see problem)
 * @property {'file' | 'master'} from
 * @property {{ name: string, page: number } | null} movement  the movement a page file is the
 *   original of (its scoreName and page number)
 * @property {string | null} note     why the master was used (one page file)
 * @property {string | null} problem
 */

/** Fields in which a movement's original page and its copy in the master still agree. */
const LAYOUT = /** @type {const} */ ([
  'instrumentName',
  'timeSigNum',
  'timeSigDenom',
  'tempoBpm',
  'tempoBeatValue',
  'xStartPxl',
  'xEndPxl',
  'yStartPxl',
  'yEndPxl',
  'isUpbeat',
]);
/** ...and, for a page file of the score itself, the numbering and times too. */
const ALL = /** @type {const} */ ([...LAYOUT, 'scoreName', 'pageNo', 'barNo', 'beatNo', 'startTimeMillis']);

/**
 * @param {string} instrument
 * @param {number} page
 */
const pageKey = (instrument, page) => `${instrument}\u0000${page}`;

/**
 * The beat rows of the score-level file by instrument and page.
 * @param {string} file
 * @param {BeatInfoRow[]} rows
 * @returns {Master}
 */
export function indexMaster(file, rows) {
  /** @type {Map<string, BeatInfoRow[]>} */
  const byPage = new Map();
  /** @type {Map<string, number[]>} */
  const pages = new Map();
  for (const r of rows) {
    if (r.script) continue;
    const key = pageKey(r.instrumentName, r.pageNo);
    const list = byPage.get(key);
    if (list) list.push(r);
    else {
      byPage.set(key, [r]);
      const ps = pages.get(r.instrumentName) ?? [];
      ps.push(r.pageNo);
      pages.set(r.instrumentName, ps);
    }
  }
  for (const ps of pages.values()) ps.sort((a, b) => a - b);
  return { file, byPage, pages };
}

/**
 * Whether the export is a merged one: the score-level file has the beats of the pages and some
 * page file is a movement's original (its beats are of another score). Only then is the master
 * preferred to the page files; in an export of one score the page files are read as they are.
 * @param {Master} master
 * @param {string} scoreName
 * @param {Iterable<{ rows: BeatInfoRow[] }>} pageFiles  parsed
 */
export function isMergedExport(master, scoreName, pageFiles) {
  if (master.byPage.size === 0) return false;
  for (const f of pageFiles) if (f.rows.some((r) => !r.script && r.scoreName !== scoreName)) return true;
  return false;
}

/**
 * The pages of an instrument the master places beats on but the folder has no image of: a
 * movement whose pages were not copied beside the master.
 * @param {Master} master
 * @param {string} instrument
 * @param {Set<number>} present  page numbers with a file in the folder
 * @param {string} base  file name of a page without its number (`Dialogs_Concur_page`)
 * @returns {string[]} problems
 */
export function pagesMissing(master, instrument, present, base) {
  return (master.pages.get(instrument) ?? [])
    .filter((no) => !present.has(no))
    .map((no) => {
      const first = /** @type {BeatInfoRow[]} */ (master.byPage.get(pageKey(instrument, no)))[0];
      return `${master.file} line ${first.line}: page ${no} of ${instrument} has beats in the master but there is no ${base}${no}.png in the export folder; copy the movement's pages beside the master (ZScore's ScoreMerger writes them as ${base}<N>.png with _BeatInfo.csv)`;
    });
}

/**
 * Which rows to read for one page of a part: the page file's where it agrees with the master
 * (or the master has no beats of the part), else the master's.
 * @param {{ master: Master, scoreName: string, instrument: string, page: number, csv: string | undefined,
 *   parsed: { rows: BeatInfoRow[], problems: import('./csv.js').SourceProblem[] } | null }} input
 * @returns {PagePick}
 */
export function pickPageRows({ master, scoreName, instrument, page, csv, parsed }) {
  const own = master.byPage.get(pageKey(instrument, page));
  /** @type {PagePick} */
  const pick = { rows: parsed?.rows ?? [], from: 'file', movement: null, note: null, problem: null };
  if (!own) {
    const pages = master.pages.get(instrument);
    if (!pages) return pick;
    pick.rows = null;
    pick.problem = `${csv ?? `page ${page} of ${instrument}`}: page ${page} of ${instrument} has no beats in the master ${master.file}, which has ${instrument}'s pages ${runs(pages)}; a movement missing from the merge? Merge the movements again with ZScore's ScoreMerger, or remove this page`;
    return pick;
  }
  const master_ = { ...pick, rows: own, from: /** @type {const} */ ('master') };
  const use = `its beats were read from the master ${master.file} (lines ${own[0].line}–${own[own.length - 1].line}), as ZScore's loader reads them`;
  if (!csv || !parsed) return { ...master_, note: `page ${page} of ${instrument} has no BeatInfo file; ${use}` };
  const beats = parsed.rows.filter((r) => !r.script);
  const movementName = beats[0] && beats[0].scoreName !== scoreName ? beats[0].scoreName : null;
  const movement = movementName ? { name: movementName, page: beats[0].pageNo } : null;
  const differs = difference(beats, own, movement ? LAYOUT : ALL, master.file);
  if (!differs && !movement) return pick;
  return {
    ...master_,
    movement,
    note: differs ? `warning: ${csv} disagrees with the master: ${differs}; ${use}` : null,
  };
}

/**
 * The first way page rows differ from the master's, in words, or null.
 * @param {BeatInfoRow[]} beats
 * @param {BeatInfoRow[]} own  the master's
 * @param {readonly (keyof BeatInfoRow)[]} fields
 * @param {string} masterFile
 */
function difference(beats, own, fields, masterFile) {
  if (beats.length !== own.length)
    return `it has ${beats.length} beat${beats.length === 1 ? '' : 's'}, the master ${own.length} on this page`;
  for (let i = 0; i < beats.length; i++) {
    for (const f of fields) {
      const a = beats[i][f];
      const b = own[i][f];
      const same = f === 'startTimeMillis' ? Math.abs(Number(a) - Number(b)) <= 1 : a === b;
      if (!same)
        return `line ${beats[i].line} has ${f} ${JSON.stringify(a)} where ${masterFile} line ${own[i].line} has ${JSON.stringify(b)}`;
    }
  }
  return null;
}

/**
 * @param {number[]} pages  sorted
 */
function runs(pages) {
  /** @type {[number, number][]} */
  const out = [];
  for (const p of pages) {
    const last = out[out.length - 1];
    if (last && p === last[1] + 1) last[1] = p;
    else out.push([p, p]);
  }
  return out.map(([a, b]) => (a === b ? `${a}` : `${a}–${b}`)).join(', ');
}

/**
 * What the report says of a part's page files that are movements' originals: one line a part.
 * @param {string} instrument
 * @param {{ no: number }[]} pages
 * @param {({ name: string, page: number } | null)[]} movements  by page index
 * @param {string} masterFile
 * @returns {string | null}
 */
export function movementNote(instrument, pages, movements, masterFile) {
  const named = pages.filter((_, k) => movements[k]);
  if (named.length === 0) return null;
  const names = [...new Set(movements.filter((m) => m !== null).map((m) => `"${m.name}"`))];
  return `${instrument}: the BeatInfo files of pages ${runs(named.map((p) => p.no))} are the movements' originals (scoreName ${names.join(', ')}, pageNo within the movement), as ZScore's ScoreMerger copies them; their beats were read from the master ${masterFile}, renumbered into one score, as ZScore's loader reads them`;
}

/**
 * @typedef {object} Section
 * @property {string} name       the movement's score name
 * @property {number} beat       its first beat (scorecast's, 0-based)
 * @property {number} bar
 * @property {[number, number]} pages  ZScore's merged page numbers, first and last
 */

/**
 * The movements of a merged export as named sections of the score, in order: runs of pages of
 * the same movement, from the page files that are the movements' originals. Empty when no page
 * file names a movement (an export of one score).
 * @param {{ pages: { no: number }[], beats: { page: number, bar: number }[] }} view
 * @param {({ name: string, page: number } | null)[]} movements  by page index
 * @param {string} scoreName  the name of pages before the first that names its movement
 * @returns {Section[]}
 */
export function sectionsOf(view, movements, scoreName) {
  if (!movements.some((m) => m)) return [];
  /** @type {Section[]} */
  const out = [];
  view.pages.forEach((p, k) => {
    const m = movements[k];
    const last = out[out.length - 1];
    // A page whose file does not name its movement belongs to the one before it, unless it is
    // the first page of a movement (page 1 of it).
    if (last && (!m || (m.name === last.name && m.page !== 1))) {
      last.pages[1] = p.no;
      return;
    }
    const beat = view.beats.findIndex((b) => b.page === k);
    if (beat < 0) return;
    out.push({ name: m?.name ?? scoreName, beat, bar: view.beats[beat].bar, pages: [p.no, p.no] });
  });
  return out;
}

// The score manifest (scores/<id>/score.yaml, parsed): validation and the score model the
// conductor plays. Pure: the server reads and parses the file; this checks the parsed value.
// Every problem names the field, what is wrong and what to do.

import { createTempoMap, createTempoMapFromBars } from './tempo-map.js';
import { checkOscCues } from './osc-cues.js';
import { checkPresets } from './presets.js';
import { checkMarks, notationMarks } from './marks.js';
import { readOpenForm } from './open-form.js';
import { PACKAGE_LIMITS as LIMITS, formatBytes } from './package-limits.js';
import { isId, isObject } from './values.js';
import { parsePageRanges } from './page-ranges.js';
import { checkVideo } from './video.js';

/**
 * @typedef {object} Cue
 * @property {number} beat   global beat index
 * @property {string} view
 * @property {Record<string, unknown>} set  merge patch into the view's cue state
 */

/**
 * @typedef {object} Vote
 * @property {string} id
 * @property {string[]} tiles
 * @property {number} open    beat the window opens
 * @property {number} close   beat the window closes (the tally decides then)
 * @property {Record<string, { seek: number }>} decides  per winning tile, what happens
 */

/**
 * @typedef {object} Asset
 * @property {string} path     relative to the package folder
 * @property {boolean} preload the page fetches it on load
 */

/**
 * @typedef {object} PagesSpec  an image score view
 * @property {string[]} files   page images, in order (none when the pages come from a PDF)
 * @property {string} beatmap   CSV or JSON beat map
 * @property {{ file: string, pages: number[] | null }} [pdf]  the pages as a PDF, rendered by the
 *   server into page images: its pages in the view's order (from 1), or null for all of them
 */

/**
 * @typedef {object} ScoreModel
 * @property {string} id
 * @property {string} title
 * @property {string} composer
 * @property {{id: string, name: string, source?: string}[]} parts
 * @property {string[]} views
 * @property {{ file: string } | null} notation
 * @property {Record<string, PagesSpec> | null} pages
 * @property {import('./tempo-map.js').TempoMap} map
 * @property {Cue[]} cues          sorted by beat, stable within a beat
 * @property {Vote[]} votes
 * @property {Asset[]} assets
 * @property {import('./page-choice.js').PageChoice[]} pageChoices  sorted by beat
 * @property {import('./osc-cues.js').OscCue[]} osc  sorted by beat
 * @property {import('./presets.js').Preset[]} presets  audience patches the conductor fires by hand
 * @property {import('./marks.js').Mark[]} marks  rehearsal marks, every playing, sorted by beat
 * @property {import('./open-form.js').OpenForm | null} openForm  sections whose order is chosen live
 * @property {Record<string, import('./video.js').VideoSpec> | null} video  the views shown as a
 *   video kept in step (core/video.js), `all` already spread over the parts
 */

/**
 * @typedef {object} Problem
 * @property {string} field  e.g. "cues[3].bar"
 * @property {string} message
 */

/**
 * @typedef {object} BuildOptions
 * @property {import('./tempo-map.js').BarSpec[]} [bars] bars in performance order, from the
 *   engraved notation or the beat maps; required when the manifest has `notation`
 * @property {(path: string) => string} [assetUrl] URL of a package file (content-hashed by the server)
 */

const ID_RE = /^[a-z0-9][a-z0-9_-]{0,63}$/;
const TIME_RE = /^(\d{1,2})\/(\d{1,2})$/;

/**
 * Parse a time signature written "3/4" or [3, 4].
 * @param {unknown} v
 * @returns {[number, number] | null}
 */
function parseTime(v) {
  if (typeof v === 'string') {
    const m = TIME_RE.exec(v.trim());
    return m ? [Number(m[1]), Number(m[2])] : null;
  }
  if (Array.isArray(v) && v.length === 2 && v.every((n) => Number.isInteger(n) && n > 0)) return [v[0], v[1]];
  return null;
}

/**
 * A safe relative path inside a package: no absolute paths, no "..", no backslashes.
 * @param {unknown} p
 * @returns {p is string}
 */
export function isSafeRelativePath(p) {
  if (typeof p !== 'string' || p.length === 0 || p.length > 256) return false;
  if (p.startsWith('/') || p.includes('\\') || p.includes('\0')) return false;
  return p.split('/').every((seg) => seg !== '' && seg !== '.' && seg !== '..');
}

// Cue colours reach every phone as CSS (client/src/page/view.js sets style.color and
// style.background), and a package may come from someone else: colours only, never url(...)
// (which would make every phone fetch an outside address) or any other CSS.
const COLOUR_RE =
  /^(?:[a-z]{3,32}|#(?:[0-9a-f]{3,4}|[0-9a-f]{6}|[0-9a-f]{8})|(?:rgba?|hsla?)\((?:[\d\s,./%+-]|deg|grad|rad|turn|none)*\))$/i;
/** The cue fields that are colours. */
export const COLOUR_FIELDS = Object.freeze(['color', 'background']);
const COLOUR_HINT =
  'must be a colour: a name (white), #rgb, #rrggbb, rgb(...) or hsl(...); url(...) and other CSS are not allowed';

/**
 * A CSS colour written plainly: a colour name, #hex, or an rgb()/rgba()/hsl()/hsla() of numbers.
 * @param {unknown} v
 * @returns {v is string}
 */
export function isColour(v) {
  return typeof v === 'string' && v.length <= 64 && COLOUR_RE.test(v.trim());
}

const NOTATION_RE = /\.(musicxml|xml|mxl|mei)$/i;
const BEATMAP_RE = /\.(csv|json)$/i;
const PDF_RE = /\.pdf$/i;

/** @typedef {(field: string, message: string) => void} ProblemSink */

/**
 * Validate a parsed manifest and build the score model. Every problem is collected, not only
 * the first; positions (bar/beat) are checked against the score's own tempo map. Each section
 * of the manifest is checked by a step of its own, in the order a composer reads them.
 * @param {unknown} raw
 * @param {BuildOptions} [options]
 * @returns {{ ok: true, value: ScoreModel } | { ok: false, problems: Problem[] }}
 */
export function buildScoreModel(raw, { bars, assetUrl = (p) => p } = {}) {
  /** @type {Problem[]} */
  const problems = [];
  /** @type {ProblemSink} */
  const problem = (field, message) => {
    problems.push({ field, message });
  };
  if (!isObject(raw))
    return {
      ok: false,
      problems: [
        {
          field: '(file)',
          message: 'the manifest must be a YAML mapping (key: value lines); start from scores/demo/score.yaml',
        },
      ],
    };

  checkTitle(raw, problem);
  const parts = checkParts(raw.parts, problem);
  const views = ['audience', 'score', ...parts.map((p) => p.id)];
  if (new Set(views).size !== views.length) problem('parts', 'part ids must be unique');
  const notation = checkNotation(raw.notation, problem);
  const pages = checkPages(raw.pages, { notation, views, problem });
  const map = notation ? notationMap(raw, bars, problems) : meterMap(raw, problem);
  const assets = checkAssets(raw.assets, problem);
  if (map)
    checkBeatMapRows(map, { views: notation ? parts.length + 1 : Object.keys(pages ?? {}).length, notation, problem });
  const { cues, votes, osc } = checkCues(raw, { map, views, assets, assetUrl, problem });
  const marks = map
    ? checkMarks(raw.marks, {
        found: notation ? notationMarks(bars, map) : [],
        position: positionIn(map, problem),
        problem,
      })
    : [];
  if (assets.length > LIMITS.assets)
    problem('cues', `name ${assets.length} files with the assets, more than the ${LIMITS.assets} a package may have`);

  /** @type {import('./page-choice.js').PageChoice[]} */
  const pageChoices = [];
  if (raw.pageChoices !== undefined && map) {
    const pageCount = pages
      ? Math.min(...parts.map((p) => pages?.[p.id]?.pdf?.pages?.length ?? pages?.[p.id]?.files.length ?? 0))
      : 0;
    checkPageChoices(raw.pageChoices, { pageCount, votes, totalBeats: map.totalBeats, problem, out: pageChoices });
  }

  /** What is wrong with a patch fired by hand or by the meter (its size, its colours), or null. @param {Record<string, any>} set */
  const checkSet = (set) =>
    patchTooBig(set) ??
    (COLOUR_FIELDS.some((k) => set[k] !== undefined && set[k] !== null && !isColour(set[k])) ? COLOUR_HINT : null);
  const presets = checkPresets(raw.presets, { problem, checkSet });

  const openForm = map ? checkOpenForm(raw.openForm, { map, parts, views, checkSet, problem }) : null;
  const video = checkVideo(raw.video, { parts, safePath: isSafeRelativePath, problem });

  if (problems.length > 0 || !map) return { ok: false, problems };
  return {
    ok: true,
    value: {
      id: raw.id,
      title: raw.title,
      composer: raw.composer ?? '',
      parts,
      views,
      notation,
      pages,
      map,
      cues,
      votes,
      assets,
      pageChoices,
      osc,
      presets,
      marks,
      openForm,
      video,
    },
  };
}

/**
 * The open form (core/open-form.js): sections whose order is chosen live, in bars or beats of
 * this score.
 * @param {unknown} raw
 * @param {{ map: import('./tempo-map.js').TempoMap, parts: { id: string }[], views: string[],
 *   checkSet: (set: Record<string, any>) => string | null, problem: ProblemSink }} ctx
 * @returns {import('./open-form.js').OpenForm | null}
 */
function checkOpenForm(raw, { map, parts, views, checkSet, problem }) {
  if (raw === undefined) return null;
  const read = readOpenForm(raw, {
    totalBeats: map.totalBeats,
    parts: parts.map((p) => p.id),
    views,
    checkSet,
    // A bar's first and last beat, the first time through.
    barBeats: (bar) => {
      const info = map.barInfo(bar);
      return info ? [info.startBeat, info.startBeat + info.beats - 1] : null;
    },
  });
  if (!read.ok) {
    for (const p of read.problems) problem(p.field, p.message);
    return null;
  }
  return read.value;
}

/**
 * The piece's id, title and composer.
 * @param {Record<string, any>} raw
 * @param {ProblemSink} problem
 */
function checkTitle(raw, problem) {
  if (typeof raw.id !== 'string' || !ID_RE.test(raw.id))
    problem('id', 'must be lower-case letters, digits, "-" or "_" (at most 64), e.g. "my-piece"');
  if (typeof raw.title !== 'string' || raw.title.trim() === '') problem('title', 'is missing; give the piece a title');
  if (raw.composer !== undefined && typeof raw.composer !== 'string') problem('composer', 'must be text');
}

/**
 * The parts, each a view of its own.
 * @param {unknown} list
 * @param {ProblemSink} problem
 * @returns {{id: string, name: string, source?: string}[]}
 */
function checkParts(list, problem) {
  /** @type {{id: string, name: string, source?: string}[]} */
  const parts = [];
  if (list === undefined) return parts;
  if (!Array.isArray(list)) problem('parts', 'must be a list of {id, name, source?}');
  else if (list.length > LIMITS.parts)
    problem('parts', `lists ${list.length} parts, more than the ${LIMITS.parts} a package may have`);
  else
    list.forEach((p, i) => {
      if (!isObject(p) || typeof p.id !== 'string' || !ID_RE.test(p.id))
        problem(`parts[${i}].id`, 'must be an id of lower-case letters, digits, "-" or "_"');
      else if (p.id === 'audience' || p.id === 'score')
        problem(`parts[${i}].id`, `"${p.id}" is a reserved view name; choose another part id`);
      else if (
        p.source !== undefined &&
        !(typeof p.source === 'string' && p.source.length > 0 && p.source.length <= 64)
      )
        problem(`parts[${i}].source`, "must be the part's id in the notation file, e.g. P1");
      else
        parts.push({
          id: p.id,
          name: typeof p.name === 'string' ? p.name : p.id,
          ...(p.source ? { source: /** @type {string} */ (p.source) } : {}),
        });
    });
  return parts;
}

/**
 * The notation file, when the server engraves the score.
 * @param {unknown} notation
 * @param {ProblemSink} problem
 * @returns {{ file: string } | null}
 */
function checkNotation(notation, problem) {
  if (notation === undefined) return null;
  if (!isObject(notation) || !isSafeRelativePath(notation.file))
    problem('notation.file', 'must be a relative path inside the package, e.g. quartet.musicxml');
  else if (!NOTATION_RE.test(notation.file))
    problem('notation.file', 'must be MusicXML (.musicxml, .xml, .mxl) or MEI (.mei)');
  else return { file: notation.file };
  return null;
}

/**
 * The page images of each view and their beat maps, when the score has no notation.
 * @param {unknown} raw
 * @param {{ notation: { file: string } | null, views: string[], problem: ProblemSink }} context
 * @returns {Record<string, PagesSpec> | null}
 */
function checkPages(raw, { notation, views, problem }) {
  if (raw === undefined) return null;
  if (notation) {
    problem('pages', 'a score has either notation or page images, not both; remove one');
    return null;
  }
  if (!isObject(raw)) {
    problem('pages', 'must map views to {files: [...], beatmap: file}');
    return null;
  }
  /** @type {Record<string, PagesSpec>} */
  const pages = {};
  for (const [view, spec] of Object.entries(raw)) {
    const f = `pages.${view}`;
    if (view === 'audience' || !views.includes(view)) {
      problem(f, `"${view}" is not a score or part view (${views.slice(1).join(', ')})`);
      continue;
    }
    if (isObject(spec) && spec.pdf !== undefined) {
      const pdf = checkPdfPages(spec, f, problem);
      if (pdf) pages[view] = { files: [], beatmap: spec.beatmap, pdf };
      continue;
    }
    if (!isObject(spec) || !Array.isArray(spec.files) || spec.files.length === 0) {
      problem(`${f}.files`, 'must list the page images in order (or give a PDF: pdf: { file: part.pdf })');
      continue;
    }
    if (spec.files.length > LIMITS.pagesPerView) {
      problem(`${f}.files`, `lists ${spec.files.length} pages, more than the ${LIMITS.pagesPerView} a view may have`);
      continue;
    }
    const bad = spec.files.findIndex((/** @type {unknown} */ x) => !isSafeRelativePath(x));
    if (bad >= 0) {
      problem(`${f}.files[${bad}]`, 'must be a relative path inside the package');
      continue;
    }
    if (!isSafeRelativePath(spec.beatmap) || !BEATMAP_RE.test(spec.beatmap)) {
      problem(`${f}.beatmap`, 'must be a .csv or .json file inside the package');
      continue;
    }
    pages[view] = { files: spec.files, beatmap: spec.beatmap };
  }
  return pages;
}

/**
 * A view whose pages come from a PDF: `pdf: { file: parts.pdf, pages: "3-4" }` (pages optional:
 * all of them), and its beat map.
 * @param {Record<string, any>} spec
 * @param {string} f  the view's field, e.g. "pages.violin1"
 * @param {ProblemSink} problem
 * @returns {{ file: string, pages: number[] | null } | null}
 */
function checkPdfPages(spec, f, problem) {
  const { pdf } = spec;
  if (spec.files !== undefined) {
    problem(`${f}.files`, 'a view has page images (files) or a PDF (pdf), not both; remove one');
    return null;
  }
  if (!isObject(pdf) || !isSafeRelativePath(pdf.file) || !PDF_RE.test(pdf.file)) {
    problem(
      `${f}.pdf.file`,
      'must be a .pdf file inside the package, e.g. pdf: { file: parts/violin1.pdf, pages: "1-4" }',
    );
    return null;
  }
  let pages = null;
  if (pdf.pages !== undefined) {
    const parsed = parsePageRanges(pdf.pages, LIMITS.pagesPerView);
    if (!parsed.ok) {
      problem(`${f}.pdf.pages`, parsed.message);
      return null;
    }
    pages = parsed.value;
  }
  if (!isSafeRelativePath(spec.beatmap) || !BEATMAP_RE.test(spec.beatmap)) {
    problem(`${f}.beatmap`, 'must be a .csv or .json file inside the package');
    return null;
  }
  return { file: pdf.file, pages };
}

/**
 * The tempo map of a score with notation, from the engraved bars: only once the rest of the
 * manifest is right (the engraving comes after).
 * @param {Record<string, any>} raw
 * @param {import('./tempo-map.js').BarSpec[] | undefined} bars
 * @param {Problem[]} problems  the problems so far; the notation's are added
 * @returns {import('./tempo-map.js').TempoMap | null}
 */
function notationMap(raw, bars, problems) {
  /** @type {ProblemSink} */
  const problem = (field, message) => {
    problems.push({ field, message });
  };
  for (const key of ['meter', 'bars', 'pickup']) {
    if (raw[key] !== undefined) problem(key, 'comes from the notation when the score has `notation`; remove it');
  }
  if (!bars && problems.length === 0)
    problem('notation', 'has not been engraved yet (internal: build the model with the engraved bars)');
  if (
    !bars ||
    problems.length > 0 ||
    !withinBounds(
      bars.length,
      bars.reduce((n, b) => n + (b.beats ?? b.time?.[0] ?? 0), 0),
      'notation',
      problem,
    )
  )
    return null;
  try {
    return createTempoMapFromBars(bars);
  } catch (err) {
    problem('notation', `${/** @type {Error} */ (err).message.replace(/^tempo map: /, '')}; check the notation file`);
    return null;
  }
}

/**
 * The files listed as assets.
 * @param {unknown} list
 * @param {ProblemSink} problem
 * @returns {Asset[]}
 */
function checkAssets(list, problem) {
  /** @type {Asset[]} */
  const assets = [];
  if (list !== undefined && !Array.isArray(list)) problem('assets', 'must be a list of {path, preload}');
  else if (Array.isArray(list) && list.length > LIMITS.assets)
    problem('assets', `lists ${list.length} files, more than the ${LIMITS.assets} a package may have`);
  else
    (list ?? []).forEach((/** @type {unknown} */ a, /** @type {number} */ i) => {
      if (!isObject(a) || !isSafeRelativePath(a.path))
        problem(`assets[${i}].path`, 'must be a relative path inside the package folder (no "..", no leading "/")');
      else assets.push({ path: a.path, preload: a.preload === true });
    });
  return assets;
}

/**
 * Every view with pages has a beat map of one row per beat: bound them all together before the
 * server reads any.
 * @param {import('./tempo-map.js').TempoMap} map
 * @param {{ views: number, notation: { file: string } | null, problem: ProblemSink }} context
 */
function checkBeatMapRows(map, { views: mapped, notation, problem }) {
  if (mapped * map.totalBeats > LIMITS.beatMapRows) {
    problem(
      notation ? 'parts' : 'pages',
      `${mapped} views with pages of ${map.totalBeats} beats need ${mapped * map.totalBeats} beat-map rows, more than the ${LIMITS.beatMapRows} a package may have; split the piece into movements`,
    );
  }
}

/**
 * A function giving the beat index of a position {at} or {bar, beat?} in `m`, or null (with a
 * problem) when invalid.
 * @param {import('./tempo-map.js').TempoMap} m
 * @param {ProblemSink} problem
 */
function positionIn(m, problem) {
  /**
   * @param {any} pos
   * @param {string} f
   * @returns {number | null}
   */
  return (pos, f) => {
    if (!isObject(pos)) {
      problem(f, 'needs a position: bar (and beat) or at');
      return null;
    }
    let beat;
    if (pos.at !== undefined) {
      if (!(Number.isInteger(pos.at) && pos.at >= 0)) {
        problem(`${f}.at`, 'must be a beat index >= 0');
        return null;
      }
      beat = pos.at;
    } else if (Number.isInteger(pos.bar)) {
      try {
        beat = m.beatOf(pos.bar, pos.beat ?? m.barInfo(pos.bar)?.firstBeatInBar ?? 1);
      } catch (err) {
        problem(
          f,
          `${/** @type {Error} */ (err).message.replace(/^tempo map: /, '')}; the score has bars ${m.firstBar}..${m.lastBar}`,
        );
        return null;
      }
    } else {
      problem(f, 'needs a position: bar (and beat) or at');
      return null;
    }
    if (beat >= m.totalBeats) {
      problem(f, `is at beat ${beat}, after the last beat (${m.totalBeats - 1}); move it or extend the score`);
      return null;
    }
    return beat;
  };
}

/**
 * @typedef {object} CueContext
 * @property {string[]} views
 * @property {Asset[]} assets  the package's assets: the sounds cues name join them
 * @property {Set<string>} assetPaths  their paths (a set: 20,000 audio cues would cost 10^8
 *   comparisons as list searches)
 * @property {Set<string>} voteIds
 * @property {(p: string) => string} assetUrl
 * @property {(pos: any, f: string) => number | null} position
 * @property {ProblemSink} problem
 * @property {Cue[]} cues  where the cues go
 * @property {Vote[]} votes  where the votes go
 */

/**
 * The cues (and the OSC cues, placed on the same beats), sorted by beat.
 * @param {Record<string, any>} raw
 * @param {{ map: import('./tempo-map.js').TempoMap | null, views: string[], assets: Asset[], assetUrl: (p: string) => string, problem: ProblemSink }} context
 */
function checkCues(raw, { map, views, assets, assetUrl, problem }) {
  /** @type {CueContext} */
  const context = {
    views,
    assets,
    assetPaths: new Set(assets.map((a) => a.path)),
    voteIds: new Set(),
    assetUrl,
    position: () => null,
    problem,
    cues: [],
    votes: [],
  };
  /** @type {import('./osc-cues.js').OscCue[]} */
  let osc = [];
  if (raw.cues !== undefined && !Array.isArray(raw.cues)) problem('cues', 'must be a list of cues');
  else if (Array.isArray(raw.cues) && raw.cues.length > LIMITS.cues)
    problem(
      'cues',
      `lists ${raw.cues.length} cues, more than the ${LIMITS.cues} a package may have; split the piece into movements`,
    );
  else if (map) {
    context.position = positionIn(map, problem);
    for (const [i, c] of (raw.cues ?? []).entries()) checkCue(c, `cues[${i}]`, context);
    osc = checkOscCues(raw.osc, { position: context.position, problem });
  }
  context.cues.sort((a, b) => a.beat - b.beat);
  return { cues: context.cues, votes: context.votes, osc };
}

/**
 * One cue: a `set` of what a view shows, an `audio` clip, or a `vote` window.
 * @param {unknown} c
 * @param {string} f
 * @param {CueContext} context
 */
function checkCue(c, f, context) {
  const { views, position, problem, cues } = context;
  if (!isObject(c)) {
    problem(f, 'must be a mapping like {bar: 1, view: audience, set: {text: Hello}}');
    return;
  }
  const kinds = ['set', 'audio', 'vote'].filter((k) => c[k] !== undefined);
  if (kinds.length !== 1) {
    problem(f, 'needs exactly one of set, audio or vote');
    return;
  }
  const view = c.view ?? 'audience';
  if (!views.includes(view)) {
    problem(`${f}.view`, `"${view}" is not a view of this score (${views.join(', ')})`);
    return;
  }
  const beat = position(c, f);
  if (beat === null) return;
  if (c.set !== undefined) setCue(c.set, { f, beat, view }, context);
  else if (c.audio !== undefined) audioCue(c, { f, beat, view }, context);
  else {
    const vote = checkVote(c.vote, `${f}.vote`, beat, position, problem);
    if (!vote) return;
    if (context.voteIds.has(vote.id)) {
      problem(`${f}.vote.id`, `"${vote.id}" is used by another vote; vote ids must be unique`);
      return;
    }
    context.voteIds.add(vote.id);
    context.votes.push(vote);
    cues.push({ beat, view, set: { vote: { id: vote.id, tiles: vote.tiles, closes: vote.close } } });
    cues.push({ beat: vote.close, view, set: { vote: null } });
  }
}

/**
 * A package file a cue plays: one of the assets, preloaded.
 * @param {string} path
 * @param {CueContext} context
 */
function addSound(path, { assets, assetPaths }) {
  if (assetPaths.has(path)) return;
  assetPaths.add(path);
  assets.push({ path, preload: true });
}

/**
 * A cue that sets what a view shows.
 * @param {unknown} set
 * @param {{ f: string, beat: number, view: string }} at
 * @param {CueContext} context
 */
function setCue(set, { f, beat, view }, context) {
  const { problem, cues } = context;
  if (!isObject(set)) {
    problem(`${f}.set`, 'must be a mapping of what the view shows, e.g. {text: Hello}');
    return;
  }
  const tooBig = patchTooBig(set);
  if (tooBig) {
    problem(`${f}.set`, tooBig);
    return;
  }
  const badColour = COLOUR_FIELDS.find((k) => set[k] !== undefined && set[k] !== null && !isColour(set[k]));
  if (badColour) {
    problem(`${f}.set.${badColour}`, COLOUR_HINT);
    return;
  }
  // The granulator's sound is a file of the package, served like an audio cue's.
  const g = set.granulator;
  if (isObject(g) && g.src !== undefined && g.src !== null) {
    if (!isSafeRelativePath(g.src)) {
      problem(`${f}.set.granulator.src`, 'must be the path of a sound file inside the package');
      return;
    }
    addSound(g.src, context);
    cues.push({ beat, view, set: { ...set, granulator: { ...g, src: context.assetUrl(g.src) } } });
    return;
  }
  cues.push({ beat, view, set });
}

/**
 * A cue that plays a clip of the package, perhaps as a stem: a clip whose volume later cues
 * change (`set: {stems: {<stem>: {gain, glide}}}`).
 * @param {Record<string, any>} c
 * @param {{ f: string, beat: number, view: string }} at
 * @param {CueContext} context
 */
function audioCue(c, { f, beat, view }, context) {
  const { problem, cues } = context;
  if (!isSafeRelativePath(c.audio)) {
    problem(`${f}.audio`, 'must be the path of an audio file inside the package');
    return;
  }
  addSound(c.audio, context);
  if (c.stem !== undefined && !(typeof c.stem === 'string' && /^[A-Za-z0-9_-]{1,64}$/.test(c.stem))) {
    problem(`${f}.stem`, 'must be a name of letters, digits, "-" and "_"');
    return;
  }
  if (c.gain !== undefined && !(typeof c.gain === 'number' && c.gain >= 0 && c.gain <= 1)) {
    problem(`${f}.gain`, 'must be a volume from 0 to 1');
    return;
  }
  const src = context.assetUrl(c.audio);
  const gain = c.gain !== undefined ? { gain: c.gain } : {};
  cues.push({
    beat,
    view,
    set:
      c.stem === undefined
        ? { audio: { src, beat, ...gain } }
        : {
            audio: { src, beat, stem: c.stem, ...gain },
            stems: { [c.stem]: { src, gain: c.gain ?? 1, glide: 0 } },
          },
  });
}

/**
 * The tempo map of a score without notation, from `bars`, `pickup` and `meter`.
 * @param {Record<string, any>} raw
 * @param {(field: string, message: string) => void} problem
 */
function meterMap(raw, problem) {
  let ok = true;
  /** @param {string} field @param {string} message */
  const bad = (field, message) => {
    ok = false;
    problem(field, message);
  };
  if (!Number.isInteger(raw.bars) || raw.bars < 1) bad('bars', 'must be the number of bars, an integer >= 1');
  else if (raw.bars > LIMITS.bars)
    bad('bars', `is ${raw.bars}, more than the ${LIMITS.bars} bars a package may have; split the piece into movements`);
  if (raw.pickup !== undefined && !(Number.isInteger(raw.pickup) && raw.pickup >= 0))
    bad('pickup', 'must be the number of beats in the pickup bar (0 for none)');
  /** @type {import('./tempo-map.js').MeterChange[]} */
  const changes = [];
  if (!Array.isArray(raw.meter) || raw.meter.length === 0) {
    bad('meter', 'is missing; list at least one entry like {bar: 1, time: 4/4, tempo: 96}');
  } else if (raw.meter.length > LIMITS.meterChanges) {
    bad('meter', `lists ${raw.meter.length} changes, more than the ${LIMITS.meterChanges} a package may have`);
  } else {
    raw.meter.forEach((/** @type {unknown} */ m, /** @type {number} */ i) => {
      if (!isObject(m)) {
        bad(`meter[${i}]`, 'must be a mapping like {bar: 9, tempo: 120}');
        return;
      }
      if (!Number.isInteger(m.bar)) {
        bad(`meter[${i}].bar`, 'must be a bar number');
        return;
      }
      /** @type {import('./tempo-map.js').MeterChange} */
      const c = { bar: m.bar };
      if (m.beat !== undefined) {
        if (!(Number.isInteger(m.beat) && m.beat >= 1)) bad(`meter[${i}].beat`, 'must be a beat in the bar, from 1');
        else c.beat = m.beat;
      }
      if (m.time !== undefined) {
        const t = parseTime(m.time);
        if (!t) bad(`meter[${i}].time`, 'must be a time signature like 3/4');
        else c.time = t;
      }
      if (m.tempo !== undefined) {
        if (!(typeof m.tempo === 'number' && m.tempo > 0 && m.tempo <= 1000))
          bad(`meter[${i}].tempo`, 'must be beats per minute, a number in (0, 1000]');
        else c.tempo = m.tempo;
      }
      if (c.time === undefined && c.tempo === undefined)
        bad(`meter[${i}]`, 'changes nothing; give time, tempo or both');
      changes.push(c);
    });
  }
  if (!ok) return null;
  try {
    const map = createTempoMap({ bars: raw.bars, pickup: raw.pickup ?? 0, changes });
    return withinBounds(map.bars.length, map.totalBeats, 'meter', problem) ? map : null;
  } catch (err) {
    problem('meter', `${/** @type {Error} */ (err).message.replace(/^tempo map: /, '')}`);
    return null;
  }
}

/**
 * @param {unknown} v
 * @param {string} f
 * @param {number} open
 * @param {(pos: any, f: string) => number | null} position
 * @param {(field: string, message: string) => void} problem
 * @returns {Vote | null}
 */
function checkVote(v, f, open, position, problem) {
  if (!isObject(v)) {
    problem(f, 'must be a mapping like {id: ending, tiles: [a, b], close: {bar: 15}}');
    return null;
  }
  if (typeof v.id !== 'string' || !ID_RE.test(v.id)) {
    problem(`${f}.id`, 'must be an id of lower-case letters, digits, "-" or "_"');
    return null;
  }
  const tiles = v.tiles;
  if (Array.isArray(tiles) && tiles.length > LIMITS.voteTiles) {
    problem(`${f}.tiles`, `lists ${tiles.length} tiles, more than the ${LIMITS.voteTiles} a vote may have`);
    return null;
  }
  if (
    !Array.isArray(tiles) ||
    tiles.length < 2 ||
    !tiles.every((t) => isId(t)) ||
    new Set(tiles).size !== tiles.length
  ) {
    problem(`${f}.tiles`, 'must list at least two distinct tile ids to vote between');
    return null;
  }
  const close = position(v.close, `${f}.close`);
  if (close === null) return null;
  if (close <= open) {
    problem(`${f}.close`, `is at beat ${close}, not after the vote opens (beat ${open}); close it later`);
    return null;
  }
  /** @type {Record<string, { seek: number }>} */
  const decides = {};
  if (v.decides !== undefined) {
    if (!isObject(v.decides)) {
      problem(`${f}.decides`, 'must map tiles to actions, e.g. {a: {seek: {bar: 17}}}');
      return null;
    }
    for (const [tile, action] of Object.entries(v.decides)) {
      if (!tiles.includes(tile)) {
        problem(`${f}.decides.${tile}`, `"${tile}" is not one of the vote's tiles (${tiles.join(', ')})`);
        return null;
      }
      if (!isObject(action) || action.seek === undefined) {
        problem(`${f}.decides.${tile}`, 'must be an action like {seek: {bar: 17}}');
        return null;
      }
      const seek = position(action.seek, `${f}.decides.${tile}.seek`);
      if (seek === null) return null;
      decides[tile] = { seek };
    }
  }
  return { id: v.id, tiles, open, close, decides };
}

/**
 * Whether a piece of `bars` bars and `beats` beats (performance order) is within the bounds;
 * reports the problem at `field` when not.
 * @param {number} bars
 * @param {number} beats
 * @param {string} field
 * @param {(field: string, message: string) => void} problem
 */
function withinBounds(bars, beats, field, problem) {
  if (bars > LIMITS.bars)
    problem(
      field,
      `has ${bars} bars in performance order, more than the ${LIMITS.bars} a package may have; split the piece into movements`,
    );
  else if (beats > LIMITS.beats)
    problem(
      field,
      `has ${beats} beats in performance order, more than the ${LIMITS.beats} a package may have; split the piece into movements`,
    );
  else return true;
  return false;
}

/**
 * Why a cue's patch is too big for every phone to receive, or null: its JSON size, its nesting
 * and its tiles are bounded.
 * @param {Record<string, unknown>} set
 * @returns {string | null}
 */
function patchTooBig(set) {
  if (Array.isArray(set.tiles) && set.tiles.length > LIMITS.tiles)
    return `tiles: lists ${set.tiles.length} tiles, more than the ${LIMITS.tiles} a cue may set`;
  /** @type {[unknown, number][]} */
  const stack = [[set, 1]];
  let nodes = 0;
  while (stack.length > 0) {
    const [v, depth] = /** @type {[unknown, number]} */ (stack.pop());
    if (v === null || typeof v !== 'object') continue;
    if (depth > LIMITS.cueDepth) return `nests deeper than ${LIMITS.cueDepth} levels; a cue sets flat values`;
    // Each node costs at least two bytes of JSON: past this count the size check fails anyway.
    if (++nodes > LIMITS.cueBytes) break;
    for (const child of Object.values(v)) stack.push([child, depth + 1]);
  }
  const bytes = JSON.stringify(set).length;
  if (bytes > LIMITS.cueBytes)
    return `is ${formatBytes(bytes)} as JSON, more than the ${formatBytes(LIMITS.cueBytes)} a cue may send to every phone; put large content in an asset file`;
  return null;
}

/**
 * `pageChoices`: pages the audience chooses (core/page-choice.js), e.g.
 * `{ slot: 9, at: 112, from: [1, 8], groups: [1], vote: slot-9, tiles: { t2-1: 1 } }`; `from` may
 * list several ranges, `[[1, 8], [17, 24]]`.
 * @param {unknown} list
 * @param {{ pageCount: number, votes: Vote[], totalBeats: number, problem: (field: string, message: string) => void,
 *   out: import('./page-choice.js').PageChoice[] }} ctx  pageCount: pages of the part with fewest
 */
function checkPageChoices(list, { pageCount, votes, totalBeats, problem, out }) {
  if (!Array.isArray(list)) {
    problem('pageChoices', 'must be a list like [{slot: 9, at: 112, from: [1, 8], groups: [1]}]');
    return;
  }
  const page = (/** @type {unknown} */ n) =>
    Number.isInteger(n) && /** @type {number} */ (n) >= 1 && /** @type {number} */ (n) <= pageCount;
  list.forEach((c, i) => {
    const f = `pageChoices[${i}]`;
    if (!isObject(c)) {
      problem(f, 'must be a mapping like {slot: 9, at: 112, from: [1, 8], groups: [1]}');
      return;
    }
    if (pageCount === 0) {
      problem(f, 'needs page images for every part (pages: ...): a choice fills a page of each part');
      return;
    }
    if (!page(c.slot)) {
      problem(`${f}.slot`, `must be a page number of every part, 1..${pageCount}`);
      return;
    }
    if (!(Number.isInteger(c.at) && c.at >= 0 && c.at < totalBeats)) {
      problem(`${f}.at`, `must be the beat of the decision, 0..${totalBeats - 1}`);
      return;
    }
    const ranges = Array.isArray(c.from) && c.from.every((r) => Array.isArray(r)) ? c.from : [c.from];
    if (
      !(
        ranges.length >= 1 &&
        ranges.length <= 64 &&
        ranges.every((r) => Array.isArray(r) && r.length === 2 && page(r[0]) && page(r[1]) && r[0] <= r[1])
      )
    ) {
      problem(`${f}.from`, `must be [first, last] page numbers (or a list of them), within 1..${pageCount}`);
      return;
    }
    if (
      !(
        Array.isArray(c.groups) &&
        c.groups.length >= 1 &&
        c.groups.length <= 64 &&
        c.groups.every((g) => Number.isInteger(g) && g >= 1 && g <= 64)
      )
    ) {
      problem(`${f}.groups`, 'must list how many parts play each chosen page, e.g. [1] or [2, 1]');
      return;
    }
    const vote = c.vote === undefined ? null : votes.find((v) => v.id === c.vote);
    if (vote === undefined) {
      problem(`${f}.vote`, `"${String(c.vote).slice(0, 64)}" is not a vote of this score`);
      return;
    }
    if (vote && vote.close > c.at) {
      problem(
        `${f}.vote`,
        `"${vote.id}" closes at beat ${vote.close}, after the decision (beat ${c.at}); close it at or before the decision`,
      );
      return;
    }
    /** @type {Record<string, number>} */
    const tiles = {};
    if (c.tiles !== undefined) {
      if (!isObject(c.tiles)) {
        problem(`${f}.tiles`, 'must map tiles to pages, e.g. {t2-1: 1}');
        return;
      }
      for (const [tile, n] of Object.entries(c.tiles)) {
        if (!isId(tile) || !page(n)) {
          problem(`${f}.tiles.${tile.slice(0, 64)}`, `must be a page number 1..${pageCount}`);
          return;
        }
        tiles[tile] = n;
      }
    }
    if (c.seed !== undefined && !Number.isInteger(c.seed)) {
      problem(`${f}.seed`, 'must be a whole number');
      return;
    }
    const next = c.next === undefined ? [] : Array.isArray(c.next) ? c.next : [c.next];
    const stray = next.find((t) => typeof t !== 'string' || tiles[t] === undefined);
    if (stray !== undefined || next.length > 64) {
      problem(
        `${f}.next`,
        `must list tiles of this choice's \`tiles\` (the composer's next tiles), e.g. [${Object.keys(tiles)[0] ?? 't2-1'}]`,
      );
      return;
    }
    if (out.some((o) => o.slot === c.slot)) {
      problem(`${f}.slot`, `page ${c.slot} is chosen by another entry; one choice a slot`);
      return;
    }
    out.push({
      slot: c.slot,
      at: c.at,
      from: ranges.map((r) => /** @type {[number, number]} */ ([r[0], r[1]])),
      groups: [...c.groups],
      vote: vote ? vote.id : null,
      tiles,
      next: [...next],
      seed: c.seed ?? 0,
    });
  });
  out.sort((a, b) => a.at - b.at);
}

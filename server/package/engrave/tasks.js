// The work done inside an engraving worker: a score task reads the notation, times it and
// engraves the full score; a part task engraves one part from the MEI the score task cut out, on
// the A4 page; a layouts task engraves that part on the narrower pages, after the rest is ready.
// Synchronous on purpose: a worker does one task at a time and never blocks the server.

import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { readNotation } from './source.js';
import { checkParts, extractStaves, staffNumbersOf } from './parts.js';
import { localName, parseXml, walk } from './xml.js';
import { deriveTiming } from './timing.js';
import { readPageLayout } from './svg-layout.js';
import { mapView } from './place-beats.js';
import { containEngravedSvg } from './contained-svg.js';
import { BROTLI_QUALITY, IMPORT_OPTIONS, PART_LAYOUTS, TIMEMAP_OPTIONS, XML_ID_SEED, scoreLayout } from './options.js';

/**
 * The subset of Verovio's toolkit we use (verovio/esm VerovioToolkit).
 * @typedef {object} Toolkit
 * @property {() => void} resetOptions
 * @property {(options: object) => void} setOptions
 * @property {(seed: number) => void} resetXmlIdSeed
 * @property {(data: string) => boolean} loadData
 * @property {(options?: object) => void} redoLayout
 * @property {() => number} getPageCount
 * @property {(page: number) => string} renderToSVG
 * @property {(options?: object) => import('./timing.js').TimemapEntry[]} renderToTimemap
 * @property {(options?: object) => string} getMEI
 * @property {() => string} getLog
 */

/**
 * A view as engraved: its pages, and where its measures and notes are (place-beats.js makes the
 * beat map from this and the score's timing).
 * @typedef {object} EngravedView
 * @property {{ file: string, width: number, height: number }[]} pages
 * @property {number} staff  staff height in page units (0 if no page has a staff)
 * @property {import('./place-beats.js').SystemInk[]} ink
 * @property {import('./svg-layout.js').MeasureBox[]} measures
 * @property {string[]} ids  note and rest ids ...
 * @property {number[]} xs   ... and their x
 */

/**
 * @typedef {object} ScoreTask
 * @property {string} file
 * @property {Uint8Array} bytes
 * @property {import('./parts.js').PartRequest[]} parts
 * @property {string} outDir
 */

/**
 * @typedef {object} PartTask
 * @property {string} file
 * @property {string} id
 * @property {string} mei
 * @property {string} outDir
 */

/** @typedef {{ ok: false, problems: string[] }} Problems */

/**
 * What a score task tells the pool on the way: first the parts' documents, as soon as they are
 * cut out, so that other workers engrave them while this one times and engraves the score; then
 * the timing (JSON), which the part tasks wait for to make their beat maps.
 * @typedef {{ parts: { id: string, mei: string }[] } | { timing: string }} ScoreProgress
 */

/**
 * Read, time and engrave the full score.
 * @param {Toolkit} tk
 * @param {ScoreTask} task
 * @param {(progress: ScoreProgress) => void} progress
 * @returns {Problems | { ok: true, bars: import('../../../core/tempo-map.js').BarSpec[], warnings: string[], view: import('./place-beats.js').View }}
 */
export function scoreTask(tk, task, progress) {
  const name = path.basename(task.file);
  const problem = (/** @type {string} */ text) => ({
    ok: /** @type {const} */ (false),
    problems: [`${name}: ${text}`],
  });
  const src = readNotation(task.file, Buffer.from(task.bytes.buffer, task.bytes.byteOffset, task.bytes.byteLength));
  if (!src.ok) return src;
  const checked = checkParts(name, src.value, task.parts);
  if (!checked.ok) return checked;

  if (!load(tk, IMPORT_OPTIONS, src.value.text))
    return problem(
      `Verovio could not read it (${firstLogLine(tk)}); open it in your notation program and export it again`,
    );
  const meiText = tk.getMEI();
  const mei = parseXml(meiText);
  if (!mei.ok)
    return problem(`Verovio's reading of it is not well-formed (line ${mei.line}: ${mei.message}); report this file`);
  const parts = [];
  for (const part of checked.parts) {
    const staves = staffNumbersOf(mei.root, src.value.format, part.source);
    if (staves.length === 0)
      return problem(`Verovio did not keep part ${part.source} apart from the others; report this file`);
    parts.push({ id: part.id, mei: extractStaves(meiText, mei.root, new Set(staves)) });
  }
  progress({ parts });

  const timed = deriveTiming(mei.root, tk.renderToTimemap(TIMEMAP_OPTIONS), src.value.form, meiText);
  if (!timed.ok) return { ok: false, problems: timed.problems.map((p) => `${name}: ${p}`) };
  progress({ timing: JSON.stringify(timed.timing) });
  tk.resetOptions();
  tk.setOptions(scoreLayout(staffCount(mei.root)));
  tk.redoLayout();
  const mapped = mapView(timed.timing, 'score', engraveView(tk, 'score', task.outDir));
  return { ok: true, bars: timed.timing.bars, warnings: [...timed.warnings, ...mapped.warnings], view: mapped.view };
}

/**
 * How many staves the score has: the staff numbers its staff definitions give.
 * @param {import('./xml.js').XmlElement} meiRoot
 */
function staffCount(meiRoot) {
  const numbers = new Set();
  walk(meiRoot, (el) => {
    if (localName(el) === 'meiHead') return false;
    if (localName(el) === 'staffDef') numbers.add(el.attrs.n);
    return localName(el) !== 'section';
  });
  return numbers.size;
}

/**
 * A part's instrument name is written once, at its start, as on printed parts: the short name
 * before every later system takes room a narrow layout cannot spare.
 */
const SHORT_LABELS = /<labelAbbr\b[^>]*>[\s\S]*?<\/labelAbbr>|<labelAbbr\b[^>]*\/>/g;

/**
 * Engrave one part from its MEI in its first layout (options.js, PART_LAYOUTS: the A4 page),
 * then map its beats once the score's timing comes. The narrower layouts come later, in a
 * layouts task (layoutsTask), so that a performance does not wait for them.
 * @param {Toolkit} tk
 * @param {PartTask} task
 * @param {() => Promise<string | null>} timing JSON of the score's Timing; null if the score failed
 * @returns {Promise<Problems | { ok: true, warnings: string[], view: import('./place-beats.js').View }>}
 */
export async function partTask(tk, task, timing) {
  const name = path.basename(task.file);
  const [first] = PART_LAYOUTS;
  if (!load(tk, first.options, task.mei.replace(SHORT_LABELS, ''))) return unreadable(tk, name, task.id);
  const engraved = engraveView(tk, task.id, task.outDir);
  const json = await timing();
  if (json === null)
    return {
      ok: false,
      problems: [`${name}: the score could not be timed, so neither can part "${task.id}"; see the score's problems`],
    };
  return { ok: true, ...mapView(JSON.parse(json), task.id, engraved) };
}

/**
 * @typedef {object} LayoutsTask
 * @property {string} file
 * @property {string} id      the part
 * @property {string} mei     the part's document, as the score task cut it out
 * @property {string} timing  JSON of the score's Timing
 * @property {string[]} layouts  names from PART_LAYOUTS, other than the first
 * @property {string} outDir
 */

/**
 * Engrave a part in its narrower layouts. One load: the layouts are the same document laid out
 * again, and its element ids are written in the MEI, so the beat maps agree with the A4 page's.
 * The layouts hold the same bars as the A4 page: its warnings say all there is to say.
 * @param {Toolkit} tk
 * @param {LayoutsTask} task
 * @returns {Problems | { ok: true, layouts: import('./place-beats.js').Layout[] }}
 */
export function layoutsTask(tk, task) {
  const name = path.basename(task.file);
  const wanted = PART_LAYOUTS.filter((l) => task.layouts.includes(l.name));
  /** @type {import('./place-beats.js').Layout[]} */
  const layouts = [];
  const timed = JSON.parse(task.timing);
  for (const [i, layout] of wanted.entries()) {
    if (i === 0) {
      if (!load(tk, layout.options, task.mei.replace(SHORT_LABELS, ''))) return unreadable(tk, name, task.id);
    } else {
      tk.setOptions(layout.options);
      tk.redoLayout();
    }
    // Part ids have no "." (core/manifest.js), so these names never meet another part's.
    const engraved = engraveView(tk, `${task.id}.${layout.name}`, task.outDir);
    layouts.push({ name: layout.name, ...mapView(timed, task.id, engraved).view });
  }
  return { ok: true, layouts };
}

/**
 * @param {Toolkit} tk
 * @param {string} name
 * @param {string} id
 * @returns {Problems}
 */
const unreadable = (tk, name, id) => ({
  ok: false,
  problems: [`${name}: part "${id}" could not be engraved (${firstLogLine(tk)}); report this file`],
});

/**
 * Load a document with these options and the fixed id seed: ids depend on the seed and on the
 * calls made since it was set, so every load starts from the same state.
 * @param {Toolkit} tk
 * @param {object} options
 * @param {string} data
 * @returns {boolean} whether Verovio read it and has something to engrave
 */
function load(tk, options, data) {
  tk.resetOptions();
  tk.setOptions(options);
  tk.resetXmlIdSeed(XML_ID_SEED);
  return Boolean(tk.loadData(data)) && tk.getPageCount() > 0;
}

/**
 * Render every page of the loaded document to `<view>-<n>.svg` (and .br, .gz), and read where
 * its measures and notes are.
 * @param {Toolkit} tk
 * @param {string} name
 * @param {string} outDir
 * @returns {EngravedView}
 */
function engraveView(tk, name, outDir) {
  /** @type {EngravedView} */
  const view = { pages: [], staff: 0, ink: [], measures: [], ids: [], xs: [] };
  const count = tk.getPageCount();
  for (let p = 1; p <= count; p++) {
    const { svg } = containEngravedSvg(tk.renderToSVG(p));
    const file = `${name}-${p}.svg`;
    const data = Buffer.from(svg);
    writeFileSync(path.join(outDir, file), data);
    writeFileSync(
      path.join(outDir, `${file}.br`),
      brotliCompressSync(data, {
        params: { [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY, [constants.BROTLI_PARAM_SIZE_HINT]: data.length },
      }),
    );
    writeFileSync(path.join(outDir, `${file}.gz`), gzipSync(data));
    const page = readPageLayout(svg, p - 1);
    view.pages.push({ file, width: page.width, height: page.height });
    view.staff ||= page.staff;
    for (const i of page.ink) view.ink.push({ page: p - 1, ...i });
    view.measures.push(...page.measures);
    for (const [id, x] of page.x) {
      view.ids.push(id);
      view.xs.push(x);
    }
  }
  return view;
}

/**
 * The first error or warning Verovio logged, for a problem message.
 * @param {Toolkit} tk
 */
function firstLogLine(tk) {
  const lines = tk
    .getLog()
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  return (lines.find((l) => l.startsWith('[Error]')) ?? lines[0] ?? 'no reason given').replace(/^\[\w+\]\s*/, '');
}

// The beat maps of the imported views (beatmaps/<view>.json), checked with the same rules the
// server applies, and what the report says about them.

import { checkBeatMap, describeBeatMapProblem } from '../../../core/beatmap.js';

/**
 * @param {import('./views.js').View[]} views
 * @param {number} totalBeats
 * @param {import('./log.js').ImportLog} log
 */
export function buildBeatMaps(views, totalBeats, log) {
  const { converted, notes } = log;
  /** @type {Record<string, { files: string[], beatmap: string }>} */
  const pages = {};
  /** @type {Record<string, string>} */
  const beatmaps = {};
  for (const v of views) {
    const file = `beatmaps/${v.id}.json`;
    const value = {
      pages: v.pages.map((p) => ({ file: p.out, width: p.width, height: p.height })),
      beats: v.beats.map((b, i) => ({
        beat: i,
        page: b.page,
        system: b.system,
        bar: b.bar,
        x0: b.x0,
        x1: b.x1,
        ...staffSpan(b, v.pages[b.page].height),
      })),
    };
    const checked = checkBeatMap(value, { file, totalBeats, pageCount: v.pages.length });
    if (!checked.ok) {
      log.problems.push(...checked.problems.map(describeBeatMapProblem));
      continue;
    }
    beatmaps[file] = beatMapJson(value);
    pages[v.id] = { files: v.pages.map((p) => p.out), beatmap: file };
    for (const p of v.pages)
      converted.push({
        source: p.png,
        what: p.png,
        result: `${p.out} (${p.width}x${p.height}), page ${p.no} of view ${v.id}`,
      });
    const systems = new Set(v.beats.map((b) => `${b.page}:${b.system}`)).size;
    converted.push({
      source: [...new Set(v.pages.map((p) => p.csv))].join(', '),
      what: `beat positions of ${v.instrument}`,
      result: `${file}: ${v.beats.length} beats on ${v.pages.length} page${v.pages.length === 1 ? '' : 's'} in ${systems} system${systems === 1 ? '' : 's'}`,
    });
    const wide = v.beats.find((b) => b.x1 > v.pages[b.page].width);
    if (wide)
      notes.push(
        `${wide.source}: xEndPxl ${wide.x1} is beyond the width of ${v.pages[wide.page].png} (${v.pages[wide.page].width} px); ZScore measures x in points of the Illustrator artboard, so the PNG may have been exported at another scale: scale the beat map's x to match`,
      );
  }
  return { pages, beatmaps };
}

/**
 * What the report says about the views once their beat maps are made.
 * @param {import('./views.js').View[]} views
 * @param {import('./log.js').ImportLog} log
 */
export function noteViews(views, log) {
  const flat = views.flatMap((v) => v.beats.filter((b) => b.y0 === b.y1).map(() => v.instrument));
  if (flat.length > 0) {
    log.notes.push(
      `yStartPxl equals yEndPxl for ${flat.length} beats of ${[...new Set(flat)].join(', ')} (ZScore's exporter writes a fixed 100, which marks no staff): their beat boxes span the whole page height, so the page is shown whole and the cursor crosses every staff of the system; systems were found where the beats go back to the left`,
    );
  }
  for (const v of views)
    log.notes.push(
      `ZScore instrument "${v.instrument}" is the view \`${v.id}\` (${v.id === 'score' ? 'the full score' : `part id ${v.id}`})`,
    );
}

/**
 * The vertical extent of a beat box. ZScore's exporter writes yStartPxl = yEndPxl = 100 for every
 * beat (DEFAULT_Y_POSITION in zscoreManager.jsx), a line that marks no staff; such a beat spans
 * the page's height, as ZScore's players draw their beat lines.
 * @param {{ y0: number, y1: number }} b
 * @param {number} height  page height
 */
function staffSpan(b, height) {
  return b.y0 === b.y1 ? { y0: 0, y1: height } : { y0: b.y0, y1: b.y1 };
}

/**
 * A beat map as JSON with one page and one beat per line.
 * @param {{ pages: object[], beats: object[] }} value
 */
function beatMapJson(value) {
  const list = (/** @type {object[]} */ items) => items.map((x) => `    ${JSON.stringify(x)}`).join(',\n');
  return `{\n  "pages": [\n${list(value.pages)}\n  ],\n  "beats": [\n${list(value.beats)}\n  ]\n}\n`;
}

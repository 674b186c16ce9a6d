// A beat map from bar lines (doc/score-format.md, "Placing bars in the preview"): the composer
// clicks each bar line on the pages while the tempo map is known, and the beats of every bar are
// spread evenly between its two bar lines. Clicks become bar positions here (the preview draws
// them), bar positions are checked as untrusted input and become the beat map's CSV (the server
// writes it). Pure: no I/O; runs in Node and the browser.

import { BEATMAP_CSV_COLUMNS, barRanges } from './beatmap.js';
import { PACKAGE_LIMITS as LIMITS } from './package-limits.js';
import { isObject } from './values.js';

/**
 * @typedef {object} BarLineClick  a click on a page, in page units from its top left corner
 * @property {number} page
 * @property {number} x
 * @property {number} y
 */

/**
 * @typedef {object} BarPosition  where one written bar is drawn
 * @property {number} bar
 * @property {number} page
 * @property {number} system
 * @property {number} x0
 * @property {number} x1
 * @property {number} y0
 * @property {number} y1
 */

/**
 * @typedef {object} WrittenBar
 * @property {number} bar    written bar number
 * @property {number} beats  beats it sounds the first time it is played
 */

/** Most systems a page may have in a bar-line map. */
export const MAX_SYSTEMS_PER_PAGE = 64;

/**
 * The written bars in the order they are first played (a repeated bar is placed once).
 * @param {{ bar: number, beats: number }[]} bars  the tempo map's bars, in performance order
 * @returns {WrittenBar[]}
 */
export function writtenBars(bars) {
  const seen = new Set();
  /** @type {WrittenBar[]} */
  const out = [];
  for (const b of bars) {
    if (seen.has(b.bar)) continue;
    seen.add(b.bar);
    out.push({ bar: b.bar, beats: b.beats });
  }
  return out;
}

/**
 * Group clicks into systems: a click starts a new system when it is on another page or left of
 * the click before it (bar lines are clicked left to right; the next line starts on the left).
 * @param {BarLineClick[]} clicks
 * @returns {{ page: number, clicks: BarLineClick[] }[]}
 */
export function systemsOfClicks(clicks) {
  /** @type {{ page: number, clicks: BarLineClick[] }[]} */
  const systems = [];
  for (const c of clicks) {
    const last = systems[systems.length - 1];
    const prev = last?.clicks[last.clicks.length - 1];
    if (last && prev && last.page === c.page && c.x > prev.x) last.clicks.push(c);
    else systems.push({ page: c.page, clicks: [c] });
  }
  return systems;
}

const round = (/** @type {number} */ n) => Math.round(n * 100) / 100;

/**
 * Bar positions from the clicks so far: each system's first click is where its first bar starts,
 * each further click the bar line ending a bar. A system's height runs halfway to the systems
 * above and below it on its page (a page's only system: 8% of the page's height either side of
 * the clicks), so that the view's line takes the notes above and below the staves.
 * @param {BarLineClick[]} clicks
 * @param {WrittenBar[]} bars  in the order they are placed
 * @param {{ width: number, height: number }[]} pageSizes
 * @returns {BarPosition[]}  the bars placed so far, in order (clicks past the last bar are left out)
 */
export function barPositionsFromClicks(clicks, bars, pageSizes) {
  const systems = systemsOfClicks(clicks);
  const ys = systems.map((s) => s.clicks.reduce((sum, c) => sum + c.y, 0) / s.clicks.length);
  /** @type {BarPosition[]} */
  const out = [];
  /** @type {Map<number, number>} */
  const onPage = new Map();
  systems.forEach((s, k) => {
    const system = onPage.get(s.page) ?? 0;
    onPage.set(s.page, system + 1);
    const height = pageSizes[s.page]?.height ?? 0;
    const above = systems[k - 1]?.page === s.page ? ys[k - 1] : null;
    const below = systems[k + 1]?.page === s.page ? ys[k + 1] : null;
    const half =
      above !== null ? (ys[k] - above) / 2 : below !== null ? (below - ys[k]) / 2 : Math.max(1, height * 0.08);
    const halfBelow = below !== null ? (below - ys[k]) / 2 : half;
    const y0 = round(Math.max(0, ys[k] - half));
    const y1 = round(Math.min(height || Infinity, ys[k] + halfBelow));
    for (let i = 1; i < s.clicks.length && out.length < bars.length; i++) {
      out.push({
        bar: bars[out.length].bar,
        page: s.page,
        system,
        x0: round(s.clicks[i - 1].x),
        x1: round(s.clicks[i].x),
        y0,
        y1,
      });
    }
  });
  return out;
}

/**
 * Check bar positions sent to be written (untrusted): every written bar once, on a page of the
 * view, inside it. Returns a clean copy in the bars' order, or the problems (never throws).
 * @param {unknown} value  `{ bars: BarPosition[] }`
 * @param {{ bars: WrittenBar[], pageSizes: { width: number, height: number }[] }} score
 * @returns {{ ok: true, value: BarPosition[] } | { ok: false, problems: string[] }}
 */
export function checkBarPositions(value, { bars, pageSizes }) {
  /** @type {string[]} */
  const problems = [];
  if (!isObject(value) || !Array.isArray(value.bars))
    return { ok: false, problems: ['must be {"bars": [{"bar", "page", "system", "x0", "x1", "y0", "y1"}, ...]}'] };
  const list = /** @type {unknown[]} */ (value.bars);
  if (list.length > bars.length || list.length > LIMITS.beats)
    return {
      ok: false,
      problems: [`lists ${list.length} bars; the score has ${bars.length} written bars, place each once`],
    };
  const known = new Set(bars.map((b) => b.bar));
  /** @type {Map<number, BarPosition>} */
  const byBar = new Map();
  list.forEach((p, i) => {
    if (problems.length >= 20) return;
    const at = `bars[${i}]`;
    if (!isObject(p)) {
      problems.push(`${at}: must be {"bar", "page", "system", "x0", "x1", "y0", "y1"}`);
      return;
    }
    /** @type {Record<string, number>} */
    const n = {};
    for (const k of ['bar', 'page', 'system', 'x0', 'x1', 'y0', 'y1']) {
      const v = p[k];
      if (!(typeof v === 'number' && Number.isFinite(v))) {
        problems.push(`${at}.${k}: must be a finite number`);
        return;
      }
      if (['bar', 'page', 'system'].includes(k) && !Number.isInteger(v)) {
        problems.push(`${at}.${k}: must be a whole number`);
        return;
      }
      n[k] = v;
    }
    if (!known.has(n.bar)) {
      problems.push(`${at}.bar: bar ${n.bar} is not a bar of the score`);
      return;
    }
    if (byBar.has(n.bar)) {
      problems.push(`${at}.bar: bar ${n.bar} is placed twice`);
      return;
    }
    const size = pageSizes[n.page];
    if (n.page < 0 || !size) {
      problems.push(
        `${at}.page: page ${n.page} does not exist; the view has ${pageSizes.length} (0..${pageSizes.length - 1})`,
      );
      return;
    }
    if (n.system < 0 || n.system >= MAX_SYSTEMS_PER_PAGE) {
      problems.push(`${at}.system: must be from 0 to ${MAX_SYSTEMS_PER_PAGE - 1}`);
      return;
    }
    if (!(n.x0 >= 0 && n.x0 < n.x1 && n.x1 <= size.width && n.y0 >= 0 && n.y0 < n.y1 && n.y1 <= size.height)) {
      problems.push(
        `${at}: bar ${n.bar}'s box ${n.x0},${n.y0} to ${n.x1},${n.y1} is not inside page ${n.page} (${size.width} x ${size.height}) from left to right and top to bottom`,
      );
      return;
    }
    byBar.set(n.bar, /** @type {BarPosition} */ (/** @type {unknown} */ (n)));
  });
  if (problems.length > 0) return { ok: false, problems };
  const missing = bars.filter((b) => !byBar.has(b.bar)).map((b) => b.bar);
  if (missing.length > 0)
    return {
      ok: false,
      problems: [
        `bar${missing.length === 1 ? '' : 's'} ${barRanges(missing)} ha${missing.length === 1 ? 's' : 've'} no position; place every bar`,
      ],
    };
  return { ok: true, value: bars.map((b) => /** @type {BarPosition} */ (byBar.get(b.bar))) };
}

/**
 * The beat map's beats from bar positions: every playing of a bar (repeats too) at its bar's
 * position, its beats spread evenly across it.
 * @param {BarPosition[]} positions
 * @param {{ bar: number, startBeat: number, beats: number }[]} bars  the tempo map's, in performance order
 * @returns {import('./beatmap.js').BeatEntry[]}
 */
export function beatsFromBarPositions(positions, bars) {
  const byBar = new Map(positions.map((p) => [p.bar, p]));
  /** @type {import('./beatmap.js').BeatEntry[]} */
  const beats = [];
  for (const b of bars) {
    const p = byBar.get(b.bar);
    if (!p) continue;
    const step = (p.x1 - p.x0) / b.beats;
    for (let k = 0; k < b.beats; k++) {
      beats.push({
        beat: b.startBeat + k,
        page: p.page,
        system: p.system,
        bar: b.bar,
        x0: round(p.x0 + k * step),
        x1: k === b.beats - 1 ? p.x1 : round(p.x0 + (k + 1) * step),
        y0: p.y0,
        y1: p.y1,
      });
    }
  }
  return beats;
}

/**
 * A beat map's CSV form (what parseBeatMapCsv reads).
 * @param {import('./beatmap.js').BeatEntry[]} beats
 */
export function beatMapCsv(beats) {
  const rows = beats.map((b) => BEATMAP_CSV_COLUMNS.map((k) => String(b[/** @type {keyof typeof b} */ (k)])).join(','));
  return `${BEATMAP_CSV_COLUMNS.join(',')}\n${rows.join('\n')}\n`;
}

// What `scorecast check` tells a composer about a package that loads: what will be performed
// (bars in performance order, as ranges of written bars), how long it lasts, and every warning
// (the written bars alone hide repeats played wrong). Pure: takes a loaded package.

import { barRanges } from '../../core/beatmap.js';
import { ruleWords } from '../../core/meter-rules.js';

/**
 * Bars in performance order as ranges of written bar numbers: "0-8 0-8 9-16".
 * @param {{ bar: number }[]} bars
 */
export function performedRanges(bars) {
  /** @type {[number, number][]} */
  const ranges = [];
  for (const { bar } of bars) {
    const last = ranges[ranges.length - 1];
    if (last && bar === last[1] + 1) last[1] = bar;
    else ranges.push([bar, bar]);
  }
  return ranges.map(([a, b]) => (a === b ? String(a) : `${a}-${b}`)).join(' ');
}

/** @param {number} ms */
export function clockTime(ms) {
  const s = Math.round(ms / 1000);
  const h = Math.floor(s / 3600);
  const mm = String(Math.floor((s % 3600) / 60));
  const ss = String(s % 60).padStart(2, '0');
  return h ? `${h}:${mm.padStart(2, '0')}:${ss}` : `${mm}:${ss}`;
}

/**
 * @typedef {object} CheckReport
 * @property {true} valid
 * @property {string} dir
 * @property {string} title
 * @property {string} composer
 * @property {number} writtenBars    the last written bar's number (bars 1..N, and a pickup 0)
 * @property {number} playedBars     bars performed, repeats included
 * @property {number} beats
 * @property {number} seconds
 * @property {string} order          performedRanges
 * @property {string[]} views
 * @property {{ view: string, file: string, type: string, width: number | null, height: number | null, seconds: number | null, start: number }[]} videos
 *   the video parts, as the browsers will be given them
 * @property {number} cues
 * @property {number} votes
 * @property {{ id: string, first: number, last: number, next: string[], overlays: string[], when: string[] }[]} [sections]
 *   an open-form piece's sections (beats first..last), with their overlays and meter rules in words
 * @property {string[]} warnings
 */

/**
 * An overlay in words: "dynamics over violin, from the meter (0.2..1)", "timbre over every part at 0.3".
 * @param {import('../../core/part-overlays.js').Overlay} o
 */
export function overlayWords(o) {
  const over = o.parts === null ? 'every part' : o.parts.join(', ');
  return o.source === 'meter'
    ? `${o.band} over ${over}, from the meter (${o.range[0]}..${o.range[1]})`
    : `${o.band} over ${over} at ${o.value}`;
}

/**
 * @param {import('../package/load.js').ScorePackage} pkg
 * @param {string} dir  as the user should read it
 * @returns {CheckReport}
 */
export function checkReport(pkg, dir) {
  const { model } = pkg;
  const map = model.map;
  return {
    valid: true,
    dir,
    title: model.title,
    composer: model.composer,
    writtenBars: map.lastBar,
    playedBars: map.bars.length,
    beats: map.totalBeats,
    seconds: Math.round(map.durationMs) / 1000,
    order: performedRanges(map.bars),
    views: model.views,
    videos: Object.entries(pkg.videos ?? {}).map(([view, v]) => ({
      view,
      file: /** @type {any} */ (model.video)?.[view]?.file ?? '',
      type: v.video.type,
      width: v.video.width,
      height: v.video.height,
      seconds: v.video.duration,
      start: v.video.start,
    })),
    cues: model.cues.length,
    votes: model.votes.length,
    ...(model.openForm
      ? {
          sections: model.openForm.sections.map((x) => ({
            id: x.id,
            first: x.first,
            last: x.end - 1,
            next: x.next,
            overlays: x.overlays.map(overlayWords),
            when: x.when.map(ruleWords),
          })),
        }
      : {}),
    warnings: pkg.warnings,
  };
}

/**
 * What `check` refuses in a package the server would still load: image views whose beat map is
 * not made yet (the preview loads them so that their bars can be placed), with their bars.
 * @param {import('../package/load.js').ScorePackage} pkg
 * @returns {string[]}
 */
export function unplacedProblems(pkg) {
  const bars = [...new Set(pkg.model.map.bars.map((b) => b.bar))].sort((a, b) => a - b);
  return Object.entries(pkg.views)
    .filter(([, v]) => v.unplaced)
    .map(
      ([view]) =>
        `pages.${view}.beatmap: ${pkg.model.pages?.[view]?.beatmap} does not exist yet: bar${bars.length === 1 ? '' : 's'} ${barRanges(bars)} of ${view} ha${bars.length === 1 ? 's' : 've'} no position; place them in the preview's bar-line mode (scorecast preview, Beat map)`,
    );
}

/**
 * The report as the composer reads it in a terminal.
 * @param {CheckReport} r
 */
export function formatCheckReport(r) {
  const lines = [
    `${r.dir}: "${r.title}"${r.composer ? ` by ${r.composer}` : ''} is valid: ${r.writtenBars} bars, ${r.beats} beats, ` +
      `${Math.round(r.seconds)} s, views ${r.views.join(', ')}, ${r.cues} cues, ${r.votes} votes`,
    `performed: ${r.playedBars} bars, ${clockTime(r.seconds * 1000)}: bars ${r.order}`,
    ...(r.videos ?? []).map(
      (v) =>
        `video ${v.view}: ${v.file} (${v.type}${v.width ? `, ${v.width}x${v.height}` : ''}${v.seconds !== null ? `, ${Math.round(v.seconds * 10) / 10} s` : ''}${v.start ? `, from ${v.start} s` : ''})`,
    ),
    ...(r.sections ?? []).map(
      (x) =>
        `section ${x.id}: beats ${x.first}-${x.last}${x.next.length > 0 ? `, then ${x.next.join(' or ')}` : ''}` +
        (x.overlays.length > 0 ? `; overlays: ${x.overlays.join('; ')}` : '') +
        (x.when.length > 0 ? `; when ${x.when.join('; ')}` : ''),
    ),
    ...r.warnings.map((w) => `warning: ${w}`),
  ];
  return `${lines.join('\n')}\n`;
}

// What ZScore's rose page draws over its tiles (zsweb src/js/adncUnionRose.js; szcore
// UnionRoseWebAudienceProcessor.setPlayTileActions), from the audience cue:
// - `playing: { at, fade, sweep }`: the tiles in state `playing` fade out over `fade` ms from beat
//   `at` while a play line sweeps across each, from its start edge to its end edge, over `sweep`
//   ms, showing in and out over half a second (ZScore's ALPHA and play-line ROTATE actions);
// - `showSelected: { at, ms }`: the closing picture. The tiles this phone selected, one a ring
//   (its last choice in each), are outlined and joined ring to ring and the last back to the first,
//   flying in from outside the rose over `ms` (ZScore's ACTIVATE display selectedTiles).
// Both are placed where they are at the beat the page shows (time since `at`), so a redraw, a
// seek or a late join carries on instead of starting again; with reduced motion nothing flies or
// sweeps (the fade is kept: nothing moves).

import { sectorOf, sectorPath } from './rose.js';

const SVG = 'http://www.w3.org/2000/svg';
/** ZScore's play line shows in and out over this long (config.tilePlaylineAlphaDur). */
export const LINE_FADE_MS = 500;
const MAX_MS = 600_000;

/** @param {number} n */
const round = (n) => Math.round(n * 100) / 100;
/** @param {unknown} v */
const msOf = (v) => (typeof v === 'number' && v > 0 ? Math.min(v, MAX_MS) : 0);
/** @param {unknown} v */
const beatOf = (v) => (Number.isInteger(v) && /** @type {number} */ (v) >= 0 ? /** @type {number} */ (v) : null);

/**
 * The playing tiles' fade and play line of a cue, or null.
 * @param {any} cue
 * @returns {{ at: number | null, fade: number, sweep: number } | null}
 */
export function playingOf(cue) {
  const p = cue?.playing;
  if (!p || typeof p !== 'object') return null;
  const fade = msOf(p.fade);
  const sweep = msOf(p.sweep);
  return fade > 0 || sweep > 0 ? { at: beatOf(p.at), fade, sweep } : null;
}

/**
 * The closing picture of a cue, or null.
 * @param {any} cue
 * @returns {{ at: number | null, ms: number } | null}
 */
export function showSelectedOf(cue) {
  const s = cue?.showSelected;
  if (!s || typeof s !== 'object') return null;
  return { at: beatOf(s.at), ms: msOf(s.ms) };
}

/**
 * The tiles of the closing picture: the last a phone selected in each ring, innermost first.
 * @param {string[]} selected  in the order selected
 * @param {{ rings: number, slices: number }} layout
 */
export function pictureTiles(selected, layout) {
  /** @type {Map<number, string>} */
  const byRing = new Map();
  for (const id of selected) {
    const ring = Number(/^t(\d+)-/.exec(id)?.[1]);
    if (sectorOf(id, layout)) byRing.set(ring, id);
  }
  return [...byRing.keys()].sort((a, b) => a - b).map((r) => /** @type {string} */ (byRing.get(r)));
}

/**
 * The lines of the closing picture: each tile's start edge joined to the end edge of the tile of
 * the ring before, and the last tile back to the first (ZScore's connectors), or '' with fewer
 * than two tiles.
 * @param {string[]} ids  pictureTiles
 * @param {{ rings: number, slices: number }} layout
 */
export function pictureLines(ids, layout) {
  const sectors = ids.map((id) => sectorOf(id, layout)).filter((s) => s !== null);
  if (sectors.length < 2) return '';
  /** @param {number} r @param {number} a */
  const at = (r, a) => `${round(r * Math.sin(a))} ${round(-r * Math.cos(a))}`;
  const parts = [];
  for (let i = 1; i < sectors.length; i++) {
    const prev = sectors[i - 1];
    const cur = sectors[i];
    parts.push(`M ${at(prev.r1, prev.a1)} L ${at(cur.r0, cur.a0)}`);
  }
  const first = sectors[0];
  const last = sectors[sectors.length - 1];
  parts.push(`M ${at(first.r1, first.a1)} L ${at(last.r1, last.a1)}`);
  return parts.join(' ');
}

/**
 * Where a piece of the closing picture flies in from: beyond the rose, in the direction of its
 * place, turned and enlarged (ZScore: a point outside the frame, a random turn, scale 5 to 15).
 * Seeded by the piece's id, so every redraw flies the same way.
 * @param {string} key
 * @param {[number, number]} place  the piece's centre (drawing units)
 */
export function flyFrom(key, [x, y]) {
  let h = 2166136261;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 16777619) >>> 0;
  const len = Math.hypot(x, y) || 1;
  const far = 260;
  const turn = (h % 360) * (h & 1 ? 1 : -1);
  const scale = 5 + ((h >>> 9) % 11);
  return `translate(${round((x / len) * far - x)}px, ${round((y / len) * far - y)}px) rotate(${turn}deg) scale(${scale})`;
}

/**
 * Play keyframes `elapsed` ms in (Web Animations), holding the end.
 * @param {Element} el @param {Keyframe[]} frames @param {number} ms @param {number} elapsed @param {string} easing
 */
function play(el, frames, ms, elapsed, easing = 'linear') {
  if (typeof el.animate !== 'function' || ms <= 0) return;
  const a = el.animate(frames, { duration: ms, easing, fill: 'forwards' });
  a.currentTime = Math.min(ms, Math.max(0, elapsed));
}

/**
 * Fade the playing tiles and sweep their play lines, as they are `since` ms after beat `at`.
 * @param {SVGElement} svg  the rose (rose.js drawRose)
 * @param {{ fade: number, sweep: number }} playing
 * @param {number | null} since  ms since the cue's beat (null: not known, shown ended)
 * @param {{ rings: number, slices: number }} layout
 * @param {boolean} still  prefers-reduced-motion: no play line
 */
export function drawPlaying(svg, playing, since, layout, still) {
  const doc = svg.ownerDocument;
  const elapsed = since ?? Number.POSITIVE_INFINITY;
  for (const g of svg.querySelectorAll('g.tile[data-state="playing"]')) {
    const id = /** @type {SVGGElement} */ (g).dataset.tile ?? '';
    const s = sectorOf(id, layout);
    if (!s) continue;
    if (playing.fade > 0) {
      if (elapsed >= playing.fade) g.setAttribute('opacity', '0');
      else play(g, [{ opacity: 1 }, { opacity: 0 }], playing.fade, elapsed);
    }
    const total = playing.sweep + LINE_FADE_MS;
    if (still || playing.sweep <= 0 || elapsed >= total) continue;
    const line = doc.createElementNS(SVG, 'line');
    line.setAttribute('class', 'rose-playline');
    line.dataset.tile = id;
    line.setAttribute('x1', String(round(s.r0 * Math.sin(s.a0))));
    line.setAttribute('y1', String(round(-s.r0 * Math.cos(s.a0))));
    line.setAttribute('x2', String(round(s.r1 * Math.sin(s.a0))));
    line.setAttribute('y2', String(round(-s.r1 * Math.cos(s.a0))));
    g.parentNode?.append(line);
    const turn = `${round(((s.a1 - s.a0) * 180) / Math.PI)}deg`;
    play(
      line,
      [
        { offset: 0, opacity: 0, transform: 'rotate(0deg)' },
        { offset: Math.min(1, LINE_FADE_MS / total), opacity: 1 },
        { offset: playing.sweep / total, opacity: 1, transform: `rotate(${turn})` },
        { offset: 1, opacity: 0, transform: `rotate(${turn})` },
      ],
      total,
      elapsed,
    );
  }
}

/**
 * Draw the closing picture over the rose: the tiles this phone selected, outlined and joined,
 * flying in over `ms` (already `since` ms under way).
 * @param {SVGElement} svg  the rose (rose.js drawRose)
 * @param {string[]} selected  the tiles this phone selected, in order
 * @param {{ ms: number }} show
 * @param {number | null} since  ms since the cue's beat (null: not known, shown in place)
 * @param {{ rings: number, slices: number }} layout
 * @param {boolean} still  prefers-reduced-motion: shown in place, nothing flies
 */
export function drawPicture(svg, selected, show, since, layout, still) {
  const doc = svg.ownerDocument;
  const ids = pictureTiles(selected, layout);
  const group = doc.createElementNS(SVG, 'g');
  group.setAttribute('class', 'rose-picture');
  const spin = svg.querySelector('.rose-zoom > g') ?? svg;
  spin.append(group);
  const elapsed = since ?? Number.POSITIVE_INFINITY;
  /** @param {Element} el @param {string} key @param {[number, number]} place */
  const fly = (el, key, place) => {
    if (still || elapsed >= show.ms) return;
    play(
      el,
      [{ transform: flyFrom(key, place) }, { transform: 'none' }],
      show.ms,
      elapsed,
      'cubic-bezier(0.77, 0, 0.18, 1)',
    );
  };
  for (const id of ids) {
    const s = /** @type {NonNullable<ReturnType<typeof sectorOf>>} */ (sectorOf(id, layout));
    const outline = doc.createElementNS(SVG, 'path');
    outline.setAttribute('d', sectorPath(s));
    outline.setAttribute('class', 'rose-picture-tile');
    outline.dataset.tile = id;
    group.append(outline);
    const r = (s.r0 + s.r1) / 2;
    const a = (s.a0 + s.a1) / 2;
    fly(outline, id, [r * Math.sin(a), -r * Math.cos(a)]);
  }
  const d = pictureLines(ids, layout);
  if (d) {
    const lines = doc.createElementNS(SVG, 'path');
    lines.setAttribute('d', d);
    lines.setAttribute('class', 'rose-picture-lines');
    group.append(lines);
    fly(lines, ids.join(','), [0, -50]);
  }
  return ids;
}

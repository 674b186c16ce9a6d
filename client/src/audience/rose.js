// The audience's tiles drawn as a rose (ZScore's Union Rose): `layout: { rings: N, slices: M }` in
// the audience cue puts tile `t<ring>-<slice>` on ring `ring` (1 = the innermost) and slice
// `slice` (1 = from twelve o'clock, clockwise). Each tile is an annular sector with its word along
// the arc. Tiles the score has not shown are not drawn; a tile in the open vote window is a button.

import { spinFrom } from './rose-motion.js';

const SVG = 'http://www.w3.org/2000/svg';
const TILE_RE = /^t(\d+)-(\d+)$/;
/** Drawing units: the rose fits a 200 x 200 box around (0, 0). */
const OUTER = 98;
const CENTRE = 10;

/**
 * The rings and slices of a layout, or null when the cue has no rose layout.
 * @param {unknown} layout  cue.layout
 * @returns {{ rings: number, slices: number } | null}
 */
export function roseLayout(layout) {
  if (layout === null || typeof layout !== 'object') return null;
  const { rings, slices } = /** @type {Record<string, unknown>} */ (layout);
  if (!Number.isInteger(rings) || !Number.isInteger(slices)) return null;
  const r = /** @type {number} */ (rings);
  const s = /** @type {number} */ (slices);
  return r >= 1 && r <= 16 && s >= 2 && s <= 32 ? { rings: r, slices: s } : null;
}

/**
 * The sector of a tile: radii and angles (radians, 0 = twelve o'clock, clockwise), or null for an
 * id that is not on the rose.
 * @param {string} id
 * @param {{ rings: number, slices: number }} layout
 */
export function sectorOf(id, { rings, slices }) {
  const m = TILE_RE.exec(id);
  if (!m) return null;
  const ring = Number(m[1]);
  const slice = Number(m[2]);
  if (ring < 1 || ring > rings || slice < 1 || slice > slices) return null;
  const width = (OUTER - CENTRE) / rings;
  const step = (2 * Math.PI) / slices;
  return { r0: CENTRE + (ring - 1) * width, r1: CENTRE + ring * width, a0: (slice - 1) * step, a1: slice * step };
}

/** @param {number} r @param {number} a */
const point = (r, a) => `${round(r * Math.sin(a))} ${round(-r * Math.cos(a))}`;
/** @param {number} n */
const round = (n) => Math.round(n * 100) / 100;

/**
 * SVG path of an annular sector.
 * @param {{ r0: number, r1: number, a0: number, a1: number }} s
 */
export function sectorPath({ r0, r1, a0, a1 }) {
  const large = a1 - a0 > Math.PI ? 1 : 0;
  return `M ${point(r0, a0)} L ${point(r1, a0)} A ${r1} ${r1} 0 ${large} 1 ${point(r1, a1)} L ${point(r0, a1)} A ${r0} ${r0} 0 ${large} 0 ${point(r0, a0)} Z`;
}

/**
 * The centre of a tile's sector (drawing units), where a selection line passes.
 * @param {string} id
 * @param {{ rings: number, slices: number }} layout
 * @returns {[number, number] | null}
 */
export function sectorCentre(id, layout) {
  const s = sectorOf(id, layout);
  if (!s) return null;
  const r = (s.r0 + s.r1) / 2;
  const a = (s.a0 + s.a1) / 2;
  return [round(r * Math.sin(a)), round(-r * Math.cos(a))];
}

/**
 * The line that links the tiles this phone selected, in the order selected (ZScore draws the
 * audience's path through the rose), or '' with fewer than two.
 * @param {string[]} ids
 * @param {{ rings: number, slices: number }} layout
 */
export function selectionPath(ids, layout) {
  const points = ids.map((id) => sectorCentre(id, layout)).filter((p) => p !== null);
  return points.length < 2 ? '' : points.map(([x, y], i) => `${i === 0 ? 'M' : 'L'} ${x} ${y}`).join(' ');
}

/**
 * How dark a tile's fill gets with its votes: 0 with none, up to 0.6 for the tile with most.
 * @param {number} count @param {number} most
 */
export function voteShade(count, most) {
  if (!(count > 0 && most > 0)) return 0;
  return round(0.6 * Math.min(1, count / most));
}

/**
 * The radius of the rose the view shows (drawing units): the rings a cue's `layout.zoom` names, or
 * (automatic) the outermost ring the audience can vote in (ZScore zooms on the active ring); with
 * neither, the whole rose.
 * @param {{ rings: number, slices: number }} layout
 * @param {{ id: string, state: string }[]} tiles
 * @param {number | null} zoom  rings shown from the centre (rose-motion.js zoomOf)
 */
export function viewRadius(layout, tiles, zoom) {
  if (zoom !== null) return zoom >= layout.rings ? 100 : round(CENTRE + (zoom * (OUTER - CENTRE)) / layout.rings + 4);
  const lit = tiles.filter((t) => t.state === 'lit').map((t) => sectorOf(t.id, layout)?.r1 ?? 0);
  return lit.length ? round(Math.min(100, Math.max(...lit) + 4)) : 100;
}

/** Ease-out (cubic) as a CSS timing function (rose-motion.js easeOut). */
const EASE_OUT = 'cubic-bezier(0.33, 1, 0.68, 1)';

/**
 * Play a move already `elapsed` ms under way (Web Animations; where the browser has none, the
 * element simply shows where the move ends).
 * @param {Element} el @param {Keyframe[]} frames @param {{ elapsed: number, ms: number }} m @param {string} easing
 */
function play(el, frames, m, easing) {
  if (typeof el.animate !== 'function') return;
  const a = el.animate(frames, { duration: m.ms, easing });
  a.currentTime = Math.max(0, m.elapsed);
}

/**
 * Swing rings back into place (rose-motion.js spinFrom), each from where its swing is now.
 * @param {Element} svg  the rose's svg
 * @param {{ ring: number, elapsed: number, ms: number }[]} spins
 * @param {number} slices
 */
export function playSpins(svg, spins, slices) {
  for (const m of spins) {
    const g = svg.querySelector(`g.rose-ring[data-ring="${m.ring}"]`);
    if (g)
      play(
        g,
        [{ transform: `rotate(${spinFrom(m.ring, slices)}deg)` }, { transform: 'rotate(0deg)' }],
        m,
        'ease-in-out',
      );
  }
}

/**
 * Draw the rose into `box` (replacing what is there).
 * @param {HTMLElement} box
 * @param {{ rings: number, slices: number }} layout
 * @param {{ id: string, state: string, text: string }[]} tiles
 * @param {{ id: string, tiles: string[] } | null} vote
 * @param {{ window: string, tile: string }} voted
 * @param {boolean} [speaks]  a tap on a lit tile says its word (speech.js)
 * @param {{ counts?: Record<string, number>, selected?: string[], turn?: number, radius?: number, stage?: number | null, moves?: import('./rose-motion.js').Moves | null }} [extra]
 *   counts: votes per tile in the open window (fills darken); selected: the tiles this phone
 *   chose, linked by a line; turn: the rose's rotation in degrees; radius: of the rose the view
 *   shows (viewRadius); stage: opacity of the dark disc over the rose (null: none); moves: what
 *   is moving now (rose-motion.js)
 */
export function drawRose(
  box,
  layout,
  tiles,
  vote,
  voted,
  speaks = false,
  { counts = {}, selected = [], turn = 0, radius = viewRadius(layout, tiles, null), stage = null, moves = null } = {},
) {
  const doc = box.ownerDocument;
  const svg = doc.createElementNS(SVG, 'svg');
  svg.setAttribute('viewBox', '-100 -100 200 200');
  svg.setAttribute('class', 'rose');
  const defs = doc.createElementNS(SVG, 'defs');
  svg.append(defs);
  const most = Math.max(0, ...Object.values(counts));
  // The zoom scales the rose about its centre (the viewBox's origin), so that it can be eased.
  const zoom = doc.createElementNS(SVG, 'g');
  zoom.setAttribute('class', 'rose-zoom');
  zoom.setAttribute('transform', `scale(${round(100 / radius)})`);
  svg.append(zoom);
  const spin = doc.createElementNS(SVG, 'g');
  if (turn) spin.setAttribute('transform', `rotate(${round(turn)})`);
  zoom.append(spin);
  /** @type {Map<number, SVGGElement>} one group a ring, which swings as a whole */
  const ringGroups = new Map();
  /** @param {number} ring */
  const ringGroup = (ring) => {
    let g = ringGroups.get(ring);
    if (!g) {
      g = /** @type {SVGGElement} */ (doc.createElementNS(SVG, 'g'));
      g.setAttribute('class', 'rose-ring');
      g.dataset.ring = String(ring);
      ringGroups.set(ring, g);
    }
    return g;
  };
  const centre = doc.createElementNS(SVG, 'circle');
  centre.setAttribute('r', String(CENTRE - 1));
  centre.setAttribute('class', 'rose-centre');
  spin.append(centre);
  for (const t of tiles) {
    const s = sectorOf(t.id, layout);
    if (!s) continue;
    const votable = vote?.tiles.includes(t.id);
    const g = doc.createElementNS(SVG, 'g');
    g.setAttribute('class', 'tile');
    g.dataset.tile = t.id;
    g.dataset.state = t.state;
    const path = doc.createElementNS(SVG, 'path');
    path.setAttribute('d', sectorPath(s));
    g.append(path);
    const shade = voteShade(counts[t.id] ?? 0, most);
    if (shade > 0) {
      // A presentation attribute, not a style: the page's CSP allows it, and it is one number.
      const dark = doc.createElementNS(SVG, 'path');
      dark.setAttribute('d', sectorPath(s));
      dark.setAttribute('class', 'votes');
      dark.setAttribute('fill-opacity', String(shade));
      g.dataset.votes = String(counts[t.id]);
      g.append(dark);
    }
    if (t.text) {
      // The word runs along the middle of its ring, clockwise.
      const r = (s.r0 + s.r1) / 2;
      const arc = doc.createElementNS(SVG, 'path');
      const text = doc.createElementNS(SVG, 'text');
      arc.id = `rose-arc-${t.id}`;
      // In the lower half the arc runs the other way, so that the word is not upside down.
      const mid = (s.a0 + s.a1) / 2;
      const lower = mid > Math.PI / 2 && mid < (3 * Math.PI) / 2;
      arc.setAttribute(
        'd',
        lower
          ? `M ${point(r, s.a1)} A ${r} ${r} 0 0 0 ${point(r, s.a0)}`
          : `M ${point(r, s.a0)} A ${r} ${r} 0 0 1 ${point(r, s.a1)}`,
      );
      if (lower) text.setAttribute('dominant-baseline', 'hanging');
      defs.append(arc);
      // As large as the ring allows, small enough for the word to fit its arc (about 0.6 em a letter).
      const arcLength = r * (s.a1 - s.a0) * 0.9;
      text.setAttribute(
        'font-size',
        String(round(Math.min((s.r1 - s.r0) * 0.55, 8, arcLength / (0.6 * Math.max(1, t.text.length))))),
      );
      const tp = doc.createElementNS(SVG, 'textPath');
      tp.setAttribute('href', `#${arc.id}`);
      tp.setAttribute('startOffset', '50%');
      tp.setAttribute('text-anchor', 'middle');
      tp.textContent = t.text;
      text.append(tp);
      g.append(text);
    }
    if (speaks && t.state === 'lit' && t.text) g.dataset.speak = t.text;
    if (votable && vote) {
      g.dataset.vote = vote.id;
      g.setAttribute('role', 'button');
      g.setAttribute('tabindex', '0');
      g.setAttribute('aria-label', `Vote ${t.text || t.id}`);
      const mine = voted.window === vote.id && voted.tile === t.id;
      g.setAttribute('aria-pressed', String(mine));
    } else if (g.dataset.speak) {
      g.setAttribute('role', 'button');
      g.setAttribute('tabindex', '0');
      g.setAttribute('aria-label', `Say ${t.text}`);
    } else g.setAttribute('aria-hidden', 'true');
    ringGroup(Number(TILE_RE.exec(t.id)?.[1])).append(g);
  }
  for (const ring of [...ringGroups.keys()].sort((a, b) => a - b))
    spin.append(/** @type {SVGGElement} */ (ringGroups.get(ring)));
  const line = selectionPath(
    selected.filter((id) => tiles.some((t) => t.id === id)),
    layout,
  );
  if (line) {
    const path = doc.createElementNS(SVG, 'path');
    path.setAttribute('d', line);
    path.setAttribute('class', 'rose-selection');
    spin.append(path);
  }
  if (stage !== null) {
    // ZScore's stage: a dark disc over the whole rose, faded by the score (`stage`).
    const disc = doc.createElementNS(SVG, 'circle');
    disc.setAttribute('r', String(OUTER + 1));
    disc.setAttribute('class', 'rose-stage');
    disc.setAttribute('opacity', String(stage));
    zoom.append(disc);
  }
  box.replaceChildren(svg);
  if (moves?.zoom)
    play(
      zoom,
      [{ transform: `scale(${100 / moves.zoom.from})` }, { transform: `scale(${100 / moves.zoom.to})` }],
      moves.zoom,
      EASE_OUT,
    );
  const disc = svg.querySelector('.rose-stage');
  if (moves?.stage && disc)
    play(disc, [{ opacity: moves.stage.from }, { opacity: moves.stage.to }], moves.stage, 'linear');
  if (moves) playSpins(svg, moves.spins, layout.slices);
}

// Where Verovio drew things on a page: systems, measures and the x of every note and rest, in the
// page's SVG user units (the root viewBox). Reads Verovio's own SVG (svgViewBox, svgFormatRaw):
// a root <svg viewBox>, an inner <svg class="definition-scale" viewBox> in tenths of those
// units, a <g class="page-margin" transform="translate(...)">, then <g class="system"> >
// <g class="measure"> > <g class="staff"> with five <path> staff lines, and notes as
// <g class="note"> > <g class="notehead"> > <use transform="translate(x, y) ...">.

/**
 * @typedef {object} MeasureBox
 * @property {string} id
 * @property {number} page      0-based
 * @property {number} system    0-based within the page
 * @property {number} left      staff lines' start (the system's start for its first measure)
 * @property {number} right     the measure's right barline
 * @property {number} lead      where music starts: after clef, key and time signature
 * @property {number} y0        top of the system (top line of its first staff)
 * @property {number} y1        bottom of the system (bottom line of its last staff)
 * @property {number | null} mRest  x of a whole-bar rest, drawn centered
 */

/**
 * The vertical extent of everything a system draws (slurs, beams, ledger lines, tempo marks,
 * rehearsal marks, dynamics), for a view that shows one system to crop to without cutting
 * them. Glyphs and text are estimated from their position and size: generous, never short.
 * @typedef {object} Ink
 * @property {number} system  0-based within the page
 * @property {number} top
 * @property {number} bottom
 */

/**
 * @typedef {object} PageLayout
 * @property {number} width
 * @property {number} height
 * @property {number} staff   height of a five-line staff (0 on a page without staves)
 * @property {MeasureBox[]} measures
 * @property {Ink[]} ink       how far each system's drawing reaches above and below its staves
 * @property {Map<string, number>} x   note or rest id -> x of its head
 */

const TAG = /<(\/?)(svg|g|path|use|rect|polygon|text|tspan)\b([^>]*?)(\/?)>/g;
const ATTR_RE = (/** @type {string} */ name) => new RegExp(`\\s${name}="([^"]*)"`);
const CLASS = ATTR_RE('class');
const ID = ATTR_RE('id');
const VIEWBOX = ATTR_RE('viewBox');
const D = ATTR_RE('d');
const TRANSLATE = /translate\(\s*(-?[\d.]+)[\s,]+(-?[\d.]+)\s*\)/;
const X = ATTR_RE('x');
const LINE = /^M\s*(-?[\d.]+)\s+(-?[\d.]+)\s*L\s*(-?[\d.]+)\s+(-?[\d.]+)$/;
const Y = ATTR_RE('y');
const HEIGHT = ATTR_RE('height');
const POINTS = ATTR_RE('points');
const FONT_SIZE = /\sfont-size="([\d.]+)px"/;
const NUMBER = /-?[\d.]+/g;
/** A glyph's reach from its origin, in staff spaces (a flag, a dynamic, a fermata). */
const GLYPH_UP = 2;
const GLYPH_DOWN = 1;
/** Text reaches this share of its font size above its baseline and below it. */
const TEXT_UP = 0.8;
const TEXT_DOWN = 0.3;

/** Glyph widths in staff spaces (SMuFL Leipzig): what follows a clef, key or time signature. */
const LEAD_WIDTH = /** @type {Record<string, number>} */ ({ clef: 2.8, keySig: 1.2, meterSig: 2.2 });
/** Half the width of a whole rest, in staff spaces. */
const REST_HALF = 0.6;

/**
 * @param {string} svg  one page from Verovio's renderToSVG
 * @param {number} page 0-based page number
 * @returns {PageLayout}
 */
export function readPageLayout(svg, page) {
  let width = 0;
  let height = 0;
  let scale = 1;
  let dx = 0;
  let dy = 0;
  /** @type {{ cls: string, id: string }[]} */
  const stack = [];
  /** @type {MeasureBox[]} */
  const measures = [];
  /** @type {Map<string, number>} */
  const x = new Map();
  /** @type {MeasureBox | null} */
  let measure = null;
  let system = -1;
  let space = 0;
  let lastLineY = NaN;
  /** Ink of each system on the page, inner units. */
  /** @type {Map<number, { top: number, bottom: number }>} */
  const ink = new Map();
  /** The <text> being read: its baseline and its largest font size. */
  let text = { y: NaN, size: 0 };
  /** @param {number} top @param {number} bottom */
  const reach = (top, bottom) => {
    if (!stack.some((e) => e.cls === 'system') || !Number.isFinite(top) || !Number.isFinite(bottom)) return;
    const i = ink.get(system) ?? { top: Infinity, bottom: -Infinity };
    i.top = Math.min(i.top, top);
    i.bottom = Math.max(i.bottom, bottom);
    ink.set(system, i);
  };
  /** @param {string} list  numbers in x y pairs */
  const reachPairs = (list) => {
    const ys = (list.match(NUMBER) ?? []).map(Number).filter((_, k) => k % 2 === 1);
    if (ys.length) reach(Math.min(...ys), Math.max(...ys));
  };

  // Glyph definitions (<defs>) come first and hold <g>s and <path>s that are not on the page.
  const defsEnd = svg.indexOf('</defs>');
  const root = VIEWBOX.exec(svg.slice(0, svg.indexOf('>') + 1))?.[1]
    .split(/\s+/)
    .map(Number);
  if (root) {
    width = root[2];
    height = root[3];
  }
  stack.push({ cls: 'svg', id: '' });
  TAG.lastIndex = defsEnd === -1 ? svg.indexOf('>') + 1 : defsEnd;
  for (let m = TAG.exec(svg); m; m = TAG.exec(svg)) {
    const [, closing, tag, attrs, selfClosing] = m;
    if (closing) {
      if (tag === 'text') {
        reach(text.y - TEXT_UP * text.size, text.y + TEXT_DOWN * text.size);
        text = { y: NaN, size: 0 };
      }
      if (tag === 'g' || tag === 'svg') {
        const top = stack.pop();
        if (top?.cls === 'measure') measure = null;
      }
      continue;
    }
    if (tag === 'svg') {
      const vb = VIEWBOX.exec(attrs)?.[1].split(/\s+/).map(Number);
      if (vb && vb[2] > 0) scale = width / vb[2];
      if (!selfClosing) stack.push({ cls: 'svg', id: '' });
      continue;
    }
    if (tag === 'g') {
      const cls = CLASS.exec(attrs)?.[1].split(' ')[0] ?? '';
      if (cls === 'page-margin') {
        const t = TRANSLATE.exec(attrs);
        if (t) {
          dx = Number(t[1]);
          dy = Number(t[2]);
        }
      }
      if (selfClosing) continue;
      const id = ID.exec(attrs)?.[1] ?? '';
      stack.push({ cls, id });
      if (cls === 'system') system++;
      else if (cls === 'measure') {
        measure = {
          id,
          page,
          system,
          left: Infinity,
          right: -Infinity,
          lead: -Infinity,
          y0: Infinity,
          y1: -Infinity,
          mRest: null,
        };
        measures.push(measure);
      }
      continue;
    }
    if (tag === 'text' || tag === 'tspan') {
      if (tag === 'text') text = { y: Number(Y.exec(attrs)?.[1] ?? NaN), size: 0 };
      text.size = Math.max(text.size, Number(FONT_SIZE.exec(attrs)?.[1] ?? 0));
      continue;
    }
    if (tag === 'rect') {
      const y = Number(Y.exec(attrs)?.[1] ?? NaN);
      reach(y, y + Number(HEIGHT.exec(attrs)?.[1] ?? 0));
      continue;
    }
    if (tag === 'polygon') {
      reachPairs(POINTS.exec(attrs)?.[1] ?? '');
      continue;
    }
    const parent = stack[stack.length - 1]?.cls;
    if (tag === 'path') {
      // Every path's points (a Bezier's control points too: the curve stays within them).
      reachPairs(D.exec(attrs)?.[1] ?? '');
      if (parent !== 'staff' || !measure) continue;
      const line = LINE.exec(D.exec(attrs)?.[1] ?? '');
      if (!line || line[2] !== line[4]) continue;
      const [x1, y, x2] = [Number(line[1]), Number(line[2]), Number(line[3])];
      if (!space && !Number.isNaN(lastLineY) && y > lastLineY) space = y - lastLineY;
      lastLineY = y;
      measure.left = Math.min(measure.left, x1);
      measure.right = Math.max(measure.right, x2);
      measure.y0 = Math.min(measure.y0, y);
      measure.y1 = Math.max(measure.y1, y);
      continue;
    }
    if (tag !== 'use') continue;
    const t = TRANSLATE.exec(attrs);
    const uy = t ? Number(t[2]) : Number(Y.exec(attrs)?.[1] ?? NaN);
    reach(uy - GLYPH_UP * (space || 180), uy + GLYPH_DOWN * (space || 180));
    if (!measure) continue;
    const ux = t ? Number(t[1]) : Number(X.exec(attrs)?.[1] ?? NaN);
    if (Number.isNaN(ux)) continue;
    if (parent === 'notehead') {
      const note = stack[stack.length - 2];
      if (note?.cls === 'note' && note.id) x.set(note.id, Math.min(x.get(note.id) ?? Infinity, ux));
    } else if (parent === 'rest') {
      const rest = stack[stack.length - 1];
      if (rest.id) x.set(rest.id, Math.min(x.get(rest.id) ?? Infinity, ux));
    } else if (parent === 'mRest') {
      measure.mRest = ux + REST_HALF * (space || 180);
    } else if (parent && LEAD_WIDTH[parent]) {
      measure.lead = Math.max(measure.lead, ux + LEAD_WIDTH[parent] * (space || 180));
    }
  }
  return toPageUnits(
    { width, height, staff: 4 * space, measures, x, ink: [...ink].map(([k, v]) => ({ system: k, ...v })) },
    scale,
    dx,
    dy,
  );
}

/**
 * Convert inner (definition-scale) coordinates to the page's viewBox units, and give each
 * measure its system's vertical extent.
 * @param {PageLayout} layout
 * @param {number} scale
 * @param {number} dx
 * @param {number} dy
 * @returns {PageLayout}
 */
function toPageUnits(layout, scale, dx, dy) {
  const px = (/** @type {number} */ v) => Math.round((v + dx) * scale * 10) / 10;
  const py = (/** @type {number} */ v) => Math.round((v + dy) * scale * 10) / 10;
  /** @type {Map<number, { y0: number, y1: number }>} */
  const systems = new Map();
  for (const m of layout.measures) {
    const s = systems.get(m.system) ?? { y0: Infinity, y1: -Infinity };
    s.y0 = Math.min(s.y0, m.y0);
    s.y1 = Math.max(s.y1, m.y1);
    systems.set(m.system, s);
  }
  for (const m of layout.measures) {
    const s = /** @type {{ y0: number, y1: number }} */ (systems.get(m.system));
    const left = Number.isFinite(m.left) ? m.left : 0;
    const right = Number.isFinite(m.right) ? m.right : left;
    m.left = px(left);
    m.right = px(right);
    m.lead = px(Math.min(Math.max(m.lead, left), right));
    m.mRest = m.mRest === null ? null : px(m.mRest);
    m.y0 = py(Number.isFinite(s.y0) ? s.y0 : 0);
    m.y1 = py(Number.isFinite(s.y1) ? s.y1 : 0);
  }
  for (const [id, v] of layout.x) layout.x.set(id, px(v));
  layout.staff = Math.round(layout.staff * scale * 10) / 10;
  for (const i of layout.ink) {
    i.top = py(i.top);
    i.bottom = py(i.bottom);
  }
  return layout;
}

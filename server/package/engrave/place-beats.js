// A view's beat map: where each beat of the performance is drawn. A beat with a note or rest
// starting on it sits at that notehead; a beat without one (a held note) is placed between the
// onsets around it in proportion to time, as Verovio spaces notes by duration. Pure.

/**
 * @typedef {object} Beat
 * @property {number} beat    global beat index, from 0 in performance order
 * @property {number} page    index into the view's pages
 * @property {number} system  from 0 within the page
 * @property {number} bar     written bar number
 * @property {number} x0
 * @property {number} x1
 * @property {number} y0      top of the system
 * @property {number} y1      bottom of the system
 */

/**
 * A view: its page files and its beat map (doc/score-format.md, "Beat maps").
 * @typedef {object} View
 * @property {{ file: string, width: number, height: number }[]} pages
 * @property {Beat[]} beats
 * @property {number} staff  staff height in page units, for a view to size the notation by
 * @property {SystemInk[]} ink  how far each system's drawing reaches, for a view to crop by
 * @property {Layout[]} [layouts]  a part's other layouts, narrower pages for smaller screens
 */

/**
 * A part laid out again on other pages (options.js, PART_LAYOUTS): the same bars and beats.
 * @typedef {object} Layout
 * @property {string} name
 * @property {{ file: string, width: number, height: number }[]} pages
 * @property {Beat[]} beats
 * @property {number} staff
 * @property {SystemInk[]} ink
 */

/**
 * @typedef {object} SystemInk
 * @property {number} page
 * @property {number} system
 * @property {number} top     page units
 * @property {number} bottom
 */

/**
 * @typedef {object} ViewLayout
 * @property {Map<string, import('./svg-layout.js').MeasureBox>} measures  by measure id
 * @property {Map<string, number>} x  note and rest ids -> x
 */

const round = (/** @type {number} */ v) => Math.round(v * 10) / 10;

/**
 * The beat map of an engraved view, and a warning if some of its bars are not on its pages.
 * @param {import('./timing.js').Timing} timing
 * @param {string} name
 * @param {import('./tasks.js').EngravedView} engraved
 * @returns {{ view: View, warnings: string[] }}
 */
export function mapView(timing, name, engraved) {
  const layout = {
    measures: new Map(engraved.measures.map((m) => [m.id, m])),
    x: new Map(engraved.ids.map((id, i) => [id, engraved.xs[i]])),
  };
  const { beats, missing } = buildBeats(timing, layout);
  const warnings = missing.length
    ? [
        `view "${name}": ${new Set(missing).size} bars are not on its pages (a multi-bar rest?); their beats point at the bar before`,
      ]
    : [];
  return { view: { pages: engraved.pages, beats, staff: engraved.staff, ink: engraved.ink }, warnings };
}

/**
 * @param {import('./timing.js').Timing} timing
 * @param {ViewLayout} layout
 * @returns {{ beats: Beat[], missing: string[] }} missing: measures the view did not draw
 */
export function buildBeats(timing, layout) {
  /** @type {Beat[]} */
  const beats = [];
  /** @type {string[]} */
  const missing = [];
  /** @type {Map<string, (q: number) => number>} */
  const xOfCache = new Map();
  timing.bars.forEach((spec, i) => {
    const id = timing.measureOf[i];
    const box = layout.measures.get(id);
    const n = spec.beats ?? spec.time[0];
    const quarters = 4 / spec.time[1];
    if (!box) {
      missing.push(id);
      const prev = beats[beats.length - 1] ?? { page: 0, system: 0, x0: 0, x1: 0, y0: 0, y1: 0 };
      for (let k = 0; k < n; k++) {
        beats.push({
          beat: beats.length,
          page: prev.page,
          system: prev.system,
          bar: spec.bar,
          x0: prev.x0,
          x1: prev.x1,
          y0: prev.y0,
          y1: prev.y1,
        });
      }
      return;
    }
    let xOf = xOfCache.get(id);
    if (!xOf) {
      xOf = positions(box, timing.onsets[id] ?? [], timing.length[i], layout.x);
      xOfCache.set(id, xOf);
    }
    for (let k = 0; k < n; k++) {
      beats.push({
        beat: beats.length,
        page: box.page,
        system: box.system,
        bar: spec.bar,
        x0: round(xOf(k * quarters)),
        x1: round(k + 1 < n ? xOf((k + 1) * quarters) : box.right),
        y0: box.y0,
        y1: box.y1,
      });
    }
  });
  return { beats, missing };
}

/**
 * x as a function of time (quarters from the measure's start): piecewise linear through the
 * measure's onsets in this view, from where its music starts to its right barline.
 * @param {import('./svg-layout.js').MeasureBox} box
 * @param {[number, string[]][]} onsets
 * @param {number} length quarters
 * @param {Map<string, number>} xs
 * @returns {(q: number) => number}
 */
function positions(box, onsets, length, xs) {
  /** @type {[number, number][]} */
  const points = [];
  for (const [q, ids] of onsets) {
    let x = Infinity;
    for (const id of ids) x = Math.min(x, xs.get(id) ?? Infinity);
    // Onsets of other parts are not in this view; a grace note or a cluster drawn left of an
    // earlier onset would make x go back: drop it.
    if (!Number.isFinite(x) || x > box.right || (points.length && x < points[points.length - 1][1])) continue;
    if (points.length && q - points[points.length - 1][0] < 1e-9) continue;
    points.push([q, x]);
  }
  if (!points.length || points[0][0] > 1e-9) {
    // A bar without an onset on its first beat: a whole-bar rest is centered between where the
    // music starts and the barline, otherwise the music starts after clef, key and time.
    const start =
      points.length === 0 && box.mRest !== null
        ? Math.min(box.mRest, Math.max(box.left, 2 * box.mRest - box.right))
        : Math.min(box.lead, points[0]?.[1] ?? box.lead);
    points.unshift([0, start]);
  }
  points.push([
    Math.max(length, points[points.length - 1][0] + 1e-9),
    Math.max(box.right, points[points.length - 1][1]),
  ]);
  return (q) => {
    let k = 1;
    while (k < points.length - 1 && points[k][0] <= q) k++;
    const [qa, xa] = points[k - 1];
    const [qb, xb] = points[k];
    if (q <= qa) return xa;
    if (q >= qb) return xb;
    return xa + ((q - qa) / (qb - qa)) * (xb - xa);
  };
}

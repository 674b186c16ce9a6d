// From a view's pages and beat map (doc/score-format.md, "Beat maps") to what a notation view
// draws: the systems on each page with the rectangle to crop each one to, the order in which
// they are played ("lines"), where the beat cursor is, and which line each of the part view's two
// panes shows. Pure: no DOM, no timers; the views in this folder do the drawing.

import { isObject } from '../../../core/values.js';

/**
 * A page of a view, as `GET /api/score/views/:view` lists it.
 * @typedef {object} NotationPage
 * @property {string} url
 * @property {number} width   page units (SVG user units, image pixels, or a PDF page's points)
 * @property {number} height
 * @property {{ url: string, width: number }[]} [images]  a PDF page's renderings, narrowest
 *   first (page-svg.js draws the one that suits the screen; `url` is the narrowest)
 */

/**
 * One beat of the beat map (see core/beatmap.js, BeatEntry).
 * @typedef {object} NotationBeat
 * @property {number} beat
 * @property {number} page
 * @property {number} system
 * @property {number} bar
 * @property {number} x0
 * @property {number} x1
 * @property {number} y0
 * @property {number} y1
 */

/**
 * How far a system's drawing reaches above and below its staves (engraved views): a system
 * whose tempo mark or slurs reach past half-way to its neighbour is cropped to include them.
 * @typedef {object} SystemInk
 * @property {number} page
 * @property {number} system
 * @property {number} top     page units
 * @property {number} bottom
 */

/**
 * @typedef {object} Notation
 * @property {NotationPage[]} pages
 * @property {NotationBeat[]} beats
 * @property {SystemInk[]} ink     may be empty
 * @property {number} staff        staff height in page units, 0 when not known
 */

/**
 * @typedef {object} Rect
 * @property {number} x
 * @property {number} y
 * @property {number} width
 * @property {number} height
 */

/**
 * A system as drawn: a page and a system index on it.
 * @typedef {object} SystemBox
 * @property {number} page
 * @property {number} system  from 0 on its page
 * @property {number} y0      top of its staves (the highest y0 of its beats), page units
 * @property {number} y1      bottom of its staves
 * @property {Rect} crop      full page width; half-way to the systems above and below
 */

/**
 * A stretch of the performance played on one system: the part view shows one line per pane. With
 * repeats the same system comes back as a later line. A repeat inside one system does not start
 * a new line: the player's eyes go back along the same staff, as on paper.
 * @typedef {object} Line
 * @property {number} index      position in performance order, from 0
 * @property {number} page
 * @property {number} system     from 0 on its page
 * @property {number} firstBeat
 * @property {number} lastBeat
 * @property {number} firstBar   written bar number of firstBeat
 * @property {number} lastBar    written bar number of lastBeat
 * @property {Rect} crop
 */

/**
 * Where the beat cursor is: page units on `page`.
 * @typedef {object} Cursor
 * @property {number} beat
 * @property {number} line
 * @property {number} page
 * @property {number} x
 * @property {number} y0
 * @property {number} y1
 * @property {number} [x0]  where the beat starts (the cursor's x at its fraction 0)
 * @property {number} [x1]  where it ends (at its fraction 1)
 */

/**
 * @typedef {object} NotationLayout
 * @property {NotationPage[]} pages
 * @property {SystemBox[]} systems  page by page, top to bottom
 * @property {Line[]} lines         in performance order
 * @property {number} beatCount
 * @property {(beat: number) => number} lineOf  index of the line that plays `beat`, -1 outside the map
 * @property {(beat: number, fraction?: number) => Cursor | null} cursorAt
 *   x goes linearly from the beat's x0 to its x1 as `fraction` goes over [0, 1); null outside the map
 */

/** @typedef {{ ok: true, value: NotationLayout } | { ok: false, message: string }} LayoutResult */

/**
 * Room above the top system and below the bottom one of a page that has no neighbour to take the
 * half-gap from, as a share of the page width (pane height follows width): about one staff
 * height of an A4 Verovio page, enough for ledger lines, stems and dynamics; or, when the staff
 * height is known (a narrow page is as wide as a few staves), LONE_STAVES of it.
 */
const LONE_MARGIN = 0.05;
const LONE_STAVES = 1.5;
/** Room kept between a system's outermost ink and the crop, in staff heights (half a space). */
const INK_PAD = 0.125;

const FIELDS = /** @type {const} */ (['beat', 'page', 'system', 'bar', 'x0', 'x1', 'y0', 'y1']);

/**
 * Build the layout of a view. The server checks beat maps against every rule (core/beatmap.js)
 * before serving them; this guards only what would break the views, and says what it found.
 * @param {unknown} notation  `{ pages, beats }` as the server sends it
 * @returns {LayoutResult}
 */
export function buildSystems(notation) {
  const checked = checkNotation(notation);
  if (!checked.ok) return checked;
  const { pages, beats, ink, staff } = checked.value;
  const inkOf = new Map(ink.map((i) => [`${i.page}:${i.system}`, i]));

  /** @type {Map<string, SystemBox>} */
  const byKey = new Map();
  for (const b of beats) {
    const key = `${b.page}:${b.system}`;
    const found = byKey.get(key);
    if (found) {
      found.y0 = Math.min(found.y0, b.y0);
      found.y1 = Math.max(found.y1, b.y1);
    } else {
      byKey.set(key, { page: b.page, system: b.system, y0: b.y0, y1: b.y1, crop: { x: 0, y: 0, width: 0, height: 0 } });
    }
  }
  const systems = [...byKey.values()].sort((a, b) => a.page - b.page || a.y0 - b.y0 || a.system - b.system);
  systems.forEach((s, i) => {
    const page = pages[s.page];
    const above = systems[i - 1]?.page === s.page ? systems[i - 1] : undefined;
    const below = systems[i + 1]?.page === s.page ? systems[i + 1] : undefined;
    const halfAbove = above ? Math.max(0, (s.y0 - above.y1) / 2) : undefined;
    const halfBelow = below ? Math.max(0, (below.y0 - s.y1) / 2) : undefined;
    const lone = staff > 0 ? LONE_STAVES * staff : LONE_MARGIN * page.width;
    let top = Math.max(0, s.y0 - (halfAbove ?? halfBelow ?? lone));
    let bottom = Math.min(page.height, s.y1 + (halfBelow ?? halfAbove ?? lone));
    // What the system draws further out (a tempo or rehearsal mark, a high slur) is kept, up to
    // its neighbours' staves: a bit of a neighbour's ink at the edge beats a cut-off mark.
    const drawn = inkOf.get(`${s.page}:${s.system}`);
    if (drawn) {
      const pad = INK_PAD * staff;
      top = Math.max(0, Math.min(top, Math.max(drawn.top - pad, above?.y1 ?? 0)));
      bottom = Math.min(page.height, Math.max(bottom, Math.min(drawn.bottom + pad, below?.y0 ?? page.height)));
    }
    s.crop = { x: 0, y: top, width: page.width, height: Math.max(bottom - top, 1) };
  });

  /** @type {Line[]} */
  const lines = [];
  /** @type {number[]} */
  const lineOfBeat = [];
  for (const b of beats) {
    let line = lines[lines.length - 1];
    if (!line || line.page !== b.page || line.system !== b.system) {
      const box = /** @type {SystemBox} */ (byKey.get(`${b.page}:${b.system}`));
      line = {
        index: lines.length,
        page: b.page,
        system: b.system,
        firstBeat: b.beat,
        lastBeat: b.beat,
        firstBar: b.bar,
        lastBar: b.bar,
        crop: box.crop,
      };
      lines.push(line);
    }
    line.lastBeat = b.beat;
    line.lastBar = b.bar;
    lineOfBeat.push(line.index);
  }

  /** @param {number} beat */
  const lineOf = (beat) => (Number.isFinite(beat) ? (lineOfBeat[Math.floor(beat)] ?? -1) : -1);

  return {
    ok: true,
    value: {
      pages,
      systems,
      lines,
      beatCount: beats.length,
      lineOf,
      cursorAt(beat, fraction = 0) {
        const line = lineOf(beat);
        if (line < 0) return null;
        const b = beats[Math.floor(beat)];
        const f = Number.isFinite(fraction) ? Math.min(Math.max(fraction, 0), 1) : 0;
        return {
          beat: b.beat,
          line,
          page: b.page,
          x: b.x0 + (b.x1 - b.x0) * f,
          y0: b.y0,
          y1: b.y1,
          x0: b.x0,
          x1: b.x1,
        };
      },
    },
  };
}

/**
 * @param {unknown} notation
 * @returns {{ ok: true, value: Notation } | { ok: false, message: string }}
 */
function checkNotation(notation) {
  /** @param {string} message */
  const fail = (message) => ({ ok: /** @type {const} */ (false), message: `notation: ${message}` });
  if (!isObject(notation)) return fail('expected { pages, beats } from /api/score/views/:view');
  const { pages, beats } = notation;
  if (!Array.isArray(pages) || pages.length === 0)
    return fail('"pages" must list the view\'s pages, each { url, width, height }');
  /** @type {NotationPage[]} */
  const cleanPages = [];
  for (const [i, p] of pages.entries()) {
    if (!isObject(p) || typeof p.url !== 'string' || p.url === '' || !positive(p.width) || !positive(p.height)) {
      return fail(`pages[${i}] must be { url, width, height } with a URL and sizes > 0`);
    }
    // A PDF page's renderings: kept when each is { url, width } (else the page has its url only).
    const images = Array.isArray(p.images)
      ? p.images.filter(
          (/** @type {unknown} */ m) => isObject(m) && typeof m.url === 'string' && m.url !== '' && positive(m.width),
        )
      : [];
    cleanPages.push({
      url: p.url,
      width: p.width,
      height: p.height,
      ...(images.length > 0 && images.length === p.images.length
        ? { images: images.map((/** @type {any} */ m) => ({ url: m.url, width: m.width })) }
        : {}),
    });
  }
  if (!Array.isArray(beats)) return fail('"beats" must be a list with one entry per beat');
  /** @type {NotationBeat[]} */
  const cleanBeats = [];
  for (const [i, b] of beats.entries()) {
    if (!isObject(b)) return fail(`beats[${i}] must be { beat, page, system, bar, x0, x1, y0, y1 }`);
    /** @type {Record<string, number>} */
    const entry = {};
    for (const name of FIELDS) {
      const v = b[name];
      if (!(typeof v === 'number' && Number.isFinite(v))) return fail(`beats[${i}].${name} must be a finite number`);
      entry[name] = v;
    }
    const e = /** @type {NotationBeat} */ (/** @type {unknown} */ (entry));
    if (e.beat !== i) return fail(`beats[${i}] is beat ${e.beat}; the map must list beats 0..N-1 in order`);
    if (!Number.isInteger(e.page) || e.page < 0 || e.page >= cleanPages.length)
      return fail(`beats[${i}].page ${e.page} is not one of the ${cleanPages.length} pages`);
    if (!Number.isInteger(e.system) || e.system < 0)
      return fail(`beats[${i}].system ${e.system} is not a system index`);
    if (e.x0 > e.x1 || e.y0 > e.y1) return fail(`beats[${i}] has x0 > x1 or y0 > y1`);
    cleanBeats.push(e);
  }
  // Optional: a view without them is cropped by the half-way rule alone.
  const { ink, staff } = notation;
  /** @type {SystemInk[]} */
  const cleanInk = Array.isArray(ink)
    ? ink
        .filter(
          (i) =>
            isObject(i) &&
            ['page', 'system', 'top', 'bottom'].every((k) => typeof i[k] === 'number' && Number.isFinite(i[k])) &&
            i.top <= i.bottom,
        )
        .map((i) => ({ page: i.page, system: i.system, top: i.top, bottom: i.bottom }))
    : [];
  return {
    ok: true,
    value: { pages: cleanPages, beats: cleanBeats, ink: cleanInk, staff: positive(staff) ? staff : 0 },
  };
}

/**
 * What the part view's two panes show. While line k plays, its pane is active and the other pane
 * prepares the line that follows: k + 1, or the line a jump announced goes to (`following`: a
 * seek, a mark, a loop's next time round), so that the page it lands on is drawn before its
 * downbeat. The pane the player moves to is never refilled as play moves there: moving on by one
 * line refills only the pane just left (with k + 2); an unannounced jump refills both. Without a
 * previous plan, line k is in pane k % 2. Before the first beat (a count-in) the plan is that of
 * line 0.
 * @typedef {object} PanePlan
 * @property {number} current               the playing line, -1 when there are no lines
 * @property {0 | 1} active                 the pane showing `current`
 * @property {[number, number]} lines       the line in each pane, -1 for an empty pane
 * @property {[boolean, boolean]} changed   panes whose line differs from the previous plan
 */

/**
 * @param {number} current    the playing line (clamped into 0..lineCount-1)
 * @param {number} lineCount
 * @param {PanePlan | null} [previous]  the plan in force; null draws both panes
 * @param {number} [following]  the line that follows `current` when it is not the next in order
 *   (a jump announced); ignored unless a line of the piece other than `current`
 * @returns {PanePlan}
 */
export function panePlan(current, lineCount, previous = null, following = -1) {
  const count = Number.isInteger(lineCount) && lineCount > 0 ? lineCount : 0;
  const k = count === 0 ? -1 : Math.min(Math.max(Number.isFinite(current) ? Math.floor(current) : 0, 0), count - 1);
  const jumpsTo = Number.isInteger(following) && following >= 0 && following < count && following !== k;
  const after = jumpsTo ? following : k + 1;
  const next = k >= 0 && after < count ? after : -1;
  // The pane that already shows line k stays where it is (a line prepared as the one following).
  const kept = previous && k >= 0 ? previous.lines.indexOf(k) : -1;
  const active = /** @type {0 | 1} */ (kept >= 0 ? kept : k >= 0 ? k % 2 : 0);
  /** @type {[number, number]} */
  const lines = active === 0 ? [k, next] : [next, k];
  return {
    current: k,
    active,
    lines,
    changed: [previous?.lines[0] !== lines[0], previous?.lines[1] !== lines[1]],
  };
}

/** @param {unknown} v */
const positive = (v) => typeof v === 'number' && Number.isFinite(v) && v > 0;

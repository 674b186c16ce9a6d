// Which of a part's layouts to draw at a given width. The server engraves each part
// on pages of several widths with the same staff (server/package/engrave/options.js, PART_LAYOUTS);
// drawn across the width the view has, a narrower page gives a taller staff and fewer bars a
// line. A player reads a staff of about 7 mm at arm's length: on a phone 390 CSS px wide (about
// 65 mm of glass, 0.17 mm a CSS px) that is some 40 CSS px, and on a tablet or a laptop a 40 px
// staff is 6-10 mm. So: the widest layout whose staff is at least MIN_STAFF_PX tall, and on a
// screen too narrow for any, the one with the tallest staff. Pure.
//
// One rule on both sides: the part view chooses by it as its width changes, and the server by it
// when a page's first request gives the width it draws at (`?width=`, doc/protocol.md, "Score
// views"), so that a phone's first visit asks once, not for the default layout and then its own.

/** The least staff height, five lines, in CSS px, that a layout is chosen for. */
export const MIN_STAFF_PX = 40;

/** The widest `?width=` the route takes, in CSS px: wider than any screen, a bound on the input. */
export const MAX_WIDTH_PX = 10_000;

/**
 * The width a request says its view draws at (`?width=`, CSS px): a whole number from 1 to
 * MAX_WIDTH_PX written in digits, else null (a query value is untrusted input).
 * @param {unknown} value  as the query string gives it
 * @returns {number | null}
 */
export function widthOf(value) {
  if (typeof value !== 'string' || !/^[1-9]\d{0,4}$/.test(value)) return null;
  const width = Number(value);
  return width <= MAX_WIDTH_PX ? width : null;
}

/**
 * A layout as `GET /api/score/views/:view` lists it (doc/protocol.md, "Score views").
 * @typedef {object} LayoutEntry
 * @property {string} name
 * @property {number} staff  staff height in page units
 * @property {number} width  page width in page units
 * @property {string} url    where its `{ pages, beats, staff }` is
 */

/**
 * The layouts a view's notation lists, keeping only well-formed entries; none for a view with
 * one layout (the full score, a package's own pages).
 * @param {unknown} notation
 * @returns {LayoutEntry[]}
 */
export function layoutsOf(notation) {
  if (notation === null || typeof notation !== 'object') return [];
  const list = /** @type {{ layouts?: unknown }} */ (notation).layouts;
  if (!Array.isArray(list)) return [];
  return list.filter(
    (l) =>
      l !== null &&
      typeof l === 'object' &&
      typeof l.name === 'string' &&
      typeof l.url === 'string' &&
      positive(l.staff) &&
      positive(l.width),
  );
}

/**
 * @param {LayoutEntry[]} layouts
 * @param {number} width  CSS px the page is drawn across
 * @param {number} [minStaff]
 * @returns {LayoutEntry | null}  null when there is nothing to choose from or no width yet
 */
export function chooseLayout(layouts, width, minStaff = MIN_STAFF_PX) {
  if (layouts.length === 0 || !positive(width)) return null;
  const px = (/** @type {LayoutEntry} */ l) => (l.staff * width) / l.width;
  const widestFirst = [...layouts].sort((a, b) => b.width - a.width);
  return widestFirst.find((l) => px(l) >= minStaff) ?? widestFirst.reduce((best, l) => (px(l) > px(best) ? l : best));
}

/** @param {unknown} v @returns {v is number} */
const positive = (v) => typeof v === 'number' && Number.isFinite(v) && v > 0;

/**
 * How long a view with pending layouts waits before asking again, in ms: the hint the server
 * sends (server/package/routes.js), and the wait when a server gives none. The layouts of a
 * concert-length score take tens of seconds, and a room of phones asking every few seconds costs
 * a small JSON each.
 */
export const PENDING_RETRY_MS = 5000;

/**
 * Whether some of the view's layouts are still being engraved, and if so how long to wait
 * before asking again (the route's `retryMs`, bounded to 1-60 s); null when none is pending.
 * @param {unknown} notation
 * @returns {number | null}
 */
export function pendingOf(notation) {
  if (notation === null || typeof notation !== 'object') return null;
  const { pending, retryMs } = /** @type {{ pending?: unknown, retryMs?: unknown }} */ (notation);
  if (!Array.isArray(pending) || pending.length === 0) return null;
  return positive(retryMs) ? Math.min(60_000, Math.max(1000, retryMs)) : PENDING_RETRY_MS;
}

// What the part view and the score view share: the reduced-motion preference, the answer to
// notation that cannot be drawn, how a view is mounted, and the shape of a view.

import { buildSystems } from './systems.js';
import { createPageSource } from './page-svg.js';
import { createCursor } from './cursor.js';

/**
 * @typedef {object} NotationViewOptions
 * @property {(url: string) => Promise<string>} loadPage  the SVG text of a page (not called for image pages)
 * @property {(name: string) => void} [onLayout]  a part view drew this layout (its name in `layouts`)
 * @property {boolean} [reducedMotion]  no gliding cursor or smooth scrolling; default: the user's
 *   `prefers-reduced-motion`, read on every update (each beat drawn) so a change applies from the
 *   next beat
 */

/**
 * @typedef {object} NotationView
 * @property {(beat: number, fraction?: number, following?: number, span?: import('./cursor.js').BeatSpan | null) => void} update
 *   show global beat `beat` (performance order) with `fraction` of it gone, in [0, 1). A beat
 *   before 0 (count-in) shows the first line without a cursor; one past the end, the last line.
 *   `following`: the beat announced to follow (state.next); a part view prepares its page when it
 *   is not the next in order (a jump). `span`: the beat's start and end on the page's clock while
 *   it plays, over which the cursor glides by itself (cursor.js); null or absent: the cursor
 *   stands where `fraction` puts it.
 * @property {boolean} [moving]  its cursor is placed by each frame's fraction of the beat (it
 *   cannot glide by itself): update it every frame while playing. Absent or false: only on
 *   changes (a beat, a click, a new state), the page's main thread idle between them.
 * @property {(chosen: unknown) => void} [setPages]  the pages the audience chose for this part
 *   (state.pages[part]; part view only)
 * @property {() => void} destroy  remove what the view added to its root
 * @property {string | null} error  why nothing is drawn (bad notation), else null
 */

/**
 * @param {Document} doc
 * @param {boolean | undefined} forced  the option, when the caller set it
 * @returns {() => boolean} whether motion should be reduced now
 */
export function motionPreference(doc, forced) {
  if (forced !== undefined) return () => forced;
  const mq = doc.defaultView?.matchMedia?.('(prefers-reduced-motion: reduce)');
  return () => mq?.matches ?? false;
}

/**
 * Say in the page why the notation is not drawn, and return a view that does nothing.
 * @param {HTMLElement} box  the view's own element
 * @param {string} message
 * @returns {NotationView}
 */
export function showProblem(box, message) {
  const p = box.ownerDocument.createElement('p');
  p.className = 'sc-notation-problem';
  p.setAttribute('role', 'alert');
  p.textContent = `The notation cannot be shown (${message}).`;
  box.append(p);
  return {
    error: message,
    update() {},
    destroy() {
      box.remove();
    },
  };
}

/**
 * What both views start with: their own box in `root`, the systems of the notation, the page
 * source, the cursor and the motion preference; or, for notation that cannot be drawn, the
 * problem shown and a view that does nothing.
 * @param {HTMLElement} root
 * @param {unknown} notation
 * @param {string} kind  `part` or `score` (the box's class `sc-<kind>`)
 * @param {NotationViewOptions} options
 */
export function mountView(root, notation, kind, { loadPage, reducedMotion }) {
  const doc = root.ownerDocument;
  const box = doc.createElement('div');
  box.className = `sc-notation sc-${kind}`;
  root.append(box);
  const built = buildSystems(notation);
  if (!built.ok) return { ok: /** @type {const} */ (false), view: showProblem(box, built.message) };
  return {
    ok: /** @type {const} */ (true),
    doc,
    box,
    layout: built.value,
    source: createPageSource(doc, loadPage),
    cursor: createCursor(doc),
    reduce: motionPreference(doc, reducedMotion),
  };
}

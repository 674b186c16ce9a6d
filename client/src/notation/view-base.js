// What the part view and the score view share: the reduced-motion preference, the answer to
// notation that cannot be drawn, and the shape of a view.

/**
 * @typedef {object} NotationViewOptions
 * @property {(url: string) => Promise<string>} loadPage  the SVG text of a page (not called for image pages)
 * @property {boolean} [reducedMotion]  no gliding cursor or smooth scrolling; default: the user's
 *   `prefers-reduced-motion`, read on every update so a change applies at once
 */

/**
 * @typedef {object} NotationView
 * @property {(beat: number, fraction?: number) => void} update
 *   show global beat `beat` (performance order) with `fraction` of it gone, in [0, 1). A beat
 *   before 0 (count-in) shows the first line without a cursor; one past the end, the last line.
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
  return { error: message, update() {}, destroy() { box.remove(); } };
}

// Instructions of up to three lines, each fitted to the width of the phone (ZScore's audience page
// shows three lines on a panel, each as large as it fits). The lines stay one text node apart, so
// the element's text is the cue's text, newlines and all.

/** Lines shown; further lines join the last (ZScore's instructions have three). */
export const MAX_LINES = 3;
/** A line is never made smaller than this share of the panel's font size. */
export const MIN_SCALE = 0.45;

/**
 * The lines of a cue's text, at most MAX_LINES, empty lines dropped.
 * @param {string} text
 */
export function instructionLines(text) {
  const lines = text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
  return lines.length <= MAX_LINES ? lines : [...lines.slice(0, MAX_LINES - 1), lines.slice(MAX_LINES - 1).join(' ')];
}

/**
 * The font scale that makes a line of `width` fit `box` (1 when it fits already).
 * @param {number} width @param {number} box
 */
export function fitScale(width, box) {
  if (!(width > 0 && box > 0) || width <= box) return 1;
  return Math.max(MIN_SCALE, Math.floor((box / width) * 100) / 100);
}

/**
 * Show `text` in `el` as fitted lines.
 * @param {HTMLElement} el
 * @param {string} text
 */
export function showFittedLines(el, text) {
  const doc = el.ownerDocument;
  const lines = instructionLines(text);
  /** @type {Node[]} */
  const nodes = [];
  lines.forEach((line, i) => {
    if (i > 0) nodes.push(doc.createTextNode('\n'));
    const span = doc.createElement('span');
    span.className = 'line';
    span.textContent = line;
    nodes.push(span);
  });
  el.replaceChildren(...nodes);
  // Measured after layout: the width each line takes at full size against the panel's.
  const box = el.clientWidth;
  for (const span of /** @type {HTMLElement[]} */ ([...el.querySelectorAll('.line')])) {
    const scale = fitScale(span.scrollWidth, box);
    span.style.fontSize = scale === 1 ? '' : `${scale}em`;
  }
}

// A few lines of DOM building for the console and the composer preview: no framework for two
// pages of controls.

/**
 * Create an element with attributes and children (strings become text).
 * @param {string} tag
 * @param {Record<string, string | boolean | undefined>} [attrs]
 * @param {...(Node | string | null | undefined)} children
 * @returns {HTMLElement}
 */
export function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === false) continue;
    node.setAttribute(k, v === true ? '' : v);
  }
  for (const c of children) if (c !== null && c !== undefined) node.append(c);
  return node;
}

/**
 * A plain button (not a form's submit) that calls `onClick`.
 * @param {string} id
 * @param {string} label
 * @param {() => void} onClick
 * @returns {HTMLElement}
 */
export function button(id, label, onClick) {
  const b = h('button', { id, type: 'button' }, label);
  b.addEventListener('click', onClick);
  return b;
}

/**
 * Write only on change (no relayout, no repeated screen-reader announcement).
 * @param {HTMLElement} node
 * @param {string} text
 */
export function setText(node, text) {
  if (node.textContent !== text) node.textContent = text;
}

// A small non-validating XML reader for notation files (MusicXML, MEI) and Verovio's own MEI.
// It keeps each element's source offsets, so a part can be cut out of a score by deleting ranges
// of the original text (formatting, entities and DOCTYPE stay as the composer's program wrote
// them). Like the protocol decoders, it returns an error value instead of throwing.

/**
 * @typedef {object} XmlElement
 * @property {string} name                 qualified name as written (e.g. "score-part", "xml:id")
 * @property {Record<string, string>} attrs attribute values, entities decoded
 * @property {XmlElement[]} children       child elements (text is not kept: read it with textOf)
 * @property {number} start                offset of '<' of the start tag
 * @property {number} openEnd              offset just after the start tag's '>'
 * @property {number} end                  offset just after the end tag (or the empty tag)
 */

/**
 * @typedef {{ ok: true, root: XmlElement } | { ok: false, line: number, message: string }} XmlResult
 */

const NAME = /[A-Za-z_:][-A-Za-z0-9_:.]*/y;
const ATTR = /\s*([A-Za-z_:][-A-Za-z0-9_:.]*)\s*=\s*(?:"([^"<]*)"|'([^'<]*)')/y;
const ENTITY = /&(?:#x([0-9a-fA-F]+)|#([0-9]+)|(amp|lt|gt|quot|apos));/g;
/** @type {Record<string, string>} */
const NAMED = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/**
 * Decode the five predefined entities and character references.
 * @param {string} s
 */
export function decodeEntities(s) {
  if (!s.includes('&')) return s;
  return s.replace(ENTITY, (_, hex, dec, named) =>
    named ? NAMED[named] : String.fromCodePoint(parseInt(hex ?? dec, hex ? 16 : 10)),
  );
}

/**
 * Parse `text` into an element tree.
 * @param {string} text
 * @returns {XmlResult}
 */
export function parseXml(text) {
  /** @type {XmlElement[]} */
  const stack = [];
  /** @type {XmlElement | null} */
  let root = null;
  let i = 0;
  const n = text.length;
  const lineAt = (/** @type {number} */ at) => {
    let line = 1;
    for (let k = text.indexOf('\n'); k !== -1 && k < at; k = text.indexOf('\n', k + 1)) line++;
    return line;
  };
  /** @param {number} at @param {string} message @returns {XmlResult} */
  const fail = (at, message) => ({ ok: false, line: lineAt(at), message });

  while (i < n) {
    const lt = text.indexOf('<', i);
    const textEnd = lt === -1 ? n : lt;
    if (stack.length === 0 && textEnd > i && text.slice(i, textEnd).trim() !== '') {
      return fail(i, root ? 'text after the end of the document' : 'text before the first element');
    }
    if (lt === -1) break;
    i = lt;
    if (text.startsWith('<!--', i)) {
      const e = text.indexOf('-->', i + 4);
      if (e === -1) return fail(i, 'a comment is not closed');
      i = e + 3;
    } else if (text.startsWith('<![CDATA[', i)) {
      if (stack.length === 0) return fail(i, 'CDATA outside the root element');
      const e = text.indexOf(']]>', i + 9);
      if (e === -1) return fail(i, 'a CDATA section is not closed');
      i = e + 3;
    } else if (text.startsWith('<?', i)) {
      const e = text.indexOf('?>', i + 2);
      if (e === -1) return fail(i, 'a processing instruction is not closed');
      i = e + 2;
    } else if (text.startsWith('<!DOCTYPE', i)) {
      if (root || stack.length) return fail(i, 'DOCTYPE after the first element');
      // The internal subset may hold '>' inside brackets.
      let k = i + 9;
      let depth = 0;
      for (; k < n; k++) {
        const c = text[k];
        if (c === '[') depth++;
        else if (c === ']') depth--;
        else if (c === '>' && depth <= 0) break;
      }
      if (k >= n) return fail(i, 'the DOCTYPE is not closed');
      i = k + 1;
    } else if (text[i + 1] === '/') {
      NAME.lastIndex = i + 2;
      const m = NAME.exec(text);
      const close = m ? text.indexOf('>', NAME.lastIndex) : -1;
      if (!m || close === -1 || text.slice(NAME.lastIndex, close).trim() !== '') return fail(i, 'a malformed end tag');
      const open = stack.pop();
      if (!open) return fail(i, `an end tag </${m[0]}> without a start tag`);
      if (open.name !== m[0]) return fail(i, `<${open.name}> (line ${lineAt(open.start)}) is closed by </${m[0]}>`);
      open.end = close + 1;
      i = close + 1;
    } else {
      NAME.lastIndex = i + 1;
      const m = NAME.exec(text);
      if (!m) return fail(i, "a '<' that starts no tag");
      if (root && stack.length === 0) return fail(i, 'a second root element');
      /** @type {Record<string, string>} */
      const attrs = {};
      let k = NAME.lastIndex;
      for (;;) {
        ATTR.lastIndex = k;
        const a = ATTR.exec(text);
        if (!a) break;
        attrs[a[1]] = decodeEntities(a[2] ?? a[3]);
        k = ATTR.lastIndex;
      }
      while (k < n && /\s/.test(text[k])) k++;
      const selfClosing = text.startsWith('/>', k);
      if (!selfClosing && text[k] !== '>') return fail(k, `a malformed start tag <${m[0]}>`);
      const openEnd = k + (selfClosing ? 2 : 1);
      /** @type {XmlElement} */
      const el = { name: m[0], attrs, children: [], start: i, openEnd, end: openEnd };
      const parent = stack[stack.length - 1];
      if (parent) parent.children.push(el);
      else root = el;
      if (!selfClosing) stack.push(el);
      i = openEnd;
    }
  }
  if (stack.length > 0)
    return fail(n, `<${stack[stack.length - 1].name}> (line ${lineAt(stack[stack.length - 1].start)}) is not closed`);
  if (!root) return fail(0, 'there is no element');
  return { ok: true, root };
}

/**
 * The element's local name (without a namespace prefix).
 * @param {XmlElement} el
 */
export const localName = (el) => el.name.slice(el.name.indexOf(':') + 1);

/**
 * Direct children with local name `name`.
 * @param {XmlElement} el
 * @param {string} name
 */
export const childrenNamed = (el, name) => el.children.filter((c) => localName(c) === name);

/**
 * The first direct child with local name `name`.
 * @param {XmlElement} el
 * @param {string} name
 */
export const child = (el, name) => el.children.find((c) => localName(c) === name);

/**
 * Visit every element below `el` in document order; return false from `visit` to skip a subtree.
 * @param {XmlElement} el
 * @param {(el: XmlElement, parent: XmlElement) => boolean | void} visit
 */
export function walk(el, visit) {
  for (const c of el.children) {
    if (visit(c, el) !== false) walk(c, visit);
  }
}

/**
 * Text content of an element (tags stripped, entities decoded).
 * @param {string} text the document the element was parsed from
 * @param {XmlElement} el
 */
export function textOf(text, el) {
  if (el.end === el.openEnd) return '';
  const inner = text.slice(el.openEnd, text.lastIndexOf('<', el.end - 1));
  return decodeEntities(inner.replace(/<!\[CDATA\[([\s\S]*?)\]\]>|<[^>]*>/g, (_, cdata) => cdata ?? ''));
}

/**
 * Apply non-overlapping replacements of source ranges.
 * @param {string} text
 * @param {{ start: number, end: number, with?: string }[]} edits
 */
export function spliceText(text, edits) {
  const sorted = [...edits].sort((a, b) => a.start - b.start);
  let out = '';
  let at = 0;
  for (const e of sorted) {
    if (e.start < at) continue; // inside a range already removed
    out += text.slice(at, e.start) + (e.with ?? '');
    at = e.end;
  }
  return out + text.slice(at);
}

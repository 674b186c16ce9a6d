// Whether CSS text can only refer to things inside its page: the check sanitize.js applies to
// every style and presentation attribute of a package's SVG page, and the engraving worker to
// the attribute values Verovio carries over from a notation file (engrave/contained-svg.js).
// Pure: no DOM, so the engraving worker can use it without loading jsdom.

const URL_RE = /url\s*\(/gi;
// Inline data stays inside the page too: Verovio embeds its text font (Leipzig) in an
// @font-face as a data: URL.
const INLINE_DATA = String.raw`data:(?:image\/(?:png|jpeg|gif|webp|avif)|font\/(?:woff2?|ttf|otf)|application\/(?:font-woff2?|x-font-ttf|x-font-opentype|vnd\.ms-opentype))(?:;charset=[\w-]+)?;base64,[A-Za-z0-9+/=\s]*`;
const CONTAINED_URL_RE = new RegExp(String.raw`^url\s*\(\s*(['"]?)(?:#[\w.:-]*|${INLINE_DATA})\1\s*\)`, 'i');

/**
 * Whether CSS text (a style attribute, a <style> element, a presentation attribute such as fill)
 * can only refer to things inside the page. Backslashes are refused outright: a CSS escape can
 * spell url( or an at-rule import without the letters.
 * @param {string} css
 */
export function isContainedCss(css) {
  if (css.includes('\\') || /@import|image-set\s*\(|expression\s*\(|-moz-binding|behavior\s*:/i.test(css)) return false;
  for (const m of css.matchAll(URL_RE)) {
    if (!CONTAINED_URL_RE.test(css.slice(m.index))) return false;
  }
  return true;
}

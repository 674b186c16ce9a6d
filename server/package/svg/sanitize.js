// Cleans an SVG page from a score package before any browser sees it. Packages come from others
// (untrusted input: doc/security.md), and the notation views inline their pages into the page's own document,
// so a script, an event handler or a link in a page would run with the page's rights (in the
// preview: beside the conductor token). DOMPurify's SVG allow-list does the cleaning, on the
// document as an XML parser reads it (as the browser will: client/src/notation/page-svg.js
// parses pages as image/svg+xml), and the result is written back with an XML serializer, so
// what was checked is exactly what is served: no second parse of HTML-serialized text can turn
// it into something else. On top of DOMPurify's list, nothing may point outside the page: links
// and <use> only to `#fragment`s, <image> only to `#fragment`s or inline raster data, CSS only
// `url(#fragment)` or inline image and font data, no @import.

import createDOMPurify from 'dompurify';
import { JSDOM } from 'jsdom';

const SVG_NS = 'http://www.w3.org/2000/svg';

/** @typedef {{ ok: true, svg: string, removed: number } | { ok: false, reason: string }} SanitizeResult */

// Verovio draws every glyph as <use href="#id">, which DOMPurify leaves out by default (an
// external <use> can pull in a whole other document): it is allowed back here, with its href
// held to fragments below. Animation can rewrite an href after cleaning (<animate>, <set>),
// and notation does not need it.
/** @type {import('dompurify').Config & { RETURN_DOM: true }} */
const CONFIG = {
  USE_PROFILES: { svg: true, svgFilters: true },
  ADD_TAGS: ['use'],
  ADD_ATTR: ['xml:lang', 'xml:space'],
  FORBID_TAGS: ['animate', 'animateColor', 'animateMotion', 'animateTransform', 'set', 'discard'],
  FORBID_ATTR: ['xml:base', 'target'],
  RETURN_DOM: true,
};

const FRAGMENT_RE = /^#[\w.:-]*$/;
// Raster images embedded in the page (a scanned page in an SVG wrapper): no fetch, no script.
const RASTER_DATA_RE = /^data:image\/(?:png|jpeg|gif|webp|avif);base64,[A-Za-z0-9+/=\s]*$/;
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

/** @type {{ purify: import('dompurify').DOMPurify, window: any } | null} */
let instance = null;
/** <style> elements emptied by the current sanitizeSvg call (DOMPurify does not count them). */
let emptied = 0;

function purifier() {
  if (instance) return instance;
  const { window } = new JSDOM('');
  const purify = createDOMPurify(/** @type {any} */ (window));
  // An unsupported DOM makes DOMPurify hand back its input untouched: fail closed instead.
  if (!purify.isSupported) throw new Error('DOMPurify does not support this DOM (jsdom); SVG pages cannot be cleaned');
  // Called by DOMPurify for each attribute it is about to keep (the name lower-cased):
  // an attribute left out here is removed like one off its list.
  purify.addHook('uponSanitizeAttribute', (node, data) => {
    const value = data.attrValue.trim();
    if (/(?:^|:)href$|^src$/.test(data.attrName)) {
      if (!(FRAGMENT_RE.test(value) || (node.localName === 'image' && RASTER_DATA_RE.test(value))))
        data.keepAttr = false;
    } else if (/[(\\@]/.test(value) && !isContainedCss(value)) {
      data.keepAttr = false;
    }
  });
  purify.addHook('uponSanitizeElement', (node, data) => {
    // A <style> whose text reaches outside the page goes as a whole: a rule cannot be cut out
    // of CSS safely without parsing it.
    if (data.tagName === 'style' && !isContainedCss(node.textContent ?? '')) {
      node.textContent = '';
      emptied++;
    }
  });
  instance = { purify, window };
  return instance;
}

/**
 * Turn CDATA sections into the text they hold (the same thing to an XML reader): DOMPurify copies
 * the page into an HTML document, which cannot hold CDATA sections, and threw on any page with
 * one (a `<style><![CDATA[...]]>` as drawing programs write it; found by test/fuzz/svg.test.js).
 * The serializer escapes the text as it needs.
 * @param {Document} doc
 */
function textForCdata(doc) {
  /** @type {Node[]} */
  const sections = [];
  const walker = doc.createTreeWalker(doc, 0x8 /* NodeFilter.SHOW_CDATA_SECTION */);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) sections.push(n);
  for (const n of sections) n.parentNode?.replaceChild(doc.createTextNode(n.nodeValue ?? ''), n);
}

/**
 * Clean one SVG page. Never throws: a page that is not a well-formed SVG document is an error
 * value naming what is wrong.
 * @param {string} text  the page as found in the package
 * @returns {SanitizeResult}
 */
export function sanitizeSvg(text) {
  /** @type {ReturnType<typeof purifier>} */
  let shared;
  try {
    shared = purifier();
  } catch (err) {
    return { ok: false, reason: `could not be checked (${/** @type {Error} */ (err).message})` };
  }
  const { purify, window } = shared;
  emptied = 0;
  const parsed = new window.DOMParser().parseFromString(text, 'image/svg+xml');
  const root = parsed.documentElement;
  const error = parsed.getElementsByTagName('parsererror')[0];
  if (error) return { ok: false, reason: `is not well-formed XML (${(error.textContent ?? '').trim().slice(0, 120)})` };
  if (root.localName !== 'svg' || root.namespaceURI !== SVG_NS)
    return { ok: false, reason: 'is not an SVG document (its root element is not <svg> in the SVG namespace)' };
  textForCdata(parsed);
  /** @type {Element} */
  let body;
  try {
    body = /** @type {Element} */ (/** @type {unknown} */ (purify.sanitize(root, CONFIG)));
  } catch (err) {
    // Fail closed on whatever the DOM refuses while DOMPurify copies the page.
    return { ok: false, reason: `could not be cleaned (${/** @type {Error} */ (err).message})` };
  }
  // What DOMPurify returns is its own <body> around the clean copy, never the input itself.
  if (body === /** @type {unknown} */ (root) || body.localName !== 'body')
    return { ok: false, reason: 'could not be cleaned' };
  // DOMPurify counts the <body> it wraps the page in as removed.
  const removed = purify.removed.filter((r) => !('element' in r && r.element?.nodeName === 'BODY')).length + emptied;
  const svg = body.firstElementChild;
  if (svg?.localName !== 'svg')
    return { ok: false, reason: 'has nothing left after removing what a page may not contain' };
  return { ok: true, svg: new window.XMLSerializer().serializeToString(svg), removed };
}

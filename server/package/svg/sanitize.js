// Cleans an SVG page from a score package before any browser sees it. Packages come from others
// (untrusted input: doc/security.md), and the notation views inline their pages into the page's own document,
// so a script, an event handler or a link in a page would run with the page's rights (in the
// preview: beside the conductor token). DOMPurify's SVG allow-list does the cleaning, on the
// document as an XML parser reads it (as the browser will: client/src/notation/page-svg.js
// parses pages as image/svg+xml), and the result is written back with an XML serializer, so
// what was checked is exactly what is served: no second parse of HTML-serialized text can turn
// it into something else. On top of DOMPurify's list, nothing may point outside the page: links
// and <use> only to `#fragment`s, <image> only to `#fragment`s or inline raster data, CSS only
// `url(#fragment)` or inline image and font data, no @import; and a <style> applies to its page
// only (scope-css.js), not to the document the page is shown in.

import { createHash } from 'node:crypto';
import createDOMPurify from 'dompurify';
import { JSDOM } from 'jsdom';
import { isContainedCss } from './contained-css.js';
import { learnFonts, pageScope, renameFamilies, scopeCss } from './scope-css.js';

export { isContainedCss };

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
  scopeStyles(svg, `sc-page-${createHash('sha256').update(text).digest('hex').slice(0, 12)}`);
  return { ok: true, svg: new window.XMLSerializer().serializeToString(svg), removed };
}

const FONT_FAMILY_IN_STYLE_RE = /(^|;)(\s*font-family\s*:)([^;]*)/gi;

/**
 * Hold the page's <style> elements to the page (scope-css.js): the root gets the scope's class,
 * each <style> its scoped rules (none: the element goes), and every use of the page's own
 * @font-face families their renamed names.
 * @param {Element} svg  the cleaned page's root
 * @param {string} cls
 */
function scopeStyles(svg, cls) {
  const styles = [...svg.getElementsByTagName('style')];
  if (styles.length === 0) return;
  const scope = pageScope(cls);
  for (const style of styles) learnFonts(style.textContent ?? '', scope);
  let kept = 0;
  for (const style of styles) {
    const { css } = scopeCss(style.textContent ?? '', scope);
    // What is written must pass the same check as what was read (no escapes, nothing outside).
    if (css === '' || !isContainedCss(css)) style.remove();
    else {
      style.textContent = css;
      kept++;
    }
  }
  if (kept === 0) return;
  svg.setAttribute('class', `${svg.getAttribute('class') ?? ''} ${cls}`.trim());
  if (scope.fonts.size === 0) return;
  for (const el of [svg, ...svg.querySelectorAll('[font-family], [style]')]) {
    const family = el.getAttribute('font-family');
    if (family !== null) el.setAttribute('font-family', renameFamilies(family, scope));
    const inline = el.getAttribute('style');
    if (inline?.includes('font-family'))
      el.setAttribute(
        'style',
        inline.replace(
          FONT_FAMILY_IN_STYLE_RE,
          (_, start, name, value) => `${start}${name}${renameFamilies(value, scope)}`,
        ),
      );
  }
}

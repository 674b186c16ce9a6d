// Engraved pages are Verovio's own SVG and skip the package sanitizer (svg/sanitize.js): cleaning
// a page with DOMPurify costs about 100 times what Verovio spends rendering it (bench/sanitize-svg.js:
// 605 ms against 6.2 ms for the demo's first page), which for the 600 pages of a large score
// with its layouts would triple the engraving's CPU. What Verovio writes is its own elements and
// its own <style>, but some attribute values come from the notation file as written: a MusicXML
// `color="url(http://...)"` becomes `fill="url(http://...)"` on the page. Those values are held
// to what the sanitizer keeps: an attribute whose value could reach outside the page (a url() or
// escape, an @-rule, an href not to a fragment) is removed, as the sanitizer would remove it.

import { isContainedCss } from '../svg/contained-css.js';

/** An attribute as Verovio writes it (pugixml: double quotes, `"` escaped as &quot;). */
const ATTR_RE = /\s([\w:.-]+)="([^"]*)"/g;
const FRAGMENT_RE = /^#[\w.:-]*$/;

/**
 * The page with every attribute that could reach outside it removed.
 * @param {string} svg  as Verovio rendered it
 * @returns {{ svg: string, removed: number }}
 */
export function containEngravedSvg(svg) {
  let removed = 0;
  const out = svg.replace(ATTR_RE, (whole, name, value) => {
    const keep = /(?:^|:)href$|^src$/i.test(name)
      ? FRAGMENT_RE.test(value.trim())
      : !/^on/i.test(name) && (!/[(\\@&]/.test(value) || isContainedCss(value.replaceAll('&amp;', '&')));
    if (keep) return whole;
    removed++;
    return '';
  });
  return { svg: out, removed };
}

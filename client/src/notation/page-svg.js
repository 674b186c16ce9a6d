// A view's pages as SVG elements whose user units are page units, for the notation views to crop
// (by viewBox) and draw the cursor over. Each page sits in a wrapper <svg> as a nested element
// sized to the page: engraved pages are inlined (so their notes are in the DOM), image pages
// (PNG, JPEG, ...) are an <image>, a PDF page's rendering at the width that suits the screen.
// Cropping the wrapper leaves the page's own viewBox alone: a nested <svg> without a size would
// be 100% of the crop, not of the page.

const SVG_NS = 'http://www.w3.org/2000/svg';
const RASTER_RE = /\.(png|jpe?g|gif|webp|avif)(?:[?#]|$)/i;

/**
 * @typedef {object} PageSource
 * @property {(page: import('./systems.js').NotationPage) => Promise<SVGSVGElement>} render
 *   a fresh wrapper of the page (one per place it is shown); rejects when it cannot be loaded
 * @property {(page: import('./systems.js').NotationPage) => void} warm  start loading it now
 */

/**
 * @param {Document} doc
 * @param {(url: string) => Promise<string>} loadPage  the SVG text of a page
 * @returns {PageSource}
 */
export function createPageSource(doc, loadPage) {
  /** @type {Map<string, Promise<SVGSVGElement>>} */
  const templates = new Map();

  /** @param {string} url */
  const template = (url) => {
    let t = templates.get(url);
    if (!t) {
      t = Promise.resolve()
        .then(() => loadPage(url))
        .then((text) => parseSvg(text, url));
      templates.set(url, t);
      // A failed load is tried again the next time the page is needed.
      t.catch(() => {
        templates.delete(url);
      });
    }
    return t;
  };

  return {
    async render(page) {
      const wrapper = /** @type {SVGSVGElement} */ (doc.createElementNS(SVG_NS, 'svg'));
      wrapper.setAttribute('class', 'sc-page-svg');
      wrapper.setAttribute('viewBox', `0 0 ${page.width} ${page.height}`);
      /** @type {Element} */
      let content;
      if (RASTER_RE.test(page.url)) {
        content = doc.createElementNS(SVG_NS, 'image');
        const win = doc.defaultView;
        content.setAttribute('href', imageFor(page, doc.documentElement.clientWidth * (win?.devicePixelRatio || 1)));
      } else {
        content = doc.importNode(await template(page.url), true);
        // The server's page units are the page's own viewBox units: map the one onto the other.
        content.setAttribute('x', '0');
        content.setAttribute('y', '0');
      }
      content.setAttribute('width', String(page.width));
      content.setAttribute('height', String(page.height));
      content.setAttribute('preserveAspectRatio', 'none');
      wrapper.append(content);
      return wrapper;
    },
    warm(page) {
      if (!RASTER_RE.test(page.url)) template(page.url).catch(() => {});
    },
  };
}

/**
 * The image of a page to draw on a screen `pixels` device pixels wide: of a PDF page's
 * renderings (narrowest first), the narrowest at least 0.8 times as wide (a part view draws the
 * page a little wider than the screen, its systems across it; an image up to a fifth narrower
 * than the glass is not seen as softer on a phone), else the widest; other pages have one.
 * @param {import('./systems.js').NotationPage} page
 * @param {number} pixels
 */
export function imageFor(page, pixels) {
  const list = page.images;
  if (!Array.isArray(list) || list.length === 0 || !(pixels > 0)) return page.url;
  return (list.find((i) => i.width >= pixels * 0.8) ?? list[list.length - 1]).url;
}

/**
 * Show `rect` (page units) of a page from `render`, scaled to the element's width.
 * @param {SVGSVGElement} svg
 * @param {import('./systems.js').Rect} rect
 */
export function cropTo(svg, rect) {
  svg.setAttribute('viewBox', `${rect.x} ${rect.y} ${rect.width} ${rect.height}`);
  svg.style.aspectRatio = `${rect.width} / ${rect.height}`;
}

/**
 * @param {string} text
 * @param {string} url  named in errors
 * @returns {SVGSVGElement}
 */
function parseSvg(text, url) {
  if (typeof text !== 'string') throw new Error(`page ${url}: loadPage must resolve to SVG text`);
  const parsed = new DOMParser().parseFromString(text, 'image/svg+xml');
  const root = parsed.documentElement;
  if (
    root.localName !== 'svg' ||
    root.namespaceURI !== SVG_NS ||
    parsed.getElementsByTagName('parsererror').length > 0
  ) {
    throw new Error(`page ${url} is not an SVG document`);
  }
  // The server serves package SVG cleaned (server/package/svg/sanitize.js) and every page carries a
  // Content-Security-Policy; this is only a last guard, for pages from elsewhere (the dev server).
  for (const el of [...root.querySelectorAll('script, foreignObject')]) el.remove();
  for (const el of [root, ...root.querySelectorAll('*')]) {
    for (const a of [...el.attributes]) {
      if (/^on/i.test(a.name) || (/href$/i.test(a.name) && /^\s*javascript:/i.test(a.value)))
        el.removeAttribute(a.name);
    }
  }
  return /** @type {SVGSVGElement} */ (/** @type {unknown} */ (root));
}

export { SVG_NS };

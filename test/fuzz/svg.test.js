// Property-based fuzzing of the SVG page sanitizer (server/package/svg/sanitize.js). A score package may
// come from anyone, and its pages are inlined into every view (in the preview, beside the
// conductor token). Generated pages mix what a page draws with hostile constructs: script,
// foreignObject, HTML-namespace iframe srcdoc/embed/object/form, javascript: and data: links
// obfuscated with tabs, newlines, character references and case, on* handlers, animate/set of
// href, <use> and <image> of outside documents, CSS url() and @import, processing instructions.
// Whatever the mix, the sanitizer's output must hold none of them, must parse as XML, and must
// keep every drawing element of the input. The checks below read the output on their own (a
// fresh XML parser and a walk of the tree), not with the sanitizer's rules.

import fc from 'fast-check';
import { JSDOM } from 'jsdom';
import { describe, it, expect } from 'vitest';
import { sanitizeSvg } from '../../server/package/svg/sanitize.js';
import { params, TIMEOUT } from './runs.js';

const SVG_NS = 'http://www.w3.org/2000/svg';
const XHTML_NS = 'http://www.w3.org/1999/xhtml';

/** Escape text for a double-quoted XML attribute or element content. @param {string} s */
const esc = (s) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/"/g, '&quot;');

/**
 * A dangerous URL spelled the ways browsers forgive: any case, character references (decimal
 * and hex, with and without leading zeros), tabs and newlines inside the scheme (the URL parser
 * drops them), leading spaces. Rendered as raw attribute text (already escaped for XML).
 */
const hostileUrl = fc
  .record({
    target: fc.constantFrom(
      'javascript:alert(1)',
      'vbscript:msgbox(1)',
      'data:text/html,<script>alert(1)</script>',
      'data:image/svg+xml,<svg onload=alert(1)>',
      'http://127.0.0.2/x.svg#a',
      '//127.0.0.2/a#b',
      'https://127.0.0.2/track.png',
    ),
    spelling: fc.array(fc.constantFrom('plain', 'plain', 'upper', 'dec', 'hex', 'hex0', 'tab', 'nl', 'tabref'), {
      minLength: 12,
      maxLength: 12,
    }),
    lead: fc.constantFrom('', ' ', '\t', '&#32;', '&#x0A;'),
  })
  .map(({ target, spelling, lead }) => {
    const scheme = target.indexOf(':') + 1;
    let out = lead;
    for (const [i, ch] of [...target].entries()) {
      const how = i < scheme ? spelling[i % spelling.length] : 'plain';
      const code = /** @type {number} */ (ch.codePointAt(0));
      if (how === 'upper') out += ch.toUpperCase();
      else if (how === 'dec') out += `&#${code};`;
      else if (how === 'hex') out += `&#x${code.toString(16)};`;
      else if (how === 'hex0') out += `&#x000${code.toString(16)};`;
      else if (how === 'tab') out += `\t${esc(ch)}`;
      else if (how === 'nl') out += `&#10;${esc(ch)}`;
      else if (how === 'tabref') out += `&#9;${esc(ch)}`;
      else out += esc(ch);
    }
    return out;
  });

/** A CSS value that reaches outside the page, or may: url() of outside documents, CSS imports. */
const hostileCss = fc.constantFrom(
  'fill:url(http://127.0.0.2/a.svg#g)',
  'background:url(//127.0.0.2/x.png)',
  'background-image:url( "javascript:alert(1)" )',
  'fill:u\\72l(http://127.0.0.2/)',
  '@import url(http://127.0.0.2/x.css);',
  "@import 'http://127.0.0.2/x.css';",
  'background:image-set("http://127.0.0.2/x.png" 1x)',
  'x:expression(alert(1))',
  'cursor:url(http://127.0.0.2/c.cur),auto',
  'mask:url(data:image/svg+xml;base64,PHN2Zy8+)',
);

/** Attributes no page may keep, for drawing elements to carry (the element itself must stay). */
const hostileAttr = fc.oneof(
  fc.tuple(
    fc.constantFrom('onload', 'onclick', 'onmouseover', 'onbegin', 'onerror', 'onfocusin', 'ONLOAD', 'OnClick'),
    fc.constant('alert(1)'),
  ),
  fc.tuple(fc.constantFrom('href', 'xlink:href', 'src', 'formaction', 'action', 'xml:base'), hostileUrl),
  fc.tuple(fc.constant('style'), hostileCss.map(esc)),
  fc.tuple(
    fc.constantFrom('fill', 'filter', 'clip-path', 'mask'),
    fc.constantFrom('url(http://127.0.0.2/a.svg#g)', 'url(&quot;//127.0.0.2/x#y&quot;)', 'url(javascript:alert(1))'),
  ),
  fc.tuple(fc.constant('target'), fc.constant('_blank')),
);

/** Hostile elements, as XML text (well-formed, so the page is still a document). */
const hostileElement = fc.oneof(
  fc.constantFrom(
    '<script>alert(1)</script>',
    '<script type="text/ecmascript"><![CDATA[ alert(1) ]]></script>',
    '<svg:script xmlns:svg="http://www.w3.org/2000/svg">alert(1)</svg:script>',
    `<foreignObject width="10" height="10"><body xmlns="${XHTML_NS}"><iframe srcdoc="&lt;script&gt;alert(1)&lt;/script&gt;"/></body></foreignObject>`,
    `<iframe xmlns="${XHTML_NS}" srcdoc="&lt;script&gt;parent.alert(1)&lt;/script&gt;"/>`,
    `<embed xmlns="${XHTML_NS}" src="http://127.0.0.2/x.swf"/>`,
    `<object xmlns="${XHTML_NS}" data="http://127.0.0.2/x.svg"/>`,
    `<form xmlns="${XHTML_NS}" action="http://127.0.0.2/steal"><input name="t" value="x"/><button formaction="javascript:alert(1)">go</button></form>`,
    `<div xmlns="${XHTML_NS}"><img src="x" onerror="alert(1)"/></div>`,
    '<animate attributeName="href" values="javascript:alert(1)" begin="0s"/>',
    '<set attributeName="xlink:href" to="javascript:alert(1)"/>',
    '<animateTransform attributeName="transform" type="rotate" from="0" to="360" onbegin="alert(1)"/>',
    '<animateMotion dur="1s" onend="alert(1)"/>',
    '<handler type="text/javascript">alert(1)</handler>',
    '<listener event="click" handler="#h"/>',
    '<discard begin="0s"/>',
    '<?xml-stylesheet href="http://127.0.0.2/x.css"?>',
    '<style>@import url(http://127.0.0.2/x.css); rect { fill: red }</style>',
    '<style><![CDATA[ path { fill: url(http://127.0.0.2/p.svg#g) } ]]></style>',
    '<style>text { font-family: x; src: u\\72l(http://127.0.0.2/f.woff) }</style>',
    '<feImage href="http://127.0.0.2/x.png"/>',
  ),
  hostileUrl.map((u) => `<a href="${u}"><text>link</text></a>`),
  hostileUrl.map((u) => `<a xlink:href="${u}"><text>link</text></a>`),
  hostileUrl.map((u) => `<use href="${u}"/>`),
  hostileUrl.map((u) => `<use xlink:href="${u}"/>`),
  hostileUrl.map((u) => `<image href="${u}" width="1" height="1"/>`),
  hostileUrl.map((u) => `<animate attributeName="href" to="${u}"/>`),
  hostileUrl.map((u) => `<set attributeName="href" to="${u}"/>`),
  hostileUrl.map((u) => `<iframe xmlns="${XHTML_NS}" src="${u}"/>`),
  hostileUrl.map((u) => `<script href="${u}"/>`),
  hostileCss.map((css) => `<style>${esc(css)}</style>`),
);

/**
 * Drawing elements (what a notation page is made of), each named by the id it gets when the
 * page is written, with the attribute that says what it draws. `use` refers to the page's own
 * symbol.
 */
const SHAPES = /** @type {const} */ ({
  rect: 'x="1" y="2" width="3" height="4"',
  path: 'd="M0 0 L10 10 C 2 3 4 5 6 7 Z"',
  circle: 'cx="5" cy="5" r="2"',
  ellipse: 'cx="5" cy="5" rx="2" ry="1"',
  line: 'x1="0" y1="0" x2="9" y2="9" stroke="black" stroke-width="0.5"',
  polyline: 'points="0,0 1,2 3,1"',
  polygon: 'points="0,0 1,2 3,1"',
  text: 'x="1" y="9" font-size="3"',
  use: 'href="#sym" x="2" y="2"',
  g: 'transform="translate(1 1)" fill="url(#grad)"',
});

/**
 * A node of a generated page: a drawing element (with hostile attributes to carry, and children
 * when it is a group or a link), or a hostile element.
 * @typedef {{ draw: keyof typeof SHAPES, bad: [string, string][], kids: Node[] } | { hostile: string }} Node
 */

/** @type {fc.Arbitrary<Node>} */
const node = fc.letrec((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.record({ hostile: hostileElement }),
    fc.record({
      draw: fc.constantFrom(.../** @type {(keyof typeof SHAPES)[]} */ (Object.keys(SHAPES))),
      bad: fc.array(hostileAttr, { maxLength: 3 }),
      kids: fc.array(tie('node'), { maxLength: 3 }),
    }),
  ),
})).node;

/**
 * Write the page: the nodes inside an <svg> that defines the symbol and gradient the drawing
 * refers to. Drawing elements get ids d0, d1, ... in document order; `drawn` lists them.
 * @param {Node[]} nodes
 */
function writePage(nodes) {
  /** @type {{ id: string, tag: string }[]} */
  const drawn = [];
  /** @param {Node} n @returns {string} */
  const write = (n) => {
    if ('hostile' in n) return n.hostile;
    const id = `d${drawn.length}`;
    drawn.push({ id, tag: n.draw });
    // A later attribute of the same name would make the page not well-formed: keep the first.
    const names = new Set(['id', ...SHAPES[n.draw].split(/\s+/).map((a) => a.split('=')[0])]);
    const bad = n.bad.filter(([name]) => !names.has(name.toLowerCase()) && names.add(name.toLowerCase()));
    const attrs = `id="${id}" ${SHAPES[n.draw]}${bad.map(([name, value]) => ` ${name}="${value}"`).join('')}`;
    if (n.draw === 'text') return `<text ${attrs}>note ${id}</text>`;
    if (n.draw === 'g') return `<g ${attrs}>${n.kids.map(write).join('')}</g>`;
    return `<${n.draw} ${attrs}/>`;
  };
  const body = nodes.map(write).join('');
  const svg =
    `<svg xmlns="${SVG_NS}" xmlns:xlink="http://www.w3.org/1999/xlink" width="100" height="100" viewBox="0 0 100 100">` +
    '<defs><symbol id="sym" viewBox="0 0 4 4"><path d="M0 0 L4 4"/></symbol>' +
    '<linearGradient id="grad"><stop offset="0" stop-color="#000"/><stop offset="1" stop-color="#fff"/></linearGradient></defs>' +
    `${body}</svg>`;
  return { svg, drawn };
}

const { window } = new JSDOM('');

/** A URL-like value with what a browser's URL parser drops (whitespace, controls) taken out. @param {string} v */
// What a browser strips from a URL before reading its scheme: controls and spaces (U+0000-U+0020).
const squeezed = (v) =>
  [...v]
    .filter((c) => c.charCodeAt(0) > 0x20)
    .join('')
    .toLowerCase();

/**
 * Everything a clean page may not hold, found by walking the output as an XML document.
 * @param {Document} doc
 * @returns {string[]}
 */
function findHostile(doc) {
  /** @type {string[]} */
  const found = [];
  const FORBIDDEN = new Set([
    'script',
    'foreignobject',
    'iframe',
    'embed',
    'object',
    'form',
    'input',
    'button',
    'img',
    'div',
    'body',
    'animate',
    'set',
    'animatetransform',
    'animatemotion',
    'animatecolor',
    'handler',
    'listener',
    'discard',
  ]);
  const walker = doc.createTreeWalker(doc, 0xffffffff);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    if (n.nodeType === 7) {
      found.push(`processing instruction ${/** @type {ProcessingInstruction} */ (n).target}`);
      continue;
    }
    if (n.nodeType !== 1) continue;
    const el = /** @type {Element} */ (n);
    if (el.namespaceURI !== SVG_NS) found.push(`element ${el.namespaceURI} ${el.localName}`);
    if (FORBIDDEN.has(el.localName.toLowerCase())) found.push(`element ${el.localName}`);
    const css = el.localName === 'style' ? (el.textContent ?? '') : '';
    if (/@import|\\|expression\s*\(|image-set/i.test(css)) found.push(`style text ${css.slice(0, 60)}`);
    for (const m of css.matchAll(/url\s*\(\s*['"]?\s*([^'")\s]*)/gi))
      if (!m[1].startsWith('#')) found.push(`style url ${m[1]}`);
    for (const a of el.attributes) {
      const name = a.localName.toLowerCase();
      const value = squeezed(a.value);
      if (name.startsWith('on')) found.push(`attribute ${a.name}`);
      if (
        ['href', 'src', 'action', 'formaction', 'data', 'srcdoc', 'base', 'target'].includes(name) &&
        !value.startsWith('#')
      )
        found.push(`${a.name}="${a.value}"`);
      if (/javascript:|vbscript:|data:text|data:image\/svg|127\.0\.0\.2|@import|\\/.test(value))
        found.push(`${a.name}="${a.value}"`);
      for (const m of a.value.matchAll(/url\s*\(\s*['"]?\s*([^'")\s]*)/gi))
        if (!m[1].startsWith('#')) found.push(`${a.name} url ${m[1]}`);
    }
  }
  return found;
}

describe('fuzz: SVG pages', () => {
  it(
    'hostile constructs mixed with drawing: none survives, the output is XML, the drawing stays',
    () => {
      fc.assert(
        fc.property(fc.array(node, { minLength: 1, maxLength: 8 }), (nodes) => {
          const { svg, drawn } = writePage(nodes);
          // The generator writes well-formed pages: a parser error here is a bug of the test.
          const input = new window.DOMParser().parseFromString(svg, 'image/svg+xml');
          expect(input.getElementsByTagName('parsererror').length, svg).toBe(0);

          const r = sanitizeSvg(svg);
          if (!r.ok) throw new Error(`${r.reason}\n${svg}`);
          const doc = new window.DOMParser().parseFromString(r.svg, 'image/svg+xml');
          expect(doc.getElementsByTagName('parsererror').length, r.svg).toBe(0);
          expect(doc.documentElement.localName).toBe('svg');
          expect(doc.documentElement.namespaceURI).toBe(SVG_NS);
          expect(findHostile(doc), `${svg}\n->\n${r.svg}`).toEqual([]);
          for (const { id, tag } of drawn) {
            const el = doc.getElementById(id);
            expect(el?.localName, `${id} <${tag}> kept\n${svg}\n->\n${r.svg}`).toBe(tag);
            if (tag === 'use') expect(el?.getAttribute('href')).toBe('#sym');
            if (tag === 'path') expect(el?.getAttribute('d')).toBe('M0 0 L10 10 C 2 3 4 5 6 7 Z');
            if (tag === 'text') expect(el?.textContent).toBe(`note ${id}`);
          }
          // What the drawing refers to stays too.
          expect(doc.getElementById('sym')?.localName).toBe('symbol');
          expect(doc.getElementById('grad')?.localName).toBe('linearGradient');
        }),
        params(),
      );
    },
    TIMEOUT,
  );

  it(
    'the hostile URL spellings are what a browser reads as the dangerous URL (the generator is not toothless)',
    () => {
      fc.assert(
        fc.property(hostileUrl, (u) => {
          const doc = new window.DOMParser().parseFromString(`<a xmlns="${SVG_NS}" href="${u}"/>`, 'image/svg+xml');
          const value = squeezed(/** @type {string} */ (doc.documentElement.getAttribute('href')));
          expect(value).toMatch(/^(javascript:|vbscript:|data:|http:|https:|\/\/)/);
        }),
        params(),
      );
    },
    TIMEOUT,
  );
});

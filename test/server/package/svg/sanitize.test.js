import { readFileSync } from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import { mkdtempSync } from 'node:fs';
import { describe, it, expect, vi } from 'vitest';
import { JSDOM } from 'jsdom';
import { isContainedCss, sanitizeSvg } from '../../../../server/package/svg/sanitize.js';
import { loadPackage } from '../../../../server/package/load.js';

const HOSTILE = readFileSync(new URL('../../../fixtures/hostile/pages/score-1.svg', import.meta.url), 'utf8');
const SVG = (/** @type {string} */ body) =>
  `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 10 10">${body}</svg>`;

/** @param {string} text */
function clean(text) {
  const r = sanitizeSvg(text);
  if (!r.ok) throw new Error(r.reason);
  return r.svg;
}

/**
 * Elements and attribute names of an SVG text, counted: a cheap picture of what a page draws.
 * @param {string} svg
 */
function census(svg) {
  /** @type {Record<string, number>} */
  const n = {};
  for (const m of svg.matchAll(/<([\w:-]+)|\s([\w:-]+)=/g)) {
    const k = m[1] ? `<${m[1]}` : m[2];
    n[k] = (n[k] ?? 0) + 1;
  }
  return n;
}

describe('sanitizeSvg', () => {
  it('removes every payload of the hostile fixture page', () => {
    const out = clean(HOSTILE);
    for (const bad of [
      '<script',
      'onload',
      'onmouseover',
      'onclick',
      'onerror',
      '<iframe',
      'srcdoc',
      '<embed',
      '<object',
      '<foreignObject',
      '<form',
      '<div',
      '<img',
      'javascript',
      '<animate',
      '<set',
      '127.0.0.2',
      '@import',
      'pwned',
      'data:image/svg',
    ]) {
      expect(out, bad).not.toContain(bad);
    }
  });

  it('keeps what a page draws: paths, text, symbols and <use> of them, gradients, clips, inline styles', () => {
    const out = clean(HOSTILE);
    expect(out).toContain('<use id="legit-use" href="#notehead"');
    expect(out).toContain('xlink:href="#notehead"');
    expect(out).toContain('<symbol id="notehead" viewBox="0 0 20 14">');
    expect(out).toContain('fill="url(#shade)" clip-path="url(#clip)"');
    expect(out).toMatch(
      /<style>\.staff:where\(\.(sc-page-[0-9a-f]{12}),\.\1 \*\)\{stroke:#000;stroke-width:2\}#legit-text:where\(\.\1,\.\1 \*\)\{font-family:serif\}<\/style>/,
    );
    expect(out).toContain('<text id="legit-text" x="50" y="60" font-size="40">Hostile page</text>');
    expect(out).toContain('transform="translate(0 100)"');
    expect(out).toMatch(/<image id="inline-image" href="data:image\/png;base64,/);
    expect(out).toContain('<a id="animated-link" href="#legit-text">');
  });

  it('refuses links, <use> and images that point outside the page, however written', () => {
    const out = clean(
      SVG(
        [
          '<a href=" jav&#x09;ascript:alert(1)"><text>a</text></a>',
          '<a xlink:href="JaVaScRiPt:alert(1)"><text>b</text></a>',
          '<a href="https://example.org/"><text>c</text></a>',
          '<use href="other.svg#a"/>',
          '<use href="/scores/x/y/sprite.svg#a"/>',
          '<image href="//example.org/p.png"/>',
          '<feImage href="http://example.org/f.png"/>',
          '<textPath href="data:text/html,x">t</textPath>',
        ].join(''),
      ),
    );
    expect(out).not.toMatch(/href=/);
  });

  it('refuses CSS that can fetch or hide what it fetches', () => {
    expect(isContainedCss('fill: url(#g); stroke: url( "#h" )')).toBe(true);
    expect(isContainedCss('fill: url(http://x/y)')).toBe(false);
    expect(isContainedCss('fill: url(#g) ; background: URL(x.png)')).toBe(false);
    expect(isContainedCss('@import "x.css"')).toBe(false);
    expect(isContainedCss('fill: u\\72l(x)')).toBe(false);
    expect(isContainedCss('background-image: image-set("x.png" 1x)')).toBe(false);
    expect(isContainedCss('@font-face { src: url(data:application/font-woff2;charset=utf-8;base64,d09GMgAB) }')).toBe(
      true,
    );
    expect(isContainedCss('@font-face { src: url(data:text/html;base64,PHNjcmlwdD4=) }')).toBe(false);
    expect(isContainedCss('fill: url(data:image/svg+xml;base64,PHN2Zz4=)')).toBe(false);
    const out = clean(
      SVG('<style>@font-face { src: url(/x.woff) }</style><rect style="fill: url(x.png)" fill="url(https://a/b)"/>'),
    );
    expect(out).toBe(SVG('<rect/>'));
    expect(sanitizeSvg(SVG('<style>@import "x.css";</style>'))).toMatchObject({ ok: true, removed: 1 });
  });

  it('keeps an engraved page as it was, its style held to it', async () => {
    const demo = await loadPackage('scores/demo', { cacheDir: mkdtempSync(path.join(os.tmpdir(), 'sc-cache-')) });
    const page = demo.files.get(demo.views.score.pages[0].url);
    const text = readFileSync(/** @type {{ file: string }} */ (page).file, 'utf8');
    const r = sanitizeSvg(text);
    expect(r).toMatchObject({ ok: true, removed: 0 });
    // The root gets its scope's class; nothing else is added or taken away.
    expect(census(r.ok ? r.svg : '')).toEqual({ ...census(text), class: (census(text).class ?? 0) + 1 });
    // Everything as an XML parser reads the page, the embedded text font too.
    const { window } = new JSDOM('');
    const original = new window.XMLSerializer().serializeToString(
      new window.DOMParser().parseFromString(text, 'image/svg+xml').documentElement,
    );
    expect(original).toContain('@font-face');
    // (DOMPurify trims attribute values: Verovio writes `points="... "`.) Its <style>s, the root's
    // class and its text font's name are the page's own now: the rest is as it was.
    const cls = /class="(sc-page-[0-9a-f]{12})"/.exec(r.ok ? r.svg : '')?.[1];
    const same = (/** @type {string} */ svg) =>
      svg
        .replace(/="\s+/g, '="')
        .replace(/\s+"(?=[\s/>])/g, '"')
        .replace(/<style[^>]*>[^<]*<\/style>/g, '<style/>')
        .replace(` class="${cls}"`, '')
        .replaceAll(`${cls}-Leipzig`, 'Leipzig');
    expect(r.ok && same(r.svg) === same(original)).toBe(true);
    expect(r.ok && r.svg).toContain(`#mtpi0e0 g.dir:where(.${cls},.${cls} *)`);
    expect(r.ok && r.svg).toContain(`@font-face{font-family:${cls}-Leipzig;`);
  }, 60_000);

  it('answers an error value for text that is not an SVG document', () => {
    expect(sanitizeSvg('<svg xmlns="http://www.w3.org/2000/svg"><g></svg>')).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/^is not well-formed XML/),
    });
    expect(sanitizeSvg('<html xmlns="http://www.w3.org/1999/xhtml"/>')).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/not an SVG document/),
    });
    expect(sanitizeSvg('<svg/>')).toMatchObject({ ok: false, reason: expect.stringMatching(/not an SVG document/) });
    expect(sanitizeSvg('')).toMatchObject({ ok: false });
  });

  it('keeps the text of CDATA sections (as drawing programs write <style>) and removes a script written in one', () => {
    // DOMPurify's HTML document cannot hold a CDATA section: any page with one used to throw.
    const out = clean(
      SVG(
        '<style><![CDATA[ rect > * { fill: red } ]]></style><text x="1"><![CDATA[a < b]]></text><script><![CDATA[ alert(1) ]]></script>',
      ),
    );
    const doc = new JSDOM('').window;
    const parsed = new doc.DOMParser().parseFromString(out, 'image/svg+xml');
    expect(parsed.getElementsByTagName('parsererror').length).toBe(0);
    expect(parsed.getElementsByTagName('style')[0]?.textContent).toMatch(
      /^rect>\*:where\(\.(sc-page-[0-9a-f]{12}),\.\1 \*\)\{fill:red\}$/,
    );
    expect(parsed.getElementsByTagName('text')[0]?.textContent).toBe('a < b');
    expect(out).not.toContain('script');
    expect(out).not.toContain('alert');
  });

  it('does not expand entities into a bomb', () => {
    const lol =
      '<!DOCTYPE svg [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]>';
    const r = sanitizeSvg(`${lol}<svg xmlns="http://www.w3.org/2000/svg"><text>&c;</text></svg>`);
    expect(r.ok ? r.svg.length : 0).toBeLessThan(1000);
  });

  it('fails closed when DOMPurify cannot work on the DOM it is given (it would hand the page back untouched)', async () => {
    vi.resetModules();
    vi.doMock('dompurify', () => ({
      default: () => ({ isSupported: false, removed: [], addHook() {}, sanitize: (/** @type {unknown} */ x) => x }),
    }));
    try {
      const fresh = await import('../../../../server/package/svg/sanitize.js');
      expect(fresh.sanitizeSvg(HOSTILE)).toEqual({
        ok: false,
        reason: expect.stringMatching(/could not be checked \(DOMPurify does not support this DOM/),
      });
    } finally {
      vi.doUnmock('dompurify');
      vi.resetModules();
    }
  });
});

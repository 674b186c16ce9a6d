// A page's <style> cannot restyle the view it is shown in: every rule of the hostile fixture page,
// once cleaned, styles only elements of the page when the page is inlined into a document as the
// notation views inline it (client/src/notation/page-svg.js), and its fonts are its own.

import { readFileSync } from 'node:fs';
import * as csstree from 'css-tree';
import { JSDOM } from 'jsdom';
import { describe, expect, it } from 'vitest';
import { sanitizeSvg } from '../../../../server/package/svg/sanitize.js';

const HOSTILE = readFileSync(new URL('../../../fixtures/hostile/pages/score-1.svg', import.meta.url), 'utf8');

/** The view of a tablet: controls, a status line, and the cleaned page inlined in a wrapper. */
function view(/** @type {string} */ svg) {
  const { window } = new JSDOM(
    '<!doctype html><html><body><header id="status">Playing</header><div class="controls"><button>Play</button></div>' +
      '<main><svg class="sc-page-svg" xmlns="http://www.w3.org/2000/svg"></svg><p>after</p></main></body></html>',
  );
  const doc = window.document;
  const page = doc.importNode(new window.DOMParser().parseFromString(svg, 'image/svg+xml').documentElement, true);
  doc.querySelector('.sc-page-svg')?.append(page);
  return { doc, page };
}

/**
 * Every selector of the document's <style>s, pseudo-elements left out (querySelectorAll does not
 * take them; what they style belongs to the element matched), and at-rules met on the way.
 * @param {Document} doc
 */
function selectorsOf(doc) {
  /** @type {string[]} */
  const selectors = [];
  /** @type {string[]} */
  const atRules = [];
  /** @type {string[]} */
  const families = [];
  for (const style of doc.querySelectorAll('style')) {
    csstree.walk(csstree.parse(style.textContent ?? ''), (node) => {
      if (node.type === 'Atrule') atRules.push(node.name);
      if (node.type === 'Declaration' && node.property === 'font-family') families.push(csstree.generate(node.value));
      if (node.type !== 'Selector') return;
      const parts = node.children.toArray().filter((p) => p.type !== 'PseudoElementSelector');
      selectors.push(csstree.generate({ type: 'Selector', children: new csstree.List().fromArray(parts) }));
    });
  }
  return { selectors, atRules, families };
}

describe("a page's <style>", () => {
  const r = sanitizeSvg(HOSTILE);
  if (!r.ok) throw new Error(r.reason);
  const { doc, page } = view(r.svg);
  const { selectors, atRules, families } = selectorsOf(doc);

  it('styles nothing outside the page: not the body, the controls, the status line or the wrapper', () => {
    expect(selectors.length).toBeGreaterThan(10);
    for (const selector of selectors)
      for (const el of doc.querySelectorAll(selector))
        expect(page.contains(el), `${selector} matches <${el.localName}>`).toBe(true);
  });

  it('still styles the page: its staff and its text', () => {
    const matched = new Set(selectors.flatMap((s) => [...doc.querySelectorAll(s)].map((el) => el.id)));
    expect(matched).toContain('legit-staff');
    expect(matched).toContain('legit-text');
  });

  it("keeps no font, animation or layer name shared with the view's own", () => {
    expect(atRules.filter((a) => a !== 'font-face' && a !== 'media')).toEqual([]);
    // Both faces (named "Segoe UI" and system-ui, as the view's own fonts are) are renamed.
    expect(families.filter((f) => /^sc-page-[0-9a-f]{12}-(Segoe_UI|system-ui)$/.test(f))).toHaveLength(2);
    for (const f of families)
      for (const item of f.split(',')) expect(item.trim()).toMatch(/^(sc-page-[0-9a-f]{12}-[\w-]+|serif)$/);
    // The page's text asks for the font the page brought, by its new name.
    expect(families).toContainEqual(expect.stringMatching(/^sc-page-[0-9a-f]{12}-Segoe_UI,\s*serif$/));
  });
});

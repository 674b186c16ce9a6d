// A page's <style> held to its page. The notation views inline a package's SVG pages into the
// page's own document (client/src/notation/page-svg.js), where a <style> applies to the whole
// document: `body { display: none }` or `.controls { visibility: hidden }` in a page restyled the
// view (controls hidden, a fake notice on the musicians' tablets). Each rule is rewritten so that
// what it styles (its subject, the last compound of each selector) must be the page's root or
// inside it: `:where(.scope, .scope *)` is added to the subject, with no specificity, and the
// root is given the class. Ancestors in a selector may still be outside, as in CSS @scope
// (supported only since 2024), which keeps a selector such as Verovio's `#root g.dir` working on
// every tablet. @font-face families are renamed for the page (a page's font named "Segoe UI"
// would redraw the app's own text), and so is every use of them in the page. @media, @supports
// and @container keep their rules, scoped; every other at-rule (@keyframes, @layer, @property:
// names shared with the whole document) and nested rules are dropped. Parsed and written again by
// css-tree (the CSS Syntax tokenizer), so what is served is what was checked.

import * as csstree from 'css-tree';

/**
 * @typedef {object} PageScope
 * @property {string} cls  the class the page's root gets (letters, digits and dashes only)
 * @property {Map<string, string>} fonts  @font-face family (lower case) -> its name for this page
 */

/** At-rules whose rules are kept, scoped. */
const GROUPING = new Set(['media', 'supports', 'container']);

/**
 * A new page scope.
 * @param {string} cls
 * @returns {PageScope}
 */
export function pageScope(cls) {
  return { cls, fonts: new Map() };
}

/**
 * A family name as written (an identifier sequence or a string), without quotes.
 * @param {string} text
 */
const familyName = (text) => text.trim().replace(/^(['"])(.*)\1$/, '$2');

/**
 * Learn the @font-face families of a page's <style> text, so that every use of them can be
 * renamed (call for every <style> of the page before scopeCss).
 * @param {string} css
 * @param {PageScope} scope
 */
export function learnFonts(css, scope) {
  csstree.walk(parse(css), {
    visit: 'Atrule',
    enter(node) {
      if (node.name.toLowerCase() !== 'font-face' || !node.block) return;
      for (const d of node.block.children) {
        if (d.type === 'Declaration' && d.property.toLowerCase() === 'font-family') {
          const name = familyName(csstree.generate(d.value));
          const slug = name.replace(/[^A-Za-z0-9_-]/g, '_');
          scope.fonts.set(name.toLowerCase(), `${scope.cls}-${slug}`);
        }
      }
    },
  });
}

/**
 * A font-family value with the page's own families renamed.
 * @param {string} value
 * @param {PageScope} scope
 */
export function renameFamilies(value, scope) {
  if (scope.fonts.size === 0) return value;
  return value
    .split(',')
    .map((item) => {
      const renamed = scope.fonts.get(familyName(item).toLowerCase());
      // Letters, digits, dashes and underscores after "sc-": an identifier, written unquoted.
      return renamed ?? item.trim();
    })
    .join(', ');
}

/**
 * A page's <style> text, scoped to the page (see the top of this file).
 * @param {string} css
 * @param {PageScope} scope
 * @returns {{ css: string, dropped: number }}  dropped: rules and selectors left out
 */
export function scopeCss(css, scope) {
  const where = /** @type {csstree.Selector} */ (
    csstree.parse(`:where(.${scope.cls}, .${scope.cls} *)`, { context: 'selector' })
  ).children.first;
  let dropped = 0;

  /** @param {csstree.CssNode} selector */
  const scoped = (selector) => {
    if (selector.type !== 'Selector') return null;
    const parts = selector.children.toArray();
    // A selector that starts with a combinator or refers to a parent rule (&) is nesting: no
    // parent here, so no meaning.
    if (parts.length === 0 || parts[0].type === 'Combinator' || parts.some((p) => p.type === 'NestingSelector'))
      return null;
    let subject = 0;
    parts.forEach((p, i) => {
      if (p.type === 'Combinator') subject = i + 1;
    });
    let at = parts.findIndex((p, i) => i >= subject && p.type === 'PseudoElementSelector');
    if (at < 0) at = parts.length;
    parts.splice(at, 0, csstree.clone(/** @type {csstree.CssNode} */ (where)));
    return csstree.generate({ type: 'Selector', children: new csstree.List().fromArray(parts) });
  };

  /** @param {csstree.Block} block */
  const declarations = (block) =>
    block.children
      .toArray()
      .filter((d) => {
        if (d.type === 'Declaration') return true;
        dropped++;
        return false;
      })
      .map((d) => {
        const decl = /** @type {csstree.Declaration} */ (d);
        const text = csstree.generate(decl);
        if (decl.property.toLowerCase() !== 'font-family') return text;
        const important = decl.important ? ' !important' : '';
        return `font-family:${renameFamilies(csstree.generate(decl.value), scope)}${important}`;
      })
      .join(';');

  /**
   * @param {csstree.List<csstree.CssNode>} list
   * @returns {string}
   */
  const rules = (list) => {
    let out = '';
    for (const node of list) {
      if (node.type === 'Rule' && node.prelude.type === 'SelectorList') {
        const selectors = [];
        for (const s of node.prelude.children) {
          const one = scoped(s);
          if (one) selectors.push(one);
          else dropped++;
        }
        if (selectors.length > 0) out += `${selectors.join(',')}{${declarations(node.block)}}`;
      } else if (node.type === 'Atrule' && node.block && GROUPING.has(node.name.toLowerCase())) {
        const inner = rules(node.block.children);
        if (inner) out += `@${node.name} ${node.prelude ? csstree.generate(node.prelude) : ''}{${inner}}`;
      } else if (node.type === 'Atrule' && node.block && node.name.toLowerCase() === 'font-face') {
        out += `@font-face{${declarations(node.block)}}`;
      } else {
        dropped++;
      }
    }
    return out;
  };

  return { css: rules(/** @type {csstree.StyleSheet} */ (parse(css)).children), dropped };
}

/** @param {string} css */
function parse(css) {
  // Parse errors leave Raw nodes, which are dropped: CSS as a browser reads it skips them too.
  return csstree.parse(css, { context: 'stylesheet', parseValue: true, parseCustomProperty: false });
}

// The console's part links (part-links-panel.js): each part's link and QR code as the server gives
// them, a part whose link could not be had said so, and a console opened on a loopback address
// warned that a tablet cannot follow its links.

import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { JSDOM } from 'jsdom';
import { partsOf, renderPartLinks } from '../../../client/src/conduct/part-links-panel.js';

/** @type {JSDOM} */
let dom;
beforeAll(() => {
  dom = new JSDOM('<main><section hidden><div id="box"></div></section></main>');
  /** @type {any} */ (globalThis).document = dom.window.document;
});
afterAll(() => {
  delete (/** @type {any} */ (globalThis).document);
});

const QR = 'data:image/svg+xml;base64,PHN2Zy8+';

describe('console: part links', () => {
  it('shows each part’s link and QR code, and the panel', async () => {
    const box = /** @type {HTMLElement} */ (dom.window.document.getElementById('box'));
    /** @type {string[]} */
    const asked = [];
    await renderPartLinks(
      box,
      [
        { id: 'violin', name: 'Violin' },
        { id: 'cello', name: 'Cello' },
      ],
      async (part) => {
        asked.push(part);
        if (part === 'cello') throw new Error('401');
        return { part, link: `http://10.0.0.2:8080/view/${part}#key=k`, qr: QR };
      },
    );
    expect(asked).toEqual(['violin', 'cello']);
    expect(/** @type {HTMLElement} */ (box.closest('section')).hidden).toBe(false);
    const violin = /** @type {HTMLElement} */ (box.querySelector('[data-testid="part-link-violin"]'));
    expect(violin.querySelector('img')?.getAttribute('src')).toBe(QR);
    expect(violin.querySelector('img')?.getAttribute('alt')).toBe("QR code: Violin's part");
    expect(violin.querySelector('a')?.getAttribute('href')).toBe('http://10.0.0.2:8080/view/violin#key=k');
    expect(box.querySelector('[data-testid="part-link-cello"]')?.textContent).toBe('Cello: no link (sign in again)');
    expect(box.querySelector('[data-testid="part-links-loopback"]')).toBeNull();
  });

  it('warns on a loopback address, and hides the panel for a score without parts', async () => {
    const box = /** @type {HTMLElement} */ (dom.window.document.getElementById('box'));
    await renderPartLinks(box, [{ id: 'violin', name: 'Violin' }], async (part) => ({
      part,
      link: `http://127.0.0.1:8080/view/${part}#key=k`,
      qr: QR,
    }));
    expect(box.querySelector('[data-testid="part-links-loopback"]')).not.toBeNull();
    await renderPartLinks(box, [], async () => {
      throw new Error('not asked');
    });
    expect(/** @type {HTMLElement} */ (box.closest('section')).hidden).toBe(true);
    expect(partsOf({ parts: [{ id: 'a', name: 'A' }, { id: 'b' }, { name: 'x' }] })).toEqual([
      { id: 'a', name: 'A' },
      { id: 'b', name: 'b' },
    ]);
    expect(partsOf(null)).toEqual([]);
  });
});

import { describe, it, expect } from 'vitest';
import { imageFor } from '../../../client/src/notation/page-svg.js';
import { buildSystems } from '../../../client/src/notation/systems.js';

const pdfPage = {
  url: '/s/h/page-1-1080w.png',
  width: 595.28,
  height: 841.89,
  images: [
    { url: '/s/h/page-1-1080w.png', width: 1080 },
    { url: '/s/h/page-1-1600w.png', width: 1600 },
  ],
};

describe("a PDF page's image for the screen", () => {
  it('gives a phone in portrait the phone rendering and a tablet the wider one', () => {
    expect(imageFor(pdfPage, 390 * 3)).toBe('/s/h/page-1-1080w.png'); // iPhone 14
    expect(imageFor(pdfPage, 412 * 2.625)).toBe('/s/h/page-1-1080w.png'); // Pixel 7
    expect(imageFor(pdfPage, 768 * 2)).toBe('/s/h/page-1-1600w.png'); // iPad in portrait
  });
  it('gives a screen wider than every rendering the widest', () => {
    expect(imageFor(pdfPage, 2732)).toBe('/s/h/page-1-1600w.png');
  });
  it('keeps the one image of other pages, and the url when the width is not known', () => {
    expect(imageFor({ url: '/p.png', width: 754, height: 1040 }, 1170)).toBe('/p.png');
    expect(imageFor(pdfPage, Number.NaN)).toBe('/s/h/page-1-1080w.png');
  });
});

describe("a PDF page's renderings in the view's layout", () => {
  const beats = [0, 1, 2, 3].map((beat) => ({
    beat,
    page: 0,
    system: 0,
    bar: 1,
    x0: 100 + beat * 50,
    x1: 150 + beat * 50,
    y0: 90,
    y1: 120,
  }));
  it('keeps them, and leaves them out when one is not { url, width }', () => {
    const kept = buildSystems({ pages: [pdfPage], beats });
    expect(kept.ok && kept.value.pages[0].images).toEqual(pdfPage.images);
    const bad = buildSystems({ pages: [{ ...pdfPage, images: [...pdfPage.images, { url: 3 }] }], beats });
    expect(bad.ok && bad.value.pages[0]).toEqual({ url: pdfPage.url, width: 595.28, height: 841.89 });
  });
});

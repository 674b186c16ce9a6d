import { describe, it, expect } from 'vitest';
import { checkInfo, parsePdfInfo } from '../../../../server/package/pdf/pdf-info.js';
import { runsOf } from '../../../../server/package/pdf/render-pdf.js';
import { PACKAGE_LIMITS } from '../../../../core/package-limits.js';

/** pdfinfo -box's lines for pages of the given crop boxes and rotations. */
const info = (/** @type {{ box: number[], rot?: number }[]} */ pages, extra = '') =>
  parsePdfInfo(
    `Form:            none\nJavaScript:      no\nPages:           ${pages.length}\nEncrypted:       no\n${extra}${pages
      .map(
        (p, i) =>
          `Page ${String(i + 1).padStart(4)} rot:   ${p.rot ?? 0}\nPage ${String(i + 1).padStart(4)} CropBox: ${p.box.join(' ')}\n`,
      )
      .join('')}`,
  );

describe("a PDF's pages as pdfinfo reads them", () => {
  it('gives each page its crop box in points, turned by its rotation', () => {
    const r = checkInfo(info([{ box: [0, 0, 595.28, 841.89] }, { box: [10, 10, 851.89, 605.28], rot: 90 }]));
    expect(r).toEqual({
      ok: true,
      value: {
        pageCount: 2,
        pages: [
          { width: 595.28, height: 841.89 },
          { width: 595.28, height: 841.89 },
        ],
        carries: [],
      },
    });
  });
  it('reports JavaScript and forms, refuses encryption, and bounds the pages', () => {
    const js = parsePdfInfo('Form: AcroForm\nJavaScript: yes\nPages: 1\nPage    1 CropBox: 0 0 100 100\n');
    expect(checkInfo(js)).toMatchObject({ ok: true, value: { carries: ['JavaScript', 'a form'] } });
    const enc = parsePdfInfo('Encrypted: yes (print:yes copy:no change:no addNotes:no algorithm:AES-256)\nPages: 1\n');
    expect(checkInfo(enc)).toMatchObject({ ok: false, reason: expect.stringMatching(/^is encrypted/) });
    expect(checkInfo(parsePdfInfo(`Pages: ${PACKAGE_LIMITS.pdfPages + 1}\n`))).toMatchObject({ ok: false });
    expect(checkInfo(info([{ box: [0, 0, 3, 800] }]))).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/^page 1 is 3 x 800 points/),
    });
    expect(checkInfo(parsePdfInfo('Pages: 0\n'))).toMatchObject({ ok: false });
  });
  it('renders pages in runs of consecutive pages, at most 5 a run', () => {
    expect(runsOf([1, 2, 3, 5, 7, 8])).toEqual([
      [1, 3],
      [5, 5],
      [7, 8],
    ]);
    expect(runsOf(Array.from({ length: 120 }, (_, i) => i + 1))).toEqual([
      [1, 50],
      [51, 100],
      [101, 120],
    ]);
  });
});

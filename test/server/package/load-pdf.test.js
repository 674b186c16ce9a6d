import path from 'node:path';
import os from 'node:os';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, truncateSync } from 'node:fs';
import { packageDir } from '../../helpers/fixtures.js';
import { describe, it, expect } from 'vitest';
import { loadPackage } from '../../../server/package/load.js';
import { PDF_WIDTHS } from '../../../server/package/pdf/render-pdf.js';
import { PACKAGE_LIMITS } from '../../../core/package-limits.js';
import { tinyPdf } from '../../helpers/tiny-pdf.js';

const CACHE = mkdtempSync(path.join(os.tmpdir(), 'sc-cache-'));
const FIXTURE = 'test/fixtures/pdf-part';

/** @param {string} yaml @param {Record<string, string | Buffer>} [files] */
const pkg = (yaml, files = {}) => packageDir(yaml, files);

/** A one-bar piece whose score view is `pdf` (pages as given) with a beat map on its first page. */
function pdfPackage(/** @type {Buffer} */ pdf, pages = '') {
  const sel = pages ? `, pages: "${pages}"` : '';
  return pkg(
    `id: p\ntitle: P\nbars: 1\nmeter:\n  - { bar: 1, time: 4/4, tempo: 60 }\npages:\n  score: { pdf: { file: score.pdf${sel} }, beatmap: score.csv }\n`,
    {
      'score.pdf': pdf,
      'score.csv': `beat,page,system,bar,x0,x1,y0,y1\n${[0, 1, 2, 3].map((b) => `${b},0,0,1,${40 + b * 100},${140 + b * 100},700,750`).join('\n')}\n`,
    },
  );
}

/** @param {string} dir */
const refusal = (dir) =>
  loadPackage(dir, { cacheDir: CACHE }).then(
    () => ({ code: 'loaded', message: '' }),
    (/** @type {any} */ err) => ({ code: err.code, message: String(err.message) }),
  );

describe('PDF pages', () => {
  it('renders the fixture book into page images per view, in PDF points, at the phone and tablet widths, and serves only those', async () => {
    const loaded = await loadPackage(FIXTURE, { cacheDir: CACHE });
    expect(Object.keys(loaded.views).sort()).toEqual(['cello', 'score', 'violin1']);
    expect(loaded.views.score.pages).toHaveLength(4);
    expect(loaded.views.violin1.pages).toHaveLength(1);
    const page = loaded.views.violin1.pages[0];
    expect(page).toMatchObject({ width: 595.28, height: 841.89 });
    expect(page.images?.map((i) => i.width)).toEqual([...PDF_WIDTHS]);
    expect(page.url).toBe(page.images?.[0].url);
    expect(page.url).toMatch(/^\/scores\/pdf-part\/[0-9a-f]{32}\/page-5-1080w\.png$/);
    // The cello's page is page 6 of the book, the full score's are 1-4.
    expect(loaded.views.cello.pages[0].url).toMatch(/page-6-1080w\.png$/);
    expect(loaded.views.score.pages.map((p) => /page-(\d+)-/.exec(p.url)?.[1])).toEqual(['1', '2', '3', '4']);
    expect(loaded.views.violin1.beats).toHaveLength(120);
    for (const url of loaded.files.keys()) expect(url).toMatch(/\.png$/);
    // Each phone-width image under 150 KB (the issue's bound).
    for (const p of Object.values(loaded.views).flatMap((v) => v.pages)) {
      const served = loaded.files.get(p.url);
      expect(served).toBeDefined();
      const bytes = readFileSync(/** @type {string} */ (served?.file));
      expect(bytes.subarray(1, 4).toString()).toBe('PNG');
      expect(bytes.length).toBeLessThan(150 * 1024);
      expect(bytes.readUInt32BE(16)).toBe(1080);
    }
    // Loaded again: the same images, from the cache.
    const again = await loadPackage(FIXTURE, { cacheDir: CACHE });
    expect(again.views.violin1.pages).toEqual(loaded.views.violin1.pages);
  }, 120_000);

  it('renders a PDF with JavaScript, a form, a link and an embedded file as pages only, and says so', async () => {
    const dir = pdfPackage(tinyPdf({ javascript: true, link: true, form: true, attachment: true }), '2, 1');
    const loaded = await loadPackage(dir, { cacheDir: CACHE });
    expect(loaded.views.score.pages.map((p) => /page-(\d+)-/.exec(p.url)?.[1])).toEqual(['2', '1']);
    expect([...loaded.files.keys()].every((u) => u.endsWith('.png'))).toBe(true);
    expect(loaded.warnings.join('\n')).toMatch(
      /score\.pdf: carries JavaScript, a form, embedded files; only its pages' drawing is shown/,
    );
  });

  it('refuses an encrypted PDF with SC_ERR_SCORE_PDF', async () => {
    const r = await refusal(pdfPackage(tinyPdf({ encrypted: true })));
    expect(r.code).toBe('SC_ERR_SCORE_PDF');
    expect(r.message).toMatch(/score\.pdf \(pages\.score\): is encrypted.*unencrypted copy/);
  });

  it('refuses a file that is not a PDF, and a truncated one', async () => {
    const bad = await refusal(pdfPackage(Buffer.from('%PDF-1.7\nnot really\n')));
    expect(bad.code).toBe('SC_ERR_SCORE_PDF');
    expect(bad.message).toMatch(/score\.pdf \(pages\.score\): is not a PDF that can be read/);
    const whole = tinyPdf();
    const cut = await refusal(pdfPackage(whole.subarray(0, 200)));
    expect(cut.code).toBe('SC_ERR_SCORE_PDF');
  });

  it('refuses a page past the size bound, naming the page and the bound', async () => {
    const r = await refusal(
      pdfPackage(
        tinyPdf({
          pages: [
            { width: 595, height: 842 },
            { width: 4000, height: 800 },
          ],
        }),
      ),
    );
    expect(r.code).toBe('SC_ERR_SCORE_PDF');
    expect(r.message).toContain(
      `page 2 is 4000 x 800 points; a page's sides are from 7.2 to ${PACKAGE_LIMITS.pdfPagePoints} points`,
    );
  });

  it('refuses more pages than the bound, naming both', async () => {
    const pages = Array.from({ length: PACKAGE_LIMITS.pdfPages + 1 }, () => ({ width: 100, height: 100 }));
    const r = await refusal(pdfPackage(tinyPdf({ pages }), '1'));
    expect(r.code).toBe('SC_ERR_SCORE_PDF');
    expect(r.message).toContain(`has ${PACKAGE_LIMITS.pdfPages + 1} pages, more than the ${PACKAGE_LIMITS.pdfPages}`);
  });

  it('refuses a file larger than the bound, unread, naming it', async () => {
    const dir = pdfPackage(tinyPdf());
    truncateSync(path.join(dir, 'score.pdf'), PACKAGE_LIMITS.pdfBytes + 1);
    const r = await refusal(dir);
    expect(r.code).toBe('SC_ERR_SCORE_PDF');
    expect(r.message).toMatch(/score\.pdf is 128\.0 MiB, more than the 128 MiB a file of its kind may be.*split it/);
  });

  it('refuses a page the PDF does not have', async () => {
    const r = await refusal(pdfPackage(tinyPdf(), '1-3'));
    expect(r.code).toBe('SC_ERR_SCORE_PDF');
    expect(r.message).toContain('has 2 pages, but the view asks for page 3');
  });

  it('scorecast check names SC_ERR_PDF_RENDERER_MISSING when Poppler is not installed', async () => {
    const node = process.execPath;
    const out = await new Promise((resolve) => {
      execFile(
        node,
        ['server/commands/cli.js', 'check', FIXTURE],
        { env: { PATH: path.dirname(node) } },
        (err, stdout, stderr) => resolve({ code: err?.code ?? 0, text: `${stdout}${stderr}` }),
      );
    });
    expect(out).toMatchObject({ code: expect.any(Number) });
    expect(/** @type {any} */ (out).code).not.toBe(0);
    expect(/** @type {any} */ (out).text).toMatch(/SC_ERR_PDF_RENDERER_MISSING[\s\S]*apt-get install poppler-utils/);
  });
});

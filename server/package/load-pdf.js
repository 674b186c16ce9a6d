// The load's PDF step (load-pages.js): a view whose pages are a PDF gets them as page images,
// rendered once per PDF content (pdf/render-pdf.js) and served from the cache at content-hashed
// URLs like engraved pages. The PDF itself is never served, and nothing in it but its pages'
// drawing reaches a page: its JavaScript, forms, links and embedded files are left behind.

import path from 'node:path';
import { PACKAGE_LIMITS as LIMITS, formatBytes } from '../../core/package-limits.js';
import { readAll, realRoot } from '../lib/contained-files.js';
import { renderPdf } from './pdf/render-pdf.js';

/**
 * @typedef {{ url: string, width: number, height: number, images: { url: string, width: number, height: number }[] }} PdfViewPage
 */

/**
 * A file changed within this long before it is opened may be changed again with the same change
 * time (the kernel stamps times from a clock that moves a few ms at a time): its identity is not
 * given, so its hash is not remembered.
 */
const SETTLED_MS = 2000;

/**
 * What changes whenever the file's content does, as its open's check found it: its device and
 * inode, size, modification time and change time (set by every write, and by nothing a program
 * can ask to set it back); null for a file changed too recently to tell (SETTLED_MS).
 * @param {import('node:fs').Stats} stats
 */
export function fileIdentity(stats) {
  if (Date.now() - stats.ctimeMs < SETTLED_MS) return null;
  return `${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeMs}:${stats.ctimeMs}`;
}

/**
 * Render (or take from the cache) the pages of every PDF the views name, each PDF once with the
 * pages all its views take; a problem for a PDF that cannot be, whose views get null.
 * @param {import('./load-context.js').LoadContext} context
 * @param {import('../../core/manifest.js').ScoreModel} model
 * @param {string} cacheDir
 * @returns {Promise<Map<string, PdfViewPage[] | null>>}  view -> its pages
 */
export async function servePdfPages(context, model, cacheDir) {
  /** @type {Map<string, { views: string[], pages: Set<number> | null }>} */
  const byFile = new Map();
  for (const [view, spec] of Object.entries(model.pages ?? {})) {
    if (!spec.pdf) continue;
    const f = byFile.get(spec.pdf.file) ?? { views: [], pages: new Set() };
    f.views.push(view);
    if (!spec.pdf.pages || !f.pages) f.pages = null;
    else for (const n of spec.pdf.pages) f.pages.add(n);
    byFile.set(spec.pdf.file, f);
  }
  /** @type {Map<string, PdfViewPage[] | null>} */
  const out = new Map();
  for (const [file, { views, pages }] of byFile) {
    const rendered = await renderFile(
      context,
      model.id,
      file,
      views,
      pages ? [...pages].sort((a, b) => a - b) : null,
      cacheDir,
    );
    for (const view of views) {
      const wanted = model.pages?.[view].pdf?.pages;
      out.set(
        view,
        rendered && (wanted ? wanted.map((n) => /** @type {PdfViewPage} */ (rendered.get(n))) : [...rendered.values()]),
      );
    }
  }
  return out;
}

/**
 * @param {import('./load-context.js').LoadContext} context
 * @param {string} scoreId
 * @param {string} file
 * @param {string[]} views  the views taking pages from it (named in problems)
 * @param {number[] | null} wanted
 * @param {string} cacheDir
 * @returns {Promise<Map<number, PdfViewPage> | null>}  page number -> page, in the PDF's order
 */
async function renderFile(context, scoreId, file, views, wanted, cacheDir) {
  const field = `pages.${views[0]}.pdf.file`;
  const opened = await context.openPackageFile(file, field, LIMITS.pdfBytes);
  if (!opened) {
    const last = context.problems[context.problems.length - 1];
    // The file's size is a bound of PDFs: say which.
    if (typeof last === 'object' && last.field === field && last.message.includes(formatBytes(LIMITS.pdfBytes))) {
      context.refusal = 'SC_ERR_SCORE_PDF';
      last.message += '; split it into one PDF per part or movement';
    }
    return null;
  }
  let rendered;
  try {
    rendered = await renderPdf({
      bytes: () => readAll(opened.handle),
      identity: fileIdentity(opened.stats),
      wanted,
      cacheDir,
    });
  } finally {
    await opened.handle.close();
  }
  if (!rendered.ok) {
    if (context.refusal === 'SC_ERR_SCORE_INVALID') context.refusal = rendered.code;
    context.problems.push(`${file} (${views.map((v) => `pages.${v}`).join(', ')}): ${rendered.reason}`);
    return null;
  }
  const r = rendered.value;
  if (r.carries.length > 0)
    context.warnings.push(
      `${file}: carries ${r.carries.join(', ')}; only its pages' drawing is shown (nothing in it is run or served)`,
    );
  const root = (await realRoot(r.dir)) ?? r.dir;
  /** @type {Map<number, PdfViewPage>} */
  const pages = new Map();
  for (const p of r.pages) {
    const images = p.images.map((img) => {
      const url = `/scores/${scoreId}/${r.hash}/${img.file}`;
      // Its size and time as the cache's check found them; held in memory from its first
      // request, not read at each load (server/http/served-prepare.js, `lazy`).
      context.files.set(url, {
        file: path.join(root, img.file),
        root,
        type: 'image/png',
        etag: `${r.hash}-${img.file}`,
        size: r.files[img.file],
        mtimeMs: r.mtimes[img.file],
        lazy: true,
      });
      return { url, width: img.width, height: img.height };
    });
    pages.set(p.number, { url: images[0].url, width: p.width, height: p.height, images });
  }
  return pages;
}

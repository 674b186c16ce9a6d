// What a PDF is, as Poppler's pdfinfo reads it, checked against the package's bounds before a
// page is rendered: not encrypted, readable, at most PACKAGE_LIMITS.pdfPages pages, each page's
// crop box within pdfPagePoints a side. What a PDF may carry besides its pages (JavaScript,
// forms, links, embedded files) is only reported: none of it is run, rendered or served.

import { PACKAGE_LIMITS as LIMITS } from '../../../core/package-limits.js';
import { runTool } from './poppler.js';

/** A page's side below this (a tenth of an inch) is no page of music. */
const MIN_POINTS = 7.2;

/**
 * @typedef {object} PdfPage
 * @property {number} width   points, as shown (the crop box, turned by the page's rotation)
 * @property {number} height
 */

/**
 * @typedef {object} PdfInfo
 * @property {number} pageCount
 * @property {PdfPage[]} pages   the first min(pageCount, pdfPages) pages
 * @property {string[]} carries  what the file has besides pages: "JavaScript", "a form"
 */

/**
 * Read and check a PDF. A refusal says what is wrong and what to do, without the file's name
 * (the caller adds it).
 * @param {string} pdfinfo  the tool's path
 * @param {string} file     the PDF
 * @returns {Promise<{ ok: true, value: PdfInfo } | { ok: false, reason: string }>}
 */
export async function readPdfInfo(pdfinfo, file) {
  const r = await runTool(pdfinfo, ['-f', '1', '-l', String(LIMITS.pdfPages + 1), '-box', '-enc', 'UTF-8', '--', file]);
  if (r.timedOut)
    return { ok: false, reason: 'took pdfinfo longer than its time limit to read; check that it is a PDF of pages' };
  if (/Incorrect password/i.test(r.stderr)) return { ok: false, reason: ENCRYPTED };
  if (r.code !== 0) {
    const why =
      r.stderr
        .split('\n')
        .find((l) => /error/i.test(l))
        ?.trim() ?? `pdfinfo exited with ${r.code}`;
    return { ok: false, reason: `is not a PDF that can be read (${why.slice(0, 200)}); export it again` };
  }
  return checkInfo(parsePdfInfo(r.stdout));
}

const ENCRYPTED =
  'is encrypted: scorecast renders only unencrypted PDFs; save an unencrypted copy from the program that made it (or qpdf --decrypt in.pdf out.pdf)';

/**
 * pdfinfo's lines as fields.
 * @param {string} text
 */
export function parsePdfInfo(text) {
  /** @type {Map<number, { box?: number[], rot: number }>} */
  const pages = new Map();
  /** @type {Record<string, string>} */
  const fields = {};
  for (const line of text.split('\n')) {
    const page = /^Page\s+(\d+)\s+(CropBox|rot):\s*(.*)$/.exec(line);
    if (page) {
      const n = Number(page[1]);
      const p = pages.get(n) ?? { rot: 0 };
      if (page[2] === 'rot') p.rot = Number(page[3]);
      else p.box = page[3].trim().split(/\s+/).map(Number);
      pages.set(n, p);
      continue;
    }
    const m = /^([A-Za-z ]+):\s*(.*)$/.exec(line);
    if (m) fields[m[1].trim()] = m[2].trim();
  }
  return { fields, pages };
}

/**
 * @param {ReturnType<typeof parsePdfInfo>} parsed
 * @returns {{ ok: true, value: PdfInfo } | { ok: false, reason: string }}
 */
export function checkInfo({ fields, pages }) {
  if (/^yes/i.test(fields.Encrypted ?? '')) return { ok: false, reason: ENCRYPTED };
  const pageCount = Number(fields.Pages);
  if (!Number.isInteger(pageCount) || pageCount < 1)
    return { ok: false, reason: 'has no pages that can be read; export it again' };
  if (pageCount > LIMITS.pdfPages)
    return {
      ok: false,
      reason: `has ${pageCount} pages, more than the ${LIMITS.pdfPages} a PDF may have; split it into one PDF per part or movement`,
    };
  /** @type {PdfPage[]} */
  const out = [];
  for (let n = 1; n <= pageCount; n++) {
    const p = pages.get(n);
    const box = p?.box;
    if (box?.length !== 4 || box.some((v) => !Number.isFinite(v)))
      return { ok: false, reason: `page ${n} has no page size that can be read; export it again` };
    let width = Math.abs(box[2] - box[0]);
    let height = Math.abs(box[3] - box[1]);
    if ((((p?.rot ?? 0) % 360) + 360) % 180 === 90) [width, height] = [height, width];
    const side = LIMITS.pdfPagePoints;
    if (width > side || height > side || width < MIN_POINTS || height < MIN_POINTS)
      return {
        ok: false,
        reason: `page ${n} is ${round(width)} x ${round(height)} points; a page's sides are from ${MIN_POINTS} to ${side} points (0.1 to 36 inches); export it at a paper size`,
      };
    out.push({ width: round(width), height: round(height) });
  }
  /** @type {string[]} */
  const carries = [];
  if (/^yes/i.test(fields.JavaScript ?? '')) carries.push('JavaScript');
  if (fields.Form && !/^none/i.test(fields.Form)) carries.push('a form');
  return { ok: true, value: { pageCount, pages: out, carries } };
}

const round = (/** @type {number} */ n) => Math.round(n * 100) / 100;

// The pages a view takes from a PDF, as score.yaml writes them: "1-4", "2, 5-7", 3, or a list of
// page numbers and ranges ([1, "4-6"]). Pages count from 1, as every PDF reader shows them.
// Pure: the manifest check (manifest.js) and the loader (server/package/pdf/) read it.

const RANGE_RE = /^\s*(\d{1,6})\s*(?:-\s*(\d{1,6})\s*)?$/;

/**
 * @param {unknown} spec  a string of comma-separated pages and ranges, a page number, or a list of either
 * @param {number} maxPages  at most this many pages in all (a view's bound)
 * @returns {{ ok: true, value: number[] } | { ok: false, message: string }}
 */
export function parsePageRanges(spec, maxPages) {
  const items = Array.isArray(spec) ? spec : [spec];
  if (items.length === 0) return { ok: false, message: 'lists no pages; write e.g. "1-4" or [1, "3-5"]' };
  /** @type {number[]} */
  const pages = [];
  for (const item of items) {
    const parts = typeof item === 'number' ? [String(item)] : typeof item === 'string' ? item.split(',') : null;
    if (!parts) return { ok: false, message: 'must be page numbers and ranges, e.g. "1-4" or [1, "3-5"]' };
    for (const part of parts) {
      const m = RANGE_RE.exec(part);
      const first = m ? Number(m[1]) : NaN;
      const last = m?.[2] !== undefined ? Number(m[2]) : first;
      if (!m || first < 1 || last < first)
        return {
          ok: false,
          message: `has "${String(part).trim()}": pages count from 1 and a range goes up ("3-5"); write e.g. "1-4" or [1, "3-5"]`,
        };
      if (pages.length + (last - first + 1) > maxPages)
        return { ok: false, message: `names more than the ${maxPages} pages a view may have` };
      for (let p = first; p <= last; p++) pages.push(p);
    }
  }
  return { ok: true, value: pages };
}

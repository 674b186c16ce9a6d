// Numbers as the report prints them, and its tables as HTML and as Markdown.

/** @typedef {number | null | undefined} MaybeNumber */

/** @param {MaybeNumber} v */
export const f0 = (v) => (v == null || !Number.isFinite(v) ? '' : Math.round(v).toLocaleString('en-US'));
/** @param {MaybeNumber} v */
export const f1 = (v) =>
  v == null || !Number.isFinite(v) ? '' : v < 10 ? v.toFixed(1) : Math.round(v).toLocaleString('en-US');
/** @param {MaybeNumber} v */
export const ms = (v) =>
  v == null || !Number.isFinite(v) ? '' : v < 10 ? v.toFixed(1) : Math.round(v).toLocaleString('en-US');
/** @param {MaybeNumber} v */
export const pct = (v) =>
  v == null || !Number.isFinite(v) ? '' : v === 0 ? '0' : v < 0.1 ? v.toFixed(3) : v.toFixed(2);
/**
 * Binary megabytes (2^20 bytes), named so: RSS and byte counts.
 * @param {MaybeNumber} b
 */
export const mb = (b) => (b == null ? '' : `${(b / 2 ** 20).toFixed(0)} MiB`);
/** @param {unknown} s */
export const esc = (s) =>
  String(s ?? '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;');

/**
 * A table row: plain cells, or cells marked as ours or as the seed report's.
 * @typedef {string[] | { ours: boolean, cells: string[] }} TableRow
 */

/** @param {TableRow} r */
const cellsOf = (r) => (Array.isArray(r) ? r : r.cells);

/**
 * @param {string[]} head
 * @param {TableRow[]} rows
 * @param {string} [cls]
 */
export function htmlTable(head, rows, cls = '') {
  return `<table class="${cls}"><thead><tr>${head.map((h) => `<th>${esc(h)}</th>`).join('')}</tr></thead><tbody>${rows
    .map(
      (r) =>
        `<tr class="${!Array.isArray(r) && r.ours === false ? 'seed' : 'ours'}">${cellsOf(r)
          .map((c, i) => `<td${i ? '' : ' class="label"'}>${esc(c)}</td>`)
          .join('')}</tr>`,
    )
    .join('')}</tbody></table>`;
}

/**
 * @param {string[]} head
 * @param {TableRow[]} rows
 */
export function mdTable(head, rows) {
  /** @param {unknown[]} cells */
  const line = (cells) => `| ${cells.map((c) => String(c ?? '').replace(/\|/g, '\\|')).join(' | ')} |`;
  return [line(head), line(head.map((_, i) => (i === 0 ? '---' : '---:'))), ...rows.map((r) => line(cellsOf(r)))].join(
    '\n',
  );
}

// Small PDF files written byte by byte, for the tests of PDF pages: pages of any size with a few
// bar lines drawn on them, and the things a hostile PDF carries (JavaScript run on open, a link
// annotation, a form field, an embedded file, an /Encrypt dictionary). The xref offsets are
// computed, so Poppler reads them without repairing anything.

/**
 * @typedef {object} TinyPdfOptions
 * @property {{ width: number, height: number }[]} [pages]  in points; default two A4 pages
 * @property {boolean} [javascript]  an /OpenAction that runs JavaScript
 * @property {boolean} [link]        a link annotation to an outside URL on page 1
 * @property {boolean} [form]        an AcroForm with a text field on page 1
 * @property {boolean} [attachment]  an embedded file in the name tree
 * @property {boolean} [encrypted]   a Standard security handler /Encrypt dictionary (RC4, a
 *   user password that is not empty: no reader opens it without one)
 */

const A4 = { width: 595.28, height: 841.89 };

/**
 * @param {TinyPdfOptions} [options]
 * @returns {Buffer}
 */
export function tinyPdf({
  pages = [A4, A4],
  javascript = false,
  link = false,
  form = false,
  attachment = false,
  encrypted = false,
} = {}) {
  /** @type {string[]} object bodies, numbered from 1 */
  const objects = [];
  const add = (/** @type {string} */ body) => objects.push(body);
  // 1 catalog, 2 pages tree; pages and their content streams follow.
  add('');
  add('');
  /** @type {number[]} */
  const pageIds = [];
  const field = form ? 3 + pages.length * 2 : 0;
  for (const [i, { width, height }] of pages.entries()) {
    // Five staff lines and four bar lines: something to see in the rendered image.
    const lines = [];
    for (let s = 0; s < 5; s++) lines.push(`40 ${height - 100 - s * 8} m ${width - 40} ${height - 100 - s * 8} l`);
    for (let b = 0; b <= 4; b++) {
      const x = 40 + ((width - 80) * b) / 4;
      lines.push(`${x} ${height - 132} m ${x} ${height - 100} l`);
    }
    const stream = `BT /F1 24 Tf 40 ${height - 60} Td (Page ${i + 1}) Tj ET\n1 w\n${lines.join('\n')}\nS\n`;
    const pageId = objects.length + 1;
    const annots = [];
    if (link && i === 0)
      annots.push(
        `<< /Type /Annot /Subtype /Link /Rect [40 40 200 80] /A << /S /URI /URI (http://example.invalid/) >> >>`,
      );
    if (form && i === 0) annots.push(`${field} 0 R`);
    add(
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${width} ${height}] /Contents ${pageId + 1} 0 R /Resources << /Font << /F1 << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> >> >>${annots.length ? ` /Annots [${annots.join(' ')}]` : ''} >>`,
    );
    add(`<< /Length ${Buffer.byteLength(stream)} >>\nstream\n${stream}endstream`);
    pageIds.push(pageId);
  }
  if (form)
    add(
      `<< /Type /Annot /Subtype /Widget /FT /Tx /T (name) /V (typed) /Rect [300 40 500 80] /P ${pageIds[0]} 0 R /AA << /K << /S /JavaScript /JS (app.alert\\(1\\)) >> >> >>`,
    );
  let names = '';
  if (attachment) {
    const data = 'not a score';
    add(`<< /Type /EmbeddedFile /Length ${data.length} >>\nstream\n${data}\nendstream`);
    add(`<< /Type /Filespec /F (notes.txt) /EF << /F ${objects.length} 0 R >> >>`);
    names = ` /Names << /EmbeddedFiles << /Names [(notes.txt) ${objects.length} 0 R] >> >>`;
  }
  const open = javascript ? ' /OpenAction << /S /JavaScript /JS (app.alert\\(1\\)) >>' : '';
  const acro = form ? ` /AcroForm << /Fields [${field} 0 R] >>` : '';
  objects[0] = `<< /Type /Catalog /Pages 2 0 R${open}${acro}${names} >>`;
  objects[1] = `<< /Type /Pages /Kids [${pageIds.map((id) => `${id} 0 R`).join(' ')}] /Count ${pages.length} >>`;
  let encrypt = '';
  if (encrypted) {
    add(`<< /Filter /Standard /V 1 /R 2 /Length 40 /P -4 /O <${'6f'.repeat(32)}> /U <${'75'.repeat(32)}> >>`);
    encrypt = ` /Encrypt ${objects.length} 0 R /ID [<${'01'.repeat(16)}> <${'01'.repeat(16)}>]`;
  }

  let out = '%PDF-1.7\n%\xe2\xe3\xcf\xd3\n';
  /** @type {number[]} */
  const offsets = [];
  for (const [i, body] of objects.entries()) {
    offsets.push(Buffer.byteLength(out, 'latin1'));
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  }
  const xref = Buffer.byteLength(out, 'latin1');
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const o of offsets) out += `${String(o).padStart(10, '0')} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R${encrypt} >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

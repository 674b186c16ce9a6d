#!/usr/bin/env node
// Writes test/fixtures/pdf-part/: the demo's "First Light" as a composer brings it to scorecast
// when their program exports PDF: one book `parts.pdf` of A4 pages (the full score on pages 1-4,
// violin I on page 5, the cello on page 6), a beat map CSV per view, and a score.yaml whose views
// take their pages from the PDF. The pages are the demo's own engraving (Verovio's SVG) made into
// PDF by librsvg's rsvg-convert (Debian: librsvg2-bin), so the beat maps are the engraver's,
// scaled from its page units (2100 x 2970) to the PDF's points (595.28 x 841.89).
// Deterministic but for the PDF's creation date; the output is committed. Run it again only when
// the demo's notation or its engraving changes: node scores/tools/make-pdf-part.js

import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadPackage } from '../../server/package/load.js';
import { CACHE_DIR } from '../../server/app.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const OUT = path.join(ROOT, 'test', 'fixtures', 'pdf-part');
const A4 = { width: 595.28, height: 841.89 };
/** The views and the order of their pages in the book. */
const VIEWS = ['score', 'violin1', 'cello'];

const demo = await loadPackage(path.join(ROOT, 'scores', 'demo'), { cacheDir: CACHE_DIR });
mkdirSync(path.join(OUT, 'beatmaps'), { recursive: true });

/** @type {string[]} */
const svgs = [];
/** @type {Record<string, string>} */
const ranges = {};
for (const view of VIEWS) {
  const v = demo.views[view];
  const first = svgs.length + 1;
  for (const page of v.pages) {
    const served = demo.files.get(page.url);
    if (!served) throw new Error(`${view}: page ${page.url} is not served`);
    svgs.push(served.file);
  }
  ranges[view] = first === svgs.length ? String(first) : `${first}-${svgs.length}`;
  const sx = A4.width / v.pages[0].width;
  const sy = A4.height / v.pages[0].height;
  const r = (/** @type {number} */ n) => Math.round(n * 100) / 100;
  const rows = v.beats.map((b) =>
    [b.beat, b.page, b.system, b.bar, r(b.x0 * sx), r(b.x1 * sx), r(b.y0 * sy), r(b.y1 * sy)].join(','),
  );
  writeFileSync(path.join(OUT, 'beatmaps', `${view}.csv`), `beat,page,system,bar,x0,x1,y0,y1\n${rows.join('\n')}\n`);
}

execFileSync('rsvg-convert', [
  '-f',
  'pdf',
  '-w',
  '210mm',
  '-h',
  '297mm',
  '--page-width',
  '210mm',
  '--page-height',
  '297mm',
  '-o',
  path.join(OUT, 'parts.pdf'),
  ...svgs,
]);

const { model } = demo;
const yaml = `# yaml-language-server: $schema=../../../scores/schema/score.schema.json
# Written by scores/tools/make-pdf-part.js: the demo's "First Light" given as a PDF book of A4
# pages (full score 1-4, violin I ${ranges.violin1}, cello ${ranges.cello}) with beat maps in PDF points.
id: pdf-part
title: ${model.title} (PDF parts)
composer: ${model.composer}
parts:
  - { id: violin1, name: Violin I }
  - { id: cello, name: Cello }
pages:
${VIEWS.map((v) => `  ${v}: { pdf: { file: parts.pdf, pages: "${ranges[v]}" }, beatmap: beatmaps/${v}.csv }`).join('\n')}
bars: 32
meter:
  - { bar: 1, time: 4/4, tempo: 96 }
  - { bar: 17, tempo: 72 }
  - { bar: 25, time: 3/4 }
cues:
  - { bar: 1, set: { text: First Light, color: "#eee", background: "#111" } }
`;
writeFileSync(path.join(OUT, 'score.yaml'), yaml);
console.log(`wrote ${path.relative(ROOT, OUT)}: ${svgs.length} pages (${JSON.stringify(ranges)})`);

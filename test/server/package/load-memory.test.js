// A package file that fills the heap of the worker reading it is refused with
// SC_ERR_SCORE_OUT_OF_MEMORY naming the file; the worker is replaced and the next load works.

import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ERRORS } from '../../../core/errors.js';
import { loadPackage } from '../../../server/package/load.js';
import { closeSanitizer } from '../../../server/package/svg/sanitize-pages.js';

const CACHE = mkdtempSync(path.join(os.tmpdir(), 'sc-cache-'));

/** @param {Record<string, string>} files */
function pkg(files) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sc-pkg-'));
  for (const [name, body] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    writeFileSync(path.join(dir, name), body);
  }
  return dir;
}

/** A one-page package whose page is `svg`. */
const withPage = (/** @type {string} */ svg) =>
  pkg({
    'score.yaml': `id: page\ntitle: Page\nbars: 1\nmeter:\n  - { bar: 1, time: 4/4, tempo: 60 }\npages:\n  score: { files: [pages/p1.svg], beatmap: score.csv }\n`,
    'pages/p1.svg': svg,
    'score.csv': `beat,page,system,bar,x0,x1,y0,y1\n${[0, 1, 2, 3].map((b) => `${b},0,0,1,${b * 10},${b * 10 + 10},0,10`).join('\n')}\n`,
  });

afterAll(() => closeSanitizer());

describe('a package file past its worker heap', () => {
  it('is refused with SC_ERR_SCORE_OUT_OF_MEMORY naming the file, and the next package loads', async () => {
    // 8 MB of empty groups (within the 32 MiB a page may be): 2 million DOM nodes, more than the
    // SVG checker's heap holds.
    const huge = withPage(
      `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 40 10">${'<g/>'.repeat(2_000_000)}</svg>`,
    );
    const err = await loadPackage(huge, { cacheDir: CACHE }).catch((e) => e);
    expect(err).toMatchObject({ code: 'SC_ERR_SCORE_OUT_OF_MEMORY', statusCode: 422 });
    expect(err.message.split('\n')).toEqual([
      ERRORS.SC_ERR_SCORE_OUT_OF_MEMORY.message,
      'pages/p1.svg: needed more than the 544 MB of memory checking a page may take; make the page smaller',
    ]);
    const fine = withPage(
      '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 40 10"><rect width="5" height="5"/></svg>',
    );
    const loaded = await loadPackage(fine, { cacheDir: CACHE });
    expect(loaded.views.score.pages).toHaveLength(1);
  }, 180_000);
});

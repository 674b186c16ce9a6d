// What the steps of a package load share (load.js): the problems found so far, the warnings,
// the files the server will serve, and the package's total size bound. A step that cannot read a
// file records why here and goes on, so that a refused load lists every problem at once.

import { createHash } from 'node:crypto';
import path from 'node:path';
import { ScorecastError } from '../../core/errors.js';
import { PACKAGE_LIMITS as LIMITS, formatBytes } from '../../core/package-limits.js';
import { describeProblems } from './manifest-file.js';
import { sanitizeSvgPages } from './svg/sanitize-pages.js';
import { openInPackage } from '../lib/contained-files.js';

/** @typedef {import('../http/served-prepare.js').ServedFile} ServedFile */

/**
 * A problem at a field of the manifest, given its line when the load is refused.
 * @typedef {{ field: string, message: string }} FieldProblem
 */

/**
 * An SVG file to clean before it is served, and where its served copy goes.
 * @typedef {{ rel: string, data: Buffer, add: (url: string, served: ServedFile, bytes: number) => void }} SvgToClean
 */

const TYPES = /** @type {Record<string, string>} */ ({
  '.wav': 'audio/wav',
  '.mp3': 'audio/mpeg',
  '.ogg': 'audio/ogg',
  '.m4a': 'audio/mp4',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.json': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
  '.css': 'text/css',
  '.woff2': 'font/woff2',
});

/** Problems listed when a load is refused. */
const MAX_PROBLEMS = 200;

/** @param {string} p */
export const typeOf = (p) => TYPES[path.extname(p).toLowerCase()] ?? 'application/octet-stream';

/** @param {string} p */
export const isSvg = (p) => path.extname(p).toLowerCase() === '.svg';

/**
 * @param {string} dir  the package folder
 * @param {import('./manifest-file.js').Manifest} manifest
 */
export function createLoadContext(dir, manifest) {
  const { root } = manifest;
  /** @type {(string | FieldProblem)[]} */
  const problems = [];
  /** @type {string[]} */
  const warnings = [];
  /** URL path -> file. @type {Map<string, ServedFile>} */
  const files = new Map();
  /** Files named in the manifest that were not read, the package being past its total. */
  /** @type {Set<string>} */
  const unread = new Set();
  let totalBytes = manifest.bytes;
  let toldTotal = false;

  const context = {
    dir,
    root,
    problems,
    warnings,
    files,
    unread,
    /** The code of the refusal: a file that filled its worker's heap says so, and so does a PDF
     * that cannot be used or a server that cannot render one. */
    /** @type {'SC_ERR_SCORE_INVALID' | 'SC_ERR_SCORE_OUT_OF_MEMORY' | 'SC_ERR_SCORE_PDF' | 'SC_ERR_PDF_RENDERER_MISSING' | 'SC_ERR_SCORE_VIDEO'} */
    refusal: 'SC_ERR_SCORE_INVALID',
    /** The bytes read so far, the manifest's included. */
    get totalBytes() {
      return totalBytes;
    },

    /** The package is past its total: said once. */
    overTotal() {
      if (!toldTotal)
        problems.push(
          `${path.basename(dir)}: its files come to more than the ${formatBytes(LIMITS.packageBytes)} a package may be (the rest were not read); keep only what the performance needs`,
        );
      toldTotal = true;
    },

    /**
     * Count an opened file toward the package's total; past the bound it is closed unread, and
     * so is every file after it (the problem is reported once).
     * @param {{ handle: import('node:fs/promises').FileHandle, size: number }} opened
     */
    async withinTotal(opened) {
      totalBytes += opened.size;
      if (totalBytes <= LIMITS.packageBytes) return true;
      await opened.handle.close();
      context.overTotal();
      return false;
    },

    /**
     * Open a package file named in the manifest; record a problem when it cannot be.
     * @param {string} rel
     * @param {string} field
     * @param {number} maxBytes
     */
    async openPackageFile(rel, field, maxBytes) {
      const opened = await openInPackage(root, rel, maxBytes);
      if (!opened.ok) {
        problems.push({
          field,
          message: opened.missing
            ? `${rel} does not exist in the package; add the file or fix the path`
            : `${rel} ${opened.reason}`,
        });
        return null;
      }
      return (await context.withinTotal(opened)) ? opened : null;
    },

    /**
     * SVG files are served only as cleaned (svg/sanitize.js), at the URL of what is served; a
     * file that cannot be cleaned is a problem of the package.
     * @param {SvgToClean[]} list
     * @param {string} scoreId
     */
    async serveCleanSvgs(list, scoreId) {
      const results = await sanitizeSvgPages(list.map((s) => s.data));
      for (const [i, { rel, add }] of list.entries()) {
        const r = results[i];
        if (!r.ok) {
          if ('outOfMemory' in r) {
            context.refusal = 'SC_ERR_SCORE_OUT_OF_MEMORY';
            problems.push(`${rel}: ${r.reason}`);
          } else problems.push(`${rel}: ${r.reason}; export it again as a plain SVG file`);
          continue;
        }
        if (r.removed > 0)
          warnings.push(
            `${rel}: ${r.removed} element(s) or attribute(s) removed (scripts, event handlers, links or references outside the page)`,
          );
        const body = Buffer.from(r.svg);
        const hash = createHash('sha256').update(body).digest('hex').slice(0, 16);
        add(
          `/scores/${scoreId}/${hash}/${rel}`,
          { file: path.join(root, rel), root, type: typeOf(rel), etag: hash, body },
          body.length,
        );
      }
    },

    /**
     * The refusal of the load: its problems as lines, with the manifest's line for each field
     * problem; the first MAX_PROBLEMS of them (a package wrong everywhere says so in those).
     */
    async refuse() {
      const shown = problems.slice(0, MAX_PROBLEMS);
      const fieldProblems = /** @type {FieldProblem[]} */ (shown.filter((p) => typeof p !== 'string'));
      const lines = await describeProblems(fieldProblems, manifest.linesOf);
      let k = 0;
      const out = shown.map((p) => (typeof p === 'string' ? p : /** @type {string} */ (lines[k++])));
      if (problems.length > MAX_PROBLEMS) out.push(`and ${problems.length - MAX_PROBLEMS} more problems`);
      return new ScorecastError(context.refusal, out);
    },
  };
  return context;
}

/** @typedef {ReturnType<typeof createLoadContext>} LoadContext */

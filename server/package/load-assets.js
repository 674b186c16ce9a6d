// The load's asset step (load.js): every file the manifest names as an asset or a cue's sound,
// sized first (a package past its total is refused before gigabytes are hashed), then hashed as
// it streams and served at a content-hashed URL; SVG files are served cleaned.

import { createHash } from 'node:crypto';
import { isSafeRelativePath } from '../../core/manifest.js';
import { PACKAGE_LIMITS as LIMITS } from '../../core/package-limits.js';
import { isObject } from '../../core/values.js';
import { openInPackage, readAll } from '../lib/contained-files.js';
import { isSvg, typeOf } from './load-context.js';

/**
 * Every package file the manifest names as an asset or audio clip (validated later).
 * @param {unknown} raw
 * @returns {string[]}
 */
function assetPaths(raw) {
  if (!isObject(raw)) return [];
  const out = new Set();
  for (const a of Array.isArray(raw.assets) ? raw.assets : [])
    if (isObject(a) && typeof a.path === 'string') out.add(a.path);
  for (const c of Array.isArray(raw.cues) ? raw.cues : []) {
    if (!isObject(c)) continue;
    if (typeof c.audio === 'string') out.add(c.audio);
    // The granulator's sound (core/manifest.js serves it like an audio cue's clip).
    if (isObject(c.set) && isObject(c.set.granulator) && typeof c.set.granulator.src === 'string')
      out.add(c.set.granulator.src);
  }
  return [...out];
}

/**
 * Hash an opened file as it streams (an asset may be hundreds of MB: it is never held whole).
 * @param {import('node:fs/promises').FileHandle} handle  closed at the end
 */
async function hashStream(handle) {
  const hash = createHash('sha256');
  for await (const chunk of handle.createReadStream({ highWaterMark: 1024 * 1024 })) hash.update(chunk);
  return hash.digest('hex').slice(0, 16);
}

/**
 * Read and serve the files the manifest `raw` names as assets or sounds of the score `id`.
 * Returns their URLs and sizes by package path (a file not read is not there).
 * @param {import('./load-context.js').LoadContext} context
 * @param {unknown} raw
 * @param {string} id
 * @returns {Promise<Map<string, { url: string, bytes: number }>>}
 */
export async function serveAssets(context, raw, id) {
  const { root, files, unread, problems } = context;
  /** @type {Map<string, { url: string, bytes: number }>} */
  const hashed = new Map();
  /** @type {import('./load-context.js').SvgToClean[]} */
  const svgAssets = [];
  const named = assetPaths(raw);
  // More than the bound is reported by the manifest check, and unsafe paths: none is read.
  const toRead = named.length <= LIMITS.assets ? named.filter((rel) => isSafeRelativePath(rel)) : [];
  // Sizes first: a package past its total is refused before gigabytes of assets are hashed.
  let assetBytes = 0;
  for (const rel of toRead) {
    const opened = await openInPackage(root, rel, LIMITS.assetBytes);
    if (opened.ok) {
      assetBytes += opened.size;
      await opened.handle.close();
    }
  }
  if (context.totalBytes + assetBytes > LIMITS.packageBytes) {
    context.overTotal();
    for (const rel of toRead) unread.add(rel);
  }
  for (const rel of toRead) {
    if (unread.has(rel)) continue;
    const opened = await openInPackage(root, rel, LIMITS.assetBytes);
    if (!opened.ok) {
      // A missing file is reported with its field once the model is built.
      if (!opened.missing) problems.push(`${rel}: ${opened.reason}`);
      continue;
    }
    if (!(await context.withinTotal(opened))) {
      unread.add(rel);
      continue;
    }
    if (isSvg(rel)) {
      const data = await readAll(opened.handle);
      svgAssets.push({
        rel,
        data,
        add: (url, served, bytes) => {
          hashed.set(rel, { url, bytes });
          files.set(url, served);
        },
      });
      continue;
    }
    const hash = await hashStream(opened.handle);
    const url = `/scores/${id}/${hash}/${rel}`;
    hashed.set(rel, { url, bytes: opened.size });
    // Its size and time from this open: not opened again to learn them (served-prepare.js).
    files.set(url, {
      file: opened.real,
      root,
      type: typeOf(rel),
      etag: hash,
      size: opened.size,
      mtimeMs: opened.mtimeMs,
    });
  }
  if (svgAssets.length > 0) await context.serveCleanSvgs(svgAssets, id);
  return hashed;
}

/**
 * The score model's assets as served; an asset the package does not have is a problem at its
 * field (one not read, the package being past its total, was reported as such).
 * @param {import('./load-context.js').LoadContext} context
 * @param {import('../../core/manifest.js').ScoreModel} model
 * @param {Map<string, { url: string, bytes: number }>} hashed
 * @returns {import('./load.js').LoadedAsset[]}
 */
export function listAssets(context, model, hashed) {
  /** @type {import('./load.js').LoadedAsset[]} */
  const assets = [];
  for (const [i, a] of model.assets.entries()) {
    const h = hashed.get(a.path);
    if (!h && !context.unread.has(a.path))
      context.problems.push({
        field: `assets[${i}].path`,
        message: `${a.path} does not exist in the package; add the file or remove the entry`,
      });
    else if (h) assets.push({ path: a.path, url: h.url, bytes: h.bytes, preload: a.preload });
  }
  return assets;
}

// The load's notation steps (load.js): the notation file engraved (or read from the cache), then
// the engraved views' pages served, their beat maps checked like a composer's, and the parts'
// narrower layouts served once engraved (a server does not wait for them).

import path from 'node:path';
import { isSafeRelativePath } from '../../core/manifest.js';
import { checkBeatMap, describeBeatMapProblem } from '../../core/beatmap.js';
import { ScorecastError } from '../../core/errors.js';
import { PACKAGE_LIMITS as LIMITS } from '../../core/package-limits.js';
import { isObject } from '../../core/values.js';
import { engraveScore } from './engrave/index.js';
import { readAll, realRoot } from '../lib/contained-files.js';
import { MEMORY_BOUND_BYTES, prepareServed } from '../http/served-prepare.js';
import { typeOf } from './load-context.js';

/** @typedef {import('./load.js').ViewPages} ViewPages */
/** @typedef {import('./load.js').BeatPosition} BeatPosition */
/** @typedef {import('./load-context.js').FieldProblem} FieldProblem */
/** @typedef {import('../http/served-prepare.js').ServedFile} ServedFile */
/** @typedef {Awaited<ReturnType<typeof engraveScore>>} Engraved */

/**
 * Engrave the notation the manifest `raw` names: the bars of the score, or none (with its
 * problems) when it cannot be.
 * @param {import('./load-context.js').LoadContext} context
 * @param {unknown} raw
 * @param {{ cacheDir: string, deferLayouts: boolean }} options
 * @returns {Promise<{ bars?: import('../../core/tempo-map.js').BarSpec[], engraved: Engraved | null }>}
 */
export async function engraveNotation(context, raw, { cacheDir, deferLayouts }) {
  if (!(isObject(raw) && isObject(raw.notation) && isSafeRelativePath(raw.notation.file))) return { engraved: null };
  const parts = (Array.isArray(raw.parts) ? raw.parts.slice(0, LIMITS.parts) : [])
    .filter(isObject)
    .map((p) => ({ id: String(p.id), ...(typeof p.source === 'string' ? { source: p.source } : {}) }));
  const opened = await context.openPackageFile(raw.notation.file, 'notation.file', LIMITS.notationBytes);
  if (!opened) return { engraved: null };
  try {
    const bytes = await readAll(opened.handle);
    const engraved = await engraveScore({ file: opened.real, bytes, parts, cacheDir, deferLayouts });
    context.warnings.push(...engraved.warnings);
    return { bars: engraved.bars, engraved };
  } catch (err) {
    if (!(err instanceof ScorecastError)) throw err;
    if (err.code === 'SC_ERR_SCORE_OUT_OF_MEMORY') context.refusal = err.code;
    context.problems.push(...(err.problems.length > 0 ? err.problems : [`${raw.notation.file}: ${err.message}`]));
    return { engraved: null };
  }
}

/**
 * Serve the engraved views of the score `model` into `views`. Returns the parts' layouts still
 * being engraved, and what serves them once they are (into the package loaded), or null.
 * @param {import('./load-context.js').LoadContext} context
 * @param {import('../../core/manifest.js').ScoreModel} model
 * @param {Engraved} eng
 * @param {Record<string, ViewPages>} views
 * @returns {Promise<{ pendingLayouts: string[], serveLater: ((pkg: import('./load.js').ScorePackage, memoryBytes: number) => Promise<void>) | null }>}
 */
export async function serveEngraved(context, model, eng, views) {
  const { files, problems, warnings } = context;
  const engRoot = (await realRoot(eng.dir)) ?? eng.dir;
  /**
   * @param {string} view
   * @param {{ pages: { file: string, width: number, height: number }[], beats: BeatPosition[] }} v
   * @param {Map<string, ServedFile>} [into]  where its files go
   * @param {(string | FieldProblem)[]} [sink]  where its problems go
   * @returns {ViewPages | null}
   */
  const serve = (view, v, into = files, sink = problems) => {
    // The engraver's beat maps obey the same rules as a composer's (a bug there must not
    // reach the musicians' screens as a cursor in the wrong place).
    const checked = checkBeatMap(
      { pages: v.pages, beats: v.beats },
      { file: `${model.notation?.file} (${view} view)`, totalBeats: model.map.totalBeats, pageCount: v.pages.length },
    );
    if (!checked.ok) {
      sink.push(...checked.problems.map(describeBeatMapProblem));
      return null;
    }
    return {
      pages: v.pages.map((p) => {
        const url = `/scores/${model.id}/${eng.hash}/${p.file}`;
        const file = path.join(engRoot, p.file);
        into.set(url, {
          file,
          root: engRoot,
          type: typeOf(p.file),
          etag: `${eng.hash}-${p.file}`,
          br: `${file}.br`,
          gz: `${file}.gz`,
        });
        return { url, width: p.width, height: p.height };
      }),
      beats: v.beats,
    };
  };
  for (const [view, v] of Object.entries(eng.views)) {
    const served = serve(view, v);
    if (!served) continue;
    /** @type {NonNullable<ViewPages['layouts']>} */
    const layouts = [];
    for (const l of v.layouts ?? []) {
      const more = serve(`${view}, ${l.name} layout`, l);
      if (more) layouts.push({ name: l.name, staff: l.staff, ink: l.ink, ...more });
    }
    const later = view !== 'score' && eng.pending.length > 0 ? { pending: eng.pending } : {};
    views[view] = { ...served, staff: v.staff, ink: v.ink, ...(layouts.length ? { layouts } : {}), ...later };
  }
  if (eng.pending.length === 0) return { pendingLayouts: [], serveLater: null };

  /** A part view's pending layouts are done: it gets those that could be served. */
  const settle = (/** @type {string} */ view, /** @type {NonNullable<ViewPages['layouts']>} */ layouts) => {
    const { pending: _, ...rest } = views[view];
    views[view] = { ...rest, ...(layouts.length > 0 ? { layouts } : {}) };
  };
  /**
   * Serve the layouts once engraved: this package's part views get them, and nothing else
   * (a package loaded since is another object, with its own views and files).
   * @param {Awaited<typeof eng.complete>} complete
   */
  const serveLayouts = async (complete, /** @type {number} */ memoryBytes) => {
    /** @type {Map<string, ServedFile>} */
    const more = new Map();
    /** @type {(string | FieldProblem)[]} */
    const wrong = [];
    /** @type {Record<string, NonNullable<ViewPages['layouts']>>} */
    const added = {};
    for (const [view, v] of Object.entries(complete.views)) {
      if (!views[view] || !v.layouts) continue;
      added[view] = [];
      for (const l of v.layouts) {
        const served = serve(`${view}, ${l.name} layout`, l, more, wrong);
        if (served) added[view].push({ name: l.name, staff: l.staff, ink: l.ink, ...served });
      }
    }
    await prepareServed(more, { memoryBytes: Math.max(0, MEMORY_BOUND_BYTES - memoryBytes) });
    for (const [url, f] of more) files.set(url, f);
    for (const [view, layouts] of Object.entries(added)) settle(view, layouts);
    warnings.push(...wrong.map((w) => (typeof w === 'string' ? w : `${w.field}: ${w.message}`)));
  };
  return {
    pendingLayouts: eng.pending,
    serveLater: (pkg, memoryBytes) =>
      eng.complete
        .then((complete) => serveLayouts(complete, memoryBytes))
        .then(
          () => {
            pkg.pendingLayouts = [];
          },
          (/** @type {Error} */ err) => {
            pkg.pendingLayouts = [];
            for (const [view, v] of Object.entries(views)) if (v.pending) settle(view, []);
            warnings.push(`the parts' narrower layouts could not be engraved: ${err.message.trim()}`);
          },
        ),
  };
}

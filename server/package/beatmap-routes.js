// The preview's bar-line mode on the server: what it places bars on (the image views, their
// pages, the written bars) and the write of the beat map it makes, into the package, in the CSV
// form the loader reads. Conductor token only: it writes into the package folder. The bars sent
// are checked as untrusted input (core/bar-lines.js), the beat map made from them is checked as
// the loader checks it, and the file is replaced atomically (written beside, then renamed) at
// the path score.yaml names, never through a link and never outside the package. The package
// watcher then reloads it like any saved edit.

import { lstat, realpath } from 'node:fs/promises';
import path from 'node:path';
import fp from 'fastify-plugin';
import writeFileAtomic from 'write-file-atomic';
import { beatMapCsv, beatsFromBarPositions, checkBarPositions, writtenBars } from '../../core/bar-lines.js';
import { checkBeatMap, describeBeatMapProblem } from '../../core/beatmap.js';
import { ScorecastError } from '../../core/errors.js';
import { requireToken } from '../http/auth.js';

/** A bar's position is about 90 bytes of JSON: room for 40,000 bars. */
export const BEATMAP_BODY_BYTES = 4 * 1024 * 1024;

/**
 * Where the beat map of `view` is written, checked to stay inside the package: its folder's real
 * path inside the package's, the file itself (when there) a regular file and not a link.
 * @param {string} dir  the package folder
 * @param {string} rel  the manifest's `pages.<view>.beatmap`
 * @returns {Promise<string>}
 */
async function targetOf(dir, rel) {
  const refuse = (/** @type {string} */ why) => {
    throw new ScorecastError('SC_ERR_BAD_REQUEST', `${rel}: ${why}`);
  };
  if (!rel.toLowerCase().endsWith('.csv'))
    refuse('the bar-line mode writes the CSV form; name a .csv file as the beat map in score.yaml');
  if (path.isAbsolute(rel) || rel.split(/[\\/]/).includes('..')) refuse('is not a path inside the package');
  const root = await realpath(dir);
  const file = path.join(root, rel);
  const folder = await realpath(path.dirname(file)).catch(() => null);
  if (!folder) refuse(`its folder ${path.dirname(rel)} does not exist; make it in the package`);
  const inside = (/** @type {string} */ p) => p === root || p.startsWith(`${root}${path.sep}`);
  if (!inside(/** @type {string} */ (folder))) refuse('its folder is outside the package');
  const target = path.join(/** @type {string} */ (folder), path.basename(file));
  const st = await lstat(target).catch(() => null);
  if (st && !st.isFile()) refuse('is not a plain file (a link or a folder); remove it and save again');
  if (st && st.nlink > 1) refuse('has more than one name (a hard link); remove it and save again');
  return target;
}

/**
 * @param {import('fastify').FastifyInstance} app
 * @param {{ current: () => import('./load.js').ScorePackage, token: string,
 *   auth?: import('../http/auth.js').SignInLimiter }} options
 */
async function routes(app, { current, token, auth }) {
  const onRequest = requireToken(token, auth);

  // The image views (pages and a beat map in score.yaml) and the bars to place on them.
  app.get('/api/score/beatmaps', { onRequest }, async (_req, reply) => {
    reply.header('cache-control', 'no-store');
    const { model, views } = current();
    return {
      bars: writtenBars(model.map.bars),
      views: Object.entries(model.pages ?? {})
        .filter(([view]) => Object.hasOwn(views, view))
        .map(([view, spec]) => ({
          view,
          file: spec.beatmap,
          placed: !views[view].unplaced,
          pages: views[view].pages.map((p) => ({
            // The widest rendering of a PDF page: bar lines are placed more closely on it.
            url: p.images?.[p.images.length - 1]?.url ?? p.url,
            width: p.width,
            height: p.height,
          })),
        })),
    };
  });

  app.put('/api/score/beatmaps/:view', { onRequest, bodyLimit: BEATMAP_BODY_BYTES }, async (req) => {
    const { view } = /** @type {{ view: string }} */ (req.params);
    const pkg = current();
    const spec = Object.hasOwn(pkg.model.pages ?? {}, view) ? pkg.model.pages?.[view] : undefined;
    const pages = Object.hasOwn(pkg.views, view) ? pkg.views[view].pages : undefined;
    if (!spec || !pages)
      throw new ScorecastError('SC_ERR_NOT_FOUND', `view "${view.slice(0, 64)}" has no page images to place bars on`);
    const pageSizes = pages.map(({ width, height }) => ({ width, height }));
    const checked = checkBarPositions(req.body, { bars: writtenBars(pkg.model.map.bars), pageSizes });
    if (!checked.ok) throw new ScorecastError('SC_ERR_BAD_REQUEST', `bar lines: ${checked.problems.join('; ')}`);
    const beats = beatsFromBarPositions(checked.value, pkg.model.map.bars);
    // The same rules the loader applies: a map written here always loads.
    const map = checkBeatMap(
      { beats },
      { file: spec.beatmap, totalBeats: pkg.model.map.totalBeats, pageCount: pages.length, pageSizes },
    );
    if (!map.ok)
      throw new ScorecastError(
        'SC_ERR_BAD_REQUEST',
        `bar lines: ${map.problems.slice(0, 5).map(describeBeatMapProblem).join('; ')}`,
      );
    const target = await targetOf(pkg.dir, spec.beatmap);
    await writeFileAtomic(target, beatMapCsv(beats), { mode: 0o644 });
    req.log.info({ view, file: spec.beatmap, bars: checked.value.length }, 'beat map written from bar lines');
    return { view, file: spec.beatmap, bars: checked.value.length, beats: beats.length };
  });
}

/** The routes as a Fastify plugin: `await app.register(beatMapRoutes, options)`. */
export const beatMapRoutes = fp(routes, { name: 'beatmap-routes', fastify: '5.x' });

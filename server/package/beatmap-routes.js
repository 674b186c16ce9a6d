// The preview's bar-line mode on the server: what it places bars on (the image views, their
// pages, the written bars) and the write of the beat map it makes, into the package, in the CSV
// form the loader reads. Conductor token only: it writes into the package folder. The bars sent
// are checked as untrusted input (core/bar-lines.js), the beat map made from them is checked as
// the loader checks it, and the file is replaced atomically (written beside, then renamed) at
// the path score.yaml names, never through a link and never outside the package. The package
// watcher then reloads it like any saved edit. Its tap-along writes the score's `meter` from the
// time each bar starts in a recording (core/tap-tempo.js), into score.yaml, the rest of the file
// kept as it was (edited in the parse worker), checked to give the same bars and beats.

import { lstat, realpath } from 'node:fs/promises';
import path from 'node:path';
import fp from 'fastify-plugin';
import writeFileAtomic from 'write-file-atomic';
import { beatMapCsv, beatsFromBarPositions, checkBarPositions, writtenBars } from '../../core/bar-lines.js';
import { checkBeatMap, describeBeatMapProblem } from '../../core/beatmap.js';
import { ScorecastError } from '../../core/errors.js';
import { PACKAGE_LIMITS } from '../../core/package-limits.js';
import { checkBarTimes, meterFromBarTimes } from '../../core/tap-tempo.js';
import { createTempoMap } from '../../core/tempo-map.js';
import { requireToken } from '../http/auth.js';
import { openInPackage, readAll } from '../lib/contained-files.js';
import { retempoManifest } from './parse.js';

/** A bar's position is about 90 bytes of JSON: room for 40,000 bars. */
export const BEATMAP_BODY_BYTES = 4 * 1024 * 1024;

/** A bar's time is about 20 bytes of JSON: room for 50,000 bars. */
export const TEMPO_BODY_BYTES = 1024 * 1024;

/**
 * The tapped meter as the tempo map reads it, checked to give the score the bars and beats it
 * has (a meter written here always loads).
 * @param {{ bar: number, time?: string, tempo?: number }[]} meter
 * @param {import('../../core/tempo-map.js').TempoMap} map
 */
function sameBars(meter, map) {
  const pickup = map.bars[0]?.bar === 0 ? map.bars[0].beats : 0;
  try {
    const again = createTempoMap({
      bars: map.bars[map.bars.length - 1].bar,
      pickup,
      changes: meter.map((c) => ({
        bar: c.bar,
        ...(c.time ? { time: /** @type {[number, number]} */ (c.time.split('/').map(Number)) } : {}),
        ...(c.tempo !== undefined ? { tempo: c.tempo } : {}),
      })),
    });
    return again.totalBeats === map.totalBeats && again.bars.length === map.bars.length;
  } catch {
    return false;
  }
}

/**
 * Where the beat map of `view` is written, checked to stay inside the package: its folder's real
 * path inside the package's, the file itself (when there) a regular file and not a link.
 * @param {string} dir  the package folder
 * @param {string} rel  the manifest's `pages.<view>.beatmap`
 * @returns {Promise<string>}
 */
async function targetOf(dir, rel) {
  const refuse = (/** @type {string} */ why) => {
    throw new ScorecastError('SC_ERR_EDIT_REFUSED', `${rel}: ${why}`);
  };
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
    if (!checked.ok) throw new ScorecastError('SC_ERR_EDIT_REFUSED', `bar lines: ${checked.problems.join('; ')}`);
    const beats = beatsFromBarPositions(checked.value, pkg.model.map.bars);
    // The same rules the loader applies: a map written here always loads.
    const map = checkBeatMap(
      { beats },
      { file: spec.beatmap, totalBeats: pkg.model.map.totalBeats, pageCount: pages.length, pageSizes },
    );
    if (!map.ok)
      throw new ScorecastError(
        'SC_ERR_EDIT_REFUSED',
        `bar lines: ${map.problems.slice(0, 5).map(describeBeatMapProblem).join('; ')}`,
      );
    if (!spec.beatmap.toLowerCase().endsWith('.csv'))
      throw new ScorecastError(
        'SC_ERR_EDIT_REFUSED',
        `${spec.beatmap}: the bar-line mode writes the CSV form; name a .csv file as the beat map in score.yaml`,
      );
    const target = await targetOf(pkg.dir, spec.beatmap);
    await writeFileAtomic(target, beatMapCsv(beats), { mode: 0o644 });
    req.log.info({ view, file: spec.beatmap, bars: checked.value.length }, 'beat map written from bar lines');
    return { view, file: spec.beatmap, bars: checked.value.length, beats: beats.length };
  });

  // Tapping along to a recording: the time each bar starts in it, written as the score's meter.
  app.put('/api/score/tempo', { onRequest, bodyLimit: TEMPO_BODY_BYTES }, async (req) => {
    const pkg = current();
    if (!pkg.model.pages || pkg.model.notation)
      throw new ScorecastError(
        'SC_ERR_EDIT_REFUSED',
        'tapping along writes the meter of a score of pages; a score with notation takes its tempo from the notation',
      );
    const { map } = pkg.model;
    const checked = checkBarTimes(req.body, map.bars);
    if (!checked.ok) throw new ScorecastError('SC_ERR_EDIT_REFUSED', `taps: ${checked.problems.join('; ')}`);
    const made = meterFromBarTimes(checked.value, map.bars);
    if (!made.ok) throw new ScorecastError('SC_ERR_EDIT_REFUSED', `taps: ${made.problems.join('; ')}`);
    if (made.meter.length > PACKAGE_LIMITS.meterChanges || !sameBars(made.meter, map))
      throw new ScorecastError('SC_ERR_EDIT_REFUSED', 'taps: the meter they make does not fit the score; tap again');
    const body = /** @type {{ recording?: unknown }} */ (req.body);
    const recording =
      typeof body.recording === 'string' && body.recording.trim() !== ''
        ? body.recording
            .replace(/[\p{Cc}\u2028\u2029]/gu, ' ')
            .trim()
            .slice(0, 120)
        : 'a recording';
    const first = checked.value.times[0];
    const comment = `meter tapped along to ${recording}: bar ${map.bars.find((b) => b.bar !== 0)?.bar} at ${first.toFixed(3)} s of it`;
    const opened = await openInPackage(await realpath(pkg.dir), 'score.yaml', PACKAGE_LIMITS.manifestBytes);
    if (!opened.ok) throw new ScorecastError('SC_ERR_EDIT_REFUSED', `score.yaml: ${opened.reason}`);
    const text = (await readAll(opened.handle)).toString('utf8');
    const edited = await retempoManifest(text, made.meter, comment);
    if (!edited.ok) throw new ScorecastError('SC_ERR_EDIT_REFUSED', edited.problems.join('; '));
    if (Buffer.byteLength(edited.text) > PACKAGE_LIMITS.manifestBytes)
      throw new ScorecastError('SC_ERR_EDIT_REFUSED', 'score.yaml would grow past the size a manifest may have');
    const target = await targetOf(pkg.dir, 'score.yaml');
    await writeFileAtomic(target, edited.text, { mode: 0o644 });
    req.log.info({ changes: made.meter.length, first }, 'meter written from taps');
    return {
      file: 'score.yaml',
      bars: checked.value.times.length,
      changes: made.meter.length,
      first,
      meter: made.meter,
    };
  });
}

/** The routes as a Fastify plugin: `await app.register(beatMapRoutes, options)`. */
export const beatMapRoutes = fp(routes, { name: 'beatmap-routes', fastify: '5.x' });

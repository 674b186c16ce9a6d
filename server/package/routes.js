// Score routes: the current score's description and timeline, its views' pages and beat maps,
// and every file of the package by its content-hashed URL. The package may be replaced while the
// server runs (reload); routes always read the current one.

import fp from 'fastify-plugin';
import { ScorecastError } from '../../core/errors.js';
import { MAX_WIDTH_PX, PENDING_RETRY_MS, chooseLayout, layoutsOf, widthOf } from '../../core/layout-choice.js';
import { holdAnswer, sendHeld } from '../http/send-held.js';
import { sendServed } from '../http/send-served.js';

export { pickEncoding } from '../http/send-served.js';

/**
 * @typedef {object} Timeline  the piece laid out for the composer's scrubber (beats are global
 *   indices in performance order, as `seek {beat}` takes them)
 * @property {number} beats
 * @property {{ bar: number, beat: number, time?: string }[]} bars  every bar's first beat; a
 *   repeated bar at each playing; `time` where the time signature changes
 * @property {{ beat: number, bpm: number }[]} tempo  written tempo changes
 * @property {{ beat: number, view: string, kind: 'set' | 'audio' | 'vote', text?: string, close?: number }[]} cues
 *   `text` when the cue shows some (cut to TIMELINE_TEXT chars), `close` for a vote window
 */

/**
 * Each view's notation answer as JSON with its compressed copies (send-held.js), by the view's
 * pages (a reload, or layouts engraved later, put new objects in their place) and layout.
 * @type {WeakMap<object, Map<string, Promise<import('../http/send-held.js').HeldAnswer>>>}
 */
const heldViews = new WeakMap();

/**
 * @param {object} pages  the view's pages or video as the package holds them
 * @param {string} layout
 * @param {() => unknown} answer
 */
function held(pages, layout, answer) {
  let byLayout = heldViews.get(pages);
  if (!byLayout) heldViews.set(pages, (byLayout = new Map()));
  let known = byLayout.get(layout);
  if (!known) {
    known = holdAnswer(Buffer.from(JSON.stringify(answer())), 'application/json; charset=utf-8');
    byLayout.set(layout, known);
    known.catch(() => byLayout.delete(layout));
  }
  return known;
}

/** Cue text in the timeline is a reminder, not the cue. */
const TIMELINE_TEXT = 60;
/** @type {WeakMap<import('../../core/manifest.js').ScoreModel, Timeline>} */
const timelines = new WeakMap();

/**
 * @param {import('../../core/manifest.js').ScoreModel} model
 * @returns {Timeline}
 */
export function timelineOf(model) {
  const known = timelines.get(model);
  if (known) return known;
  const { map } = model;
  let time = '';
  const bars = map.bars.map((b) => {
    const t = b.time.join('/');
    const changed = t !== time;
    time = t;
    return changed ? { bar: b.bar, beat: b.startBeat, time: t } : { bar: b.bar, beat: b.startBeat };
  });
  /** @type {Timeline['cues']} */
  const cues = [];
  for (const { beat, view, set } of model.cues) {
    const vote = /** @type {{ closes?: unknown } | null | undefined} */ (set.vote);
    if (vote === null) continue; // a window's close: its opening carries it
    /** @type {Timeline['cues'][number]} */
    const cue = { beat, view, kind: set.audio !== undefined ? 'audio' : vote !== undefined ? 'vote' : 'set' };
    if (typeof set.text === 'string') cue.text = set.text.slice(0, TIMELINE_TEXT);
    if (vote && typeof vote.closes === 'number') cue.close = vote.closes;
    cues.push(cue);
  }
  const timeline = {
    beats: map.totalBeats,
    bars,
    tempo: map.segments.map((s) => ({ beat: s.beat, bpm: s.bpm })),
    cues,
    marks: model.marks.map((m) => ({ name: m.name, beat: m.beat })),
  };
  timelines.set(model, timeline);
  return timeline;
}

/**
 * The score's rehearsal marks where "go to" takes them (each name's first playing), by bar and beat.
 * @param {import('../../core/manifest.js').ScoreModel} model
 */
function marksOf(model) {
  const seen = new Set();
  return model.marks.flatMap((m) => {
    if (seen.has(m.name)) return [];
    seen.add(m.name);
    const pos = model.map.positionOf(m.beat);
    return [{ name: m.name, bar: pos.bar, beat: pos.beatInBar, at: m.beat }];
  });
}

/**
 * @param {import('fastify').FastifyInstance} app
 * @param {{ current: () => import('./load.js').ScorePackage }} options
 */
async function routes(app, { current }) {
  app.get('/api/score', async () => {
    const { model, assets, views, videos } = current();
    return {
      id: model.id,
      title: model.title,
      composer: model.composer,
      views: model.views,
      parts: model.parts,
      bars: model.map.lastBar,
      beats: model.map.totalBeats,
      marks: marksOf(model),
      notation: Object.fromEntries(Object.entries(views).map(([v, p]) => [v, { pages: p.pages.length }])),
      video: Object.fromEntries(Object.entries(videos ?? {}).map(([v, p]) => [v, { url: p.video.url }])),
      assets: assets.map((a) => ({ path: a.path, url: a.url, bytes: a.bytes, preload: a.preload })),
    };
  });

  // Its own route rather than part of /api/score, which every phone fetches: only the preview
  // needs it.
  app.get('/api/score/timeline', async () => timelineOf(current().model));

  // An engraved part has several layouts (server/package/engrave/options.js, PART_LAYOUTS): the view's
  // own pages, and narrower ones a view picks by the screen's width from `layouts`, each
  // fetched by its own URL (?layout=<name>) so that a phone does not download every beat map.
  // The narrower layouts are engraved after the rest: until they are, `pending` names them and
  // `layouts` lists those there are, so that a view draws the best it has and asks again. A
  // settled answer is serialized and compressed once, and revalidated by its ETag.
  // `?width=` (the CSS px a page's view draws at) answers with the layout the view would choose
  // there (core/layout-choice.js): a phone's first visit makes one request, not the default
  // layout's and then its own (on venue WiFi a round trip is 100-300 ms). A layout named wins.
  app.get('/api/score/views/:view', async (req, reply) => {
    const { view } = /** @type {{ view: string }} */ (req.params);
    const query = /** @type {{ layout?: unknown, width?: unknown }} */ (req.query ?? {});
    const width = query.width === undefined ? undefined : widthOf(query.width);
    if (width === null)
      throw new ScorecastError(
        'SC_ERR_BAD_QUERY',
        `width is the CSS px the view draws at, a whole number from 1 to ${MAX_WIDTH_PX}; got "${String(query.width).slice(0, 32)}"`,
      );
    const { layout: named } = query;
    // A view with a video shows it (core/video.js), in place of any pages it has.
    const videos = current().videos ?? {};
    if (Object.hasOwn(videos, view)) {
      if (named !== undefined) throw new ScorecastError('SC_ERR_NOT_FOUND', `view "${view}" is a video`);
      return sendHeld(req, reply, await held(videos[view], '', () => videos[view]));
    }
    const pages = Object.hasOwn(current().views, view) ? current().views[view] : undefined;
    // A view of the score with nothing to draw (the audience's, a part of cue text only): no
    // content, not an error, so that its page logs none.
    if (!pages && named === undefined && current().model.views.includes(view)) return reply.code(204).send();
    if (!pages) throw new ScorecastError('SC_ERR_NOT_FOUND', `no pages for view "${view.slice(0, 64)}"`);
    if (!pages.layouts && !pages.pending) {
      if (named !== undefined) throw new ScorecastError('SC_ERR_NOT_FOUND', `view "${view}" has one layout`);
      return sendHeld(req, reply, await held(pages, '', () => pages));
    }
    const url = `/api/score/views/${encodeURIComponent(view)}`;
    const pending = pages.pending ? { pending: pages.pending, retryMs: PENDING_RETRY_MS } : {};
    // The answer changes when the layouts come: no cache may keep it.
    if (pages.pending) reply.header('cache-control', 'no-store');
    const layouts = [
      { name: 'page', staff: pages.staff ?? 0, width: pages.pages[0].width, url },
      ...(pages.layouts ?? []).map((l) => ({
        name: l.name,
        staff: l.staff,
        width: l.pages[0].width,
        url: `${url}?layout=${encodeURIComponent(l.name)}`,
      })),
    ];
    // Without a name or a width: the A4 pages, as ever.
    const layout = named ?? (width === undefined ? undefined : chooseLayout(layoutsOf({ layouts }), width)?.name);
    const chosen = layout === undefined || layout === 'page' ? pages : pages.layouts?.find((l) => l.name === layout);
    if (!chosen)
      throw new ScorecastError(
        'SC_ERR_NOT_FOUND',
        `view "${view}" has no layout "${String(layout).slice(0, 32)}"; it has ${layouts.map((l) => l.name).join(', ')}${pages.pending ? ` (${pages.pending.join(', ')} still being engraved)` : ''}`,
      );
    const answer = () => ({
      pages: chosen.pages,
      beats: chosen.beats,
      staff: chosen.staff,
      ink: chosen.ink,
      layout: layout ?? 'page',
      layouts,
      ...pending,
    });
    if (pages.pending) return answer();
    return sendHeld(req, reply, await held(pages, String(layout ?? 'page'), answer));
  });

  // A URL either names a file the package loader listed, or nothing: no path is ever resolved
  // against the file system, so "..", encoded or absolute paths cannot reach anything. The file
  // is opened without following links: one swapped in since the load is refused (404).
  app.route({
    method: ['GET', 'HEAD'],
    url: '/scores/*',
    handler: async (req, reply) => {
      const url = `/scores/${/** @type {{ '*': string }} */ (req.params)['*']}`;
      const served = current().files.get(url);
      if (!served) throw new ScorecastError('SC_ERR_NOT_FOUND');
      return sendServed(req, reply, served);
    },
  });
}

/** The routes as a Fastify plugin: `await app.register(scoreRoutes, options)`. */
export const scoreRoutes = fp(routes, { name: 'score-routes', fastify: '5.x' });

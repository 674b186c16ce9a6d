// Conductor control: POST /api/control/:action with a bearer token. Audience clients can only
// read; without the token nothing changes.

import fp from 'fastify-plugin';
import { ScorecastError } from '../../core/errors.js';
import { MARK_NAME_MAX, markBeat } from '../../core/marks.js';
import { requireToken } from '../http/auth.js';
import { READY_WAIT_MAX_MS, READY_WAIT_MS } from '../live/roster.js';

/**
 * @param {unknown} body
 * @returns {Record<string, unknown>}
 */
function args(body) {
  if (body === undefined || body === null || body === '') return {};
  if (typeof body !== 'object' || Array.isArray(body))
    throw new ScorecastError('SC_ERR_BAD_CONTROL', 'the body must be a JSON object');
  return /** @type {Record<string, unknown>} */ (body);
}

/**
 * The actions, by name. Each returns nothing; the route answers the new state.
 * @type {Record<string, (c: import('./conductor.js').Conductor, a: Record<string, unknown>) => void>}
 */
const ACTIONS = {
  play: (c, a) => {
    c.play(a.countIn === undefined ? {} : { countIn: /** @type {number} */ (a.countIn) });
  },
  pause: (c) => {
    c.pause();
  },
  stop: (c) => {
    c.stop();
  },
  seek: (c, a) => {
    if (a.mark !== undefined) {
      if (a.bar !== undefined || a.beat !== undefined)
        throw new ScorecastError('SC_ERR_BAD_CONTROL', 'seek takes {mark} or {bar, beat?} or {beat}, not both');
      if (typeof a.mark !== 'string') throw new ScorecastError('SC_ERR_BAD_CONTROL', "mark must be a mark's name");
      const marks = c.model.marks ?? [];
      const beat = markBeat(marks, a.mark);
      if (beat === null) {
        const names = [...new Set(marks.map((m) => m.name))];
        throw new ScorecastError(
          'SC_ERR_NO_MARK',
          `the score has no mark "${a.mark.slice(0, MARK_NAME_MAX)}"; ${names.length ? `its marks: ${names.slice(0, 40).join(', ')}${names.length > 40 ? ', …' : ''}` : 'it has no marks'}`,
        );
      }
      c.seek(beat);
    } else if (a.bar !== undefined) {
      if (!Number.isInteger(a.bar)) throw new ScorecastError('SC_ERR_BAD_CONTROL', 'bar must be an integer');
      if (a.beat !== undefined && !Number.isInteger(a.beat))
        throw new ScorecastError('SC_ERR_BAD_CONTROL', 'beat must be an integer (beat in the bar)');
      c.seek(c.beatOf(/** @type {number} */ (a.bar), /** @type {number | undefined} */ (a.beat)));
    } else if (a.beat !== undefined) {
      c.seek(/** @type {number} */ (a.beat));
    } else {
      throw new ScorecastError('SC_ERR_BAD_CONTROL', 'seek needs {mark}, {bar, beat?} or {beat}');
    }
  },
  // {from: {bar} | {mark}, to: {bar} | {mark}, countIn?: beats} loops the passage until {off: true}.
  loop: (c, a) => {
    c.setLoop(a);
  },
  // {open: id} opens the score's vote window now; {close: true} closes the open one (its winner
  // decides as at the window's close).
  vote: (c, a) => {
    if (typeof a.open === 'string' && a.close === undefined) c.openVote(a.open);
    else if (a.close === true && a.open === undefined) c.closeVote();
    else throw new ScorecastError('SC_ERR_BAD_CONTROL', 'vote needs {open: "<vote id>"} or {close: true}');
  },
  // {id} fires the score's preset now (a change of the audience view, score.yaml `presets`).
  preset: (c, a) => {
    if (typeof a.id !== 'string' && !Number.isInteger(a.id))
      throw new ScorecastError('SC_ERR_BAD_CONTROL', 'preset needs {id}, a preset of the score');
    c.firePreset(String(a.id));
  },
  // {tiles: ["t2-3"]} forces the next page choice to play the pages of these tiles, whatever the
  // votes; {tiles: []} gives it back to the votes.
  next: (c, a) => {
    if (!Array.isArray(a.tiles) || !a.tiles.every((t) => typeof t === 'string' && t.length <= 64))
      throw new ScorecastError('SC_ERR_BAD_CONTROL', 'next needs {tiles: ["t2-3"]}, tiles of the next page choice');
    c.forceNext(/** @type {string[]} */ (a.tiles));
  },
  tempo: (c, a) => {
    if (a.rate !== undefined) c.setRate(/** @type {number} */ (a.rate));
    else if (typeof a.bpm === 'number' && a.bpm > 0) c.setRate(a.bpm / c.model.map.tempoAt(c.state.beat));
    else throw new ScorecastError('SC_ERR_BAD_CONTROL', 'tempo needs {rate} (0.25..4) or {bpm} (> 0)');
  },
};

/** The actions `POST /api/control/:action` takes (the unknown-action error lists them all). */
export const CONTROL_ACTIONS = Object.freeze(Object.keys(ACTIONS));

/**
 * How long `play {whenReady: true}` may wait (ms): `timeoutMs`, or READY_WAIT_MS.
 * @param {Record<string, unknown>} a
 */
export function readyWait(a) {
  if (a.whenReady === undefined || a.whenReady === false) return null;
  if (a.whenReady !== true) throw new ScorecastError('SC_ERR_BAD_CONTROL', 'whenReady must be true or false');
  const ms = a.timeoutMs ?? READY_WAIT_MS;
  if (!Number.isInteger(ms) || /** @type {number} */ (ms) < 1 || /** @type {number} */ (ms) > READY_WAIT_MAX_MS)
    throw new ScorecastError('SC_ERR_BAD_CONTROL', `timeoutMs must be an integer in 1..${READY_WAIT_MAX_MS} (ms)`);
  return /** @type {number} */ (ms);
}

/**
 * @param {import('fastify').FastifyInstance} app
 * @param {{ conductor: import('./conductor.js').Conductor, token: string, auth?: import('../http/auth.js').SignInLimiter,
 *   roster?: { waitReady: (ms: number) => Promise<void>, cancelWait: (why: string) => void } }} options
 *   roster: what `play {whenReady: true}` waits on, this server's or a cluster's (none: whenReady is refused)
 */
async function routes(app, { conductor, token, auth, roster }) {
  app.post('/api/control/:action', { onRequest: requireToken(token, auth) }, async (req) => {
    const { action } = /** @type {{ action: string }} */ (req.params);
    const run = Object.hasOwn(ACTIONS, action) ? ACTIONS[action] : undefined;
    if (!run) throw new ScorecastError('SC_ERR_UNKNOWN_ACTION', action.slice(0, 32));
    const a = args(req.body);
    // Play when ready waits (the request stays open) until every part is ready; any other
    // playback command meanwhile cancels the wait.
    const wait = action === 'play' ? readyWait(a) : null;
    if (action === 'play' || action === 'pause' || action === 'stop') roster?.cancelWait(`cancelled by ${action}`);
    if (wait !== null) {
      if (!roster) throw new ScorecastError('SC_ERR_BAD_CONTROL', 'play when ready is not available here');
      await roster.waitReady(wait);
      req.log.info({ action, whenReady: true }, 'every part ready');
    }
    run(conductor, a);
    req.log.info({ action, epoch: conductor.epoch, seq: conductor.seq }, 'control');
    return { epoch: conductor.epoch, seq: conductor.seq, state: conductor.state };
  });

  // The open window's tally, closed outcomes, and the score's windows (for the console to open).
  app.get('/api/votes', { onRequest: requireToken(token, auth) }, async () => ({
    ...conductor.votes(),
    windows: conductor.model.votes.map((v) => ({ id: v.id, tiles: v.tiles, open: v.open, close: v.close })),
    // The next page choice, whose tiles the console offers to force (POST /api/control/next).
    nextChoice: conductor.nextChoice(),
  }));

  // The score's presets, for the console to fire (POST /api/control/preset {id}).
  app.get('/api/presets', { onRequest: requireToken(token, auth) }, async () => ({
    presets: (conductor.model.presets ?? []).map((p) => ({ id: p.id, name: p.name, set: p.set })),
  }));
}

/** The routes as a Fastify plugin: `await app.register(controlRoutes, options)`. */
export const controlRoutes = fp(routes, { name: 'control-routes', fastify: '5.x' });

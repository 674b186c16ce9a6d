// The scores folder the conductor can choose from: every direct subfolder with a score.yaml.
// A score is named by its folder name, checked against the listing: no path from the request is
// ever resolved on its own (so "..", absolute or encoded paths name nothing).

import fp from 'fastify-plugin';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { ScorecastError } from '../../core/errors.js';
import { requireToken } from '../http/auth.js';
import { readManifest } from './manifest-file.js';

const NAME_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/**
 * @typedef {object} LibraryEntry
 * @property {string} name   folder name (what `POST /api/load` takes)
 * @property {string} dir
 * @property {string | null} id     the manifest's id, if it can be read
 * @property {string | null} title
 */

/**
 * @param {string} scoresDir
 * @returns {Promise<LibraryEntry[]>} sorted by name; folders whose manifest cannot be read are
 *   listed with null id and title (loading them reports why)
 */
export async function listScores(scoresDir) {
  let entries;
  try {
    entries = await readdir(scoresDir, { withFileTypes: true });
  } catch {
    return [];
  }
  const names = entries
    .filter((e) => e.isDirectory() && NAME_RE.test(e.name))
    .map((e) => e.name)
    .sort();
  /** @type {LibraryEntry[]} */
  const out = [];
  for (const name of names) {
    const dir = path.join(scoresDir, name);
    const hasManifest = await readdir(dir).then(
      (files) => files.includes('score.yaml'),
      () => false,
    );
    if (!hasManifest) continue;
    let raw = null;
    try {
      ({ raw } = await readManifest(dir));
    } catch {
      /* listed; loading it says what is wrong */
    }
    const m = raw && typeof raw === 'object' ? /** @type {Record<string, unknown>} */ (raw) : {};
    out.push({
      name,
      dir,
      id: typeof m.id === 'string' ? m.id : null,
      title: typeof m.title === 'string' ? m.title : null,
    });
  }
  return out;
}

/**
 * `GET /api/scores` and `POST /api/load {score: name}` (conductor token).
 * @param {import('fastify').FastifyInstance} app
 * @param {{ scoresDir: string, token: string, auth?: import('../http/auth.js').SignInLimiter,
 *   currentDir: () => string, switchTo: (dir: string) => Promise<unknown> }} options
 */
async function routes(app, { scoresDir, token, auth, currentDir, switchTo }) {
  const guard = { onRequest: requireToken(token, auth) };
  app.get('/api/scores', guard, async () => {
    const scores = await listScores(scoresDir);
    const current = path.resolve(currentDir());
    return {
      scores: scores.map(({ name, id, title, dir }) => ({ name, id, title, current: path.resolve(dir) === current })),
    };
  });
  app.post('/api/load', guard, async (req) => {
    const body = /** @type {Record<string, unknown> | null} */ (req.body ?? null);
    const name = body && typeof body === 'object' ? body.score : undefined;
    if (typeof name !== 'string')
      throw new ScorecastError('SC_ERR_BAD_CONTROL', 'load needs {score: "<folder name>"} from GET /api/scores');
    const entry = (await listScores(scoresDir)).find((e) => e.name === name);
    if (!entry) throw new ScorecastError('SC_ERR_NOT_FOUND', `no score "${name.slice(0, 64)}" in the scores folder`);
    return switchTo(entry.dir);
  });
}

/** The routes as a Fastify plugin: `await app.register(libraryRoutes, options)`. */
export const libraryRoutes = fp(routes, { name: 'library-routes', fastify: '5.x' });

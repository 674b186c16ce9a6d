// The HTTP face of an open-form piece's sections (sections.js, core/open-form.js):
//   GET  /api/section          the current offer and the order taken (public: every page also
//                              has it in the state's `section`)
//   POST /api/section/choose   {section, round, part?} the next section: the console's choice
//                              (no part; it overrides), or a part's (performers sign in with the
//                              conductor's token, as the console does: phones cannot choose)
//   POST /api/section/claim    {part, round} a part claims a first-come choice
// Refusals answer with the catalogue's code: SC_ERR_SECTION_REFUSED (409: not this chooser, not an
// option, an offer that has passed, a score without sections), SC_ERR_BAD_CONTROL (400: a body of
// the wrong shape or types), SC_ERR_UNAUTHORIZED (401).

import fp from 'fastify-plugin';
import { ScorecastError } from '../../core/errors.js';
import { requireToken } from '../http/auth.js';
import { END } from '../../core/open-form.js';

/**
 * @param {unknown} body
 * @returns {Record<string, unknown>}
 */
function args(body) {
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    throw new ScorecastError('SC_ERR_BAD_CONTROL', 'the body must be a JSON object');
  return /** @type {Record<string, unknown>} */ (body);
}

/** @param {unknown} round */
function checkRound(round) {
  if (!Number.isInteger(round) || /** @type {number} */ (round) < 0)
    throw new ScorecastError('SC_ERR_BAD_CONTROL', 'round must be the round of the offer (an integer >= 0)');
  return /** @type {number} */ (round);
}

/**
 * @param {import('fastify').FastifyInstance} app
 * @param {{
 *   conductor: import('./conductor.js').Conductor,
 *   token: string,
 *   auth?: import('../http/auth.js').SignInLimiter,
 * }} options
 */
async function routes(app, { conductor, token, auth }) {
  const performer = { onRequest: requireToken(token, auth), bodyLimit: 1024 };
  /** A part of the score playing now. @param {unknown} p */
  const part = (p) => {
    const parts = conductor.model.parts.map((x) => x.id);
    if (typeof p !== 'string' || !parts.includes(p))
      throw new ScorecastError('SC_ERR_BAD_CONTROL', `part must be one of ${parts.join(', ') || '(none)'}`);
    return p;
  };

  app.get('/api/section', async (_req, reply) => {
    reply.header('cache-control', 'no-store');
    return conductor.sectionOffer();
  });

  app.post('/api/section/choose', performer, async (req) => {
    const a = args(req.body);
    if (typeof a.section !== 'string')
      throw new ScorecastError('SC_ERR_BAD_CONTROL', 'choose needs {section: "<section id>" or "end", round}');
    const round = checkRound(a.round);
    const known = conductor.sectionOffer().sections.map((x) => x.id);
    if (a.section !== END && !known.includes(a.section))
      throw new ScorecastError(
        'SC_ERR_BAD_CONTROL',
        `"${a.section.slice(0, 64)}" is not a section of this score (${known.join(', ')}, or "end")`,
      );
    const who =
      a.part === undefined
        ? /** @type {const} */ ({ role: 'conductor' })
        : { role: /** @type {const} */ ('part'), part: part(a.part) };
    return conductor.chooseSection({ kind: 'choose', request: { who, section: a.section, round } });
  });

  app.post('/api/section/claim', performer, async (req) => {
    const a = args(req.body);
    return conductor.chooseSection({ kind: 'claim', request: { part: part(a.part), round: checkRound(a.round) } });
  });
}

/** The routes as a Fastify plugin: `await app.register(openFormRoutes, options)`. */
export const openFormRoutes = fp(routes, { name: 'open-form-routes', fastify: '5.x' });

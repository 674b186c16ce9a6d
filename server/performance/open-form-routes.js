// The HTTP face of an open-form piece's sections (sections.js, core/open-form.js):
//   GET  /api/section          the current offer and the order taken (public: every page also
//                              has it in the state's `section`)
//   POST /api/section/choose   {section, round, part?} the next section: the console's choice
//                              (no part; it overrides), or a part's
//   POST /api/section/claim    {part, round} a part claims a first-come choice
//   GET  /api/part-key/:part   the part's key and the link for its tablet (the conductor's token),
//                              with the whole address (`link`) and its QR code (`qr`, an SVG
//                              data: URL drawn here by qrcode: the console shows it, no CDN)
//   POST /api/thumb            {value: "up" | "down", device} a phone's thumb for the audience
//                              meter, from a page not on a WebSocket (thumb-guard.js; on a
//                              WebSocket it is the `thumb` message): {type: "thumbed", value}
// On a cluster, the choice and the claim are forwarded to the active conductor wherever they
// arrive (cluster/routes.js), as control requests are; GET /api/section on a node that does not
// conduct answers what the conductor would, from the performance's state on the bus.
// Who may choose: the conductor's token (`Authorization: Bearer <token>`: the console, or any
// part), or a part's key (`Authorization: Part <key>`, part-keys.js: that part only, the body's
// `part` must be it). A wrong key counts against the address's sign-in budget like a wrong token.
// Refusals answer with the catalogue's code: SC_ERR_SECTION_REFUSED (409: not this chooser, not an
// option, an offer that has passed, a score without sections), SC_ERR_BAD_CONTROL (400: a body of
// the wrong shape or types), SC_ERR_UNAUTHORIZED (401: no token, or a key that is not this part's).

import fp from 'fastify-plugin';
import QRCode from 'qrcode';
import { ERRORS, ScorecastError, errorValue } from '../../core/errors.js';
import { requireToken, tokenMatches } from '../http/auth.js';
import { createPartKeys } from './part-keys.js';
import { END } from '../../core/open-form.js';
import { decodeClientMessage } from '../../core/protocol.js';

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
 *   thumbs?: import('./thumb-guard.js').ThumbGuard | null,
 *   elsewhere?: (form: import('../../core/open-form.js').OpenForm, req: import('fastify').FastifyRequest) => Promise<object> | object | undefined,
 * }} options  thumbs: null where thumbs are not taken (a cluster's node); elsewhere: GET
 *   /api/section's answer on a cluster node that does not conduct (undefined while it does)
 */
async function routes(app, { conductor, token, auth, thumbs, elsewhere }) {
  const keys = createPartKeys({ token });
  /**
   * The part a request may act for: any (the conductor's token), or its key's part only.
   * @param {import('fastify').FastifyRequest} req
   * @param {unknown} p  the body's part
   */
  const mayActFor = (req, p) => {
    const header = req.headers.authorization ?? '';
    if (!header.startsWith('Part ')) return;
    if (typeof p === 'string' && keys.verify(p, header.slice(5).trim())) return;
    auth?.failed(req.ip);
    throw new ScorecastError(
      'SC_ERR_UNAUTHORIZED',
      typeof p === 'string'
        ? `that is not the key of the part ${p.slice(0, 64)}`
        : 'a part key chooses for its part: send part',
    );
  };
  const performer = {
    onRequest: performerAuth(token, auth),
    // The key is checked against the body's part before any preHandler: a cluster node that is
    // not conducting forwards the request from there (cluster/routes.js) with the token alone,
    // so the part a key may act for must be settled where the request arrived.
    preValidation: async (/** @type {import('fastify').FastifyRequest} */ req) => mayActFor(req, args(req.body).part),
    bodyLimit: 1024,
  };
  /** A part of the score playing now. @param {unknown} p */
  const part = (p) => {
    const parts = conductor.model.parts.map((x) => x.id);
    if (typeof p !== 'string' || !parts.includes(p))
      throw new ScorecastError('SC_ERR_BAD_CONTROL', `part must be one of ${parts.join(', ') || '(none)'}`);
    return p;
  };

  app.get('/api/part-key/:part', { onRequest: requireToken(token, auth) }, async (req, reply) => {
    const p = part(/** @type {{ part: string }} */ (req.params).part);
    reply.header('cache-control', 'no-store');
    const url = `/view/${encodeURIComponent(p)}#key=${keys.key(p)}`;
    // The address the console reached this server by (behind a trusted proxy, the one it was
    // given): open the console by the venue's address and the tablets can follow the link.
    const link = `${req.protocol}://${req.host}${url}`;
    const svg = await QRCode.toString(link, { type: 'svg', margin: 2, errorCorrectionLevel: 'M' });
    return {
      part: p,
      key: keys.key(p),
      url,
      link,
      qr: `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`,
    };
  });

  app.post('/api/thumb', { bodyLimit: 1024 }, async (req, reply) => {
    const decoded = decodeClientMessage(JSON.stringify({ .../** @type {object} */ (req.body ?? {}), type: 'thumb' }));
    if (!decoded.ok) return reply.code(400).send(decoded.error);
    if (decoded.value.type !== 'thumb') return reply.code(400).send(errorValue('SC_ERR_BAD_MESSAGE'));
    const refused = thumbs
      ? thumbs.cast(decoded.value, { address: req.ip })
      : errorValue('SC_ERR_THUMBS_CLOSED', 'this server takes no thumbs');
    if (refused) return reply.code(ERRORS[refused.code]?.status ?? 400).send(refused);
    return { type: 'thumbed', value: decoded.value.value };
  });

  app.get('/api/section', async (req, reply) => {
    reply.header('cache-control', 'no-store');
    // On a cluster node that does not conduct, this node's sections are an idle copy: the answer
    // is the conductor's, made from the performance's state (cluster/section-offer.js).
    const form = conductor.model.openForm;
    const there = form && elsewhere?.(form, req);
    return there ?? conductor.sectionOffer();
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

/**
 * An onRequest hook: the conductor's token, or a part's key (checked against the body's part once
 * it is read). A request with neither is refused before its body is read.
 * @param {string} token
 * @param {import('../http/auth.js').SignInLimiter} [limiter]
 */
function performerAuth(token, limiter) {
  const conductorOnly = requireToken(token, limiter);
  return async (/** @type {import('fastify').FastifyRequest} */ req) => {
    const header = req.headers.authorization;
    if (header?.startsWith('Part ')) {
      if (limiter && !limiter.allowed(req.ip))
        throw new ScorecastError('SC_ERR_RATE_LIMITED', 'too many wrong keys from this address; wait a minute');
      return;
    }
    if (header?.startsWith('Bearer ') && tokenMatches(header.slice(7).trim(), token)) return;
    return conductorOnly(req);
  };
}

/** The routes as a Fastify plugin: `await app.register(openFormRoutes, options)`. */
export const openFormRoutes = fp(routes, { name: 'open-form-routes', fastify: '5.x' });

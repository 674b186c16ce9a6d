// A small answer held in memory with its compressed copies, revalidated on every use: the pages'
// shell (index.html and the others, sw.js) and a view's notation (its pages and beat map, 10-20
// KB of JSON a part). Their URLs are not content-hashed (a rebuild or a reload changes what they
// say), so they go out `no-cache` under a strong ETag per encoding: a phone that comes back asks
// again and gets 304. Compressed once when held, not per request: a room of phones joining at
// once asks for the same few answers.

import { createHash } from 'node:crypto';
import { compress } from './served-prepare.js';
import { noneMatch, pickEncoding } from './send-served.js';

/**
 * @typedef {object} HeldAnswer
 * @property {Buffer} body
 * @property {string} etag  unquoted, of the identity
 * @property {string} type  content type
 * @property {{ br?: Buffer, gzip?: Buffer }} variants  compressed copies that save a tenth or more
 */

/**
 * @param {Buffer} body
 * @param {string} type
 * @returns {Promise<HeldAnswer>}
 */
export async function holdAnswer(body, type) {
  return {
    body,
    type,
    etag: createHash('sha256').update(body).digest('hex').slice(0, 16),
    variants: await compress(body),
  };
}

/**
 * Send a held answer, compressed as Accept-Encoding allows, 304 for a copy the client has.
 * @param {import('fastify').FastifyRequest} req
 * @param {import('fastify').FastifyReply} reply
 * @param {HeldAnswer} held
 */
export function sendHeld(req, reply, held) {
  const enc = pickEncoding(req.headers['accept-encoding']);
  const copy = enc ? held.variants[enc] : undefined;
  const etag = copy ? `"${held.etag}-${enc}"` : `"${held.etag}"`;
  reply.header('cache-control', 'no-cache').header('etag', etag).type(held.type);
  if (held.variants.br || held.variants.gzip) reply.header('vary', 'accept-encoding');
  const inm = req.headers['if-none-match'];
  if (inm !== undefined && noneMatch(inm, etag)) return reply.code(304).send();
  if (copy) reply.header('content-encoding', /** @type {string} */ (enc));
  return reply.send(copy ?? held.body);
}

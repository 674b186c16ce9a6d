// Answers a request for one package file (load.js lists them, served-prepare.js readies
// them) the way a good static server does (RFC 9110): Content-Length, a strong ETag per encoding
// with If-None-Match (304), Last-Modified with If-Modified-Since, one byte range (206, or 416 with
// `Content-Range: bytes */size`), precompressed copies chosen by Accept-Encoding, HEAD without a
// body. @fastify/static and @fastify/send do most of this, but open files by path: a package file
// must be opened through server/lib/contained-files.js (no links, no second names), and a small package is
// served from memory, which they cannot do.
//
// Several ranges in one request (multipart/byteranges) are answered 200 with the whole file, as
// RFC 9110 allows: no browser media element asks for them. A range is always of the identity
// encoding (Safari's and Chromium's media elements send `Accept-Encoding: identity` with it).

import parseRange from 'range-parser';
import { ScorecastError } from '../../core/errors.js';
import { openServed } from '../lib/contained-files.js';
import { holdServed } from './served-prepare.js';

/**
 * Which precompressed variant to send for an Accept-Encoding header.
 * @param {string | undefined} accept
 * @returns {'br' | 'gzip' | null}
 */
export function pickEncoding(accept) {
  if (!accept) return null;
  /** @type {Map<string, number>} */
  const q = new Map();
  for (const part of accept.split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    const qp = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    q.set(name, qp ? Number(qp.slice(2)) : 1);
  }
  const star = q.get('*') ?? 0;
  const br = q.get('br') ?? star;
  const gzip = q.get('gzip') ?? star;
  if (br > 0 && br >= gzip) return 'br';
  if (gzip > 0) return 'gzip';
  return null;
}

/** A byte-ranges header as RFC 9110 section 14.1.2 writes it; any other is ignored (200). */
const RANGE = /^bytes=\s*(\d+-\d*|-\d+)(\s*,\s*(\d+-\d*|-\d+))*\s*$/;

/**
 * Whether an If-None-Match header names `etag` (weak comparison, RFC 9110 section 13.1.2).
 * @param {string} header
 * @param {string} etag  quoted
 */
export function noneMatch(header, etag) {
  if (header.trim() === '*') return true;
  return header.split(',').some((t) => t.trim().replace(/^W\//, '') === etag);
}

/**
 * Whether If-Range lets the range apply: the strong ETag of the identity, or the exact date.
 * @param {string | undefined} header
 * @param {string} etag
 * @param {string | undefined} lastModified
 */
function rangeStillValid(header, etag, lastModified) {
  if (header === undefined) return true;
  const h = header.trim();
  return h.startsWith('"') ? h === etag : h === lastModified;
}

/**
 * Send `served` for `req`.
 * @param {import('fastify').FastifyRequest} req
 * @param {import('fastify').FastifyReply} reply
 * @param {import('./served-prepare.js').ServedFile} served
 */
export async function sendServed(req, reply, served) {
  const { headers } = req;
  const lastModified = served.mtimeMs === undefined ? undefined : new Date(served.mtimeMs).toUTCString();
  const rangeHeader = req.method === 'GET' ? headers.range : undefined;
  const hasVariants = Boolean(
    served.variants?.br || served.variants?.gzip || (!served.body && (served.br || served.gz)),
  );
  // A range is a range of the identity: compressed copies are for whole answers.
  const enc = rangeHeader === undefined && hasVariants ? pickEncoding(headers['accept-encoding']) : null;

  reply.header('cache-control', 'public, max-age=31536000, immutable');
  reply.header('accept-ranges', 'bytes');
  if (hasVariants) reply.header('vary', 'accept-encoding');
  if (lastModified) reply.header('last-modified', lastModified);
  reply.type(served.type);

  /** @type {{ body: Buffer } | { file: string } | null} */
  let source = null;
  /** @type {'br' | 'gzip' | null} */
  let sent = null;
  if (enc && served.body) {
    const v = served.variants?.[enc];
    if (v) {
      source = { body: v };
      sent = enc;
    }
  } else if (enc) {
    const v = enc === 'br' ? served.br : served.gz;
    if (v) {
      source = { file: v };
      sent = enc;
    }
  }
  const identityTag = `"${served.etag}"`;
  const etag = sent ? `"${served.etag}-${sent}"` : identityTag;
  reply.header('etag', etag);
  const inm = headers['if-none-match'];
  if (
    inm !== undefined
      ? noneMatch(inm, etag)
      : lastModified !== undefined &&
        headers['if-modified-since'] !== undefined &&
        Date.parse(headers['if-modified-since']) >= Math.floor(/** @type {number} */ (served.mtimeMs) / 1000) * 1000
  ) {
    return reply.code(304).send();
  }

  // A file held in memory from its first request (served-prepare.js): read now, checked to be
  // the file the load listed; one changed or gone since is not served under its URL.
  if (served.lazy && !served.body && !(await holdServed(served))) {
    req.log.warn(
      { file: served.file },
      'a score file changed, went, or became a link since the load; not served (load the score again)',
    );
    throw new ScorecastError('SC_ERR_NOT_FOUND');
  }
  source ??= served.body ? { body: served.body } : { file: served.file };

  // From disk: opened with the load's checks, its size as the check found it.
  /** @type {import('node:fs/promises').FileHandle | null} */
  let handle = null;
  let size;
  if ('body' in source) {
    size = source.body.length;
  } else {
    let opened = await openServed(served.root, source.file);
    if (!opened && sent) {
      // The engraver's compressed copy is gone: the identity still is an answer.
      opened = await openServed(served.root, served.file);
      sent = null;
      reply.header('etag', identityTag);
    }
    if (!opened) {
      req.log.warn({ file: source.file }, 'a score file became a link or left its folder since the load; not served');
      throw new ScorecastError('SC_ERR_NOT_FOUND');
    }
    handle = opened.handle;
    size = opened.size;
  }
  if (sent) reply.header('content-encoding', sent);

  let start = 0;
  let end = size - 1;
  if (
    rangeHeader !== undefined &&
    RANGE.test(rangeHeader) &&
    rangeStillValid(/** @type {string | undefined} */ (headers['if-range']), identityTag, lastModified)
  ) {
    const ranges = parseRange(size, rangeHeader, { combine: true });
    if (ranges === -1) {
      await handle?.close();
      return reply.code(416).header('content-range', `bytes */${size}`).send();
    }
    // Several ranges: the whole file (see the top of the file).
    if (ranges !== -2 && ranges.length === 1) {
      ({ start, end } = ranges[0]);
      reply.code(206).header('content-range', `bytes ${start}-${end}/${size}`);
    }
  }
  reply.header('content-length', end - start + 1);
  if (req.method === 'HEAD') {
    await handle?.close();
    return reply.send();
  }
  if ('body' in source)
    return reply.send(start === 0 && end === size - 1 ? source.body : source.body.subarray(start, end + 1));
  const h = /** @type {import('node:fs/promises').FileHandle} */ (handle);
  // An empty file: createReadStream's `end` cannot say "nothing".
  if (size === 0) {
    await h.close();
    return reply.send(Buffer.alloc(0));
  }
  return reply.send(h.createReadStream({ start, end }));
}

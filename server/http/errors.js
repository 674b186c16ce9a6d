// HTTP answers that Fastify or Node would otherwise word themselves: a malformed URL, an
// over-long path segment, a request too slow or with too many header bytes, a known path asked
// with the wrong method. Each answers a catalogue code (core/errors.js, doc/errors.md).

import { ERRORS, errorValue } from '../../core/errors.js';

/** Methods a route may answer; the ones a path answers make its `Allow` header. */
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'];

/**
 * Fastify's `frameworkErrors`: errors raised before a route is found.
 * @param {Error & { code?: string }} err
 * @param {import('fastify').FastifyRequest} req
 * @param {import('fastify').FastifyReply} reply
 */
export function frameworkErrors(err, req, reply) {
  /** @type {keyof typeof ERRORS} */
  let code = 'SC_ERR_INTERNAL';
  /** @type {string | undefined} */
  let detail;
  if (err.code === 'FST_ERR_BAD_URL') {
    code = 'SC_ERR_BAD_REQUEST';
    detail = 'the URL is not valid percent-encoding';
  } else if (err.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    code = 'SC_ERR_URL_TOO_LONG';
  } else {
    req.log.error({ err }, 'request failed before routing');
  }
  return reply.code(ERRORS[code].status).send(errorValue(code, detail));
}

/**
 * The HTTP server's `clientError`: a request that cannot be read (Node closes the connection).
 * @this {{ log: { trace: (obj: object, msg: string) => void } }}
 * @param {Error & { code?: string }} err
 * @param {import('node:stream').Duplex} socket
 */
export function clientErrorHandler(err, socket) {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  /** @type {keyof typeof ERRORS} */
  const code =
    err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? 'SC_ERR_TIMEOUT'
      : err.code === 'HPE_HEADER_OVERFLOW'
        ? 'SC_ERR_HEADERS_TOO_BIG'
        : 'SC_ERR_BAD_REQUEST';
  this.log.trace({ err }, 'client error');
  const { status, message } = ERRORS[code];
  const body = JSON.stringify({ code, message, problems: [] });
  const reason = { 408: 'Request Timeout', 431: 'Request Header Fields Too Large' }[status] ?? 'Bad Request';
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}

/**
 * For the not-found handler: when the path is served with other methods, answer
 * `405 SC_ERR_METHOD_NOT_ALLOWED` with `Allow` listing them (RFC 9110, 15.5.6) and return the
 * reply; otherwise return undefined (a real 404).
 * @param {import('fastify').FastifyInstance} app
 * @param {import('fastify').FastifyRequest} req
 * @param {import('fastify').FastifyReply} reply
 */
export function methodNotAllowed(app, req, reply) {
  const url = req.url.split('?')[0];
  const allowed = METHODS.filter((method) => method !== req.method && app.findRoute({ method, url }) !== null);
  if (allowed.length === 0) return undefined;
  return reply.code(405).header('allow', allowed.join(', ')).send(errorValue('SC_ERR_METHOD_NOT_ALLOWED'));
}

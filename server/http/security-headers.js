// Security headers on every response. The pages (audience, views, preview, console) get a
// Content-Security-Policy that lets them run only the built scripts from /assets/ and talk only
// to this server, so a script that slipped into a score package (through an SVG page the
// sanitizer missed, say) neither runs nor reaches anything outside: the preview keeps the
// conductor token in sessionStorage, which same-origin views framed beside it could read.
// Score files get a policy of their own, so that an SVG opened directly as a document has no
// script either.

/**
 * The host of a request, when it is a plain host name or address with an optional port (it
 * goes into a header, and names where this page's WebSocket may connect).
 * @param {string | undefined} host
 */
function plainHost(host) {
  return host && /^(?:[A-Za-z0-9.-]{1,253}|\[[0-9A-Fa-f:.]{2,45}\])(?::\d{1,5})?$/.test(host) ? host : null;
}

/**
 * The policy of the HTML pages.
 * - script-src 'self': no inline script, no event-handler attributes, no javascript: URLs
 *   (the built pages have none: check dist/client/*.html after a Vite upgrade).
 * - style-src 'unsafe-inline': engraved pages carry a <style> element (Verovio's) and are
 *   inlined; CSS that could fetch is held to 'self' by img-src and font-src.
 * - img-src and font-src data: for the favicon (`data:,`), raster images inside SVG pages and
 *   the text font Verovio embeds in engraved pages; data: URLs fetch nothing.
 * - connect-src: the live transports (WebSocket, SSE, polling) and the API, to this host only.
 *   'self' covers ws: and wss: to the same host in CSP Level 3; the explicit sources are for
 *   browsers that predate it.
 * - frame-src and frame-ancestors 'self': the preview frames the views, nothing else does.
 * @param {string | null} host
 */
export function pagePolicy(host) {
  const live = host ? ` ws://${host} wss://${host}` : '';
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "media-src 'self'",
    "font-src 'self' data:",
    `connect-src 'self'${live}`,
    "worker-src 'self'",
    "manifest-src 'self'",
    "frame-src 'self'",
    "frame-ancestors 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
  ].join('; ');
}

/**
 * Score files (pages, audio, assets) opened as documents: nothing runs, nothing is fetched but
 * images of the same server, and the document is sandboxed into an origin of its own.
 */
export const SCORE_FILE_POLICY = "default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'; sandbox";

/**
 * @param {import('fastify').FastifyInstance} app
 */
export function securityHeaders(app) {
  app.addHook('onSend', async (req, reply, payload) => {
    // A score file typed image/svg+xml or text/plain is never read as a script or a page.
    reply.header('x-content-type-options', 'nosniff');
    reply.header('referrer-policy', 'same-origin');
    const type = String(reply.getHeader('content-type') ?? '');
    if (type.startsWith('text/html')) {
      reply.header('content-security-policy', pagePolicy(plainHost(req.headers.host)));
    } else if (req.url.startsWith('/scores/')) {
      reply.header('content-security-policy', SCORE_FILE_POLICY);
    }
    return payload;
  });
}

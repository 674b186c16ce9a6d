// Answers to the phones' connectivity checks. With the venue router's NAT (infra/lab,
// infra/routeros) every HTTP request from the guest network lands here, the checks included:
// Android asks for /generate_204, Apple for /hotspot-detect.html, Windows for /connecttest.txt.
//
// The first check from an address gets a redirect to the audience page, so the phone offers it
// ("Sign in to network", Apple's sheet, Windows' browser). Once that address has loaded the
// audience page (or a view), its checks get the answer the OS expects from the internet, so the
// phone calls the network working and keeps it: no "no internet" switch to mobile data, no sheet
// whose Cancel leaves the network. The redirect is relative: the check came through the NAT under
// the check's own host name, and the audience page comes back the same way.

import fp from 'fastify-plugin';

/** Each check: the path, and the exact answer its OS expects when the internet is reachable. */
export const CHECKS = Object.freeze([
  // Android (and ChromeOS): connectivitycheck.gstatic.com, clients3.google.com, www.google.com/gen_204.
  { os: 'android', path: '/generate_204', status: 204, type: null, body: '' },
  { os: 'android', path: '/gen_204', status: 204, type: null, body: '' },
  // iOS and macOS: captive.apple.com, www.apple.com.
  {
    os: 'apple',
    path: '/hotspot-detect.html',
    status: 200,
    type: 'text/html',
    body: '<HTML><HEAD><TITLE>Success</TITLE></HEAD><BODY>Success</BODY></HTML>',
  },
  {
    os: 'apple',
    path: '/library/test/success.html',
    status: 200,
    type: 'text/html',
    body: '<HTML><HEAD><TITLE>Success</TITLE></HEAD><BODY>Success</BODY></HTML>',
  },
  // Windows 10/11 (www.msftconnecttest.com) and older (www.msftncsi.com).
  { os: 'windows', path: '/connecttest.txt', status: 200, type: 'text/plain', body: 'Microsoft Connect Test' },
  { os: 'windows', path: '/ncsi.txt', status: 200, type: 'text/plain', body: 'Microsoft NCSI' },
  // Firefox (detectportal.firefox.com).
  { os: 'firefox', path: '/success.txt', status: 200, type: 'text/plain', body: 'success\n' },
]);

/** Addresses remembered as having opened the audience page; the oldest are forgotten past this. */
export const MAX_ACCEPTED = 10_000;
/** How long an address stays accepted (ms): a long concert with its interval. */
export const ACCEPTED_MS = 6 * 3600_000;

/**
 * @typedef {object} AcceptedAddresses
 * @property {(ip: string) => boolean} has  this address has loaded the audience page lately
 * @property {(ip: string) => void} add
 */

/**
 * The addresses that have opened the audience page, shared by every listener that answers the
 * checks: with HTTPS, the check arrives over plain HTTP (`--http-port`) and the page is loaded over
 * HTTPS, on another listener.
 * @param {{ now: () => number }} o wall clock (ms)
 * @returns {AcceptedAddresses}
 */
export function createAcceptedAddresses({ now }) {
  /** @type {Map<string, number>} address -> accepted at */
  const accepted = new Map();
  return {
    has(ip) {
      const at = accepted.get(ip);
      if (at === undefined) return false;
      if (now() - at > ACCEPTED_MS) {
        accepted.delete(ip);
        return false;
      }
      return true;
    },
    add(ip) {
      accepted.delete(ip);
      if (accepted.size >= MAX_ACCEPTED) accepted.delete(/** @type {string} */ (accepted.keys().next().value));
      accepted.set(ip, now());
    },
  };
}

/**
 * Answer the checks on `app` and remember who loads the audience page from it.
 * @param {import('fastify').FastifyInstance} app
 * @param {{ accepted: AcceptedAddresses }} o
 */
async function routes(app, { accepted }) {
  const isAccepted = (/** @type {string} */ ip) => accepted.has(ip);

  for (const check of CHECKS) {
    app.get(check.path, (req, reply) => {
      reply.header('cache-control', 'no-store');
      if (!isAccepted(req.ip)) return reply.redirect('/', 302);
      reply.code(check.status);
      if (check.type) reply.type(check.type);
      return reply.send(check.body);
    });
  }
  // Windows opens this after it found a portal; Apple's sheet and Android's sign-in page follow
  // the redirect above instead.
  app.get('/redirect', (_req, reply) => reply.header('cache-control', 'no-store').redirect('/', 302));

  app.addHook('onResponse', async (req, reply) => {
    if (req.method !== 'GET' || reply.statusCode !== 200) return;
    const p = req.url.split('?')[0];
    if (p !== '/' && !p.startsWith('/view/')) return;
    accepted.add(req.ip);
  });
}

/** The routes as a Fastify plugin: `await app.register(captivePortalRoutes, options)`. */
export const captivePortalRoutes = fp(routes, { name: 'captive-portal-routes', fastify: '5.x' });

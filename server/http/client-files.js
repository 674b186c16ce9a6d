// The built client (dist/client, from client/vite.config.js): index.html for every page, the
// hashed files under /assets/ (immutable, sent precompressed), and the service worker at /sw.js;
// the pages and the worker compressed once at start (send-held.js).
// What the server started with is what it serves: a rebuild needs a restart.

import fp from 'fastify-plugin';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { ScorecastError } from '../../core/errors.js';
import { prepareServed } from './served-prepare.js';
import { holdAnswer, sendHeld } from './send-held.js';
import { sendServed } from './send-served.js';

/** Content types of what Vite writes to assets/. */
const TYPES = /** @type {Record<string, string>} */ ({
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.json': 'application/json',
  '.wasm': 'application/wasm',
  // The keep-awake video (client/src/page/awake.js).
  '.mp4': 'video/mp4',
  '.webm': 'video/webm',
});

const NOT_BUILT = 'The client is not built: run npm run build (npm start does it).';

const HTML = 'text/html; charset=utf-8';
const JS_TYPE = 'text/javascript; charset=utf-8';

/** @param {string} file  a build file's bytes, or null when the build has none */
const readBuilt = (file) => (existsSync(file) ? readFileSync(file) : null);

/**
 * A build file's bytes held with their compressed copies (send-held.js), or null when there are none.
 * @param {Buffer | null} body
 * @param {string} type
 */
const hold = (body, type) => (body ? holdAnswer(body, type) : null);

/**
 * index.html with `data-notation="true"` on its body (client/src/page/style.css lays such a page out
 * for notation), and `data-view` for a view whose first paint differs (the full score's).
 * @param {Buffer} body
 * @param {string} [view]
 */
const withNotationMark = (body, view) => {
  const text = body.toString('utf8');
  const mark = `<body data-notation="true"${view ? ` data-view="${view}"` : ''}>`;
  return /<body>/.test(text) ? Buffer.from(text.replace('<body>', mark)) : body;
};

/**
 * @param {import('fastify').FastifyInstance} app
 * @param {object} options
 * @param {string} options.clientDir  the build output (dist/client)
 * @param {(view: string) => boolean} options.hasView  whether the current score has this view
 */
async function routes(app, { clientDir, hasView }) {
  const indexHtml = readBuilt(path.join(clientDir, 'index.html'));
  const index = await hold(indexHtml, HTML);
  // The same page for a part or the score, marked as a notation view in its markup, so that its
  // first paint already has the compact strip above the notation: set later by the page's
  // script, the strip shrank under the reader's eyes (Lighthouse: layout shift 0.11-0.13).
  const notationIndex = await hold(indexHtml && withNotationMark(indexHtml), HTML);
  // The full score's page keeps the room its pages will take from the first paint (style.css):
  // the footer below the fold, not pushed down under the reader's eyes when the pages come
  // (Lighthouse: layout shift 0.02-0.07 on a phone).
  const scoreIndex = await hold(indexHtml && withNotationMark(indexHtml, 'score'), HTML);
  const conduct = await hold(readBuilt(path.join(clientDir, 'conduct.html')), HTML);
  const preview = await hold(readBuilt(path.join(clientDir, 'preview.html')), HTML);
  const worker = await hold(readBuilt(path.join(clientDir, 'sw.js')), JS_TYPE);
  const assetsDir = path.join(clientDir, 'assets');

  // The hashed build files, held in memory (the build is a few hundred KB) and sent like score
  // files (send-served.js): one route per file found at start, so any other path under
  // /assets/ ("..", encoded or not, the .br and .gz copies) matches no route and gets the
  // ordinary 404. The build's .br and .gz copies are sent for the plain name when
  // Accept-Encoding allows. @fastify/static served them from disk, with an open, a stat and a
  // close per request: most of our CPU in a page load at 1,500 phones (bench/pageload.js).
  if (existsSync(assetsDir)) {
    const root = realpathSync(assetsDir);
    /** @type {Map<string, import('./served-prepare.js').ServedFile>} */
    const files = new Map();
    for (const name of /** @type {string[]} */ (readdirSync(root, { recursive: true }))) {
      const file = path.join(root, name);
      if (/\.(br|gz)$/.test(name) || !statSync(file).isFile()) continue;
      const copy = (/** @type {string} */ ext) => (existsSync(`${file}.${ext}`) ? `${file}.${ext}` : undefined);
      const br = copy('br');
      const gz = copy('gz');
      files.set(`/assets/${name.split(path.sep).join('/')}`, {
        file,
        root,
        type: TYPES[path.extname(name).toLowerCase()] ?? 'application/octet-stream',
        etag: createHash('sha256').update(readFileSync(file)).digest('hex').slice(0, 16),
        ...(br ? { br } : {}),
        ...(gz ? { gz } : {}),
      });
    }
    await prepareServed(files, { memoryBytes: Infinity });
    for (const [url, served] of files) {
      app.route({ method: ['GET', 'HEAD'], url, handler: (req, reply) => sendServed(req, reply, served) });
    }
  }

  // no-cache (send-held.js): index.html names this build's hashed files, and a stale sw.js would
  // keep phones on an old build; revalidating is cheap thanks to the ETag.
  /**
   * @param {import('fastify').FastifyRequest} req
   * @param {import('fastify').FastifyReply} reply
   */
  const sendIndex = (req, reply, file = index) => {
    if (!file) return reply.code(503).type('text/plain').send(NOT_BUILT);
    return sendHeld(req, reply, file);
  };

  app.get('/', sendIndex);
  app.get('/view/:view', (req, reply) => {
    const { view } = /** @type {{ view: string }} */ (req.params);
    if (!hasView(view)) throw new ScorecastError('SC_ERR_NOT_FOUND', `no view "${view.slice(0, 64)}" in this score`);
    return sendIndex(req, reply, view === 'audience' ? index : view === 'score' ? scoreIndex : notationIndex);
  });
  // The conductor's console and the composer's preview: pages of their own (their bundles stay
  // out of the audience page). Without the token they show only a sign-in form.
  for (const [url, file] of /** @type {const} */ ([
    ['/conduct', conduct],
    ['/preview', preview],
  ])) {
    app.get(url, (req, reply) => {
      if (!file) return reply.code(503).type('text/plain').send(NOT_BUILT);
      return sendHeld(req, reply, file);
    });
  }
  // Scope `/` comes from serving the worker at the root; client/src/page/sw-register.js registers it.
  app.get('/sw.js', (req, reply) => {
    if (!worker) throw new ScorecastError('SC_ERR_NOT_FOUND', 'no service worker in this build');
    return sendHeld(req, reply, worker);
  });
}

/** The routes as a Fastify plugin: `await app.register(clientFileRoutes, options)`. */
export const clientFileRoutes = fp(routes, { name: 'client-file-routes', fastify: '5.x' });

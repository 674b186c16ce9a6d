// Build of the browser client: `vite build --config client/vite.config.js` writes dist/client,
// which the server serves as static files (index.html for `/` and `/view/:view`, conduct.html
// for `/conduct`, preview.html for `/preview`, the hashed files under /assets/, the service
// worker at /sw.js).

import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { brotliCompress, constants as zlibConstants, gzip } from 'node:zlib';
import { defineConfig } from 'vite';

const clientDir = fileURLToPath(new URL('.', import.meta.url));
const repoRoot = fileURLToPath(new URL('..', import.meta.url));
const outDir = fileURLToPath(new URL('../dist/client', import.meta.url));

/** The dev server forwards the live endpoints and the API to a locally running scorecast server. */
const backend = { target: 'http://localhost:8080', ws: true, changeOrigin: false };

/** Entry name of the service worker; it is written unhashed to /sw.js (its URL must not change). */
const SW_ENTRY = 'sw';

/**
 * @param {{ fileName: string }} file
 * @returns {boolean} whether a bundle file belongs in the worker's precache
 */
const isShellFile = ({ fileName }) =>
  fileName === 'index.html' || (fileName.startsWith('assets/') && !/^assets\/(?:conduct|preview)-/.test(fileName));

/**
 * Prepend the precache list of this build to the service worker:
 * `self.__SCORECAST_BUILD__ = { version, files }`. `version` is a hash of every precached file,
 * so a build that changes anything the phone holds gets a new cache name. The list is prepended
 * rather than substituted for a placeholder so the minifier cannot fold or rename it.
 * @returns {import('vite').Plugin}
 */
function precacheManifest() {
  return {
    name: 'scorecast:precache-manifest',
    apply: 'build',
    // After vite:build-html has added index.html to the bundle.
    enforce: 'post',
    generateBundle(_options, bundle) {
      const worker = Object.values(bundle).find((f) => f.type === 'chunk' && f.isEntry && f.name === SW_ENTRY);
      if (worker?.type !== 'chunk') throw new Error('scorecast: the service worker entry is missing from the bundle');
      // Registered as a classic script (module workers are too new in Firefox and older Safari).
      if (worker.imports.length > 0 || worker.exports.length > 0) {
        throw new Error(
          'scorecast: client/src/page/sw.js must be self-contained: it may not import or export anything',
        );
      }
      const shell = Object.values(bundle)
        .filter(isShellFile)
        .sort((a, b) => a.fileName.localeCompare(b.fileName));
      if (!shell.some((f) => f.fileName === 'index.html'))
        throw new Error('scorecast: index.html is missing from the bundle');
      const hash = createHash('sha256');
      for (const f of shell)
        hash
          .update(f.fileName)
          .update('\0')
          .update(f.type === 'chunk' ? f.code : f.source)
          .update('\0');
      // The shell is cached under `/` (the server sends index.html there and at every view).
      const files = shell.map((f) => (f.fileName === 'index.html' ? '/' : `/${f.fileName}`));
      const build = { version: hash.digest('hex').slice(0, 12), files };
      worker.code = `self.__SCORECAST_BUILD__=${JSON.stringify(build)};\n${worker.code}`;
    },
  };
}

const gzipAsync = promisify(gzip);
const brotliAsync = promisify(brotliCompress);
const COMPRESSIBLE = /\.(?:js|css|svg|json|html|txt)$/;
// Below about a kilobyte a compressed copy saves less than the headers it costs.
const MIN_COMPRESS_BYTES = 1024;

/**
 * Write `.gz` and `.br` copies beside the hashed text assets, once, at build time, so the server
 * sends them (server/http/client-files.js, from memory) instead of compressing per request (no CPU
 * spent per phone when a hall of them joins at once). A copy that is not smaller is not written.
 * @returns {import('vite').Plugin}
 */
function precompress() {
  return {
    name: 'scorecast:precompress',
    apply: 'build',
    enforce: 'post',
    async writeBundle(options, bundle) {
      const dir = options.dir ?? outDir;
      const jobs = Object.values(bundle)
        .filter((f) => f.fileName.startsWith('assets/') && COMPRESSIBLE.test(f.fileName))
        .map(async (f) => {
          const data = Buffer.from(f.type === 'chunk' ? f.code : f.source);
          if (data.length < MIN_COMPRESS_BYTES) return;
          const [gz, br] = await Promise.all([
            gzipAsync(data, { level: 9 }),
            brotliAsync(data, {
              params: {
                [zlibConstants.BROTLI_PARAM_QUALITY]: zlibConstants.BROTLI_MAX_QUALITY,
                [zlibConstants.BROTLI_PARAM_MODE]: zlibConstants.BROTLI_MODE_TEXT,
                [zlibConstants.BROTLI_PARAM_SIZE_HINT]: data.length,
              },
            }),
          ]);
          const file = path.join(dir, f.fileName);
          if (gz.length < data.length) await writeFile(`${file}.gz`, gz);
          if (br.length < data.length) await writeFile(`${file}.br`, br);
        });
      await Promise.all(jobs);
    },
  };
}

export default defineConfig({
  root: clientDir,
  // Absolute asset URLs: the same index.html is served at /view/X, where relative ones would break.
  base: '/',
  publicDir: false,
  plugins: [precacheManifest(), precompress()],
  build: {
    outDir,
    emptyOutDir: true,
    // One chunk and no dynamic imports: there is nothing for the modulepreload polyfill to do.
    modulePreload: { polyfill: false },
    // The keep-awake videos stay files: the page's policy allows media only from this server
    // (media-src 'self', server/http/security-headers.js), not as data: URLs.
    assetsInlineLimit: (file) => (/\.(?:mp4|webm)$/.test(file) ? false : undefined),
    rolldownOptions: {
      // Each page its own bundle: the audience page (index) carries nothing of the console's.
      input: {
        index: path.join(clientDir, 'index.html'),
        conduct: path.join(clientDir, 'conduct.html'),
        preview: path.join(clientDir, 'preview.html'),
        [SW_ENTRY]: path.join(clientDir, 'src', 'page', 'sw.js'),
      },
      output: {
        // A service worker's URL is its identity: it must stay /sw.js from build to build.
        entryFileNames: (chunk) => (chunk.name === SW_ENTRY ? 'sw.js' : 'assets/[name]-[hash].js'),
      },
    },
  },
  server: {
    // The client imports core/ from outside its root.
    fs: { allow: [repoRoot] },
    proxy: { '/live': backend, '/api': backend },
  },
});

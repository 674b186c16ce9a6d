// Build of the browser client: `vite build --config client/vite.config.js` writes dist/client,
// which the server serves as static files (index.html for `/` and `/view/:view`).

import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const clientDir = fileURLToPath(new URL('.', import.meta.url));
const repoRoot = fileURLToPath(new URL('..', import.meta.url));

/** The dev server forwards the live endpoints and the API to a locally running scorecast server. */
const backend = { target: 'http://localhost:8080', ws: true, changeOrigin: false };

export default defineConfig({
  root: clientDir,
  // Absolute asset URLs: the same index.html is served at /view/X, where relative ones would break.
  base: '/',
  publicDir: false,
  build: {
    outDir: fileURLToPath(new URL('../dist/client', import.meta.url)),
    emptyOutDir: true,
    // One chunk and no dynamic imports: there is nothing for the modulepreload polyfill to do.
    modulePreload: { polyfill: false },
  },
  server: {
    // The client imports core/ from outside its root.
    fs: { allow: [repoRoot] },
    proxy: { '/live': backend, '/api': backend },
  },
});

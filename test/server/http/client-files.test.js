import path from 'node:path';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import zlib, { brotliCompressSync, gzipSync } from 'node:zlib';
import { describe, it, expect, afterEach } from 'vitest';
import { buildApp } from '../../../server/app.js';
import { loadPackage } from '../../../server/package/load.js';

const PKG = new URL('../../fixtures/pkg/', import.meta.url).pathname;
const JS = `export const tiles = ${JSON.stringify(Array.from({ length: 200 }, (_, i) => `tile-${i}`))};\n`;
const WORKER = 'self.__SCORECAST_BUILD__={"version":"abc","files":["/"]};\n';

/**
 * A fake build, as client/vite.config.js writes it, with a file beside it that must stay private.
 * @param {{ worker?: boolean }} [options]
 */
function fakeBuild({ worker = true } = {}) {
  const root = mkdtempSync(path.join(os.tmpdir(), 'sc-client-files-'));
  const dir = path.join(root, 'client');
  mkdirSync(path.join(dir, 'assets'), { recursive: true });
  writeFileSync(path.join(root, 'package.json'), '{ "secret": true }');
  writeFileSync(path.join(dir, 'package.json'), '{ "secret": true }');
  writeFileSync(path.join(dir, 'index.html'), '<!doctype html><title>scorecast</title><body></body>');
  if (worker) writeFileSync(path.join(dir, 'sw.js'), WORKER);
  writeFileSync(path.join(dir, 'assets', 'index-Ab12.js'), JS);
  writeFileSync(path.join(dir, 'assets', 'index-Ab12.js.gz'), gzipSync(JS));
  writeFileSync(path.join(dir, 'assets', 'index-Ab12.js.br'), brotliCompressSync(JS));
  writeFileSync(path.join(dir, 'assets', 'index-Cd34.css'), 'main { color: white }');
  return dir;
}

/** @type {import('fastify').FastifyInstance[]} */
let apps = [];
afterEach(async () => {
  for (const a of apps) await a.close();
  apps = [];
});

/** @param {string} clientDir */
async function build(clientDir) {
  const score = await loadPackage(PKG, { cacheDir: mkdtempSync(path.join(os.tmpdir(), 'sc-cache-')) });
  const { app } = await buildApp({ score, token: 'tok-123456789', clientDir });
  apps.push(app);
  return app;
}

describe('client files', () => {
  it('serves the keep-awake videos typed as video, with byte ranges (Safari plays no video without 206)', async () => {
    const dir = fakeBuild();
    const media = new URL('../../../client/src/page/media/', import.meta.url).pathname;
    writeFileSync(path.join(dir, 'assets', 'awake-Ef56.mp4'), readFileSync(path.join(media, 'awake.mp4')));
    writeFileSync(path.join(dir, 'assets', 'awake-Gh78.webm'), readFileSync(path.join(media, 'awake.webm')));
    const app = await build(dir);
    for (const [url, type] of [
      ['/assets/awake-Ef56.mp4', 'video/mp4'],
      ['/assets/awake-Gh78.webm', 'video/webm'],
    ]) {
      const res = await app.inject({ url, headers: { range: 'bytes=0-1' } });
      expect(res.statusCode).toBe(206);
      expect(res.headers['content-type']).toBe(type);
      expect(res.rawPayload).toHaveLength(2);
    }
  });

  it('serves the service worker at /sw.js as JavaScript that is revalidated every time', async () => {
    const app = await build(fakeBuild());
    const res = await app.inject('/sw.js');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-cache');
    expect(res.body).toBe(WORKER);
    const again = await app.inject({ url: '/sw.js', headers: { 'if-none-match': String(res.headers.etag) } });
    expect(again.statusCode).toBe(304);
  });

  it('answers 404 for /sw.js when the build has no worker', async () => {
    const app = await build(fakeBuild({ worker: false }));
    const res = await app.inject('/sw.js');
    expect(res.statusCode).toBe(404);
    expect(res.json().code).toBe('SC_ERR_NOT_FOUND');
  });

  it('serves the shell with no-cache and an ETag at / and at a view', async () => {
    const app = await build(fakeBuild());
    for (const url of ['/', '/view/score']) {
      const res = await app.inject(url);
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.headers['cache-control']).toBe('no-cache');
      const again = await app.inject({ url, headers: { 'if-none-match': String(res.headers.etag) } });
      expect(again.statusCode).toBe(304);
    }
  });

  it('sends the pages and the worker compressed by Accept-Encoding, an ETag per encoding, 304 for a copy the phone has', async () => {
    const dir = fakeBuild();
    const html = `<!doctype html><title>scorecast</title><body>${'<p class="tile">a tile</p>'.repeat(100)}</body>`;
    writeFileSync(path.join(dir, 'index.html'), html);
    writeFileSync(path.join(dir, 'sw.js'), `${WORKER}${JS}`);
    const app = await build(dir);
    for (const [url, text] of [
      ['/', html],
      ['/view/score', html.replace('<body>', '<body data-notation="true" data-view="score">')],
      ['/sw.js', `${WORKER}${JS}`],
    ]) {
      const br = await app.inject({ url, headers: { 'accept-encoding': 'gzip, deflate, br' } });
      expect(br.headers['content-encoding']).toBe('br');
      expect(br.headers.vary).toMatch(/accept-encoding/i);
      expect(br.headers['cache-control']).toBe('no-cache');
      expect(zlib.brotliDecompressSync(br.rawPayload).toString()).toBe(text);
      expect(br.rawPayload.length).toBeLessThan(text.length / 2);
      const gz = await app.inject({ url, headers: { 'accept-encoding': 'gzip' } });
      expect(gz.headers['content-encoding']).toBe('gzip');
      expect(zlib.gunzipSync(gz.rawPayload).toString()).toBe(text);
      const plain = await app.inject(url);
      expect(plain.headers['content-encoding']).toBeUndefined();
      expect(plain.body).toBe(text);
      // One ETag per encoding, so that no cache hands a phone bytes it cannot read.
      expect(new Set([br.headers.etag, gz.headers.etag, plain.headers.etag]).size).toBe(3);
      // A proxy that compresses (nginx's gzip) weakens the ETag: the phone's copy is still its copy.
      const weak = `W/${br.headers.etag}`;
      const again = await app.inject({ url, headers: { 'accept-encoding': 'br', 'if-none-match': weak } });
      expect(again.statusCode).toBe(304);
      const other = await app.inject({ url, headers: { 'if-none-match': String(br.headers.etag) } });
      expect(other.statusCode).toBe(200);
    }
  });

  it('a part or the score comes marked as a notation view in its markup, the score as itself (no layout shift); the audience page does not', async () => {
    const app = await build(fakeBuild());
    const audience = await app.inject('/');
    const score = await app.inject('/view/score');
    expect(audience.body).not.toContain('data-notation');
    expect(score.body).toContain('<body data-notation="true" data-view="score">');
    expect(score.headers.etag).not.toBe(audience.headers.etag);
  });

  it('marks the hashed assets immutable for a year', async () => {
    const app = await build(fakeBuild());
    for (const url of ['/assets/index-Ab12.js', '/assets/index-Cd34.css']) {
      const res = await app.inject(url);
      expect(res.statusCode).toBe(200);
      expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    }
  });

  it.each([
    ['br, gzip, deflate', 'br'],
    ['gzip, deflate', 'gzip'],
    ['gzip;q=1, br;q=0.5', 'gzip'],
  ])('sends the precompressed copy for Accept-Encoding "%s"', async (accept, encoding) => {
    const app = await build(fakeBuild());
    const res = await app.inject({ url: '/assets/index-Ab12.js', headers: { 'accept-encoding': accept } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-encoding']).toBe(encoding);
    expect(res.headers['content-type']).toMatch(/^(?:text|application)\/javascript\b/);
    expect(res.headers.vary).toMatch(/accept-encoding/i);
    expect(res.headers['cache-control']).toContain('immutable');
    const expected = encoding === 'br' ? brotliCompressSync(JS) : gzipSync(JS);
    expect(res.rawPayload.equals(expected)).toBe(true);
  });

  it.each([undefined, 'identity', 'zstd'])('sends the plain file for Accept-Encoding %s', async (accept) => {
    const app = await build(fakeBuild());
    const res = await app.inject({
      url: '/assets/index-Ab12.js',
      headers: accept ? { 'accept-encoding': accept } : {},
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-encoding']).toBeUndefined();
    // The answer depends on the header either way: shared caches must not mix the two up.
    expect(res.headers.vary).toMatch(/accept-encoding/i);
    expect(res.body).toBe(JS);
  });

  it('sends the plain file when the build wrote no compressed copy', async () => {
    const app = await build(fakeBuild());
    const res = await app.inject({ url: '/assets/index-Cd34.css', headers: { 'accept-encoding': 'br, gzip' } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.body).toBe('main { color: white }');
  });

  it.each([
    '/assets/../package.json',
    '/assets/../../package.json',
    '/assets/..%2Fpackage.json',
    '/assets/..%2f..%2fpackage.json',
    '/assets/%2e%2e/package.json',
    '/assets/%2E%2E%2Fpackage.json',
    '/assets/..%5Cpackage.json',
    '/assets/%252e%252e%252fpackage.json',
    '/assets//etc/passwd',
    '/assets/%2Fetc%2Fpasswd',
    '/assets/./index-Ab12.js/../../package.json',
    '/assets/',
    '/assets/nothing.js',
    // The compressed copies are encodings of the plain URL, not URLs of their own.
    '/assets/index-Ab12.js.br',
    '/assets/index-Ab12.js.gz',
  ])('path %s gets 404', async (url) => {
    const app = await build(fakeBuild());
    const res = await app.inject(url);
    expect(res.statusCode).toBe(404);
    expect(res.json().code).toBe('SC_ERR_NOT_FOUND');
    expect(res.body).not.toContain('secret');
  });
});

import path from 'node:path';
import os from 'node:os';
import zlib from 'node:zlib';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { describe, it, expect, afterEach } from 'vitest';
import Fastify from 'fastify';
import { scoreRoutes, pickEncoding } from '../../server/score-routes.js';
import { packageOf, smallModel } from '../helpers/fixtures.js';

/** @type {import('fastify').FastifyInstance[]} */
let apps = [];
afterEach(async () => { for (const a of apps) await a.close(); apps = []; });

function setup() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sc-pages-'));
  const svg = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><g class="note"/></svg>'.repeat(20);
  const file = path.join(dir, 'score-1.svg');
  writeFileSync(file, svg);
  writeFileSync(`${file}.br`, zlib.brotliCompressSync(svg));
  writeFileSync(`${file}.gz`, zlib.gzipSync(svg));
  const pkg = packageOf(smallModel());
  const url = '/scores/fixture/abc123/score-1.svg';
  pkg.files.set(url, { file, type: 'image/svg+xml', etag: 'abc123-score-1', br: `${file}.br`, gz: `${file}.gz` });
  pkg.views.score = { pages: [{ url, width: 10, height: 10 }], beats: [] };
  const app = Fastify();
  scoreRoutes(app, { current: () => pkg });
  apps.push(app);
  return { app, url, svg };
}

describe('score routes', () => {
  it('sends precompressed SVG by Accept-Encoding, with immutable caching', async () => {
    const { app, url, svg } = setup();
    const br = await app.inject({ url, headers: { 'accept-encoding': 'gzip, deflate, br' } });
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers.vary).toBe('accept-encoding');
    expect(br.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(zlib.brotliDecompressSync(br.rawPayload).toString()).toBe(svg);
    const gz = await app.inject({ url, headers: { 'accept-encoding': 'gzip' } });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(zlib.gunzipSync(gz.rawPayload).toString()).toBe(svg);
    const plain = await app.inject({ url, headers: { 'accept-encoding': 'identity' } });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body).toBe(svg);
  });

  it('describes the pages and beat map of a view', async () => {
    const { app, url } = setup();
    expect((await app.inject('/api/score/views/score')).json()).toEqual({ pages: [{ url, width: 10, height: 10 }], beats: [] });
    expect((await app.inject('/api/score/views/audience')).statusCode).toBe(404);
    expect((await app.inject('/api/score/views/__proto__')).statusCode).toBe(404);
  });

  it.each([
    ['gzip, deflate, br', 'br'],
    ['br;q=0.5, gzip', 'gzip'],
    ['gzip;q=0, br;q=0', null],
    ['*', 'br'],
    ['identity', null],
    [undefined, null],
  ])('Accept-Encoding %s picks %s', (header, expected) => {
    expect(pickEncoding(header)).toBe(expected);
  });
});

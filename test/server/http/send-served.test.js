import path from 'node:path';
import os from 'node:os';
import zlib from 'node:zlib';
import { mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { describe, it, expect, afterEach } from 'vitest';
import Fastify from 'fastify';
import { sendServed } from '../../../server/http/send-served.js';
import { prepareServed } from '../../../server/http/served-prepare.js';

/** @type {import('fastify').FastifyInstance[]} */
let apps = [];
afterEach(async () => {
  for (const a of apps) await a.close();
  apps = [];
});

/** 1000 bytes whose every byte says where it is. */
const AUDIO = Buffer.from(Array.from({ length: 1000 }, (_, i) => i % 251));
const TEXT = `{"tiles":"${'abcdefgh'.repeat(500)}"}`;

/**
 * An app serving an audio file and a text file, from memory or from disk.
 * @param {'memory' | 'disk'} where
 */
async function setup(where) {
  const dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'sc-send-')));
  writeFileSync(path.join(dir, 'clip.wav'), AUDIO);
  writeFileSync(path.join(dir, 'tiles.json'), TEXT);
  /** @type {Map<string, import('../../../server/package/load.js').ServedFile>} */
  const files = new Map([
    ['/clip.wav', { file: path.join(dir, 'clip.wav'), root: dir, type: 'audio/wav', etag: 'aaaa' }],
    ['/tiles.json', { file: path.join(dir, 'tiles.json'), root: dir, type: 'application/json', etag: 'tttt' }],
  ]);
  const prepared = await prepareServed(files, { memoryBytes: where === 'memory' ? 1e6 : 100 });
  expect(prepared.inMemory).toBe(where === 'memory');
  const app = Fastify();
  app.route({
    method: ['GET', 'HEAD'],
    url: '/*',
    handler: (req, reply) => sendServed(req, reply, /** @type {any} */ (files.get(req.url))),
  });
  apps.push(app);
  return app;
}

describe.each(/** @type {const} */ (['memory', 'disk']))('a package file served from %s', (where) => {
  it('has a length, a strong ETag, a date and immutable caching, and answers If-None-Match with 304', async () => {
    const app = await setup(where);
    const res = await app.inject('/clip.wav');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-length']).toBe('1000');
    expect(res.headers['transfer-encoding']).toBeUndefined();
    expect(res.headers['accept-ranges']).toBe('bytes');
    expect(res.headers.etag).toBe('"aaaa"');
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(Date.parse(String(res.headers['last-modified']))).toBeGreaterThan(0);
    expect(res.rawPayload.equals(AUDIO)).toBe(true);
    for (const inm of ['"aaaa"', 'W/"aaaa"', '"zzzz", "aaaa"', '*']) {
      const again = await app.inject({ url: '/clip.wav', headers: { 'if-none-match': inm } });
      expect(again.statusCode, inm).toBe(304);
      expect(again.rawPayload.length).toBe(0);
      expect(again.headers.etag).toBe('"aaaa"');
    }
    expect((await app.inject({ url: '/clip.wav', headers: { 'if-none-match': '"other"' } })).statusCode).toBe(200);
    const since = await app.inject({
      url: '/clip.wav',
      headers: { 'if-modified-since': String(res.headers['last-modified']) },
    });
    expect(since.statusCode).toBe(304);
    // If-None-Match wins over If-Modified-Since (RFC 9110 section 13.1.3).
    expect(
      (
        await app.inject({
          url: '/clip.wav',
          headers: { 'if-none-match': '"other"', 'if-modified-since': String(res.headers['last-modified']) },
        })
      ).statusCode,
    ).toBe(200);
  });

  it.each([
    ['bytes=0-99', 0, 99],
    ['bytes=900-', 900, 999],
    ['bytes=-10', 990, 999],
    ['bytes=990-5000', 990, 999],
    ['bytes=0-0', 0, 0],
  ])('answers Range %s with 206 and that part', async (range, start, end) => {
    const app = await setup(where);
    const res = await app.inject({ url: '/clip.wav', headers: { range } });
    expect(res.statusCode).toBe(206);
    expect(res.headers['content-range']).toBe(`bytes ${start}-${end}/1000`);
    expect(res.headers['content-length']).toBe(String(end - start + 1));
    expect(res.rawPayload.equals(AUDIO.subarray(start, end + 1))).toBe(true);
  });

  it('answers a range past the end with 416 and the size, and ignores what it cannot use', async () => {
    const app = await setup(where);
    const past = await app.inject({ url: '/clip.wav', headers: { range: 'bytes=1000-1010' } });
    expect(past.statusCode).toBe(416);
    expect(past.headers['content-range']).toBe('bytes */1000');
    // Malformed, another unit, several ranges: the whole file.
    for (const range of ['bytes=abc', 'items=0-5', 'bytes=0-9,20-29']) {
      const res = await app.inject({ url: '/clip.wav', headers: { range } });
      expect(res.statusCode, range).toBe(200);
      expect(res.rawPayload.equals(AUDIO), range).toBe(true);
    }
  });

  it('resumes only the same file: If-Range with another ETag gets the whole file', async () => {
    const app = await setup(where);
    const same = await app.inject({ url: '/clip.wav', headers: { range: 'bytes=500-', 'if-range': '"aaaa"' } });
    expect(same.statusCode).toBe(206);
    const other = await app.inject({ url: '/clip.wav', headers: { range: 'bytes=500-', 'if-range': '"bbbb"' } });
    expect(other.statusCode).toBe(200);
    expect(other.rawPayload.length).toBe(1000);
  });

  it('answers HEAD with the headers of GET and no body', async () => {
    const app = await setup(where);
    const res = await app.inject({ method: 'HEAD', url: '/clip.wav' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-length']).toBe('1000');
    expect(res.headers.etag).toBe('"aaaa"');
    expect(res.rawPayload.length).toBe(0);
    const text = await app.inject({ method: 'HEAD', url: '/tiles.json', headers: { 'accept-encoding': 'br' } });
    expect(text.headers['content-encoding']).toBe(where === 'memory' ? 'br' : undefined);
    expect(Number(text.headers['content-length'])).toBe(
      where === 'memory' ? zlib.brotliCompressSync(TEXT).length : TEXT.length,
    );
  });

  it('sends a text file compressed as Accept-Encoding asks (from memory), each with its own ETag', async () => {
    const app = await setup(where);
    const br = await app.inject({ url: '/tiles.json', headers: { 'accept-encoding': 'gzip, deflate, br' } });
    expect(br.headers.vary).toBe(where === 'memory' ? 'accept-encoding' : undefined);
    const gz = await app.inject({ url: '/tiles.json', headers: { 'accept-encoding': 'gzip' } });
    const plain = await app.inject({ url: '/tiles.json', headers: { 'accept-encoding': 'identity' } });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body).toBe(TEXT);
    if (where === 'disk') {
      // Past the memory bound a file without the engraver's copies is sent as it is.
      expect(br.body).toBe(TEXT);
      return;
    }
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers.etag).toBe('"tttt-br"');
    expect(Number(br.headers['content-length'])).toBe(br.rawPayload.length);
    expect(zlib.brotliDecompressSync(br.rawPayload).toString()).toBe(TEXT);
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gz.headers.etag).toBe('"tttt-gzip"');
    expect(zlib.gunzipSync(gz.rawPayload).toString()).toBe(TEXT);
    expect(plain.headers.etag).toBe('"tttt"');
    expect(
      (await app.inject({ url: '/tiles.json', headers: { 'accept-encoding': 'br', 'if-none-match': '"tttt-br"' } }))
        .statusCode,
    ).toBe(304);
    // A range is a range of the file itself, whatever encodings are allowed.
    const part = await app.inject({ url: '/tiles.json', headers: { 'accept-encoding': 'br', range: 'bytes=0-9' } });
    expect(part.statusCode).toBe(206);
    expect(part.headers['content-encoding']).toBeUndefined();
    expect(part.body).toBe(TEXT.slice(0, 10));
  });
});

import path from 'node:path';
import os from 'node:os';
import zlib from 'node:zlib';
import { mkdtempSync, realpathSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
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

/** A file's time, in seconds. */
const WHEN = 1_700_000_000;

/**
 * An app serving one lazy file (a PDF's page image in the render cache): its size and time given
 * by the loader, held in memory from its first request (served-prepare.js).
 * @param {number} memoryBytes
 */
async function lazySetup(memoryBytes = 1e6) {
  const dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'sc-lazy-')));
  const file = path.join(dir, 'page-1-1080w.png');
  writeFileSync(file, AUDIO);
  // A whole second, which utimes can set again exactly.
  utimesSync(file, WHEN, WHEN);
  const { size, mtimeMs } = statSync(file);
  /** @type {import('../../../server/package/load.js').ServedFile} */
  const served = { file, root: dir, type: 'image/png', etag: 'pppp', size, mtimeMs, lazy: true };
  expect(await prepareServed(new Map([['/p.png', served]]), { memoryBytes })).toEqual({
    inMemory: memoryBytes >= size,
    bytes: size,
  });
  const app = Fastify();
  app.route({ method: ['GET', 'HEAD'], url: '/*', handler: (req, reply) => sendServed(req, reply, served) });
  apps.push(app);
  return { app, dir, file, served };
}

/** @param {import('light-my-request').Response} res @param {number} mtimeMs */
function expectWhole(res, mtimeMs) {
  expect(res.statusCode).toBe(200);
  expect(res.headers['content-length']).toBe('1000');
  expect(res.headers.etag).toBe('"pppp"');
  expect(res.headers['last-modified']).toBe(new Date(mtimeMs).toUTCString());
  expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
  expect(res.rawPayload.equals(AUDIO)).toBe(true);
}

describe('a file held in memory from its first request (a PDF page image)', () => {
  it('is not read at load; its first requests read it once, checked, and the rest are from memory', async () => {
    const { app, file, served } = await lazySetup();
    expect(served.body).toBeUndefined();
    const mtimeMs = /** @type {number} */ (served.mtimeMs);
    for (const res of await Promise.all([app.inject('/p.png'), app.inject('/p.png'), app.inject('/p.png')]))
      expectWhole(res, mtimeMs);
    expect(served.body?.equals(AUDIO)).toBe(true);
    expect(served.holding).toBeUndefined();
    rmSync(file);
    expectWhole(await app.inject('/p.png'), mtimeMs);
    const part = await app.inject({ url: '/p.png', headers: { range: 'bytes=10-19' } });
    expect(part.statusCode).toBe(206);
    expect(part.rawPayload.equals(AUDIO.subarray(10, 20))).toBe(true);
    expect((await app.inject({ url: '/p.png', headers: { 'if-none-match': '"pppp"' } })).statusCode).toBe(304);
  });

  it('is refused (404), not served under its URL, when changed, gone or made a link since the load; a later request tries again', async () => {
    // The same size, other bytes, another time.
    const changed = await lazySetup();
    writeFileSync(changed.file, Buffer.alloc(1000, 1));
    utimesSync(changed.file, WHEN, WHEN + 5);
    expect((await changed.app.inject('/p.png')).statusCode).toBe(404);
    expect(changed.served.body).toBeUndefined();
    // Another size at the same time.
    const cut = await lazySetup();
    writeFileSync(cut.file, AUDIO.subarray(0, 999));
    utimesSync(cut.file, WHEN, WHEN);
    expect((await cut.app.inject('/p.png')).statusCode).toBe(404);
    // Put back as it was: served.
    writeFileSync(cut.file, AUDIO);
    utimesSync(cut.file, WHEN, WHEN);
    expectWhole(await cut.app.inject('/p.png'), /** @type {number} */ (cut.served.mtimeMs));
    // Gone, and a link to a file of the same size outside the folder.
    const gone = await lazySetup();
    rmSync(gone.file);
    expect((await gone.app.inject('/p.png')).statusCode).toBe(404);
    const outside = path.join(realpathSync(mkdtempSync(path.join(os.tmpdir(), 'sc-outside-'))), 'secret');
    writeFileSync(outside, AUDIO);
    utimesSync(outside, WHEN, WHEN);
    symlinkSync(outside, gone.file);
    expect((await gone.app.inject('/p.png')).statusCode).toBe(404);
    expect((await gone.app.inject({ method: 'HEAD', url: '/p.png' })).statusCode).toBe(404);
  });

  it('is served from disk, as every file, when the package is past the memory bound', async () => {
    const { app, served } = await lazySetup(10);
    expect(served.lazy).toBeUndefined();
    expectWhole(await app.inject('/p.png'), /** @type {number} */ (served.mtimeMs));
    expect(served.body).toBeUndefined();
  });
});

import path from 'node:path';
import os from 'node:os';
import zlib from 'node:zlib';
import { mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { describe, it, expect } from 'vitest';
import { prepareServed } from '../../../server/http/served-prepare.js';

/** @typedef {import('../../../server/package/load.js').ServedFile} ServedFile */

const tmp = () => realpathSync(mkdtempSync(path.join(os.tmpdir(), 'sc-prepare-')));

describe('readying package files to serve', () => {
  it('holds a small package in memory with compressed copies of its text, and a large one on disk', async () => {
    const dir = tmp();
    const text = `<svg xmlns="http://www.w3.org/2000/svg">${'<g/>'.repeat(2000)}</svg>`;
    writeFileSync(path.join(dir, 'a.svg'), text);
    writeFileSync(path.join(dir, 'b.wav'), Buffer.alloc(5000, 7));
    const make = () =>
      /** @type {Map<string, ServedFile>} */ (
        new Map([
          ['/a', { file: path.join(dir, 'a.svg'), root: dir, type: 'image/svg+xml', etag: 'a' }],
          ['/b', { file: path.join(dir, 'b.wav'), root: dir, type: 'audio/wav', etag: 'b' }],
        ])
      );
    const small = make();
    expect(await prepareServed(small, { memoryBytes: 100_000 })).toEqual({ inMemory: true, bytes: text.length + 5000 });
    const a = /** @type {ServedFile} */ (small.get('/a'));
    expect(a.body?.toString()).toBe(text);
    expect(zlib.brotliDecompressSync(/** @type {Buffer} */ (a.variants?.br)).toString()).toBe(text);
    expect(zlib.gunzipSync(/** @type {Buffer} */ (a.variants?.gzip)).toString()).toBe(text);
    // Audio is not text: no compressed copy.
    expect(small.get('/b')?.variants).toBeUndefined();
    expect(small.get('/b')?.body?.length).toBe(5000);

    const large = make();
    expect(await prepareServed(large, { memoryBytes: 1000 })).toEqual({ inMemory: false, bytes: text.length + 5000 });
    expect(large.get('/a')?.body).toBeUndefined();
    expect(large.get('/b')?.size).toBe(5000);
    expect(large.get('/b')?.mtimeMs).toBeGreaterThan(0);
  });

  it("uses the engraver's compressed copies rather than compressing again", async () => {
    const dir = tmp();
    const file = path.join(dir, 'page.svg');
    writeFileSync(file, '<svg/>'.repeat(300));
    writeFileSync(`${file}.br`, 'the engraver br');
    writeFileSync(`${file}.gz`, 'the engraver gz');
    /** @type {Map<string, ServedFile>} */
    const files = new Map([
      ['/p', { file, root: dir, type: 'image/svg+xml', etag: 'p', br: `${file}.br`, gz: `${file}.gz` }],
    ]);
    await prepareServed(files);
    expect(files.get('/p')?.variants?.br?.toString()).toBe('the engraver br');
    expect(files.get('/p')?.variants?.gzip?.toString()).toBe('the engraver gz');
  });

  it('keeps no compressed copy that is not smaller', async () => {
    const dir = tmp();
    const noise = Buffer.from(Array.from({ length: 4000 }, () => Math.floor(Math.random() * 256)));
    writeFileSync(path.join(dir, 'noise.txt'), noise);
    /** @type {Map<string, ServedFile>} */
    const files = new Map([
      ['/noise.txt', { file: path.join(dir, 'noise.txt'), root: dir, type: 'text/plain; charset=utf-8', etag: 'n' }],
    ]);
    await prepareServed(files);
    expect(files.get('/noise.txt')?.variants).toEqual({});
  });
});

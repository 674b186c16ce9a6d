// What a package load asks of the file system, on the thread that plays the beats (issue 35: a
// PDF package's load must not stall the beat): each page image of a package is opened and read
// once; a PDF's rendered page images are not opened at all (held from their first request,
// server/http/served-prepare.js); a PDF loaded again unchanged is not read again, and one changed
// since (its time set back or not) is.

import path from 'node:path';
import os from 'node:os';
import { mkdirSync, mkdtempSync, readlinkSync, statSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { loadPackage } from '../../../server/package/load.js';

/** Every path the server's modules open, in order. */
const opens = vi.hoisted(() => /** @type {string[]} */ ([]));
vi.mock('node:fs/promises', async (importOriginal) => {
  const fs = /** @type {typeof import('node:fs/promises')} */ (await importOriginal());
  /** @type {typeof fs.open} */
  const counted = (file, ...rest) => {
    opens.push(String(file));
    return fs.open(file, ...rest);
  };
  return { ...fs, open: counted, default: { ...fs, open: counted } };
});

/** Every file read whole through a FileHandle (readFile), by its path. */
const reads = /** @type {string[]} */ ([]);
const probe = await open(import.meta.filename);
const handleProto = Object.getPrototypeOf(probe);
await probe.close();
const readFile = handleProto.readFile;
vi.spyOn(handleProto, 'readFile').mockImplementation(function (/** @type {unknown[]} */ ...args) {
  reads.push(readlinkSync(`/proc/self/fd/${this.fd}`));
  return readFile.apply(this, args);
});

afterEach(() => {
  vi.useRealTimers();
});

/** @param {string} yaml @param {Record<string, string | Buffer>} files */
function pkg(yaml, files) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sc-reads-'));
  writeFileSync(path.join(dir, 'score.yaml'), yaml);
  for (const [name, body] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    writeFileSync(path.join(dir, name), body);
  }
  return dir;
}

const HEAD = 'id: r\ntitle: R\nbars: 1\nmeter:\n  - { bar: 1, time: 4/4, tempo: 60 }\n';
const BEATS = `beat,page,system,bar,x0,x1,y0,y1\n${[0, 1, 2, 3].map((b) => `${b},0,0,1,${40 + b * 100},${140 + b * 100},600,650`).join('\n')}\n`;

/** A PNG header of `width` x `height` (what image-size.js reads). */
function png(/** @type {number} */ width, /** @type {number} */ height) {
  const b = Buffer.alloc(33);
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(b);
  b.writeUInt32BE(13, 8);
  b.write('IHDR', 12, 'latin1');
  b.writeUInt32BE(width, 16);
  b.writeUInt32BE(height, 20);
  return b;
}

/** @param {string} suffix */
const opensOf = (suffix) => opens.filter((f) => f.endsWith(suffix)).length;

describe('what a load reads', () => {
  it('opens and reads each page image of a package once, and serves it as read', async () => {
    const pages = { 'pages/p1.png': png(1200, 800), 'pages/p2.png': png(1000, 800) };
    const dir = pkg(`${HEAD}pages:\n  score: { files: [pages/p1.png, pages/p2.png], beatmap: score.csv }\n`, {
      ...pages,
      'score.csv': BEATS,
    });
    opens.length = 0;
    const loaded = await loadPackage(dir, { cacheDir: mkdtempSync(path.join(os.tmpdir(), 'sc-cache-')) });
    for (const [rel, data] of Object.entries(pages)) {
      expect(opensOf(`/${rel}`), rel).toBe(1);
      const served = [...loaded.files.values()].find((f) => f.file.endsWith(`/${rel}`));
      expect(served?.body?.equals(data)).toBe(true);
      expect(served).toMatchObject({ size: data.length, mtimeMs: statSync(path.join(dir, rel)).mtimeMs });
      expect(served?.read).toBeUndefined();
    }
  });
});

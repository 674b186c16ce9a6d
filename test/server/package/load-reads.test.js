// What a package load asks of the file system, on the thread that plays the beats (a
// PDF package's load must not stall the beat): each page image of a package is opened and read
// once; a PDF's rendered page images are not opened at all (held from their first request,
// server/http/served-prepare.js); a PDF loaded again unchanged is not read again, and one changed
// since (its time set back or not) is.

import path from 'node:path';
import os from 'node:os';
import { mkdtempSync, readlinkSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { loadPackage } from '../../../server/package/load.js';
import { fileIdentity } from '../../../server/package/load-pdf.js';
import { tinyPdf } from '../../helpers/tiny-pdf.js';
import { pngHeader, packageDir } from '../../helpers/fixtures.js';

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

/** @param {string} yaml @param {Record<string, string | Buffer>} [files] */
const pkg = (yaml, files = {}) => packageDir(yaml, files, 'sc-reads-');

const HEAD = 'id: r\ntitle: R\nbars: 1\nmeter:\n  - { bar: 1, time: 4/4, tempo: 60 }\n';
const BEATS = `beat,page,system,bar,x0,x1,y0,y1\n${[0, 1, 2, 3].map((b) => `${b},0,0,1,${40 + b * 100},${140 + b * 100},600,650`).join('\n')}\n`;

/** @param {string} suffix */
const opensOf = (suffix) => opens.filter((f) => f.endsWith(suffix)).length;
/** @param {string} suffix */
const readsOf = (suffix) => reads.filter((f) => f.endsWith(suffix)).length;

describe('what a load reads', () => {
  it('opens and reads each page image of a package once, and serves it as read', async () => {
    const pages = { 'pages/p1.png': pngHeader(1200, 800), 'pages/p2.png': pngHeader(1000, 800) };
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

  it("opens none of a PDF's page images, and does not read a PDF loaded again unchanged; one changed since is read and rendered", async () => {
    const cacheDir = mkdtempSync(path.join(os.tmpdir(), 'sc-cache-'));
    const A4 = { width: 595.28, height: 841.89 };
    const dir = pkg(`${HEAD}pages:\n  score: { pdf: { file: score.pdf }, beatmap: score.csv }\n`, {
      'score.pdf': tinyPdf({ pages: [A4] }),
      'score.csv': BEATS,
    });
    const pdf = path.join(dir, 'score.pdf');
    // The PDF was written seconds before the loads (a file changed in the last 2 s is not remembered).
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 10_000);

    reads.length = 0;
    const first = await loadPackage(dir, { cacheDir });
    expect(readsOf('/score.pdf')).toBe(1);
    expect(first.views.score.pages[0]).toMatchObject(A4);

    opens.length = 0;
    reads.length = 0;
    const again = await loadPackage(dir, { cacheDir });
    expect(opensOf('/score.pdf')).toBe(1);
    expect(readsOf('/score.pdf')).toBe(0);
    expect(opens.filter((f) => f.endsWith('.png'))).toEqual([]);
    expect(again.views.score.pages[0].images?.map((i) => i.url)).toEqual(
      first.views.score.pages[0].images?.map((i) => i.url),
    );
    // Each image served with its size and time, read at its first request.
    for (const served of again.files.values())
      expect(served).toMatchObject({
        lazy: true,
        size: statSync(served.file).size,
        mtimeMs: statSync(served.file).mtimeMs,
      });

    // Another cache: the hash is known, the pages are not, so the PDF is read (and hashed) again.
    reads.length = 0;
    await loadPackage(dir, { cacheDir: mkdtempSync(path.join(os.tmpdir(), 'sc-cache-')) });
    expect(readsOf('/score.pdf')).toBe(1);

    // Another PDF in its place, its modification time set back to the old one's.
    const { atime, mtime } = statSync(pdf);
    const letter = { width: 612, height: 792 };
    writeFileSync(pdf, tinyPdf({ pages: [letter] }));
    utimesSync(pdf, atime, mtime);
    reads.length = 0;
    const changed = await loadPackage(dir, { cacheDir });
    expect(readsOf('/score.pdf')).toBe(1);
    expect(changed.views.score.pages[0]).toMatchObject(letter);
  });

  it("gives a file's identity only once it has not changed for 2 s, and a new one for a new change time", () => {
    const stats = /** @type {import('node:fs').Stats} */ (
      /** @type {unknown} */ ({ dev: 1, ino: 2, size: 3, mtimeMs: 1000, ctimeMs: Date.now() - 3000 })
    );
    const id = fileIdentity(stats);
    expect(id).toEqual(expect.any(String));
    expect(fileIdentity({ ...stats, ctimeMs: stats.ctimeMs + 1 })).not.toBe(id);
    expect(fileIdentity({ ...stats, ctimeMs: Date.now() - 500 })).toBeNull();
  });
});

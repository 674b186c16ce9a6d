// Opening a package's files without leaving the package (doc/score-format.md, "Limits"): real paths inside
// the package's real folder, no link followed at open, one name per file, regular files only.

import path from 'node:path';
import os from 'node:os';
import { linkSync, mkdirSync, mkdtempSync, realpathSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { describe, it, expect } from 'vitest';
import { openInPackage, openServed, readAll, realRoot } from '../../../server/lib/contained-files.js';

function setup() {
  const dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'sc-files-')));
  const outside = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'sc-outside-')));
  writeFileSync(path.join(outside, 'secret'), 'secret');
  mkdirSync(path.join(dir, 'a'));
  writeFileSync(path.join(dir, 'a/page.svg'), '<svg/>');
  return { dir, outside };
}

/** @param {Awaited<ReturnType<typeof openInPackage>>} r */
const reason = (r) => (r.ok ? 'ok' : r.reason);

describe('package files', () => {
  it('opens a file of the package by its real path and reads it', async () => {
    const { dir } = setup();
    symlinkSync('a', path.join(dir, 'b'));
    const r = await openInPackage(dir, 'b/page.svg', 1000);
    if (!r.ok) throw new Error(r.reason);
    expect(r.real).toBe(path.join(dir, 'a/page.svg'));
    expect((await readAll(r.handle)).toString()).toBe('<svg/>');
  });

  it('tells a missing file from a refused one', async () => {
    const { dir, outside } = setup();
    symlinkSync(path.join(outside, 'secret'), path.join(dir, 'link'));
    expect(await openInPackage(dir, 'nope.svg', 1000)).toEqual({
      ok: false,
      missing: true,
      reason: 'does not exist in the package',
    });
    expect(await openInPackage(dir, 'link', 1000)).toMatchObject({ ok: false, missing: false });
  });

  it.each([
    [
      'a link to a file outside',
      'x',
      (/** @type {string} */ dir, /** @type {string} */ out) =>
        symlinkSync(path.join(out, 'secret'), path.join(dir, 'x')),
      /leads outside the package/,
    ],
    [
      'a file in a folder linked from outside',
      'x/secret',
      (/** @type {string} */ dir, /** @type {string} */ out) => symlinkSync(out, path.join(dir, 'x')),
      /leads outside the package/,
    ],
    [
      'a hard link',
      'x',
      (/** @type {string} */ dir, /** @type {string} */ out) => linkSync(path.join(out, 'secret'), path.join(dir, 'x')),
      /has 2 names/,
    ],
    ['a folder', 'x', (/** @type {string} */ dir) => mkdirSync(path.join(dir, 'x')), /is not a regular file/],
  ])('refuses %s', async (_, rel, make, why) => {
    const { dir, outside } = setup();
    make(dir, outside);
    expect(reason(await openInPackage(dir, rel, 1000))).toMatch(why);
  });

  it('refuses a file larger than its bound, saying both sizes', async () => {
    const { dir } = setup();
    writeFileSync(path.join(dir, 'big.csv'), Buffer.alloc(3 * 1024 * 1024));
    expect(reason(await openInPackage(dir, 'big.csv', 2 * 1024 * 1024))).toBe(
      'is 3 MiB, more than the 2 MiB a file of its kind may be (doc/score-format.md, "Limits")',
    );
  });

  it('serves a listed file only while it is still that file: not a link swapped in, not one moved out', async () => {
    const { dir, outside } = setup();
    const file = path.join(dir, 'a/page.svg');
    const opened = await openServed(dir, file);
    expect(opened).toMatchObject({ real: file, size: 6 });
    expect((await readAll(/** @type {any} */ (opened?.handle))).toString()).toBe('<svg/>');
    renameSync(path.join(dir, 'a'), path.join(dir, 'moved'));
    symlinkSync(outside, path.join(dir, 'a'));
    writeFileSync(path.join(outside, 'page.svg'), 'secret');
    expect(await openServed(dir, file)).toBeNull();
    expect(await realRoot(path.join(dir, 'no-such'))).toBeNull();
  });
});

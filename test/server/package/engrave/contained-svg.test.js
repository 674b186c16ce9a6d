// Engraved pages skip the package sanitizer, but attribute values that Verovio carries over from
// the notation file are held to what the sanitizer keeps: a MusicXML colour that is a url() to
// another server does not reach the page.

import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { containEngravedSvg } from '../../../../server/package/engrave/contained-svg.js';
import { closeEngraver, engraveScore } from '../../../../server/package/engrave/index.js';

const DUO = fileURLToPath(new URL('../../../fixtures/notation/duo.musicxml', import.meta.url));
/** @type {string} */
let tmp;

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'scorecast-contained-'));
});

afterAll(async () => {
  await closeEngraver();
  await rm(tmp, { recursive: true, force: true });
});

describe('engraved pages', () => {
  it('keep what Verovio draws and lose attributes that reach outside the page', () => {
    const page =
      '<svg id="m"><use xlink:href="#E050-m" transform="translate(1, 2)"/><path d="M0 0" clip-path="url(#c)"/>' +
      '<tspan fill="red;background:url(http://127.0.0.2/pwned/c)" font-family="Leipzig">a &amp; (b)</tspan>' +
      '<a xlink:href="http://127.0.0.2/pwned/link"/><g onclick="x()"/><g fill="u\\72l(http://x)"/></svg>';
    expect(containEngravedSvg(page)).toEqual({
      svg:
        '<svg id="m"><use xlink:href="#E050-m" transform="translate(1, 2)"/><path d="M0 0" clip-path="url(#c)"/>' +
        '<tspan font-family="Leipzig">a &amp; (b)</tspan><a/><g/><g/></svg>',
      removed: 4,
    });
  });

  it('of a MusicXML whose colour is a url() to another server do not carry it', async () => {
    const hostile = (await readFile(DUO, 'utf8')).replace(
      /<measure number="1"([^>]*)>/,
      '<measure number="1"$1><direction placement="above"><direction-type>' +
        '<words color="url(http://127.0.0.2/pwned/colour)">STOP</words></direction-type></direction>',
    );
    const file = path.join(tmp, 'hostile.musicxml');
    await writeFile(file, hostile);
    const engraved = await engraveScore({ file, cacheDir: path.join(tmp, 'cache') });
    const pages = (await readdir(engraved.dir)).filter((f) => f.endsWith('.svg'));
    expect(pages.length).toBeGreaterThan(0);
    const all = (await Promise.all(pages.map((f) => readFile(path.join(engraved.dir, f), 'utf8')))).join('');
    expect(all).toContain('STOP');
    expect(all).not.toContain('pwned');
  }, 120_000);
});

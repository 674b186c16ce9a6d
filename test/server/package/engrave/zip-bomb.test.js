// Compressed MusicXML is an untrusted archive: an entry is inflated only up to the notation bound
// and 100 times its compressed size, counted while it inflates, whatever its header declares. A
// 390 KB .mxl that inflates to 250 MiB of notes (the audit's 260 KB file took a server to 4.7 GiB)
// is refused with a problem naming the entry, and the process's memory stays bounded.

import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PACKAGE_LIMITS, formatBytes } from '../../../../core/package-limits.js';
import { closeEngraver, engraveScore } from '../../../../server/package/engrave/index.js';
import { readZip } from '../../../../server/package/engrave/zip.js';
import { makeMxlBomb, repeatedDeflate, zipPacked } from '../../../fixtures/notation/make-mxl.js';

const PEAK = new URL('../../../fixtures/notation/engrave-peak.js', import.meta.url);
/** A safety bound, not a measurement: the bomb inflated whole took gigabytes. */
const MAX_PEAK_RSS_MB = 1024;

/** @type {string} */
let tmp;

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'scorecast-zip-bomb-'));
});

afterAll(async () => {
  await closeEngraver();
  await rm(tmp, { recursive: true, force: true });
});

describe('a zip bomb .mxl', () => {
  it('is refused, naming the entry, with the peak RSS of the process under 1 GiB', async () => {
    const file = path.join(tmp, 'bomb.mxl');
    await writeFile(file, makeMxlBomb({ mib: 250 }));
    const { stdout } = await promisify(execFile)(process.execPath, [PEAK.pathname, file, path.join(tmp, 'cache')], {
      timeout: 120_000,
    });
    const result = JSON.parse(stdout.trim().split('\n').at(-1) ?? '');
    expect(result).toMatchObject({ ok: false, code: 'SC_ERR_SCORE_INVALID' });
    expect(result.message).toMatch(
      /bomb\.mxl: entry score\.musicxml inflates to more than 100 times its compressed size .*; it was not read further; check that it is the right file, or export the score as uncompressed MusicXML/,
    );
    expect(result.peakRssMb, `peak RSS ${result.peakRssMb} MB`).toBeLessThan(MAX_PEAK_RSS_MB);
  });

  it('is refused when its header tells the truth, before inflating', async () => {
    const file = path.join(tmp, 'honest.mxl');
    await writeFile(file, makeMxlBomb({ mib: 100, declared: 100 * 1024 * 1024 }));
    await expect(engraveScore({ file, cacheDir: path.join(tmp, 'cache') })).rejects.toMatchObject({
      code: 'SC_ERR_SCORE_INVALID',
      message: expect.stringContaining('honest.mxl: entry score.musicxml inflates to more than 100 times'),
    });
  });
});

describe('zip entries', () => {
  const entry = (/** @type {Buffer} */ packed) => {
    const zip = readZip(zipPacked({ 'score.musicxml': { packed, size: 0, crc: 0 } }));
    if (!zip.ok) throw new Error(zip.message);
    return zip.entries[0];
  };

  // 1 MiB of pseudo-random markup: it deflates about 2.4:1, far under the ratio bound.
  let seed = 1;
  const text = Array.from({ length: 1024 * 1024 }, () => {
    seed = (seed * 48271) % 2147483647;
    return seed % 41 === 0 ? '\n' : '<note/>'[seed % 7];
  }).join('');

  it('inflate up to the notation bound at a ratio a score has', () => {
    expect(entry(repeatedDeflate('', text, 60, '')).read().length).toBe(60 * 1024 * 1024);
  });

  it(`stop past the notation bound (${formatBytes(PACKAGE_LIMITS.notationBytes)}) at any ratio`, () => {
    const blocks = Math.ceil(PACKAGE_LIMITS.notationBytes / (1024 * 1024)) + 4;
    const packed = repeatedDeflate('', text, blocks, '');
    expect(() => entry(packed).read()).toThrow(
      `entry score.musicxml inflates to more than ${formatBytes(PACKAGE_LIMITS.notationBytes)}, the most a notation file may be`,
    );
  });
});

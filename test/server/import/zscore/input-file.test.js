// The importer's inputs are bounded before they are read: each kind of file has its bound, and a
// file past it is refused by its size on disk, naming the file, its size and the bound. The
// oversized files here are sparse: read whole, they would take the importer's memory.

import { cpSync, existsSync, mkdtempSync, truncateSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { formatBytes } from '../../../../core/package-limits.js';
import { importZScore } from '../../../../server/import/zscore/index.js';
import { INPUT_LIMITS } from '../../../../server/import/zscore/input-file.js';

const FIXTURE = path.join(path.dirname(fileURLToPath(import.meta.url)), '../../../fixtures/zscore/mini');

const MIB = 1024 * 1024;

describe('import-zscore inputs', () => {
  it.each([
    ['Mini_BeatInfo.csv', 150 * MIB, INPUT_LIMITS.scoreCsv],
    ['Mini_Violin_page2.png', INPUT_LIMITS.pagePng.bytes + 1, INPUT_LIMITS.pagePng],
    ['Mini_Cello_page1_BeatInfo.csv', INPUT_LIMITS.pageCsv.bytes + 1, INPUT_LIMITS.pageCsv],
    ['audienceScoreConfig.yml', 3 * MIB, INPUT_LIMITS.config],
  ])('refuses %s of %i bytes unread, naming its size and the bound', async (file, size, limit) => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'sc-zscore-big-'));
    const dir = path.join(root, 'export');
    cpSync(FIXTURE, dir, { recursive: true });
    truncateSync(path.join(dir, file), size);
    const out = path.join(root, 'package');
    await expect(importZScore(dir, out)).rejects.toMatchObject({
      code: 'SC_ERR_SCORE_INVALID',
      message: expect.stringContaining(
        `\n${file}: is ${formatBytes(size)}, more than the ${formatBytes(limit.bytes)} ${limit.what} may be; it was not read`,
      ),
    });
    expect(existsSync(out)).toBe(false);
  });

  it("refuses a granulator sound past an asset's bound by its size (5 GiB, sparse)", async () => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'sc-zscore-big-'));
    const dir = path.join(root, 'export');
    cpSync(FIXTURE, dir, { recursive: true });
    const sound = path.join(root, 'grains.wav');
    cpSync(path.join(dir, 'Mini_Violin_page1.png'), sound);
    truncateSync(sound, 5 * 1024 * MIB);
    await expect(importZScore(dir, path.join(root, 'package'), { granulatorSound: sound })).rejects.toMatchObject({
      message: expect.stringContaining(
        '\ngrains.wav: is 5 GiB, more than the 1 GiB a sound file may be; it was not read',
      ),
    });
  });
});

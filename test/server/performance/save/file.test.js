// The save file on disk: a round trip, a missing file told from a bad one, atomic writes.

import path from 'node:path';
import os from 'node:os';
import * as fsp from 'node:fs/promises';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { describe, it, expect } from 'vitest';
import { encodeSave } from '../../../../server/performance/save/format.js';
import { readSave, writeFileAtomic } from '../../../../server/performance/save/file.js';
import { payload } from '../../../helpers/saved-performance.js';

const tmpDir = () => mkdtempSync(path.join(os.tmpdir(), 'sc-persist-'));

describe('save file', () => {
  it('round-trips a payload through the file', async () => {
    const file = path.join(tmpDir(), 'deep', 'performance.json');
    await writeFileAtomic(file, encodeSave(payload()));
    expect(await readSave(file)).toEqual({ ok: true, payload: payload() });
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({
      format: 'scorecast-performance',
      version: 1,
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
  });

  it('tells a missing file from a bad one', async () => {
    const dir = tmpDir();
    expect(await readSave(path.join(dir, 'none.json'))).toEqual({ ok: false, missing: true });
    expect(await readSave(dir)).toMatchObject({ ok: false, missing: false, problem: 'it is not a file' });
  });
});

describe('atomic writes', () => {
  it('a failed write leaves the previous file whole and no temp file behind', async () => {
    const dir = tmpDir();
    const file = path.join(dir, 'performance.json');
    await writeFileAtomic(file, 'old');
    const failRename = {
      ...fsp,
      rename: async () => {
        throw new Error('disk gone');
      },
    };
    await expect(writeFileAtomic(file, 'new', failRename)).rejects.toThrow('disk gone');
    /** @type {any} */
    const failWrite = {
      ...fsp,
      /** @param {string} p @param {string} flags */
      open: async (p, flags) => {
        const h = await fsp.open(p, flags);
        return {
          writeFile: async () => {
            await h.writeFile('ne');
            throw new Error('no space left');
          },
          datasync: () => h.datasync(),
          close: () => h.close(),
        };
      },
    };
    await expect(writeFileAtomic(file, 'new', failWrite)).rejects.toThrow('no space left');
    expect(readFileSync(file, 'utf8')).toBe('old');
    expect(readdirSync(dir)).toEqual(['performance.json']);
  });

  it('a reader never sees a partial file while writes go on', async () => {
    const file = path.join(tmpDir(), 'performance.json');
    const texts = Array.from({ length: 30 }, (_, i) =>
      encodeSave(payload({ beat: i % 30, ballot: { open: null, closed: [], pad: 'x'.repeat(50_000 + i) } })),
    );
    await writeFileAtomic(file, texts[0]);
    let reads = 0;
    let writing = true;
    const reader = (async () => {
      while (writing) {
        expect((await readSave(file)).ok).toBe(true);
        reads++;
      }
    })();
    for (const t of texts) await writeFileAtomic(file, t);
    writing = false;
    await reader;
    expect(reads).toBeGreaterThan(0);
  });
});

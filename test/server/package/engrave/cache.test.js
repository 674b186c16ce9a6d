// The engraving cache: its size limit (least recently used entries go, entries in use stay), and
// a reader meeting an entry's completion.

import path from 'node:path';
import os from 'node:os';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { describe, expect, it, vi } from 'vitest';

import {
  INDEX,
  PENDING_TIMING,
  commitEntry,
  completeEntry,
  markUse,
  pendingFile,
  pruneCache,
  readEntry,
} from '../../../../server/package/engrave/cache.js';
import { FORMAT_VERSION } from '../../../../server/package/engrave/options.js';

/** A test may hold the cache's stat() of a file until it lets it go (a reader caught mid-way). */
const hold = vi.hoisted(() => ({ stat: /** @type {null | ((file: string) => Promise<void>)} */ (null) }));
vi.mock('node:fs/promises', async (importOriginal) => {
  const fs = /** @type {typeof import('node:fs/promises')} */ (await importOriginal());
  return {
    ...fs,
    /** @type {typeof fs.stat} */
    stat: /** @type {any} */ (
      async (/** @type {string} */ file, /** @type {any} */ options) => {
        if (hold.stat) await hold.stat(file);
        return fs.stat(file, options);
      }
    ),
  };
});

const KB = 1024;

/** A pid that belonged to a process that has exited. */
function deadPid() {
  return Number(
    spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout,
  );
}

/**
 * An entry of `kb` KB last used `minutesAgo` minutes ago.
 * @param {string} cacheDir @param {string} hash @param {number} kb @param {number} minutesAgo
 * @param {number[]} [users] pids with a use marker
 */
function entry(cacheDir, hash, kb, minutesAgo, users = []) {
  const dir = path.join(cacheDir, hash);
  mkdirSync(dir);
  writeFileSync(path.join(dir, 'score-1.svg'), Buffer.alloc(kb * KB - 2));
  writeFileSync(path.join(dir, INDEX), '{}');
  for (const pid of users) writeFileSync(path.join(dir, `.use-${pid}`), '');
  const t = new Date(Date.now() - minutesAgo * 60_000);
  utimesSync(path.join(dir, INDEX), t, t);
  return dir;
}

const hash = (/** @type {number} */ n) => n.toString(16).padStart(32, '0');

describe('engraving cache pruning', () => {
  it('removes the least recently used entries over the limit, never one in use or the newest', async () => {
    const cacheDir = mkdtempSync(path.join(os.tmpdir(), 'sc-cache-'));
    const gone = deadPid();
    entry(cacheDir, hash(1), 100, 1); // newest
    entry(cacheDir, hash(2), 100, 5);
    entry(cacheDir, hash(3), 100, 10, [process.pid]); // old, but this process serves it
    entry(cacheDir, hash(4), 100, 20, [gone]); // its user has exited
    entry(cacheDir, hash(5), 100, 30);
    mkdirSync(path.join(cacheDir, `.tmp-${hash(6)}-${process.pid}-x`)); // an engraving under way
    writeFileSync(path.join(cacheDir, 'notes.txt'), 'not an entry');

    const { removed, keptBytes } = await pruneCache(cacheDir, { maxBytes: 250 * KB });
    expect(removed.sort()).toEqual([hash(4), hash(5)]);
    expect(keptBytes).toBe(300 * KB);
    expect(readdirSync(cacheDir).sort()).toEqual(
      [hash(1), hash(2), hash(3), `.tmp-${hash(6)}-${process.pid}-x`, 'notes.txt'].sort(),
    );

    // The newest stays even when it alone is over the limit.
    const again = await pruneCache(cacheDir, { maxBytes: 10 * KB });
    expect(again.removed).toEqual([hash(2)]);
    expect(
      readdirSync(cacheDir)
        .filter((n) => /^[0-9a-f]{32}$/.test(n))
        .sort(),
    ).toEqual([hash(1), hash(3)]);
  });

  it('a use makes an entry the most recent and marks it for this process', async () => {
    const cacheDir = mkdtempSync(path.join(os.tmpdir(), 'sc-cache-'));
    entry(cacheDir, hash(1), 100, 1);
    const old = entry(cacheDir, hash(2), 100, 60);
    await markUse(old);
    expect(readdirSync(old)).toContain(`.use-${process.pid}`);
    // Only one fits: the one just used is the newest now, and the other is not in use.
    const { removed } = await pruneCache(cacheDir, { maxBytes: 150 * KB });
    expect(removed).toEqual([hash(1)]);
  });

  it('an empty or missing cache folder is nothing to prune', async () => {
    expect(await pruneCache(path.join(os.tmpdir(), 'sc-cache-missing-folder'))).toEqual({ removed: [], keptBytes: 0 });
  });

  it("a reader caught between an entry's completion and its old index gets an entry, and never removes it", async () => {
    // A reload read the pending entry's index, then stat'ed its _pending files just after the
    // completion removed them, took the entry for damaged and removed the folder the
    // performance's pages were served from.
    const cacheDir = mkdtempSync(path.join(os.tmpdir(), 'sc-cache-'));
    const view = { pages: [{ file: 'score-1.svg', width: 10, height: 10 }], staff: 1, ink: [], beats: [] };
    const base = { format: FORMAT_VERSION, verovio: 'test', bars: [], warnings: [], views: { score: view } };
    const h = hash(1);
    const dir = path.join(cacheDir, h);
    const tmp = mkdtempSync(path.join(cacheDir, '.tmp-'));
    writeFileSync(path.join(tmp, 'score-1.svg'), '<svg/>');
    writeFileSync(path.join(tmp, PENDING_TIMING), '{}');
    writeFileSync(path.join(tmp, pendingFile('p0')), '<mei/>');
    await commitEntry(tmp, dir, { ...base, hash: h, pending: { layouts: ['narrow'], parts: ['p0'] } });
    const layouts = mkdtempSync(path.join(cacheDir, '.tmp-'));
    writeFileSync(path.join(layouts, 'p0-narrow-1.svg'), '<svg/>');

    /** @type {() => void} */
    let release = () => {};
    const released = new Promise((/** @type {(v?: unknown) => void} */ r) => {
      release = r;
    });
    /** @type {() => void} */
    let reached = () => {};
    const atStat = new Promise((/** @type {(v?: unknown) => void} */ r) => {
      reached = r;
    });
    hold.stat = async (file) => {
      if (!path.basename(file).startsWith('_pending-')) return;
      reached();
      await released;
    };
    try {
      const reading = readEntry(dir, h); // has read the pending index; waits at its files
      await atStat;
      hold.stat = null;
      await completeEntry(layouts, dir, { ...base, hash: h });
      release();
      expect(await reading).toMatchObject({ hash: h });
    } finally {
      hold.stat = null;
      release();
    }
    const after = await readEntry(dir, h);
    expect(after).toMatchObject({ hash: h });
    expect(after?.pending).toBeUndefined();
  });
});

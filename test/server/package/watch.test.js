// The package watcher reloads once per burst of saves and never runs two reloads at once: a
// save during a long reload is answered by one more reload after it.

import path from 'node:path';
import os from 'node:os';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { describe, it, expect, afterEach } from 'vitest';
import { watchPackage } from '../../../server/package/watch.js';

const log = { warn: () => {} };
/** @type {{ close: () => void }[]} */
let watchers = [];
afterEach(() => {
  for (const w of watchers) w.close();
  watchers = [];
});

/** @param {() => boolean} cond */
async function until(cond, ms = 5000) {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('package watcher', () => {
  it('runs one reload at a time, and one more for the saves made during it', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'sc-watch-'));
    let active = 0;
    let most = 0;
    let calls = 0;
    /** @type {(() => void)[]} */
    const finish = [];
    const w = watchPackage(
      dir,
      () => {
        calls++;
        active++;
        most = Math.max(most, active);
        return new Promise((resolve) => {
          finish.push(() => {
            active--;
            resolve(undefined);
          });
        });
      },
      log,
      { settleMs: 20 },
    );
    watchers.push(w);
    writeFileSync(path.join(dir, 'score.yaml'), 'a');
    await until(() => calls === 1);
    // Three saves while the first reload runs.
    for (const text of ['b', 'c', 'd']) {
      writeFileSync(path.join(dir, 'score.yaml'), text);
      await new Promise((r) => setTimeout(r, 60));
    }
    // Past any settle time: the saves have been seen, and wait for the running reload.
    await new Promise((r) => setTimeout(r, 400));
    expect(calls).toBe(1);
    /** @type {() => void} */ (finish.shift())();
    await until(() => calls === 2);
    /** @type {() => void} */ (finish.shift())();
    await new Promise((r) => setTimeout(r, 100));
    expect(calls).toBe(2);
    expect(most).toBe(1);
  });

  it('keeps watching after a reload that fails', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'sc-watch-'));
    let calls = 0;
    watchers.push(
      watchPackage(
        dir,
        () => {
          calls++;
          throw new Error('broken package');
        },
        log,
        { settleMs: 20 },
      ),
    );
    writeFileSync(path.join(dir, 'score.yaml'), 'a');
    await until(() => calls === 1);
    writeFileSync(path.join(dir, 'score.yaml'), 'b');
    await until(() => calls === 2);
  });
});

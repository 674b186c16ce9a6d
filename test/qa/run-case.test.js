// The server a QA run measures: whether it is still running is read when asked, so that a stress
// run stops at a server that died and a case records it.

import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { acquireServer } from '../../artillery/lib/run-case.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

describe('acquireServer', () => {
  it('says the server exited once it has', async () => {
    const server = await acquireServer({
      root: ROOT,
      dir: mkdtempSync(path.join(os.tmpdir(), 'sc-qa-')),
      log: () => {},
    });
    try {
      expect(server.exited).toBe(false);
      process.kill(/** @type {number} */ (server.pid), 'SIGKILL');
      for (let i = 0; i < 100 && !server.exited; i++) await new Promise((r) => setTimeout(r, 50));
      expect(server.exited).toBe(true);
    } finally {
      await server.stop();
    }
  }, 60_000);

  it('a given target is taken as it is, with no process of ours', async () => {
    const server = await acquireServer({
      target: 'http://127.0.0.1:8080/',
      root: ROOT,
      dir: os.tmpdir(),
      log: () => {},
    });
    expect(server).toMatchObject({ url: 'http://127.0.0.1:8080', pid: undefined, source: 'external' });
  });
});

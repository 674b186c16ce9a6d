import path from 'node:path';
import os from 'node:os';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { describe, it, expect, afterEach } from 'vitest';
import { buildApp } from '../../../server/app.js';
import { loadPackage } from '../../../server/package/load.js';

const HOSTILE = new URL('../../fixtures/hostile/', import.meta.url).pathname;

/** A fake build with the four pages. */
function fakeBuild() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sc-csp-'));
  mkdirSync(path.join(dir, 'assets'));
  for (const page of ['index', 'conduct', 'preview'])
    writeFileSync(path.join(dir, `${page}.html`), `<!doctype html><title>${page}</title>`);
  writeFileSync(path.join(dir, 'sw.js'), 'self.__SCORECAST_BUILD__={"version":"a","files":["/"]};\n');
  return dir;
}

/** @type {import('fastify').FastifyInstance[]} */
let apps = [];
afterEach(async () => {
  for (const a of apps) await a.close();
  apps = [];
});

async function build() {
  const score = await loadPackage(HOSTILE, { cacheDir: mkdtempSync(path.join(os.tmpdir(), 'sc-cache-')) });
  const { app } = await buildApp({ score, token: 'tok-123456789', clientDir: fakeBuild() });
  apps.push(app);
  return { app, score };
}

/**
 * The directives of a policy header.
 * @param {unknown} header
 * @returns {Record<string, string[]>}
 */
const directives = (header) =>
  Object.fromEntries(
    String(header)
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .map(([name, ...values]) => [name, values]),
  );

describe('security headers', () => {
  it('gives every page a policy that runs only our own scripts and talks only to this host', async () => {
    const { app } = await build();
    for (const url of ['/', '/view/score', '/preview', '/conduct']) {
      const res = await app.inject({ url, headers: { host: 'venue.local:8080' } });
      expect(res.statusCode, url).toBe(200);
      const csp = directives(res.headers['content-security-policy']);
      expect(csp['script-src'], url).toEqual(["'self'"]);
      expect(csp['default-src'], url).toEqual(["'self'"]);
      expect(csp['connect-src'], url).toEqual(["'self'", 'ws://venue.local:8080', 'wss://venue.local:8080']);
      expect(csp['img-src'], url).toEqual(["'self'", 'data:']);
      expect(csp['media-src'], url).toEqual(["'self'"]);
      expect(csp['object-src'], url).toEqual(["'none'"]);
      expect(csp['frame-ancestors'], url).toEqual(["'self'"]);
      expect(res.headers['x-content-type-options'], url).toBe('nosniff');
    }
  });

  it('keeps the policy on a 304 revalidation, which the service worker stores', async () => {
    const { app } = await build();
    const first = await app.inject('/');
    const again = await app.inject({ url: '/', headers: { 'if-none-match': String(first.headers.etag) } });
    expect(again.statusCode).toBe(304);
    expect(directives(again.headers['content-security-policy'])['script-src']).toEqual(["'self'"]);
  });

  it('does not let a forged Host header write into the policy', async () => {
    const { app } = await build();
    const res = await app.inject({ url: '/', headers: { host: "x; script-src * 'unsafe-inline'" } });
    const csp = directives(res.headers['content-security-policy']);
    expect(csp['connect-src']).toEqual(["'self'"]);
    expect(csp['script-src']).toEqual(["'self'"]);
  });

  it('serves score files with no script and no fetches even when opened as a document', async () => {
    const { app, score } = await build();
    const res = await app.inject(score.views.score.pages[0].url);
    expect(res.statusCode).toBe(200);
    const csp = directives(res.headers['content-security-policy']);
    expect(csp['default-src']).toEqual(["'none'"]);
    expect(csp).toHaveProperty('sandbox');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
  });
});

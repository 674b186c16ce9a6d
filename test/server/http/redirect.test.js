// The plain-HTTP listener beside HTTPS (server/http/redirect.js, `--http-port`): every request
// goes to the venue's HTTPS address, whatever host it named; the phones' checks open the HTTPS
// audience page first and are answered as the internet once the phone has loaded it over HTTPS.

import path from 'node:path';
import { mkdtempSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import { describe, it, expect, afterEach } from 'vitest';
import { buildApp } from '../../../server/app.js';
import { loadPackage } from '../../../server/package/load.js';
import { redirectTarget } from '../../../server/http/redirect.js';
import { CHECKS } from '../../../server/http/captive-portal.js';

const PKG = new URL('../../fixtures/pkg/', import.meta.url).pathname;
const ORIGIN = 'https://score.venue.test';
/** @type {import('fastify').FastifyInstance[]} */
const apps = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((a) => a.close()));
});

async function build() {
  const score = await loadPackage(PKG, { cacheDir: mkdtempSync(path.join(os.tmpdir(), 'sc-cache-')) });
  const clientDir = mkdtempSync(path.join(os.tmpdir(), 'sc-client-'));
  writeFileSync(path.join(clientDir, 'index.html'), '<!doctype html><title>scorecast</title>');
  const { app, redirect } = await buildApp({
    score,
    token: 'tok-123456789',
    clientDir,
    httpRedirect: { origin: ORIGIN },
  });
  apps.push(app);
  if (!redirect) throw new Error('no redirect app');
  return { app, redirect };
}

describe('plain HTTP beside HTTPS', () => {
  it('sends every request to the same path and query under the venue name, never the Host asked for', async () => {
    const { redirect } = await build();
    for (const host of ['score.venue.test', 'evil.example', '10.18.0.2:80', 'score.venue.test.evil.example']) {
      const r = await redirect.inject({ method: 'GET', url: '/view/score?x=1&y=%2F', headers: { host } });
      expect([r.statusCode, r.headers.location]).toEqual([307, `${ORIGIN}/view/score?x=1&y=%2F`]);
      expect(r.headers['cache-control']).toBe('no-store');
    }
    // Other methods keep theirs (307), with the body the client sends again over HTTPS.
    const post = await redirect.inject({
      method: 'POST',
      url: '/api/tap',
      headers: { host: 'evil.example', 'content-type': 'application/json' },
      payload: '{"tile":1}',
    });
    expect([post.statusCode, post.headers.location]).toEqual([307, `${ORIGIN}/api/tap`]);
    const head = await redirect.inject({ method: 'HEAD', url: '/', headers: { host: 'evil.example' } });
    expect([head.statusCode, head.headers.location]).toEqual([307, `${ORIGIN}/`]);
  });

  it('a request in absolute form, over a real socket, goes to the audience page at the venue name', async () => {
    const { redirect } = await build();
    await redirect.listen({ port: 0, host: '127.0.0.1' });
    const { port } = /** @type {import('node:net').AddressInfo} */ (redirect.server.address());
    const head = await new Promise((resolve, reject) => {
      const socket = net.connect(port, '127.0.0.1', () =>
        socket.write('GET http://evil.example/steal?x=1 HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n'),
      );
      let text = '';
      socket.on('data', (d) => {
        text += d;
      });
      socket.on('end', () => resolve(text.split('\r\n\r\n')[0]));
      socket.on('error', reject);
    });
    expect(head).toMatch(/^HTTP\/1\.1 307 /);
    expect(head).toMatch(new RegExp(`\r\nlocation: ${ORIGIN}/\r\n`, 'i'));
  });

  it('a request target that is not a path goes to the audience page, not to the host it names', () => {
    expect(redirectTarget(ORIGIN, 'http://evil.example/x')).toBe(`${ORIGIN}/`);
    expect(redirectTarget(ORIGIN, '//evil.example/x')).toBe(`${ORIGIN}/`);
    expect(redirectTarget(ORIGIN, '*')).toBe(`${ORIGIN}/`);
    expect(redirectTarget(ORIGIN, '/a?b=c')).toBe(`${ORIGIN}/a?b=c`);
  });

  for (const check of CHECKS) {
    it(`${check.os} ${check.path}: opens the HTTPS audience page, then answers as the internet once it was loaded over HTTPS`, async () => {
      const { app, redirect } = await build();
      const ip = '10.18.2.77';
      const probe = () =>
        redirect.inject({ method: 'GET', url: check.path, remoteAddress: ip, headers: { host: 'captive.example' } });
      const first = await probe();
      expect([first.statusCode, first.headers.location]).toEqual([302, `${ORIGIN}/`]);
      expect(first.headers['cache-control']).toBe('no-store');
      // The join sheet loads the page on the HTTPS listener.
      const page = await app.inject({
        method: 'GET',
        url: '/',
        remoteAddress: ip,
        headers: { host: 'score.venue.test' },
      });
      expect(page.statusCode).toBe(200);
      const again = await probe();
      expect(again.statusCode).toBe(check.status);
      expect(again.body).toBe(check.body);
      // Another phone has not loaded it.
      const other = await redirect.inject({ method: 'GET', url: check.path, remoteAddress: '10.18.2.78' });
      expect(other.statusCode).toBe(302);
    });
  }

  it("Windows' portal page goes to the HTTPS audience page", async () => {
    const { redirect } = await build();
    const r = await redirect.inject({ method: 'GET', url: '/redirect', headers: { host: 'www.msftconnecttest.com' } });
    expect([r.statusCode, r.headers.location]).toEqual([302, `${ORIGIN}/`]);
  });

  it('is closed with the app', async () => {
    const { app, redirect } = await build();
    await redirect.listen({ port: 0, host: '127.0.0.1' });
    await app.close();
    expect(redirect.server.listening).toBe(false);
  });
});

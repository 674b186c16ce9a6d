// Connectivity checks of phones on the venue's guest network (server/http/captive-portal.js), as the
// router's NAT delivers them: each OS's request shape, with its Host and User-Agent.

import path from 'node:path';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { describe, it, expect, afterEach } from 'vitest';
import { buildApp } from '../../../server/app.js';
import { loadPackage } from '../../../server/package/load.js';
import { createFakeClock } from '../../helpers/fake-clock.js';
import { ACCEPTED_MS } from '../../../server/http/captive-portal.js';

const PKG = new URL('../../fixtures/pkg/', import.meta.url).pathname;
/** @type {import('fastify').FastifyInstance[]} */
const apps = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((a) => a.close()));
});

async function build() {
  const score = await loadPackage(PKG, { cacheDir: mkdtempSync(path.join(os.tmpdir(), 'sc-cache-')) });
  const clientDir = mkdtempSync(path.join(os.tmpdir(), 'sc-client-'));
  writeFileSync(path.join(clientDir, 'index.html'), '<!doctype html><title>scorecast</title>');
  const clock = createFakeClock();
  const { app } = await buildApp({ score, token: 'tok-123456789', clientDir, clock });
  apps.push(app);
  return { app, clock };
}

/** Requests shaped like each OS's check (host and path from the OS; user agents as they send them). */
const PHONES = {
  android: {
    host: 'connectivitycheck.gstatic.com',
    url: '/generate_204',
    ua: 'Dalvik/2.1.0 (Linux; U; Android 14; Pixel 7 Build/UQ1A.240205.004)',
    ok: { status: 204, body: '' },
  },
  androidGoogle: {
    host: 'www.google.com',
    url: '/gen_204',
    ua: 'Mozilla/5.0 (Linux; Android 13; SM-A536B) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Mobile Safari/537.36',
    ok: { status: 204, body: '' },
  },
  ios: {
    host: 'captive.apple.com',
    url: '/hotspot-detect.html',
    ua: 'CaptiveNetworkSupport-481.100.1 wispr',
    ok: { status: 200, body: '<HTML><HEAD><TITLE>Success</TITLE></HEAD><BODY>Success</BODY></HTML>' },
  },
  macos: {
    host: 'www.apple.com',
    url: '/library/test/success.html',
    ua: 'CaptiveNetworkSupport-407.0.1 wispr',
    ok: { status: 200, body: '<HTML><HEAD><TITLE>Success</TITLE></HEAD><BODY>Success</BODY></HTML>' },
  },
  windows: {
    host: 'www.msftconnecttest.com',
    url: '/connecttest.txt',
    ua: 'Microsoft NCSI',
    ok: { status: 200, body: 'Microsoft Connect Test' },
  },
  windowsOld: {
    host: 'www.msftncsi.com',
    url: '/ncsi.txt',
    ua: 'Microsoft NCSI',
    ok: { status: 200, body: 'Microsoft NCSI' },
  },
};

/**
 * @param {import('fastify').FastifyInstance} app
 * @param {{ host: string, url: string, ua: string }} phone
 * @param {string} ip
 */
const check = (app, phone, ip) =>
  app.inject({
    method: 'GET',
    url: phone.url,
    remoteAddress: ip,
    headers: { host: phone.host, 'user-agent': phone.ua },
  });

describe('captive portal', () => {
  for (const [name, phone] of Object.entries(PHONES)) {
    it(`${name}: offers the audience page first, then answers as the internet once the page was opened`, async () => {
      const { app } = await build();
      const ip = '10.18.2.77';
      const first = await check(app, phone, ip);
      expect(first.statusCode).toBe(302);
      // Relative: the phone comes back through the same NAT, under the check's own host name.
      expect(first.headers.location).toBe('/');
      expect(first.headers['cache-control']).toBe('no-store');
      const page = await app.inject({
        method: 'GET',
        url: first.headers.location,
        remoteAddress: ip,
        headers: { host: phone.host, 'user-agent': phone.ua },
      });
      expect(page.statusCode).toBe(200);
      expect(page.body).toContain('<title>scorecast</title>');
      const again = await check(app, phone, ip);
      expect(again.statusCode).toBe(phone.ok.status);
      expect(again.body).toBe(phone.ok.body);
    });
  }

  it('answers per address: a phone that has not opened the page still gets the redirect', async () => {
    const { app } = await build();
    await app.inject({ method: 'GET', url: '/', remoteAddress: '10.18.2.10' });
    expect((await check(app, PHONES.ios, '10.18.2.10')).statusCode).toBe(200);
    expect((await check(app, PHONES.ios, '10.18.2.11')).statusCode).toBe(302);
  });

  it('a view page counts as opened; an asset or an error page does not', async () => {
    const { app } = await build();
    await app.inject({ method: 'GET', url: '/view/nosuchview', remoteAddress: '10.18.2.12' });
    await app.inject({ method: 'GET', url: '/api/score', remoteAddress: '10.18.2.12' });
    expect((await check(app, PHONES.android, '10.18.2.12')).statusCode).toBe(302);
    await app.inject({ method: 'GET', url: '/view/score', remoteAddress: '10.18.2.12' });
    expect((await check(app, PHONES.android, '10.18.2.12')).statusCode).toBe(204);
  });

  it("forgets an address after ACCEPTED_MS, and Windows' portal page goes to the audience page", async () => {
    const { app, clock } = await build();
    await app.inject({ method: 'GET', url: '/', remoteAddress: '10.18.2.13' });
    clock.advance(ACCEPTED_MS + 1);
    expect((await check(app, PHONES.windows, '10.18.2.13')).statusCode).toBe(302);
    const r = await app.inject({
      method: 'GET',
      url: '/redirect',
      remoteAddress: '10.18.2.13',
      headers: { host: 'www.msftconnecttest.com' },
    });
    expect([r.statusCode, r.headers.location]).toEqual([302, '/']);
  });
});

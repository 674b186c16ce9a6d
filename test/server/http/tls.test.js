// The HTTPS certificate (server/http/tls.js): what is refused at start, what is only warned about,
// and a renewal taken up by a running server without a restart, a broken one never.

import { describe, it, expect, beforeAll, afterAll, afterEach } from 'vitest';
import { chmodSync, copyFileSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import https from 'node:https';
import tls from 'node:tls';
import path from 'node:path';
import { checkTls, readTls, watchTls, EXPIRY_WARNING_MS } from '../../../server/http/tls.js';
import { testCa, VENUE } from '../../helpers/tls-certs.js';

const DAY = 24 * 3600_000;
/** @type {ReturnType<typeof testCa>} */
let ca;
/** @type {Record<string, import('../../helpers/tls-certs.js').Leaf>} */
const leaves = {};
beforeAll(() => {
  ca = testCa();
  leaves.venue = ca.leaf({ name: VENUE, hosts: [VENUE, '10.77.0.2'] });
  leaves.renewed = ca.leaf({ name: VENUE, file: 'renewed' });
  leaves.soon = ca.leaf({ name: VENUE, days: 3, file: 'soon' });
  leaves.expired = ca.leaf({ name: VENUE, days: -1, file: 'expired' });
  leaves.other = ca.leaf({ name: 'other.example.org' });
});
afterAll(() => rmSync(ca.dir, { recursive: true, force: true }));

/** @param {import('../../helpers/tls-certs.js').Leaf} leaf */
const contents = (leaf) => ({ cert: readFileSync(leaf.cert), key: readFileSync(leaf.key) });

describe('checkTls', () => {
  it('passes a pair for the venue name, with its fingerprint and no warning', () => {
    const r = checkTls({ ...contents(leaves.venue), now: Date.now(), hosts: [VENUE, '10.77.0.2'] });
    expect(r.ok && r.value.warnings).toEqual([]);
    expect(r.ok && r.value.fingerprint).toBe(leaves.venue.fingerprint);
  });

  it('warns, one line naming the date, about a certificate that expires within 14 days', () => {
    const r = checkTls({ ...contents(leaves.soon), now: Date.now(), hosts: [VENUE], files: leaves.soon });
    expect(r.ok).toBe(true);
    const warnings = r.ok ? r.value.warnings : [];
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^the certificate \S+soon\.pem expires on \d{4}-\d\d-\d\d \(in 2 days\): renew it/);
    // The boundary, on a certificate of 30 days: 13 days before its end warned, 15 days not.
    const venue = checkTls({ ...contents(leaves.venue), now: Date.now() });
    const end = venue.ok ? venue.value.validTo.getTime() : 0;
    const at = (/** @type {number} */ now) => {
      const r = checkTls({ ...contents(leaves.venue), now });
      return r.ok ? r.value.warnings : [];
    };
    expect(at(end - 13 * DAY)).toEqual([expect.stringMatching(/expires on .* \(in 13 days\)/)]);
    expect(at(end - EXPIRY_WARNING_MS - DAY)).toEqual([]);
  });

  it('warns when the certificate does not name the host phones open (a name or an address)', () => {
    const r = checkTls({ ...contents(leaves.other), now: Date.now(), hosts: [VENUE] });
    expect(r.ok && r.value.warnings).toEqual([
      expect.stringMatching(/does not name score\.venue\.test \(it names DNS:other\.example\.org\): phones opening/),
    ]);
    const byAddress = checkTls({ ...contents(leaves.venue), now: Date.now(), hosts: ['10.77.0.3'] });
    expect(byAddress.ok && byAddress.value.warnings).toEqual([expect.stringMatching(/does not name 10\.77\.0\.3/)]);
  });

  it('refuses an expired certificate, a key of another certificate, and what is not PEM', () => {
    const expired = checkTls({ ...contents(leaves.expired), now: Date.now(), files: leaves.expired });
    expect(!expired.ok && expired.error.code).toBe('SC_ERR_TLS_EXPIRED');
    expect(!expired.ok && expired.error.message).toMatch(/expired\.pem expired on \d{4}-/);
    const mismatch = checkTls({ cert: contents(leaves.venue).cert, key: contents(leaves.other).key, now: Date.now() });
    expect(!mismatch.ok && mismatch.error.code).toBe('SC_ERR_TLS_KEY_MISMATCH');
    const garbage = checkTls({ cert: Buffer.from('not a certificate'), key: contents(leaves.venue).key, now: 0 });
    expect(!garbage.ok && garbage.error.code).toBe('SC_ERR_TLS_NOT_PEM');
    const keyless = checkTls({ cert: contents(leaves.venue).cert, key: contents(leaves.venue).cert, now: 0 });
    expect(!keyless.ok && keyless.error.message).toMatch(/holds no PEM private key/);
    const broken = Buffer.from('-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n');
    expect(checkTls({ cert: broken, key: contents(leaves.venue).key, now: 0 }).ok).toBe(false);
  });

  it('refuses an encrypted key, saying so', () => {
    const encrypted = path.join(ca.dir, 'encrypted.key');
    execFileSync('openssl', ['pkey', '-in', leaves.venue.key, '-aes256', '-passout', 'pass:secret', '-out', encrypted]);
    const r = checkTls({ cert: contents(leaves.venue).cert, key: readFileSync(encrypted), now: Date.now() });
    expect(!r.ok && r.error).toMatchObject({ code: 'SC_ERR_TLS_NOT_PEM', message: expect.stringMatching(/encrypted/) });
  });
});

describe('readTls', () => {
  it('names the file that is missing or cannot be read', () => {
    const missing = readTls({ cert: path.join(ca.dir, 'nope.pem'), key: leaves.venue.key }, { now: Date.now() });
    expect(!missing.ok && missing.error).toMatchObject({
      code: 'SC_ERR_TLS_UNREADABLE',
      message: expect.stringMatching(/certificate \S+nope\.pem: no such file\)$/),
    });
    const folder = readTls({ cert: leaves.venue.cert, key: ca.dir }, { now: Date.now() });
    expect(!folder.ok && folder.error.code).toBe('SC_ERR_TLS_UNREADABLE');
    expect(!folder.ok && folder.error.message).toContain(`key ${ca.dir}`);
  });
});

describe('watchTls: a renewal without a restart', () => {
  /** @type {(() => void)[]} */
  const cleanup = [];
  afterEach(() => {
    for (const f of cleanup.splice(0)) f();
  });

  /** An HTTPS server on loopback serving the pair in a folder of its own, watched. */
  async function served({ debounceMs = 50, signal = /** @type {NodeJS.Signals | null} */ (null) } = {}) {
    const dir = path.join(ca.dir, `live-${Math.random().toString(36).slice(2)}`);
    mkdirSync(dir);
    const files = { cert: path.join(dir, 'fullchain.pem'), key: path.join(dir, 'privkey.pem') };
    copyFileSync(leaves.venue.cert, files.cert);
    copyFileSync(leaves.venue.key, files.key);
    const first = readTls(files, { now: Date.now() });
    if (!first.ok) throw new Error(first.error.message);
    const server = https.createServer({ cert: first.value.cert, key: first.value.key }, (_req, res) => res.end('ok'));
    await new Promise((r) => server.listen(0, '127.0.0.1', () => r(undefined)));
    /** @type {string[]} */
    const logged = [];
    const watcher = watchTls({
      files,
      initial: first.value,
      server,
      now: Date.now,
      hosts: [VENUE],
      log: { info: (m) => logged.push(`info: ${m}`), warn: (m) => logged.push(`warn: ${m}`) },
      signal,
      debounceMs,
    });
    cleanup.push(() => {
      watcher.close();
      server.close();
      server.closeAllConnections();
    });
    const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
    /** The fingerprint a new connection is shown. @returns {Promise<string>} */
    const shown = () =>
      new Promise((resolve, reject) => {
        const socket = tls.connect(
          { host: '127.0.0.1', port, servername: VENUE, ca: readFileSync(ca.ca), checkServerIdentity: () => undefined },
          () => {
            resolve(socket.getPeerX509Certificate()?.fingerprint256 ?? '');
            socket.destroy();
          },
        );
        socket.once('error', reject);
      });
    /** Wait (at most 5 s) until new connections are shown `fingerprint`. */
    const until = async (/** @type {string} */ fingerprint) => {
      for (let i = 0; i < 100; i++) {
        if ((await shown()) === fingerprint) return true;
        await new Promise((r) => setTimeout(r, 50));
      }
      return false;
    };
    /** Replace a file the way certbot does: write beside it, rename over it. */
    const replace = (/** @type {'cert' | 'key'} */ which, /** @type {string | Buffer} */ data) => {
      const tmp = `${files[which]}.new`;
      writeFileSync(tmp, data);
      renameSync(tmp, files[which]);
    };
    return { files, logged, watcher, shown, until, replace };
  }

  it('serves the new certificate once its files are replaced; a broken replacement leaves it serving, logged', async () => {
    const s = await served();
    expect(await s.shown()).toBe(leaves.venue.fingerprint);
    // Key first, then the certificate: in between the pair does not match, and is not taken.
    s.replace('key', readFileSync(leaves.renewed.key));
    s.replace('cert', readFileSync(leaves.renewed.cert));
    expect(await s.until(leaves.renewed.fingerprint)).toBe(true);
    expect(s.logged).toContain(
      `info: certificate reloaded: ${leaves.renewed.fingerprint}, valid to ${s.watcher.current().validTo.toISOString().slice(0, 10)}`,
    );

    s.replace('cert', 'garbage');
    await expect
      .poll(() => s.logged.at(-1), { timeout: 5000 })
      .toMatch(
        /^warn: certificate reload refused \(SC_ERR_TLS_NOT_PEM\): .*fullchain\.pem holds no PEM certificate.*; still serving the certificate /,
      );
    expect(await s.shown()).toBe(leaves.renewed.fingerprint);
    // An expired renewal, and a key of another certificate: refused the same way.
    s.replace('cert', readFileSync(leaves.expired.cert));
    s.replace('key', readFileSync(leaves.expired.key));
    await expect.poll(() => s.logged.at(-1), { timeout: 5000 }).toMatch(/refused \(SC_ERR_TLS_EXPIRED\)/);
    expect(s.watcher.reload().ok).toBe(false);
    s.replace('cert', readFileSync(leaves.venue.cert));
    await expect.poll(() => s.logged.at(-1), { timeout: 5000 }).toMatch(/refused \(SC_ERR_TLS_KEY_MISMATCH\)/);
    expect(await s.shown()).toBe(leaves.renewed.fingerprint);
  });

  it('reads the files again on SIGHUP, and warns about a renewal that does not name the venue', async () => {
    // A debounce far longer than the test: only the signal can have reloaded.
    const s = await served({ debounceMs: 600_000, signal: 'SIGHUP' });
    s.replace('key', readFileSync(leaves.other.key));
    s.replace('cert', readFileSync(leaves.other.cert));
    expect(await s.shown()).toBe(leaves.venue.fingerprint);
    process.kill(process.pid, 'SIGHUP');
    expect(await s.until(leaves.other.fingerprint)).toBe(true);
    expect(s.logged.filter((l) => l.startsWith('warn:'))).toEqual([
      expect.stringMatching(/^warn: the certificate \S+fullchain\.pem does not name score\.venue\.test/),
    ]);
  });

  it('an unchanged pair read again is neither swapped nor logged', async () => {
    const s = await served();
    expect(s.watcher.reload().ok).toBe(true);
    chmodSync(s.files.cert, 0o644);
    await new Promise((r) => setTimeout(r, 200));
    expect(s.logged).toEqual([]);
  });
});

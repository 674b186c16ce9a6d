// `scorecast start` with HTTPS under a venue name: the banner and the QR code give the HTTPS venue
// address, plain HTTP is redirected there, a certificate phones would refuse stops the start
// (exit 2, the file named) or is warned about, and a renewed one is taken up without a restart.

import { describe, it, expect, beforeAll, afterAll, afterEach } from 'vitest';
import { copyFileSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import tls from 'node:tls';
import path from 'node:path';
import QRCode from 'qrcode';
import { testCa, VENUE } from '../../helpers/tls-certs.js';
import { forkStart } from '../../helpers/fork-start.js';

const SCORE = new URL('../../../scores/seed-profile', import.meta.url).pathname;

/** @type {ReturnType<typeof testCa>} */
let ca;
/** @type {Record<string, import('../../helpers/tls-certs.js').Leaf>} */
const leaves = {};
beforeAll(() => {
  ca = testCa();
  leaves.venue = ca.leaf({ name: VENUE });
  leaves.renewed = ca.leaf({ name: VENUE, file: 'renewed' });
  leaves.soon = ca.leaf({ name: VENUE, days: 3, file: 'soon' });
  leaves.expired = ca.leaf({ name: VENUE, days: -1, file: 'expired' });
  leaves.other = ca.leaf({ name: 'other.example.org' });
});
afterAll(() => rmSync(ca.dir, { recursive: true, force: true }));

/** @type {import('node:child_process').ChildProcess[]} */
const children = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

/**
 * Start the server with these flags on loopback, port 0.
 * @param {string[]} args @param {Record<string, string>} [env]
 * @returns {{ child: import('node:child_process').ChildProcess, stdout: () => string, stderr: () => string,
 *   listening: Promise<{ port: number, url: string, httpPort: number | null }>, exited: Promise<number | null> }}
 */
function start(args, env = {}) {
  const s = forkStart(
    ['--port', '0', '--host', '127.0.0.1', '--score', SCORE, '--autoplay', '--log-level', 'warn', ...args],
    { env: { SCORECAST_TOKEN: 'tls-token-123', NO_COLOR: '', ...env } },
  );
  children.push(s.child);
  // The banner is written before the message; wait for it to arrive.
  const listening = s.listening.then(
    (m) =>
      new Promise((resolve) => {
        const wait = () => (s.stderr().includes('control:') ? resolve(m) : setTimeout(wait, 10));
        wait();
      }),
  );
  listening.catch(() => {});
  return {
    child: s.child,
    stdout: s.stdout,
    stderr: s.stderr,
    listening: /** @type {any} */ (listening),
    exited: s.exited,
  };
}

/** The fingerprint a new TLS connection to `port` is shown. @param {number} port @returns {Promise<string>} */
const shown = (port) =>
  new Promise((resolve, reject) => {
    const socket = tls.connect({ host: '127.0.0.1', port, servername: VENUE, ca: readFileSync(ca.ca) }, () => {
      resolve(socket.getPeerX509Certificate()?.fingerprint256 ?? '');
      socket.destroy();
    });
    socket.once('error', reject);
  });

/**
 * The server's messages on stderr (its errors and warnings, each one line starting `scorecast:`),
 * less the warning about this machine's Node version: not the banner or the QR code, which share
 * stderr with them.
 * @param {string} text
 */
const lines = (text) =>
  text
    .trim()
    .split('\n')
    .filter((l) => l.startsWith('scorecast:') && !/^scorecast: warning: Node \d+\.\d+\.\d+ /.test(l));

const tlsArgs = (/** @type {import('../../helpers/tls-certs.js').Leaf} */ leaf) => [
  '--cert',
  leaf.cert,
  '--key',
  leaf.key,
];

// Each start loads the server's modules (2-8 s on a loaded 2-core machine); two tests start twice.
describe('scorecast start with HTTPS under a venue name', { timeout: 60_000 }, () => {
  it('the banner and the QR code give the HTTPS venue address; plain HTTP goes there, checks included', async () => {
    const s = await start([...tlsArgs(leaves.venue), '--public-url', `https://${VENUE}`, '--http-port', '0'], {
      SCORECAST_QR: '1',
    });
    const m = await s.listening;
    expect(m.url).toBe(`https://${VENUE}/`);
    expect(s.stderr()).toMatch(
      new RegExp(
        `^  audience:  https://score\\.venue\\.test/  \\(this machine: https://127\\.0\\.0\\.1:${m.port}/\\)$`,
        'm',
      ),
    );
    expect(s.stderr()).toMatch(
      new RegExp(`^  http:      port ${m.httpPort} redirects to https://score\\.venue\\.test/`, 'm'),
    );
    expect(s.stderr()).toMatch(/^ {2}https: {5}certificate valid to \d{4}-\d\d-\d\d; SIGHUP/m);
    expect(s.stderr()).not.toMatch(/plain HTTP/);
    // Asked for on a pipe: the QR code of that address, without a single ANSI escape.
    expect(s.stderr()).toContain(await QRCode.toString(`https://${VENUE}/`, { type: 'utf8' }));
    expect(s.stderr()).not.toContain('\u001b');
    expect(lines(s.stderr())).toEqual([]);
    // stdout is the JSON log alone: every line parses.
    for (const l of s.stdout().split('\n').filter(Boolean)) expect(() => JSON.parse(l), l).not.toThrow();
    const probe = await fetch(`http://127.0.0.1:${m.httpPort}/generate_204`, {
      redirect: 'manual',
      headers: { host: 'connectivitycheck.gstatic.com' },
    });
    expect([probe.status, probe.headers.get('location')]).toEqual([302, `https://${VENUE}/`]);
    const page = await fetch(`http://127.0.0.1:${m.httpPort}/view/score?a=1`, {
      redirect: 'manual',
      headers: { host: 'evil.example' },
    });
    expect([page.status, page.headers.get('location')]).toEqual([307, `https://${VENUE}/view/score?a=1`]);
    expect(await shown(m.port)).toBe(leaves.venue.fingerprint);
  });

  it('over plain HTTP the banner says in one line that phones get no wake lock and no offline copy; no QR on a pipe', async () => {
    const s = await start([]);
    const m = await s.listening;
    expect(m.url).toBe(`http://127.0.0.1:${m.port}/`);
    expect(s.stderr().match(/^ {2}note: .*$/gm)).toEqual([
      '  note:      plain HTTP: no Wake Lock (phones keep the screen on with a silent video) and no offline copy (HTTPS: doc/venue-https.md)',
    ]);
    expect(s.stderr()).not.toContain('▄');
    expect(s.stderr()).not.toContain('\u001b');
  });

  /** Each start that must be refused: its flags, and the one line it must end with. */
  const REFUSED = () => {
    const missing = path.join(ca.dir, 'missing.pem');
    return [
      {
        what: 'a certificate file that is missing',
        args: ['--cert', missing, '--key', leaves.venue.key],
        line: new RegExp(
          `^scorecast: cannot start: SC_ERR_TLS_UNREADABLE: The HTTPS certificate or key file cannot be read; .* \\(certificate ${missing}: no such file\\)$`,
        ),
      },
      {
        what: 'an expired certificate',
        args: tlsArgs(leaves.expired),
        line: new RegExp(
          `^scorecast: cannot start: SC_ERR_TLS_EXPIRED: .*\\(${leaves.expired.cert} expired on \\d{4}-\\d\\d-\\d\\d\\)$`,
        ),
      },
      {
        what: 'a key of another certificate',
        args: ['--cert', leaves.venue.cert, '--key', leaves.other.key],
        line: new RegExp(
          `^scorecast: cannot start: SC_ERR_TLS_KEY_MISMATCH: .*\\(${leaves.other.key} is not the key of ${leaves.venue.cert}\\)$`,
        ),
      },
      {
        what: 'a certificate file that is not PEM',
        args: ['--cert', leaves.venue.key, '--key', leaves.venue.key],
        line: /^scorecast: cannot start: SC_ERR_TLS_NOT_PEM: .*holds no PEM certificate\)$/,
      },
      {
        what: '--http-port without HTTPS',
        args: ['--http-port', '0'],
        line: /^scorecast: --http-port redirects plain HTTP to HTTPS: it needs --cert/,
      },
      {
        what: 'an http:// --public-url with HTTPS',
        args: [...tlsArgs(leaves.venue), '--public-url', `http://${VENUE}`],
        line: /^scorecast: --public-url must be https:/,
      },
      {
        what: 'a --public-url with a path',
        args: ['--public-url', `https://${VENUE}/path`],
        line: /^scorecast: --public-url must be an address like/,
      },
    ];
  };
  for (const [index, what] of [
    'a certificate file that is missing',
    'an expired certificate',
    'a key of another certificate',
    'a certificate file that is not PEM',
    '--http-port without HTTPS',
    'an http:// --public-url with HTTPS',
    'a --public-url with a path',
  ].entries()) {
    it(`refuses to start (exit 2, one line naming the file or flag): ${what}`, async () => {
      const c = REFUSED()[index];
      expect(c.what).toBe(what);
      const s = await start(c.args);
      expect(await s.exited).toBe(2);
      expect(lines(s.stderr())).toEqual([expect.stringMatching(c.line)]);
    });
  }

  it('warns, one line each, about a certificate expiring within 14 days and one that does not name the venue', async () => {
    const soon = await start([...tlsArgs(leaves.soon), '--public-url', `https://${VENUE}`]);
    await soon.listening;
    expect(lines(soon.stderr())).toEqual([
      expect.stringMatching(
        /^scorecast: warning: the certificate \S+soon\.pem expires on \d{4}-\d\d-\d\d \(in 2 days\): renew it/,
      ),
    ]);
    const other = await start([...tlsArgs(leaves.other), '--public-url', `https://${VENUE}:8443`]);
    await other.listening;
    expect(lines(other.stderr())).toEqual([
      expect.stringMatching(
        /^scorecast: warning: the certificate \S+other\.example\.org\.pem does not name score\.venue\.test /,
      ),
    ]);
  });

  it('takes up a renewed certificate without a restart (files replaced, then SIGHUP); a broken one leaves the last serving', async () => {
    const live = path.join(ca.dir, 'live');
    mkdirSync(live, { recursive: true });
    const files = { cert: path.join(live, 'fullchain.pem'), key: path.join(live, 'privkey.pem') };
    copyFileSync(leaves.venue.cert, files.cert);
    copyFileSync(leaves.venue.key, files.key);
    const s = await start(['--cert', files.cert, '--key', files.key, '--public-url', `https://${VENUE}`]);
    const { port } = await s.listening;
    expect(await shown(port)).toBe(leaves.venue.fingerprint);
    /** @param {'cert' | 'key'} which @param {string | Buffer} data */
    const replace = (which, data) => {
      writeFileSync(`${files[which]}.new`, data);
      renameSync(`${files[which]}.new`, files[which]);
    };
    replace('key', readFileSync(leaves.renewed.key));
    replace('cert', readFileSync(leaves.renewed.cert));
    await expect.poll(() => shown(port), { timeout: 5000, interval: 100 }).toBe(leaves.renewed.fingerprint);
    expect(s.stderr()).toMatch(/^scorecast: certificate reloaded: [0-9A-F:]+, valid to \d{4}-/m);
    replace('cert', 'garbage');
    s.child.kill('SIGHUP');
    await expect
      .poll(() => s.stderr(), { timeout: 5000 })
      .toMatch(
        /^scorecast: warning: certificate reload refused \(SC_ERR_TLS_NOT_PEM\): .*fullchain\.pem holds no PEM certificate\); still serving the certificate [0-9A-F:]+, valid to /m,
      );
    expect(await shown(port)).toBe(leaves.renewed.fingerprint);
    expect(s.child.exitCode).toBe(null);
  });
});

// The venue for the engine tests: scorecast in a network namespace of its own, reached from this
// machine by a veth link at a private address that is not loopback (not a secure context), as a
// phone reaches it over the venue's WiFi. Two servers there: plain HTTP on 8080, and HTTPS under
// the venue name on 443 with a certificate from a test CA (plain HTTP on 80 redirects to it).
//
// The browsers stay in this machine's network namespace (their drivers answer on its loopback),
// each in a mount namespace of its own (unshare) where /etc/hosts holds the venue's DNS line and
// the system CA bundle holds the test CA; nothing else on the machine sees either. Firefox trusts
// its own store, not the system's: a profile with the test CA imported by NSS's certutil.
// Needs root (namespaces, mounts); elsewhere `support()` says why the tests did not run.

import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnServer } from '../../artillery/lib/server.js';
import { endedRuns, ownerInName } from '../../infra/lab/instance.js';
import { testCa, VENUE } from '../helpers/tls-certs.js';
import { stop } from './processes.js';

export { VENUE };

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const FIREFOX = '/usr/bin/firefox-esr';
const SYSTEM_CA_BUNDLE = '/etc/ssl/certs/ca-certificates.crt';
/** This run's id in the namespace's and links' names: a killed run's are found by it and removed. */
const ID = process.pid.toString(36);
const PREFIX = 'scve';
const NS = `${PREFIX}${ID}-srv`;
const LINK = { host: `${PREFIX}${ID}h`, server: `${PREFIX}${ID}s` };
/** Ports inside the server's namespace: its own, so the usual ones are free. */
export const PORT = { https: 443, http: 80, plain: 8080 };
const TOKEN = 'venue-engines-token-123';
/** Where iPhones send their connectivity check (the venue's DNS answers it with the server). */
export const CHECK_HOST = 'captive.apple.com';

/** @param {string[]} args */
const ip = (args) => spawnSync('ip', args, { encoding: 'utf8', timeout: 10_000 });

/** @returns {{ ok: boolean, reasons: string[] }} */
export function support() {
  /** @type {string[]} */
  const reasons = [];
  if (process.platform !== 'linux') reasons.push(`network namespaces need Linux (this is ${process.platform})`);
  else if (process.getuid?.() !== 0) reasons.push('network and mount namespaces need root');
  else if (ip(['-V']).status !== 0) reasons.push('iproute2 (`ip`) is not installed');
  for (const [cmd, pkg] of [
    ['unshare', 'util-linux'],
    ['certutil', 'libnss3-tools'],
  ])
    if (spawnSync('sh', ['-c', `command -v ${cmd}`]).status !== 0)
      reasons.push(`no ${cmd} (apt-get install -y ${pkg}; test/setup/ensure-deps.sh does)`);
  if (!existsSync(SYSTEM_CA_BUNDLE)) reasons.push(`no system CA bundle at ${SYSTEM_CA_BUNDLE} (ca-certificates)`);
  if (!existsSync(path.join(ROOT, 'dist', 'client', 'index.html')))
    reasons.push('the client is not built (npm run build)');
  return { ok: reasons.length === 0, reasons };
}

/** Remove the namespaces of runs whose process is gone (killed before their teardown), and ours. */
function prune() {
  const names = ip(['netns', 'list'])
    .stdout.split('\n')
    .map((l) => l.split(' ')[0]);
  // Deleting the namespace deletes its end of the veth, and with it this machine's end.
  for (const nss of endedRuns(names, ownerInName(PREFIX, ['srv']), { mine: true }).values())
    for (const ns of nss) ip(['netns', 'del', ns]);
}

/**
 * A /30 for the link that nothing on this machine routes yet: 10.79.N.0/30 (this machine .1, the
 * server .2), N from this run's pid on, so runs beside each other take different ones.
 */
function freeSubnet() {
  const routes = ip(['-4', 'route', 'show', 'table', 'all']).stdout;
  for (let i = 0; i < 256; i++) {
    const n = (process.pid + i) % 256;
    if (!routes.includes(`10.79.${n}.`)) return { host: `10.79.${n}.1`, server: `10.79.${n}.2` };
  }
  throw new Error('no free 10.79.N.0/30 for the venue link');
}

/** @param {string[][]} steps */
function run(steps) {
  for (const step of steps) {
    const r = ip(step);
    if (r.status !== 0) throw new Error(`ip ${step.join(' ')}: ${r.stderr}`);
  }
}

/**
 * One scorecast in the server's namespace.
 * @param {string[]} args
 */
async function startServer(args) {
  const { child, message, output } = spawnServer({
    root: ROOT,
    netns: NS,
    args: [
      '--host',
      '0.0.0.0',
      '--score',
      path.join(ROOT, 'scores', 'demo'),
      '--autoplay',
      '--log-level',
      'warn',
      ...args,
    ],
    env: { SCORECAST_TOKEN: TOKEN, SCORECAST_RESUME: '0' },
  });
  return { child, url: (await message).url, output };
}

/**
 * @typedef {object} VenueLab
 * @property {import('./engine.js').Venue} venue  what a browser needs to be a phone there
 * @property {string} address  the server's address on the link (not loopback)
 * @property {string} plain  the plain-HTTP server's origin, at that address
 * @property {string} secure  the HTTPS server's origin, under the venue name
 * @property {(server: 'plain' | 'secure', action: string, body?: object) => Promise<any>} control
 * @property {() => Promise<void>} close
 */

/** @returns {Promise<VenueLab>} */
export async function startVenue() {
  prune();
  const addr = freeSubnet();
  /** @type {Array<() => Promise<void> | void>} */
  const cleanup = [];
  const close = async () => {
    for (const fn of cleanup.splice(0).reverse()) await Promise.resolve(fn()).catch(() => {});
  };
  try {
    cleanup.push(() => prune());
    run([
      ['netns', 'add', NS],
      ['link', 'add', LINK.host, 'type', 'veth', 'peer', 'name', LINK.server, 'netns', NS],
      ['addr', 'add', `${addr.host}/30`, 'dev', LINK.host],
      ['-n', NS, 'addr', 'add', `${addr.server}/30`, 'dev', LINK.server],
      ['link', 'set', LINK.host, 'up'],
      ['-n', NS, 'link', 'set', LINK.server, 'up'],
      ['-n', NS, 'link', 'set', 'lo', 'up'],
    ]);
    const ca = testCa();
    cleanup.push(() => rmSync(ca.dir, { recursive: true, force: true }));
    const leaf = ca.leaf({ name: VENUE });

    // The venue's DNS line (dnsmasq address=/score.venue.test/...) and its answer to the phones'
    // connectivity check host, in the browsers' /etc/hosts; localhost as usual.
    const hostsFile = path.join(ca.dir, 'hosts');
    writeFileSync(
      hostsFile,
      `127.0.0.1 localhost\n::1 localhost\n${addr.server} ${VENUE}\n${addr.server} ${CHECK_HOST}\n`,
    );
    // The system's CA bundle with the test CA added: as if it were installed on the phone.
    const bundle = path.join(ca.dir, 'ca-certificates.crt');
    writeFileSync(bundle, `${readFileSync(SYSTEM_CA_BUNDLE, 'utf8')}\n${readFileSync(ca.ca, 'utf8')}`);
    const wrapper = path.join(ca.dir, 'at-venue.sh');
    writeFileSync(
      wrapper,
      `#!/bin/sh\n# Runs "$@" with the venue's /etc/hosts and CA bundle, in a mount namespace of its own.\nexec unshare --mount --propagation private /bin/sh -c 'mount --bind "$0" /etc/hosts && mount --bind "$1" ${SYSTEM_CA_BUNDLE} && shift && exec "$@"' ${hostsFile} ${bundle} "$@"\n`,
    );
    chmodSync(wrapper, 0o755);
    const firefox = path.join(ca.dir, 'firefox-at-venue.sh');
    writeFileSync(firefox, `#!/bin/sh\nexec ${wrapper} ${FIREFOX} "$@"\n`);
    chmodSync(firefox, 0o755);
    // Firefox's certificate store: a new NSS database in the profile, the test CA trusted for TLS.
    const firefoxProfile = path.join(ca.dir, 'firefox-profile');
    mkdirSync(firefoxProfile);
    execFileSync('certutil', ['-N', '-d', `sql:${firefoxProfile}`, '--empty-password'], { stdio: 'pipe' });
    execFileSync(
      'certutil',
      ['-A', '-d', `sql:${firefoxProfile}`, '-n', 'scorecast test CA', '-t', 'C,,', '-i', ca.ca],
      { stdio: 'pipe' },
    );

    const servers = await Promise.all([
      startServer(['--port', String(PORT.plain)]),
      startServer([
        '--port',
        String(PORT.https),
        '--http-port',
        String(PORT.http),
        '--cert',
        leaf.cert,
        '--key',
        leaf.key,
        '--public-url',
        `https://${VENUE}`,
      ]),
    ]);
    for (const s of servers) cleanup.push(() => stop(s.child));
    const caPem = readFileSync(ca.ca);
    const plain = `http://${addr.server}:${PORT.plain}`;

    /** @type {VenueLab['control']} */
    const control = async (server, action, body) => {
      const payload = body ? JSON.stringify(body) : '';
      const headers = {
        authorization: `Bearer ${TOKEN}`,
        ...(body ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)) } : {}),
      };
      if (server === 'plain') {
        const res = await fetch(`${plain}/api/control/${action}`, {
          method: 'POST',
          headers,
          body: body ? payload : undefined,
        });
        if (!res.ok) throw new Error(`control ${action}: ${res.status}`);
        return res.json();
      }
      // The HTTPS server at its address, checked against the test CA under the venue name.
      return new Promise((resolve, reject) => {
        const req = https.request(
          {
            host: addr.server,
            port: PORT.https,
            servername: VENUE,
            ca: caPem,
            method: 'POST',
            path: `/api/control/${action}`,
            headers: { ...headers, host: VENUE },
            timeout: 10_000,
          },
          (res) => {
            let text = '';
            res.on('data', (d) => {
              text += d;
            });
            res.on('end', () =>
              res.statusCode === 200
                ? resolve(JSON.parse(text))
                : reject(new Error(`control ${action}: ${res.statusCode}`)),
            );
          },
        );
        req.on('error', reject);
        req.end(payload);
      });
    };

    return {
      venue: { wrapper, firefox, firefoxProfile, hosts: [addr.server, VENUE, CHECK_HOST] },
      address: addr.server,
      plain,
      secure: `https://${VENUE}`,
      control,
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}

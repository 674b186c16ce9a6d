// A test CA made with openssl, and the leaves it signs (names, addresses, expiring soon, already
// expired): for tests, and for the labs' Redis over TLS, that trust only this CA.

import { execFileSync } from 'node:child_process';
import { createHash, X509Certificate } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * @typedef {object} Leaf
 * @property {string} cert  path of the PEM chain (leaf, then the CA)
 * @property {string} key   path of its PEM key
 * @property {string} fingerprint  SHA-256 of the leaf, as X509Certificate.fingerprint256 gives it
 * @property {string} spki  base64 SHA-256 of its SubjectPublicKeyInfo (Chromium's
 *   --ignore-certificate-errors-spki-list)
 */

/** @param {string[]} args */
const openssl = (args) => execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });

const NEW_KEY = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];

/**
 * A test CA, and a function that issues leaves from it.
 * @param {{ dir?: string, name?: string, days?: number }} [o] dir: its folder (made if missing;
 *   default a new temporary one); name: its common name; days: how long it is valid
 * @returns {{ dir: string, ca: string, leaf: (o: { name: string, hosts?: string[], days?: number, file?: string }) => Leaf }}
 *   leaf: hosts are the subjectAltNames (names or IPv4 addresses; default [name]); days may be
 *   negative (already expired); file: the base name of its files (default: name)
 */
export function testCa({
  dir = mkdtempSync(path.join(os.tmpdir(), 'sc-certs-')),
  name: caName = 'scorecast test CA',
  days: caDays = 30,
} = {}) {
  mkdirSync(dir, { recursive: true });
  const ca = path.join(dir, 'ca.pem');
  const caKey = path.join(dir, 'ca.key');
  openssl([
    'req',
    '-x509',
    ...NEW_KEY,
    '-days',
    String(caDays),
    '-subj',
    `/CN=${caName}`,
    '-keyout',
    caKey,
    '-out',
    ca,
  ]);
  /** @param {{ name: string, hosts?: string[], days?: number, file?: string }} o */
  const leaf = ({ name, hosts = [name], days = 30, file = name }) => {
    const base = path.join(dir, file);
    openssl(['req', '-new', ...NEW_KEY, '-subj', `/CN=${name}`, '-keyout', `${base}.key`, '-out', `${base}.csr`]);
    const ext = `${base}.ext`;
    writeFileSync(ext, `subjectAltName=${hosts.map((h) => (/^[\d.]+$/.test(h) ? `IP:${h}` : `DNS:${h}`)).join(',')}\n`);
    openssl([
      'x509',
      '-req',
      '-in',
      `${base}.csr`,
      '-CA',
      ca,
      '-CAkey',
      caKey,
      '-CAcreateserial',
      '-days',
      String(days),
      '-extfile',
      ext,
      '-out',
      `${base}.leaf.pem`,
    ]);
    const leafPem = readFileSync(`${base}.leaf.pem`);
    writeFileSync(`${base}.pem`, Buffer.concat([leafPem, readFileSync(ca)]));
    const x509 = new X509Certificate(leafPem);
    return {
      cert: `${base}.pem`,
      key: `${base}.key`,
      fingerprint: x509.fingerprint256,
      spki: createHash('sha256')
        .update(x509.publicKey.export({ type: 'spki', format: 'der' }))
        .digest('base64'),
    };
  };
  return { dir, ca, leaf };
}

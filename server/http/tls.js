// The HTTPS certificate: checked at start (a certificate phones will refuse is better found by the
// operator at the door than by the audience), and taken up again when it is renewed, without a
// restart (SIGHUP, or the files replaced: certbot swaps symlinks, an operator copies files).
// checkTls is pure (contents and a clock in, a verdict out); readTls and watchTls do the I/O.

import { X509Certificate, createPrivateKey } from 'node:crypto';
import { readFileSync, watch } from 'node:fs';
import { isIP } from 'node:net';
import path from 'node:path';
import { errorValue } from '../../core/errors.js';

/** A certificate that expires sooner than this (ms) is warned about at start and on reload. */
export const EXPIRY_WARNING_MS = 14 * 24 * 3600_000;
/** Quiet time (ms) after the last change to the files before they are read again. */
export const RELOAD_DEBOUNCE_MS = 500;

/**
 * @typedef {object} TlsPair
 * @property {Buffer} cert  PEM: the leaf first, then its chain
 * @property {Buffer} key   PEM, unencrypted
 * @property {string} fingerprint  SHA-256 of the leaf, colon-separated hex
 * @property {Date} validTo
 * @property {string[]} warnings  problems phones may meet, each one line (the pair still serves)
 */

/**
 * @typedef {{ ok: true, value: TlsPair } | { ok: false, error: import('../../core/errors.js').ErrorValue }} TlsResult
 */

/** @param {Date} d */
const day = (d) => d.toISOString().slice(0, 10);

/**
 * Check a certificate and its key. Refused (an error value): not PEM, a key that is not this
 * certificate's, a certificate already expired. Warned about: it expires within 14 days, is not
 * valid yet, or does not name a host phones use.
 * @param {{ cert: Buffer, key: Buffer, now: number, hosts?: string[], files?: { cert: string, key: string } }} o
 *   hosts: the names or addresses phones open (the venue name); files: named in the messages
 * @returns {TlsResult}
 */
export function checkTls({ cert, key, now, hosts = [], files = { cert: 'the certificate', key: 'the key' } }) {
  const certText = cert.toString('latin1');
  if (!certText.includes('-----BEGIN CERTIFICATE-----'))
    return { ok: false, error: errorValue('SC_ERR_TLS_NOT_PEM', `${files.cert} holds no PEM certificate`) };
  /** @type {X509Certificate} */
  let x509;
  try {
    x509 = new X509Certificate(cert);
  } catch (err) {
    return {
      ok: false,
      error: errorValue('SC_ERR_TLS_NOT_PEM', `${files.cert}: ${/** @type {Error} */ (err).message}`),
    };
  }
  if (!/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(key.toString('latin1')))
    return { ok: false, error: errorValue('SC_ERR_TLS_NOT_PEM', `${files.key} holds no PEM private key`) };
  /** @type {import('node:crypto').KeyObject} */
  let keyObject;
  try {
    keyObject = createPrivateKey(key);
  } catch (err) {
    const e = /** @type {Error & { code?: string }} */ (err);
    const why = /passphrase/i.test(e.message)
      ? 'the key is encrypted; give scorecast one without a passphrase'
      : e.message;
    return { ok: false, error: errorValue('SC_ERR_TLS_NOT_PEM', `${files.key}: ${why}`) };
  }
  if (!x509.checkPrivateKey(keyObject))
    return {
      ok: false,
      error: errorValue('SC_ERR_TLS_KEY_MISMATCH', `${files.key} is not the key of ${files.cert}`),
    };
  const validTo = new Date(x509.validTo);
  if (validTo.getTime() <= now)
    return {
      ok: false,
      error: errorValue('SC_ERR_TLS_EXPIRED', `${files.cert} expired on ${day(validTo)}`),
    };
  /** @type {string[]} */
  const warnings = [];
  const left = validTo.getTime() - now;
  if (left < EXPIRY_WARNING_MS) {
    const days = Math.floor(left / (24 * 3600_000));
    warnings.push(
      `the certificate ${files.cert} expires on ${day(validTo)} (${days === 0 ? 'within a day' : `in ${days} day${days === 1 ? '' : 's'}`}): renew it, then send scorecast SIGHUP or replace the files`,
    );
  }
  const validFrom = new Date(x509.validFrom);
  if (validFrom.getTime() > now)
    warnings.push(
      `the certificate ${files.cert} is not valid before ${validFrom.toISOString()}: phones will refuse it until then (is this machine's clock right?)`,
    );
  for (const host of hosts) {
    const named = isIP(host) ? x509.checkIP(host) : x509.checkHost(host);
    if (named === undefined)
      warnings.push(
        `the certificate ${files.cert} does not name ${host} (it names ${x509.subjectAltName ?? x509.subject.replace(/\n/g, ', ')}): phones opening ${host} will refuse it`,
      );
  }
  return { ok: true, value: { cert, key, fingerprint: x509.fingerprint256, validTo, warnings } };
}

/**
 * Read the certificate and key files and check them (checkTls).
 * @param {{ cert: string, key: string }} files
 * @param {{ now: number, hosts?: string[] }} o
 * @returns {TlsResult}
 */
export function readTls(files, { now, hosts = [] }) {
  /** @type {Record<'cert' | 'key', Buffer>} */
  const read = /** @type {any} */ ({});
  for (const which of /** @type {const} */ (['cert', 'key'])) {
    try {
      read[which] = readFileSync(files[which]);
    } catch (err) {
      const e = /** @type {NodeJS.ErrnoException} */ (err);
      const why = e.code === 'ENOENT' ? 'no such file' : e.code === 'EACCES' ? 'permission denied' : e.message;
      return {
        ok: false,
        error: errorValue(
          'SC_ERR_TLS_UNREADABLE',
          `${which === 'cert' ? 'certificate' : 'key'} ${files[which]}: ${why}`,
        ),
      };
    }
  }
  return checkTls({ cert: read.cert, key: read.key, now, hosts, files });
}

/**
 * @typedef {object} TlsWatcher
 * @property {() => TlsResult} reload  read the files again now; a pair that passes replaces the
 *   one served, one that does not leaves it serving
 * @property {() => TlsPair} current  the pair served
 * @property {() => void} close
 */

/**
 * Serve renewed certificates without a restart: on `signal` and when a file in the folders of the
 * certificate or key changes (debounced: a renewal touches several files), read them again and
 * hand a pair that passes checkTls to `server.setSecureContext`. Existing connections keep the
 * certificate they began with.
 * @param {{ files: { cert: string, key: string }, initial: TlsPair,
 *   server: { setSecureContext: (o: { cert: Buffer, key: Buffer }) => void },
 *   now: () => number, hosts?: string[],
 *   log: { info: (msg: string) => void, warn: (msg: string) => void },
 *   signal?: NodeJS.Signals | null, debounceMs?: number }} o
 * @returns {TlsWatcher}
 */
export function watchTls({
  files,
  initial,
  server,
  now,
  hosts = [],
  log,
  signal = 'SIGHUP',
  debounceMs = RELOAD_DEBOUNCE_MS,
}) {
  let served = initial;
  const reload = () => {
    const r = readTls(files, { now: now(), hosts });
    if (!r.ok) {
      log.warn(
        `certificate reload refused (${r.error.code}): ${r.error.message}; still serving the certificate ${served.fingerprint}, valid to ${day(served.validTo)}`,
      );
      return r;
    }
    if (r.value.fingerprint === served.fingerprint && r.value.key.equals(served.key)) return r;
    server.setSecureContext({ cert: r.value.cert, key: r.value.key });
    served = r.value;
    log.info(`certificate reloaded: ${served.fingerprint}, valid to ${day(served.validTo)}`);
    for (const w of served.warnings) log.warn(w);
    return r;
  };
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let timer;
  const soon = () => {
    clearTimeout(timer);
    timer = setTimeout(reload, debounceMs);
  };
  // The folders, not the files: a renewal replaces the file (or the symlink to it, or a symlinked
  // folder, as Kubernetes secrets do), and a watch on the old file would see nothing of the new
  // one. Any change in them is read: an unchanged pair is not swapped or logged.
  const watchers = [...new Set([path.dirname(files.cert), path.dirname(files.key)])].flatMap((dir) => {
    try {
      return [watch(dir, { persistent: false }, soon)];
    } catch (err) {
      log.warn(
        `cannot watch ${dir} for a renewed certificate (${/** @type {Error} */ (err).message}); send SIGHUP after renewing`,
      );
      return [];
    }
  });
  const onSignal = () => {
    clearTimeout(timer);
    reload();
  };
  if (signal) process.on(signal, onSignal);
  return {
    reload,
    current: () => served,
    close() {
      clearTimeout(timer);
      for (const w of watchers) w.close();
      if (signal) process.off(signal, onSignal);
    },
  };
}

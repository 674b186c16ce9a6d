// Device credentials: the server issues each phone an id it signs (HMAC-SHA256 with a secret of
// this server), so a vote's device cannot be invented. A credential is
// `<id>.<mac>`: 22 characters of random id (128 bits) and 22 of its MAC (128 bits), base64url.
// The phone keeps it in localStorage and sends it as `device` with every tap.

import { createHmac, createSecretKey, randomBytes, timingSafeEqual } from 'node:crypto';

const CREDENTIAL_RE = /^([A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]{22})$/;
/** The secret's derivation label: a new format gets a new label, and old credentials stop verifying. */
const LABEL = 'scorecast device credential v1';

/**
 * The signing secret of a server whose conductor token is `token`: the same token gives the same
 * secret, so credentials (and a resumed ballot's "already voted") survive a restart; a new token
 * makes every phone fetch a new credential.
 * @param {string} token
 */
export function secretFromToken(token) {
  return createHmac('sha256', token).update(LABEL).digest();
}

/**
 * @param {{ secret: Buffer | string }} options
 */
export function createDeviceCredentials({ secret }) {
  // The key made once, not on every MAC (as the cluster's seal does).
  const key = createSecretKey(typeof secret === 'string' ? Buffer.from(secret) : secret);
  /** @param {string} id */
  const mac = (id) => createHmac('sha256', key).update(id).digest().subarray(0, 16).toString('base64url');
  return {
    /**
     * A new credential and the device id it carries.
     * @returns {{ credential: string, id: string }}
     */
    issue() {
      const id = randomBytes(16).toString('base64url');
      return { credential: `${id}.${mac(id)}`, id };
    },
    /**
     * The device id of a credential this server issued, or null (malformed, or not signed by
     * this server's secret). Compares in constant time.
     * @param {unknown} credential
     * @returns {string | null}
     */
    verify(credential) {
      if (typeof credential !== 'string') return null;
      const m = CREDENTIAL_RE.exec(credential);
      if (!m) return null;
      // The MAC's text is compared, not its decoded bytes: base64url decoding ignores the last
      // character's spare bits, and one credential must have exactly one spelling.
      return timingSafeEqual(Buffer.from(m[2]), Buffer.from(mac(m[1]))) ? m[1] : null;
    },
  };
}

/** @typedef {ReturnType<typeof createDeviceCredentials>} DeviceCredentials */

// Part keys: a credential per part, so that a tablet may choose the next section for its own part
// and no other, and a phone in the hall cannot pretend to be the cellist. The key of a part is an
// HMAC of the part's id with a secret derived from the conductor's token (22 characters,
// base64url, 128 bits): the console hands it out (GET /api/part-key/:part, with the token; a QR
// code or a link `/view/<part>#key=<key>` for the player's tablet), the same token gives the same
// keys across restarts, and a new token revokes them all. A part page sends it as
// `Authorization: Part <key>` with its choice (open-form-routes.js).

import { createHmac, createSecretKey, timingSafeEqual } from 'node:crypto';

/** The secret's derivation label: a new format gets a new label, and old keys stop verifying. */
const LABEL = 'scorecast part key v1';
const KEY_RE = /^[A-Za-z0-9_-]{22}$/;

/**
 * @param {{ token: string }} options  the conductor's token
 */
export function createPartKeys({ token }) {
  const secret = createSecretKey(createHmac('sha256', token).update(LABEL).digest());
  /** @param {string} part */
  const keyOf = (part) => createHmac('sha256', secret).update(part).digest().subarray(0, 16).toString('base64url');
  return {
    /** The key of `part`. @param {string} part */
    key: keyOf,
    /**
     * Whether `presented` is the key of `part` (compared in constant time).
     * @param {string} part
     * @param {unknown} presented
     */
    verify(part, presented) {
      if (typeof presented !== 'string' || !KEY_RE.test(presented)) return false;
      return timingSafeEqual(Buffer.from(presented), Buffer.from(keyOf(part)));
    },
  };
}

/** @typedef {ReturnType<typeof createPartKeys>} PartKeys */

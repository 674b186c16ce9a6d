// What the nodes of a cluster write to Redis carries a MAC under a key only they hold: a Redis
// client without the conductor token (someone who reached Redis, or holds only its password)
// cannot add a state the phones would show, a vote, a control request or a record a standby
// would take up (doc/security.md, "Redis"). The key is derived from the conductor token, which
// every node of a cluster holds already: no new secret to hand out, and a new token makes every
// entry written under the old one stop verifying. The token itself never goes to Redis.

import { createHmac, createSecretKey, hkdfSync, timingSafeEqual } from 'node:crypto';

/** The derivation's label: a new entry format gets a new label. */
const LABEL = 'scorecast cluster control v1';

/**
 * The cluster's key for a conductor token (HKDF-SHA256).
 * @param {string} token
 * @returns {Buffer}
 */
export function clusterKey(token) {
  return Buffer.from(hkdfSync('sha256', token, 'scorecast', LABEL, 32));
}

/**
 * Seals and checks texts of one purpose. The purpose is part of what is MACed, so an entry of
 * one kind (a bus state) is never taken for another (an inbox request, a record).
 * @param {Buffer} key
 */
export function createSeal(key) {
  // The key imported once: createHmac given a Buffer imports it again on every call, which on
  // Node 24 cost more than the HMAC itself (20-30 µs of a 91-byte entry's 32 µs).
  const secret = createSecretKey(key);
  /** @param {string} purpose @param {string | Buffer} text */
  const mac = (purpose, text) => createHmac('sha256', secret).update(`${purpose}\n`).update(text).digest();
  return {
    /**
     * The MAC of `text` for `purpose`, base64url (43 characters). A Buffer is MACed as its
     * bytes: the MAC of a string's UTF-8 bytes is the string's.
     * @param {string} purpose @param {string | Buffer} text
     */
    sign: (purpose, text) => mac(purpose, text).toString('base64url'),
    /**
     * Whether `tag` is the MAC of `text` for `purpose` (constant time).
     * @param {string} purpose @param {unknown} text @param {unknown} tag
     */
    verify(purpose, text, tag) {
      if ((typeof text !== 'string' && !Buffer.isBuffer(text)) || typeof tag !== 'string' || tag.length !== 43)
        return false;
      return timingSafeEqual(Buffer.from(tag), Buffer.from(mac(purpose, text).toString('base64url')));
    },
  };
}

/** @typedef {ReturnType<typeof createSeal>} Seal */

/**
 * A text with its MAC in front, `<mac>.<text>`: for values kept whole in one Redis key or sent
 * in one message (the record, the answers to other nodes).
 * @param {Seal} seal @param {string} purpose @param {string} text
 */
export const sealed = (seal, purpose, text) => `${seal.sign(purpose, text)}.${text}`;

/**
 * The text of a sealed value, or null when its MAC does not verify.
 * @param {Seal} seal @param {string} purpose @param {string} value
 * @returns {string | null}
 */
export function unseal(seal, purpose, value) {
  const dot = value.indexOf('.');
  if (dot < 0) return null;
  const text = value.slice(dot + 1);
  return seal.verify(purpose, text, value.slice(0, dot)) ? text : null;
}

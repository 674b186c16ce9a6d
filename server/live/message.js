// One serialized server message and its framings: a change is serialized once and framed once
// per transport kind, whatever the number of connections.

import { encode } from '../../core/protocol.js';

/**
 * One serialized server message. `bytes` caches its framing per transport kind, so a change is
 * serialized once and framed once per kind, whatever the number of connections.
 * @typedef {object} Message
 * @property {string} type    the envelope's type
 * @property {number} seq
 * @property {string} id      `epoch:seq` for snapshot and delta, '' for messages without state
 * @property {string} text    the JSON envelope
 * @property {Map<string, Buffer>} bytes
 */

/**
 * Frames a message for one transport kind.
 * @typedef {(msg: Message) => Buffer} Framer
 */

/** @type {Framer} */
const frameText = (msg) => Buffer.from(msg.text);

/**
 * @param {Record<string, unknown> & { type: string }} envelope
 * @param {number} seq
 * @param {string} id  `epoch:seq` for a state message, else ''
 * @param {string} [text]  the envelope's JSON when it was made already (a cluster's publisher
 *   makes a delta's once for every node): not encoded again
 * @returns {Message}
 */
export const toMessage = (envelope, seq, id, text = encode(envelope)) => ({
  type: envelope.type,
  seq,
  id,
  text,
  bytes: new Map(),
});

/** How each transport kind frames messages (the message's text unless one is registered). */
export function createFramers() {
  /** @type {Map<string, Framer>} */
  const framers = new Map([['ws', frameText]]);
  return {
    /**
     * Register how a transport frames messages (SSE adds `id:` and `data:` lines).
     * @param {string} kind
     * @param {Framer} framer
     */
    set(kind, framer) {
      framers.set(kind, framer);
    },

    /**
     * This kind's framing of a message, built once.
     * @param {Message} msg
     * @param {string} kind
     */
    framed(msg, kind) {
      let b = msg.bytes.get(kind);
      if (!b) {
        const framer = framers.get(kind) ?? frameText;
        b = framer(msg);
        msg.bytes.set(kind, b);
      }
      return b;
    },
  };
}

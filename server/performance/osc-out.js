// The score's OSC cues (core/osc-cues.js; ZScore's `max:` lines) sent over UDP when their beat
// sounds, so that ZScore's Max patch (or any OSC receiver) runs the electronics in step with the
// performance. Off unless the server is started with `--osc HOST:PORT`. UDP: a receiver that is
// not there costs nothing and never holds the performance back; a send error is logged once a
// minute at most.

import dgram from 'node:dgram';
import net from 'node:net';
import { encode } from 'node-osc';
import { resolveOscArgs, setupAt } from '../../core/osc-cues.js';

export { parseOscTarget } from './osc-target.js';

/** Between two logged send errors (ms). */
const ERROR_LOG_EVERY_MS = 60_000;

/**
 * One OSC 1.0 message: whole numbers as int32 (`i`), other numbers as float32 (`f`), text as `s`.
 * @param {string} address
 * @param {(string | number)[]} args
 * @returns {Buffer}
 */
export function encodeOscMessage(address, args) {
  const typed = args.map((a) =>
    typeof a === 'string'
      ? { type: 's', value: a }
      : Number.isInteger(a)
        ? { type: 'i', value: a }
        : { type: 'f', value: a },
  );
  return /** @type {Buffer} */ (encode(/** @type {any} */ ({ oscType: 'message', address, args: typed })));
}

/**
 * @param {object} o
 * @param {string} o.host
 * @param {number} o.port
 * @param {{ warn: (obj: object, msg: string) => void }} [o.log]
 * @param {() => number} [o.now]  for the error log's pace
 */
export function createOscOut({ host, port, log, now = Date.now }) {
  const socket = dgram.createSocket(net.isIPv6(host) ? 'udp6' : 'udp4');
  socket.unref();
  let lastError = -Infinity;
  let sent = 0;
  /** @param {Error} err */
  const failed = (err) => {
    if (now() - lastError < ERROR_LOG_EVERY_MS) return;
    lastError = now();
    log?.warn({ err, osc: `${host}:${port}` }, 'OSC send failed');
  };
  socket.on('error', failed);
  /** The OSC cues of a score by beat, built once per score. @type {WeakMap<object, Map<number, import('../../core/osc-cues.js').OscCue[]>>} */
  const byModel = new WeakMap();

  /** @param {import('../../core/manifest.js').ScoreModel} model */
  function index(model) {
    let m = byModel.get(model);
    if (!m) {
      m = new Map();
      for (const c of model.osc ?? []) {
        if (c.setup === 'only') continue;
        const list = m.get(c.beat);
        if (list) list.push(c);
        else m.set(c.beat, [c]);
      }
      byModel.set(model, m);
    }
    return m;
  }

  /**
   * @param {import('../../core/osc-cues.js').OscCue[]} cues
   * @param {(slot: number) => number | null} chosen
   */
  function send(cues, chosen) {
    for (const c of cues) {
      socket.send(encodeOscMessage(c.address, resolveOscArgs(c.args, chosen)), port, host, (err) => {
        if (err) failed(err);
      });
      sent++;
    }
    return cues.length;
  }

  return {
    /** Messages sent so far. */
    get sent() {
      return sent;
    },
    /**
     * Send the messages of `beat` (a beat that sounds now).
     * @param {import('../../core/manifest.js').ScoreModel} model
     * @param {number} beat
     * @param {(slot: number) => number | null} [chosen]  the page chosen for a slot, for `{page:N}`
     * @returns {number} how many were sent
     */
    beat(model, beat, chosen = () => null) {
      return send(index(model).get(beat) ?? [], chosen);
    },
    /**
     * Send the set-up for a start at `beat` (core/osc-cues.js, setupAt): the performance starts
     * playing there, or is moved there while playing.
     * @param {import('../../core/manifest.js').ScoreModel} model
     * @param {number} beat
     * @param {(slot: number) => number | null} [chosen]
     * @returns {number} how many were sent
     */
    start(model, beat, chosen = () => null) {
      return send(setupAt(model.osc ?? [], beat), chosen);
    },
    close() {
      return new Promise((resolve) => {
        socket.close(() => resolve(undefined));
      });
    },
  };
}

/** @typedef {ReturnType<typeof createOscOut>} OscOut */

// The fan-out: one message, the same bytes to every connection that keeps up; a connection that
// falls behind gets nothing until it drains, then the newest state whole, and is dropped if it
// does not (doc/protocol.md, "Backpressure"). And the heartbeat, sent only when nothing else was.

import { HEARTBEAT_MS } from '../../core/constants.js';
import { msSince, wrapMs } from '../../core/wrapped-ms.js';

/** @typedef {import('./message.js').Message} Message */

/**
 * @typedef {object} FanOutOptions
 * @property {import('./session.js').SessionContext} hub  the connections, clock, framing, history
 * @property {number} dropBytes   a behind connection is closed past this many unsent bytes
 * @property {number} behindMs    ... or after being behind this long
 */

/** @param {FanOutOptions} options */
export function createFanOut({ hub, dropBytes, behindMs }) {
  const { sessions, now, behindBytes, metrics, framed, history } = hub;

  /**
   * Send one message to every connection that keeps up; manage those that do not.
   * @param {Message} msg
   * @param {boolean} isState  a snapshot or delta (behind connections recover on these)
   */
  function broadcast(msg, isState) {
    const t = now();
    // Any message is a heartbeat: the next one is due HEARTBEAT_MS after this.
    heartbeatTimer.refresh();
    /** @type {Map<string, {n: number, bytes: number}>} */
    const counts = new Map();
    for (const session of sessions) {
      const { link } = session;
      const queued = link.buffered();
      let out = msg;
      if (session.behind) {
        if (queued > dropBytes || msSince(t, session.behindSince) > behindMs) {
          session.drop();
          continue;
        }
        if (!isState || queued > behindBytes / 2) continue;
        // Latest state wins: the connection drained, it gets the newest state whole.
        session.behind = false;
        out = history.snapshot();
      } else if (queued > behindBytes) {
        session.behind = true;
        session.behindSince = wrapMs(t);
        continue;
      }
      const bytes = framed(out, link.kind);
      link.send(bytes);
      const c = counts.get(link.kind);
      if (c) {
        c.n++;
        c.bytes += bytes.length;
      } else counts.set(link.kind, { n: 1, bytes: bytes.length });
    }
    for (const [kind, c] of counts) metrics.sent?.(kind, c.n, c.bytes);
  }

  // A heartbeat goes out only when nothing else has for HEARTBEAT_MS: a busy stream is its own
  // heartbeat (at 1,500 clients the idle heartbeats cost as much CPU as the music). Every
  // broadcast pushes this timer back, so while the music plays it never wakes the server (each
  // wakeup costs about 0.08 ms of CPU on these machines: bench/RESULTS.md, "Idle cost"), and a
  // connection that keeps up never waits longer than HEARTBEAT_MS for a message.
  const heartbeatTimer = setInterval(() => {
    broadcast(heartbeat(), false);
  }, HEARTBEAT_MS);
  heartbeatTimer.unref?.();

  /** A heartbeat message for the current seq. */
  const heartbeat = () => history.message({ type: 'heartbeat', epoch: history.epoch, seq: history.seq, t: now() });

  return {
    broadcast,
    heartbeat,
    stop() {
      clearInterval(heartbeatTimer);
    },
  };
}

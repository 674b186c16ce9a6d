// The hub's view of the performance: the state, its epoch and seq, and a bounded history of
// deltas for resync (doc/protocol.md, "Resync"). Every message it makes is serialized once.

import { applyPatch } from '../../core/merge-patch.js';
import { toMessage } from './message.js';

/** @typedef {import('./message.js').Message} Message */

/**
 * The newest deltas keep their framings (one Buffer per transport kind, as large as the delta);
 * older ones drop them and are framed again if a resync ever replays them. A resync replays at
 * most replayBytes or the state's size of missed deltas (else it is a snapshot), so it is the
 * newest few that a reconnecting phone gets; the 512 deltas held for it kept about 4.5 MB of
 * framed copies per kind at the seed profile, never written again.
 */
const FRAMED_KEEP = 32;

/**
 * @typedef {object} HistoryOptions
 * @property {() => number} now          wall clock (ms since the Unix epoch)
 * @property {number} historySize        deltas kept for resync
 * @property {number} historyBytes       and at most this many bytes of them
 * @property {number} replayBytes        a resync whose deltas are larger than this and than the
 *   state is a snapshot instead
 */

/** @param {HistoryOptions} options */
export function createHistory({ now, historySize, historyBytes, replayBytes }) {
  /** @type {Message[]} the history, oldest first, contiguous seqs */
  let ring = [];
  let ringBytes = 0;
  let epoch = '';
  let seq = -1;
  /** @type {any} */
  let state = null;
  /** @type {Message | null} */
  let snapshotCache = null;

  /**
   * @param {Record<string, unknown> & { type: string }} envelope
   * @param {boolean} [withId] a state message: carries `epoch:seq` as its id
   * @param {string} [text] its JSON, made already
   * @returns {Message}
   */
  const message = (envelope, withId = false, text = undefined) =>
    toMessage(envelope, seq, withId ? `${epoch}:${seq}` : '', text);

  function snapshot() {
    if (!snapshotCache || snapshotCache.id !== `${epoch}:${seq}`) {
      snapshotCache = message({ type: 'snapshot', epoch, seq, t: now(), state }, true);
    }
    return snapshotCache;
  }

  /**
   * Messages that bring a client holding (e, s) up to date (doc/protocol.md, "Resync").
   * @param {string | null} e
   * @param {number} s
   * @returns {Message[]}
   */
  function resync(e, s) {
    if (e === epoch) {
      if (s === seq) return [];
      const oldest = ring.length > 0 ? ring[0].seq : seq + 1;
      if (s < seq && s + 1 >= oldest) {
        const missed = ring.slice(s + 1 - oldest);
        // A client away long enough to miss more bytes than the whole state (a phone back from a
        // roaming cut or a sleep, on the congested link that cut it) gets the state instead: fewer
        // bytes to wait for, and no past beats replayed one by one before the present one. In the
        // venue lab, 10 pages back from a 7 s cut waited behind ~100 KB of page changes each and
        // then drew live beats 600 ms late for seconds.
        let bytes = 0;
        for (const m of missed) bytes += m.text.length;
        if (bytes > replayBytes && bytes > snapshot().text.length) return [snapshot()];
        return missed;
      }
    }
    return [snapshot()];
  }

  /** @param {Message} msg */
  function remember(msg) {
    ring.push(msg);
    ringBytes += msg.text.length;
    if (ring.length > FRAMED_KEEP) ring[ring.length - 1 - FRAMED_KEEP].bytes.clear();
    let drop = 0;
    while (ring.length - drop > historySize || (ringBytes > historyBytes && ring.length - drop > 1)) {
      ringBytes -= ring[drop].text.length;
      drop++;
    }
    if (drop > 0) ring = ring.slice(drop);
  }

  /**
   * Take a change from the bus: the message every connection gets for it (a delta, remembered
   * for resync; or a snapshot when the history restarts).
   * @param {import('./bus.js').StateChange} change
   * @returns {Message}
   */
  function apply(change) {
    const fresh = change.epoch !== epoch || change.seq !== seq + 1 || change.patch === null;
    epoch = change.epoch;
    seq = change.seq;
    state = change.state ?? applyPatch(state, change.patch);
    if (fresh) {
      // A new epoch, or a gap the bus could not fill: history restarts here.
      ring = [];
      ringBytes = 0;
      return snapshot();
    }
    // A delta whose envelope the bus brought made already (a cluster's publisher made it once for
    // every node) is not encoded again.
    const msg = message({ type: 'delta', epoch, seq, t: change.t, patch: change.patch }, true, change.text);
    remember(msg);
    return msg;
  }

  return {
    get epoch() {
      return epoch;
    },
    get seq() {
      return seq;
    },
    get state() {
      return state;
    },
    /** The resync history: deltas held and their JSON bytes (bounded by historySize/historyBytes). */
    get held() {
      return { deltas: ring.length, bytes: ringBytes };
    },
    message,
    snapshot,
    resync,
    apply,
  };
}

/** @typedef {ReturnType<typeof createHistory>} History */

// Vote counting: one vote per device per window, only while the window is open, only for the
// window's tiles. Pure: the server feeds it taps and the beat; it answers with error values.

import { errorValue } from './errors.js';
import { isObject } from './values.js';

/**
 * @typedef {object} VoteWindow
 * @property {import('./manifest.js').Vote} vote
 * @property {Map<string, number>} tally     tile -> votes
 * @property {Set<string>} devices           devices that have voted
 * @property {Map<string, string>} choices    device -> the tile it voted for (a tap changes it)
 * @property {boolean} [manual]               opened by the conductor: stays open until closed
 */

/**
 * @typedef {object} Outcome
 * @property {string} id
 * @property {Record<string, number>} tally
 * @property {string | null} winner   null when nobody voted
 * @property {number | null} seek     beat the winner sends the performance to, if any
 */

const DEVICE_RE = /^[A-Za-z0-9_-]{8,64}$/;

/**
 * The winner of a tally: most votes; a tie goes to the tile listed first in the score (a rule
 * the composer can see and plan for). Null when nobody voted.
 * @param {string[]} tiles
 * @param {Map<string, number>} tally
 */
export function winnerOf(tiles, tally) {
  let best = null;
  let most = 0;
  for (const tile of tiles) {
    const n = tally.get(tile) ?? 0;
    if (n > most) {
      best = tile;
      most = n;
    }
  }
  return best;
}

/**
 * What a ballot holds, as plain JSON: enough to go on after a server restart with the same
 * tally and without letting a device that voted vote again.
 * @typedef {object} BallotRecord
 * @property {{ id: string, tally: Record<string, number>, devices: string[], choices?: Record<string, string>, manual?: boolean } | null} open
 * @property {Outcome[]} closed
 * @property {string} [closedEarly] a scheduled window the conductor closed early
 */

/**
 * Why `record` cannot be a ballot of these vote windows, or null when it can.
 * @param {import('./manifest.js').Vote[]} votes
 * @param {unknown} record
 * @returns {string | null}
 */
function recordProblem(votes, record) {
  if (!isObject(record) || !Array.isArray(record.closed)) return 'ballot: expected {open, closed: []}';
  for (const [i, o] of record.closed.entries()) {
    if (
      !(
        isObject(o) &&
        typeof o.id === 'string' &&
        isObject(o.tally) &&
        (o.winner === null || typeof o.winner === 'string') &&
        (o.seek === null || Number.isInteger(o.seek))
      )
    )
      return `ballot: closed[${i}] is not an outcome {id, tally, winner, seek}`;
  }
  const open = record.open;
  if (open === null) return null;
  if (!(isObject(open) && typeof open.id === 'string' && isObject(open.tally) && Array.isArray(open.devices))) {
    return 'ballot: open must be null or {id, tally, devices: []}';
  }
  const vote = votes.find((v) => v.id === open.id);
  if (!vote) return `ballot: the score has no vote window "${open.id.slice(0, 64)}"`;
  let total = 0;
  for (const [tile, n] of Object.entries(open.tally)) {
    if (!vote.tiles.includes(tile)) return `ballot: "${vote.id}" has no tile "${tile.slice(0, 64)}"`;
    if (!(Number.isInteger(n) && /** @type {number} */ (n) >= 0))
      return `ballot: the tally of "${tile}" must be a whole number >= 0`;
    total += /** @type {number} */ (n);
  }
  if (!open.devices.every((d) => typeof d === 'string' && DEVICE_RE.test(d)))
    return 'ballot: devices must be device ids';
  if (new Set(open.devices).size !== open.devices.length || open.devices.length !== total) {
    return `ballot: ${open.devices.length} devices voted but the tally counts ${total} votes`;
  }
  if (open.choices !== undefined) {
    if (!isObject(open.choices)) return 'ballot: choices must map devices to tiles';
    for (const [device, tile] of Object.entries(open.choices))
      if (!open.devices.includes(device) || typeof tile !== 'string' || !vote.tiles.includes(tile))
        return 'ballot: choices must map devices that voted to tiles of the window';
  }
  return null;
}

/**
 * The vote windows of one score performance.
 * @param {import('./manifest.js').Vote[]} votes
 */
export function createBallot(votes) {
  /** @type {VoteWindow | null} */
  let open = null;
  /** @type {Outcome[]} */
  const outcomes = [];
  /**
   * A scheduled window the conductor closed early: not opened again until the performance
   * leaves its beats.
   * @type {string | null}
   */
  let closedEarly = null;

  /** @param {VoteWindow} w @returns {Outcome} */
  const outcomeOf = (w) => {
    const winner = winnerOf(w.vote.tiles, w.tally);
    return {
      id: w.vote.id,
      tally: Object.fromEntries(w.vote.tiles.map((t) => [t, w.tally.get(t) ?? 0])),
      winner,
      seek: winner !== null ? (w.vote.decides[winner]?.seek ?? null) : null,
    };
  };

  return {
    /** The open window's id, or null. */
    get openId() {
      return open ? open.vote.id : null;
    },

    /**
     * Move to `beat`: opens the window that starts there; returns the outcome of a window that
     * closes there (or that the performance left by a seek), for the conductor to act on.
     * @param {number} beat
     * @returns {Outcome | null}
     */
    at(beat) {
      /** @type {Outcome | null} */
      let closed = null;
      if (open && !open.manual && (beat >= open.vote.close || beat < open.vote.open)) {
        closed = outcomeOf(open);
        outcomes.push(closed);
        open = null;
      }
      const v = votes.find((x) => beat >= x.open && beat < x.close);
      if (closedEarly !== null && v?.id !== closedEarly) closedEarly = null;
      if (!open && v && v.id !== closedEarly)
        open = { vote: v, tally: new Map(), devices: new Set(), choices: new Map() };
      return closed;
    },

    /**
     * The conductor opens window `id` now, whatever the beat; it stays open until closeNow().
     * A window already open is closed first (its outcome is returned, not acted on).
     * @param {string} id
     * @returns {{ ok: true, closed: Outcome | null } | { ok: false, error: import('./errors.js').ErrorValue }}
     */
    openNow(id) {
      const vote = votes.find((x) => x.id === id);
      if (!vote)
        return {
          ok: false,
          error: errorValue(
            'SC_ERR_BAD_CONTROL',
            `the score has no vote window "${String(id).slice(0, 64)}"; it has ${votes.map((x) => x.id).join(', ') || 'none'}`,
          ),
        };
      if (open?.vote.id === id) {
        open.manual = true;
        return { ok: true, closed: null };
      }
      /** @type {Outcome | null} */
      let closed = null;
      if (open) {
        closed = outcomeOf(open);
        outcomes.push(closed);
      }
      open = { vote, tally: new Map(), devices: new Set(), choices: new Map(), manual: true };
      closedEarly = null;
      return { ok: true, closed };
    },

    /**
     * The conductor closes the open window now: its outcome, for the conductor to act on.
     * @returns {{ ok: true, outcome: Outcome } | { ok: false, error: import('./errors.js').ErrorValue }}
     */
    closeNow() {
      if (!open) return { ok: false, error: errorValue('SC_ERR_NO_VOTE_WINDOW') };
      const outcome = outcomeOf(open);
      outcomes.push(outcome);
      if (!open.manual) closedEarly = open.vote.id;
      open = null;
      return { ok: true, outcome };
    },

    /** Whether the open window was opened by the conductor. */
    get manual() {
      return open?.manual === true;
    },

    /**
     * What `at(beat)` would decide if the tally were taken now, without closing anything: lets
     * the conductor announce the beat after a window's close one beat ahead.
     * @param {number} beat
     * @returns {Outcome | null}
     */
    preview(beat) {
      return open && !open.manual && (beat >= open.vote.close || beat < open.vote.open) ? outcomeOf(open) : null;
    },

    /**
     * Count one tap as a vote. A device that voted in this window changes its vote with a tap on
     * another tile, and takes it back with a tap on the same one (ZScore's tiles select and
     * unselect): one vote a device at any time. `tile` in the answer is the device's vote now
     * (null: taken back).
     * @param {{ tile: string | number, window?: string, device?: string }} tap
     * @returns {{ ok: true, id: string, tally: Record<string, number>, tile: string | null } | { ok: false, error: import('./errors.js').ErrorValue }}
     */
    cast(tap) {
      if (!open) return { ok: false, error: errorValue('SC_ERR_NO_VOTE_WINDOW') };
      if (tap.window !== undefined && tap.window !== open.vote.id)
        return {
          ok: false,
          error: errorValue('SC_ERR_NO_VOTE_WINDOW', `window "${tap.window}" is not open; "${open.vote.id}" is`),
        };
      if (typeof tap.device !== 'string' || !DEVICE_RE.test(tap.device))
        return {
          ok: false,
          error: errorValue('SC_ERR_BAD_MESSAGE', 'tap.device must be the device id, 8-64 of [A-Za-z0-9_-]'),
        };
      const tile = String(tap.tile);
      if (!open.vote.tiles.includes(tile))
        return {
          ok: false,
          error: errorValue(
            'SC_ERR_UNKNOWN_TILE',
            `"${tile.slice(0, 64)}"; vote for one of ${open.vote.tiles.join(', ')}`,
          ),
        };
      const had = open.choices.get(tap.device);
      // A device recorded without its choice (an older save) cannot change it.
      if (had === undefined && open.devices.has(tap.device))
        return { ok: false, error: errorValue('SC_ERR_ALREADY_VOTED') };
      if (had !== undefined) open.tally.set(had, Math.max(0, (open.tally.get(had) ?? 1) - 1));
      /** @type {string | null} */
      let now = tile;
      if (had === tile) {
        open.choices.delete(tap.device);
        open.devices.delete(tap.device);
        now = null;
      } else {
        open.devices.add(tap.device);
        open.choices.set(tap.device, tile);
        open.tally.set(tile, (open.tally.get(tile) ?? 0) + 1);
      }
      return {
        ok: true,
        id: open.vote.id,
        tally: Object.fromEntries(open.vote.tiles.map((t) => [t, /** @type {VoteWindow} */ (open).tally.get(t) ?? 0])),
        tile: now,
      };
    },

    /** Votes per tile of the open window (tiles with votes only), or null when none is open. */
    get openTally() {
      if (!open) return null;
      /** @type {Record<string, number>} */
      const out = {};
      for (const [tile, n] of open.tally) if (n > 0) out[tile] = n;
      return out;
    },

    /** Tallies of the open window and the outcomes of closed ones, for the conductor. */
    report() {
      return { open: open ? outcomeOf(open) : null, closed: [...outcomes] };
    },

    /** @returns {BallotRecord} */
    record() {
      return {
        open: open
          ? {
              id: open.vote.id,
              tally: Object.fromEntries(open.tally),
              devices: [...open.devices],
              choices: Object.fromEntries(open.choices),
              ...(open.manual ? { manual: true } : {}),
            }
          : null,
        ...(closedEarly !== null ? { closedEarly } : {}),
        closed: outcomes.map((o) => ({ ...o, tally: { ...o.tally } })),
      };
    },

    /**
     * Take up a recorded ballot (replacing what this one holds). The record comes from a file:
     * it is checked against the score's windows, and refused with the reason.
     * @param {unknown} record
     * @returns {{ ok: true } | { ok: false, problem: string }}
     */
    restore(record) {
      const problem = recordProblem(votes, record);
      if (problem !== null) return { ok: false, problem };
      const r = /** @type {BallotRecord} */ (record);
      outcomes.length = 0;
      outcomes.push(...r.closed.map((o) => ({ id: o.id, tally: { ...o.tally }, winner: o.winner, seek: o.seek })));
      const vote = r.open && votes.find((v) => v.id === /** @type {{ id: string }} */ (r.open).id);
      open =
        r.open && vote
          ? {
              vote,
              tally: new Map(Object.entries(r.open.tally)),
              devices: new Set(r.open.devices),
              choices: new Map(Object.entries(r.open.choices ?? {})),
              ...(r.open.manual === true ? { manual: true } : {}),
            }
          : null;
      closedEarly =
        typeof r.closedEarly === 'string' && votes.some((v) => v.id === r.closedEarly) ? r.closedEarly : null;
      return { ok: true };
    },
  };
}

// The roster: every device as it reports itself (core/roster.js), for the conductor's console.
// Part devices are listed one by one; audience phones are summed up (counts, the distribution of
// their clock error and lag, the ten worst), so the console never receives 1,500 rows. The
// console's actions reach one device, or all, through the hub; a polling page, which holds no
// connection, gets its actions in the answer to its next report.

import { ScorecastError, errorValue } from '../../core/errors.js';
import {
  AUDIENCE_SILENT_AFTER_MS,
  DEVICE_ACTIONS,
  PART_SILENT_AFTER_MS,
  READY_CLOCK_ERROR_MS,
  SLOW_OUTPUT_MS,
  STATUS_MIN_INTERVAL_MS,
} from '../../core/roster.js';
import { quantileSorted } from '../../core/stats.js';
import { addressKey } from '../http/address-key.js';

/** Devices remembered at most (bounded memory whatever ids are sent; the longest unheard go first). */
export const MAX_DEVICES = 4096;
/** A device whose link closed, or a polling page unheard this long, is forgotten after this long (ms). */
export const GONE_AFTER_MS = 60_000;
/** Actions waiting for a polling page's next report, at most. */
const MAX_QUEUED = 4;
/** Rows of the audience's worst devices. */
export const WORST_ROWS = 10;
/** Part devices one node shares with the rest of a cluster, at most (the rest are counted). */
export const SHARE_ROWS = 64;
/** Points of each audience distribution a node shares: its quantiles at 0, 1/32, ..., 1. */
export const SHARE_POINTS = 33;
/** Play when ready waits this long by default, and at most this long (ms). */
export const READY_WAIT_MS = 30_000;
export const READY_WAIT_MAX_MS = 120_000;

/**
 * @typedef {object} Device
 * @property {string} id
 * @property {string} view
 * @property {string} kind         transport: ws, sse, poll
 * @property {unknown} connection  its WebSocket or SSE session, or a polling page's key (a string)
 * @property {string} address
 * @property {import('../../core/roster.js').DeviceStatus} status
 * @property {number} heard        last status counted (server wall ms)
 * @property {number | null} behind  seqs behind the newest when it last reported (null: another epoch)
 * @property {number | null} gone  when its link closed
 * @property {string[]} queued     actions for a polling page's next report
 */

/**
 * @typedef {object} RosterOptions
 * @property {() => number} now                 wall clock (ms)
 * @property {() => { epoch: string, seq: number }} stream  the newest state the hub holds
 * @property {() => string[]} parts             the score's part ids
 * @property {(connection: unknown, envelope: { type: string, do: string }) => boolean} tell
 * @property {(envelope: { type: string, do: string, all: true }) => number} tellAll
 * @property {number} [devicesPerAddress]      0: no limit
 */

/** @param {ArrayLike<number>} xs  sorted ascending */
const spread = (xs) =>
  xs.length === 0
    ? { n: 0, p50: null, p95: null, max: null }
    : { n: xs.length, p50: quantileSorted(xs, 0.5), p95: quantileSorted(xs, 0.95), max: xs[xs.length - 1] };

const isAudience = (/** @type {Device} */ d) => d.view === 'audience';
const silentAfter = (/** @type {Device} */ d) => (isAudience(d) ? AUDIENCE_SILENT_AFTER_MS : PART_SILENT_AFTER_MS);

/** @param {Device} d @param {number} t */
function linkOf(d, t) {
  if (d.gone !== null) return 'gone';
  return t - d.heard > silentAfter(d) ? 'silent' : 'live';
}

/**
 * Why a device could not play now ([]: it could).
 * @param {Device} d @param {number} t
 */
function notReady(d, t) {
  const why = [];
  const link = linkOf(d, t);
  if (link !== 'live') why.push(link);
  const e = d.status.clockError;
  if (e === null) why.push('clock not measured');
  else if (e > READY_CLOCK_ERROR_MS) why.push(`clock error ${Math.round(e)} ms > ${READY_CLOCK_ERROR_MS}`);
  if (!d.status.audio) why.push('audio locked');
  if (!d.status.assets) why.push('assets not cached');
  return why;
}

/**
 * Every part, ready or not, with the reasons of its best device.
 * @param {Map<string, Device>} devices @param {string[]} partIds @param {number} t
 */
function partsReady(devices, partIds, t) {
  /** @type {Map<string, Device[]>} */
  const of = new Map(partIds.map((p) => [p, []]));
  for (const d of devices.values()) of.get(d.view)?.push(d);
  return [...of].map(([part, ds]) => {
    if (ds.length === 0) return { part, devices: [], missing: true, ready: false, why: ['no device'] };
    const reasons = ds.map((d) => notReady(d, t)).sort((a, b) => a.length - b.length);
    return {
      part,
      devices: ds.map((d) => d.id),
      missing: false,
      ready: reasons[0].length === 0,
      why: reasons[0],
    };
  });
}

/** @param {Device} d @param {number} t */
function row(d, t) {
  const s = d.status;
  return {
    id: d.id,
    name: s.name,
    view: d.view,
    transport: d.kind,
    link: linkOf(d, t),
    deviceLink: s.link,
    playback: s.playback,
    clockError: s.clockError,
    rtt: s.rtt,
    behind: d.behind,
    audio: s.audio,
    outputMs: s.outputMs,
    // Over SLOW_OUTPUT_MS: a Bluetooth headset, most likely (compensated, but looser).
    slowOutput: s.outputMs !== null && s.outputMs > SLOW_OUTPUT_MS,
    awake: s.awake,
    assets: s.assets,
    app: s.app,
    lastSeenMs: Math.max(0, Math.round(t - d.heard)),
  };
}

/**
 * The audience in one pass (a console polls twice a second, 1,500 phones each time): counts,
 * spreads from typed arrays (a numeric sort), and the worst rows kept as they come.
 * @template S
 * @param {Map<string, Device>} devices @param {number} t
 * @param {(xs: ArrayLike<number>) => S} summed  how each distribution is summed up
 */
function audienceSummary(devices, t, summed) {
  const n = devices.size;
  const clock = new Float64Array(n);
  const behind = new Float64Array(n);
  const rtt = new Float64Array(n);
  let nc = 0;
  let nb = 0;
  let nr = 0;
  let live = 0;
  let silent = 0;
  /** Worst first: silent, then furthest behind, then the largest clock error. @type {{ d: Device, s: number }[]} */
  const worst = [];
  for (const d of devices.values()) {
    if (!isAudience(d) || d.gone !== null) continue;
    const isLive = t - d.heard <= AUDIENCE_SILENT_AFTER_MS;
    if (isLive) live++;
    else silent++;
    const { clockError, rtt: r } = d.status;
    if (clockError !== null) clock[nc++] = clockError;
    if (d.behind !== null) behind[nb++] = d.behind;
    if (r !== null) rtt[nr++] = r;
    const s = (isLive ? 0 : 1e12) + (d.behind ?? 1e6) * 1e4 + (clockError ?? 1e3);
    if (worst.length === WORST_ROWS && s <= worst[WORST_ROWS - 1].s) continue;
    let i = worst.length;
    while (i > 0 && worst[i - 1].s < s) i--;
    worst.splice(i, 0, { d, s });
    if (worst.length > WORST_ROWS) worst.pop();
  }
  const sorted = (/** @type {Float64Array} */ xs, /** @type {number} */ k) =>
    /** @type {number[]} */ (/** @type {unknown} */ (xs.subarray(0, k).sort()));
  return {
    total: live + silent,
    live,
    silent,
    clockError: summed(sorted(clock, nc)),
    behind: summed(sorted(behind, nb)),
    rtt: summed(sorted(rtt, nr)),
    worst: worst.map(({ d }) => row(d, t)),
  };
}

/**
 * A distribution as SHARE_POINTS quantiles (nearest rank), for merging with other nodes'.
 * @param {ArrayLike<number>} xs  sorted ascending
 * @returns {{ n: number, q: number[] }}
 */
function points(xs) {
  const q = [];
  if (xs.length > 0)
    for (let i = 0; i < SHARE_POINTS; i++) q.push(Math.round(quantileSorted(xs, i / (SHARE_POINTS - 1)) * 100) / 100);
  return { n: xs.length, q };
}

/** @param {RosterOptions} options */
export function createRoster({ now, stream, parts, tell, tellAll, devicesPerAddress = 0 }) {
  /** In order of last status: the longest unheard first. @type {Map<string, Device>} */
  const devices = new Map();
  /** @type {Map<unknown, string>} */
  const byConnection = new Map();
  /** @type {Map<string, number>} */
  const perAddress = new Map();
  /** @type {{ since: number, until: number, resolve: () => void, reject: (e: Error) => void, timer: ReturnType<typeof setTimeout> } | null} */
  let waiter = null;

  /** @param {string} id */
  function forget(id) {
    const d = devices.get(id);
    if (!d) return;
    devices.delete(id);
    if (byConnection.get(d.connection) === id) byConnection.delete(d.connection);
    const n = (perAddress.get(d.address) ?? 1) - 1;
    if (n > 0) perAddress.set(d.address, n);
    else perAddress.delete(d.address);
  }

  function expire() {
    const t = now();
    for (const [id, d] of devices) {
      if (t - d.heard < GONE_AFTER_MS) break;
      // Polling pages hold no link that closes: unheard this long, they have gone.
      if (d.gone !== null || typeof d.connection === 'string') forget(id);
    }
    for (const [id, d] of [...devices]) if (d.gone !== null && t - d.gone >= GONE_AFTER_MS) forget(id);
  }

  function checkWaiter() {
    if (!waiter) return;
    if (partsReady(devices, parts(), now()).every((p) => p.ready)) {
      const w = waiter;
      waiter = null;
      clearTimeout(w.timer);
      w.resolve();
    }
  }

  /** @param {string} why */
  function notReadyError(why) {
    const problems = partsReady(devices, parts(), now())
      .filter((p) => !p.ready)
      .map((p) => `${p.part}: ${p.why.join(', ')}`);
    return new ScorecastError('SC_ERR_NOT_READY', [why, ...problems]);
  }

  /**
   * Send one action to one device: over its link, or queued for a polling page's next report.
   * @param {Device} d @param {string} action
   */
  function deliver(d, action) {
    if (typeof d.connection === 'string') {
      if (d.queued.length < MAX_QUEUED && !d.queued.includes(action)) d.queued.push(action);
      return true;
    }
    return tell(d.connection, { type: 'command', do: action });
  }

  return {
    /**
     * A device's status, from a report.
     * @param {string} kind @param {string} view
     * @param {import('../../core/roster.js').DeviceStatus} status
     * @param {{ address: string, connection: unknown }} from
     * @returns {import('../../core/errors.js').ErrorValue | null} why it was not counted, or null
     */
    note(kind, view, status, from) {
      expire();
      const t = now();
      let d = devices.get(status.id);
      if (d && d.connection === from.connection && d.gone === null && t - d.heard < STATUS_MIN_INTERVAL_MS)
        return errorValue('SC_ERR_RATE_LIMITED', `one device status per ${STATUS_MIN_INTERVAL_MS} ms counts`);
      const address = addressKey(from.address);
      if (!d || d.address !== address) {
        if (devicesPerAddress > 0 && (perAddress.get(address) ?? 0) >= devicesPerAddress)
          return errorValue('SC_ERR_ADDRESS_LIMIT', `${devicesPerAddress} devices from this address`);
      }
      if (d) forget(d.id);
      else if (devices.size >= MAX_DEVICES) forget(/** @type {string} */ (devices.keys().next().value));
      // A connection that now speaks for another device (a page whose id changed) leaves the old one.
      const previous = byConnection.get(from.connection);
      if (previous !== undefined && previous !== status.id) forget(previous);
      const { epoch, seq } = stream();
      const queued = d && d.connection === from.connection ? d.queued : [];
      d = {
        id: status.id,
        view,
        kind,
        connection: from.connection,
        address,
        status,
        heard: t,
        behind: status.epoch === epoch ? Math.max(0, seq - status.seq) : null,
        gone: null,
        queued,
      };
      devices.set(status.id, d);
      byConnection.set(from.connection, status.id);
      perAddress.set(address, (perAddress.get(address) ?? 0) + 1);
      if (!isAudience(d)) checkWaiter();
      return null;
    },

    /** A connection closed: its device has gone (kept a while to be shown so). @param {{ connection: unknown }} from */
    closed(from) {
      const id = byConnection.get(from.connection);
      if (id === undefined) return;
      const d = devices.get(id);
      if (d && d.connection === from.connection) d.gone = now();
    },

    /**
     * Actions queued for a polling page, taken (its report's answer carries them).
     * @param {unknown} connection
     * @returns {string[]}
     */
    take(connection) {
      const id = byConnection.get(connection);
      const d = id === undefined ? undefined : devices.get(id);
      if (!d || d.queued.length === 0) return [];
      const out = d.queued;
      d.queued = [];
      return out;
    },

    /**
     * The console's action on one device ('all': on every device and connection).
     * @param {string} id @param {string} action
     * @returns {{ ok: true, sent: number } | { ok: false, error: import('../../core/errors.js').ErrorValue, status: number }}
     */
    act(id, action) {
      if (!DEVICE_ACTIONS.includes(action))
        return { ok: false, status: 404, error: errorValue('SC_ERR_UNKNOWN_ACTION', action.slice(0, 32)) };
      expire();
      if (id === 'all') {
        let sent = tellAll({ type: 'command', do: action, all: true });
        for (const d of devices.values())
          if (typeof d.connection === 'string' && d.gone === null && deliver(d, action)) sent++;
        return { ok: true, sent };
      }
      const d = devices.get(id);
      if (!d || d.gone !== null)
        return { ok: false, status: 404, error: errorValue('SC_ERR_NO_DEVICE', id.slice(0, 64)) };
      return { ok: true, sent: deliver(d, action) ? 1 : 0 };
    },

    /** `GET /api/roster`. */
    view() {
      expire();
      const t = now();
      const { epoch, seq } = stream();
      const rows = [];
      for (const d of devices.values()) if (!isAudience(d)) rows.push(row(d, t));
      rows.sort((a, b) => a.view.localeCompare(b.view) || a.id.localeCompare(b.id));
      return {
        t,
        epoch,
        seq,
        parts: partsReady(devices, parts(), now()),
        devices: rows,
        audience: audienceSummary(devices, t, spread),
        waiting: waiter ? { since: waiter.since, until: waiter.until } : null,
        limits: {
          partSilentAfterMs: PART_SILENT_AFTER_MS,
          audienceSilentAfterMs: AUDIENCE_SILENT_AFTER_MS,
          readyClockErrorMs: READY_CLOCK_ERROR_MS,
        },
      };
    },

    /**
     * What this node tells the other nodes of a cluster (server/cluster/cluster-roster.js): its
     * parts' readiness, at most SHARE_ROWS part devices (by view and id; the rest counted), and
     * its audience summed up with each distribution as quantile points. Bounded whatever connects.
     */
    share() {
      expire();
      const t = now();
      const rows = [];
      for (const d of devices.values()) if (!isAudience(d)) rows.push(row(d, t));
      rows.sort((a, b) => a.view.localeCompare(b.view) || a.id.localeCompare(b.id));
      return {
        t,
        parts: partsReady(devices, parts(), t).map((p) => ({
          ...p,
          devices: p.devices.slice(0, SHARE_ROWS),
        })),
        devices: rows.slice(0, SHARE_ROWS),
        omitted: Math.max(0, rows.length - SHARE_ROWS),
        audience: audienceSummary(devices, t, points),
      };
    },

    /** Every part ready now? */
    ready: () => partsReady(devices, parts(), now()).every((p) => p.ready),

    /**
     * Resolve when every part is ready; reject with SC_ERR_NOT_READY after `ms`, or when the wait
     * is cancelled (another wait, pause, stop).
     * @param {number} ms
     * @returns {Promise<void>}
     */
    waitReady(ms) {
      this.cancelWait('another play when ready replaced this one');
      if (partsReady(devices, parts(), now()).every((p) => p.ready)) return Promise.resolve();
      const since = now();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiter = null;
          reject(notReadyError(`not every part ready within ${ms} ms`));
        }, ms);
        timer.unref?.();
        waiter = { since, until: since + ms, resolve, reject, timer };
      });
    },

    /** @param {string} why */
    cancelWait(why) {
      if (!waiter) return;
      const w = waiter;
      waiter = null;
      clearTimeout(w.timer);
      w.reject(notReadyError(why));
    },

    get size() {
      return devices.size;
    },
  };
}

/** @typedef {ReturnType<typeof createRoster>} Roster */

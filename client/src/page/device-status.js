// This device in the conductor's roster (server/live/roster.js): its id (kept across reloads of
// the tab), the name its player gave it, and what it reports with its latency samples in the
// `report` message (doc/protocol.md, "Client reports"). Part pages report twice a second, so the
// console sees one fall silent within two seconds; audience phones every ten, with their samples.

import { AUDIENCE_STATUS_EVERY_MS, PART_STATUS_EVERY_MS, checkDeviceName } from '../../../core/roster.js';

const ID_KEY = 'scorecast.device';
const NAME_KEY = 'scorecast.device-name';
/** Latency samples go out at most this often (the server counts one report of them per 5 s). */
export const SAMPLES_EVERY_MS = 10_000;
/** The first status goes this soon after the page loads (ms). */
const FIRST_STATUS_MS = 1500;

/**
 * This tab's device id: the same after a reload (sessionStorage), another in another tab.
 * @param {Storage | null} storage  sessionStorage
 * @param {() => number} random
 */
export function deviceId(storage, random = Math.random) {
  const kept = storage?.getItem(ID_KEY);
  if (kept && /^d[a-z0-9]{6,20}$/.test(kept)) return kept;
  const id = `d${random().toString(36).slice(2, 12).padEnd(6, '0')}`;
  try {
    storage?.setItem(ID_KEY, id);
  } catch {
    /* a page that cannot keep it gets another id after a reload */
  }
  return id;
}

/**
 * The build this page runs: its entry script's content hash (a page left open across a new
 * build shows an older one in the roster).
 * @param {string} url  the entry module's URL (import.meta.url)
 */
export function appVersion(url) {
  const m = /([A-Za-z0-9_-]{6,})\.js(?:\?.*)?$/.exec(url);
  const hash = m ? m[1].split('-').pop() : 'dev';
  return `0.1.0+${hash}`.slice(0, 40);
}

/**
 * The name the player gave this device, from storage; setName checks it as the server does.
 * @param {Storage | null} storage  localStorage (the same tablet keeps its name)
 */
export function createDeviceName(storage) {
  let name = '';
  try {
    const kept = checkDeviceName(storage?.getItem(NAME_KEY) ?? '');
    if (kept.ok) name = kept.value;
  } catch {
    /* no storage */
  }
  return {
    get value() {
      return name;
    },
    /**
     * @param {string} raw
     * @returns {string | null} why the name was refused, or null when it was taken
     */
    set(raw) {
      const checked = checkDeviceName(raw);
      if (!checked.ok) return checked.error.message;
      name = checked.value;
      try {
        storage?.setItem(NAME_KEY, name);
      } catch {
        /* kept for this page only */
      }
      return null;
    },
  };
}

/**
 * @typedef {object} ReporterOptions
 * @property {string} view
 * @property {() => import('../../../core/roster.js').DeviceStatus} status  this device now
 * @property {() => { push: number[], display: number[] }} samples  taken (emptied) when sent
 * @property {(message: object) => boolean} sendOnLink  the WebSocket, when that is the link
 * @property {() => { live: boolean, transport: string, client: string }} link
 * @property {(url: string, init: RequestInit) => Promise<Response>} fetch
 * @property {(commands: string[]) => void} onCommands  actions answered to an HTTP report
 * @property {{ setInterval: (fn: () => void, ms: number) => unknown, setTimeout: (fn: () => void, ms: number) => unknown }} timers
 * @property {() => number} now
 */

/**
 * Send this device's status (and, every SAMPLES_EVERY_MS, its latency samples) while the link is live.
 * @param {ReporterOptions} o
 */
export function startDeviceReports(o) {
  const every = o.view === 'audience' ? AUDIENCE_STATUS_EVERY_MS : PART_STATUS_EVERY_MS;
  let samplesAt = o.now();
  const send = () => {
    const link = o.link();
    if (!link.live) return;
    const due = o.now() - samplesAt >= SAMPLES_EVERY_MS - every / 2;
    const samples = due ? o.samples() : { push: [], display: [] };
    if (due) samplesAt = o.now();
    const report = { ...samples, device: o.status() };
    if (link.transport === 'ws' && o.sendOnLink({ type: 'report', ...report })) return;
    o.fetch('/api/report', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...report, transport: link.transport, view: o.view, client: link.client }),
    })
      .then(async (res) => {
        if (res.status !== 200) return;
        const answer = await res.json();
        if (Array.isArray(answer?.commands))
          o.onCommands(answer.commands.filter((/** @type {unknown} */ c) => typeof c === 'string'));
      })
      .catch(() => {
        /* a lost report is no loss */
      });
  };
  // The first status soon after the page loads (a phone shows in the roster within seconds), then
  // at the pace of its view.
  o.timers.setTimeout(send, Math.min(every, FIRST_STATUS_MS));
  o.timers.setInterval(send, every);
}

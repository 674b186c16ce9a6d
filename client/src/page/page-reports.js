// What this page tells the server about itself (doc/protocol.md, "Client reports"): its device
// status for the conductor's roster, at its view's pace, and every 10 s what it measured, push
// latency and display lag in ms (device-status.js sends them, on the WebSocket or over HTTP).

import { startDeviceReports } from './device-status.js';

const REPORT_SAMPLES = 16;

/**
 * @param {object} o
 * @param {import('../live/connection.js').Connection} o.connection
 * @param {{ samples: number, serverNow: () => number }} o.clock  the server clock estimate
 * @param {Pick<import('./page-clock.js').PageClock, 'setInterval' | 'setTimeout' | 'now'>} o.timers
 * @param {(url: string, init?: RequestInit) => Promise<Response>} o.fetch
 * @param {string} o.view
 * @param {string} o.pageId
 * @param {() => import('../../../core/roster.js').DeviceStatus} o.status  this device now
 * @param {(commands: string[]) => void} o.onCommands  the console's actions answered to an HTTP report
 */
export function startReports({ connection, clock, timers, fetch, view, pageId, status, onCommands }) {
  const measured = { push: /** @type {number[]} */ ([]), display: /** @type {number[]} */ ([]) };
  connection.on('message', (m) => {
    if ((m.type === 'delta' || m.type === 'snapshot') && clock.samples > 0) measured.push.push(clock.serverNow() - m.t);
  });
  const round = (/** @type {number[]} */ xs) => xs.slice(-REPORT_SAMPLES).map((x) => Math.round(x * 10) / 10);
  startDeviceReports({
    view,
    status,
    samples: () => {
      const taken = { push: round(measured.push), display: round(measured.display) };
      measured.push = [];
      measured.display = [];
      return taken;
    },
    sendOnLink: (message) => connection.send(/** @type {any} */ (message)),
    link: () => ({ live: connection.linkState === 'live', transport: connection.transport, client: pageId }),
    fetch: (url, init) => fetch(url, init),
    onCommands,
    timers,
    now: timers.now,
  });
  return {
    /** @param {number} ms the display lag of a beat */
    displayLag(ms) {
      measured.display.push(ms);
    },
  };
}

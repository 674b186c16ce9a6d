// What this page measured, reported to the server every REPORT_EVERY_MS for the conductor's
// console (doc/protocol.md, "Client reports"): push latency and display lag, in ms.

const REPORT_EVERY_MS = 10_000;
const REPORT_SAMPLES = 16;

/**
 * @param {object} o
 * @param {import('../live/connection.js').Connection} o.connection
 * @param {{ samples: number, serverNow: () => number }} o.clock  the server clock estimate
 * @param {Pick<import('./page-clock.js').PageClock, 'setInterval'>} o.timers
 * @param {(url: string, init?: RequestInit) => Promise<Response>} o.fetch
 * @param {string} o.view
 * @param {string} o.pageId
 */
export function startReports({ connection, clock, timers, fetch, view, pageId }) {
  const measured = { push: /** @type {number[]} */ ([]), display: /** @type {number[]} */ ([]) };
  connection.on('message', (m) => {
    if ((m.type === 'delta' || m.type === 'snapshot') && clock.samples > 0) measured.push.push(clock.serverNow() - m.t);
  });
  timers.setInterval(() => {
    const round = (/** @type {number[]} */ xs) => xs.slice(-REPORT_SAMPLES).map((x) => Math.round(x * 10) / 10);
    const report = { push: round(measured.push), display: round(measured.display) };
    measured.push = [];
    measured.display = [];
    if (report.push.length + report.display.length === 0 || connection.linkState !== 'live') return;
    if (connection.transport === 'ws' && connection.send({ type: 'report', ...report })) return;
    fetch('/api/report', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...report, transport: connection.transport, view, client: pageId }),
    }).catch(() => {
      /* a lost report is no loss */
    });
  }, REPORT_EVERY_MS);
  return {
    /** @param {number} ms the display lag of a beat */
    displayLag(ms) {
      measured.display.push(ms);
    },
  };
}

#!/usr/bin/env node
// The load side of the roster benchmark (bench/roster.js): one process holding the phones and the
// part tablets as WebSocket clients, reporting as the pages do (client/src/page/device-status.js).
// It reads nothing it is sent (the server's fan-out is not what is measured here).
//
// IPC, parent -> child: {type:'connect', url, phones, parts: string[], prefix?}, {type:'mode', mode}
//   prefix: before every device id (several of these processes on the nodes of one cluster)
//   mode 'samples': every client sends latency samples every 10 s (the reports before the roster)
//   mode 'status':  as the pages send now: phones their status with samples every 10 s, part
//                   tablets their status every 500 ms (samples every 10 s)
// child -> parent: {type:'ready', open}, {type:'sent', reports}

import WebSocket from 'ws';

const SAMPLES_EVERY_MS = 10_000;
const PART_EVERY_MS = 500;
const TICK_MS = 50;

/** @type {'samples' | 'status'} */
let mode = 'samples';
let reports = 0;
/** @type {Array<{ ws: WebSocket, view: string, id: string, next: number, samplesAt: number, every: number }>} */
const clients = [];

const samples = () => Array.from({ length: 16 }, () => Math.round(Math.random() * 400) / 10);

/** @param {(typeof clients)[number]} c @param {number} now */
function reportOf(c, now) {
  const withSamples = now - c.samplesAt >= SAMPLES_EVERY_MS - 1;
  if (withSamples) c.samplesAt = now;
  /** @type {Record<string, unknown>} */
  const report = { type: 'report', push: withSamples ? samples() : [], display: withSamples ? samples() : [] };
  if (mode === 'status')
    report.device = {
      id: c.id,
      name: c.view === 'audience' ? '' : `${c.view} desk`,
      link: 'live',
      playback: 'playing',
      epoch: null,
      seq: 0,
      clockError: Math.round(Math.random() * 200) / 10,
      rtt: Math.round(Math.random() * 400) / 10,
      audio: true,
      outputMs: 40,
      awake: 'wake-lock',
      assets: true,
      app: '0.1.0+bench',
    };
  return withSamples || mode === 'status' ? report : null;
}

function tick() {
  const now = performance.now();
  for (const c of clients) {
    if (c.next > now || c.ws.readyState !== WebSocket.OPEN) continue;
    const every = mode === 'status' && c.view !== 'audience' ? PART_EVERY_MS : SAMPLES_EVERY_MS;
    c.next = now + every;
    const r = reportOf(c, now);
    if (r) {
      c.ws.send(JSON.stringify(r));
      reports++;
    }
  }
}

/** @param {string} url @param {string} view @param {string} id @param {number} offset */
function open(url, view, id, offset) {
  return new Promise((resolve) => {
    const ws = new WebSocket(`${url}?view=${view}`, { skipUTF8Validation: true, perMessageDeflate: false });
    const now = performance.now();
    clients.push({ ws, view, id, next: now + offset, samplesAt: now + offset - SAMPLES_EVERY_MS, every: 0 });
    ws.once('open', () => resolve(true));
    ws.once('error', () => resolve(false));
  });
}

process.on('message', async (/** @type {any} */ m) => {
  if (m.type === 'connect') {
    let ok = 0;
    const prefix = typeof m.prefix === 'string' ? m.prefix : '';
    const all = [
      ...m.parts.map((/** @type {string} */ p, /** @type {number} */ i) => [p, `${prefix}dpart${i}`]),
      ...Array.from({ length: m.phones }, (_, i) => ['audience', `${prefix}dphone${i}`]),
    ];
    for (let i = 0; i < all.length; i += 100) {
      const batch = all.slice(i, i + 100);
      const opened = await Promise.all(
        batch.map(([view, id], j) => open(m.url, view, id, ((i + j) * SAMPLES_EVERY_MS) / all.length)),
      );
      ok += opened.filter(Boolean).length;
    }
    setInterval(tick, TICK_MS);
    process.send?.({ type: 'ready', open: ok });
  } else if (m.type === 'mode') {
    mode = m.mode;
    process.send?.({ type: 'sent', reports });
  } else if (m.type === 'stop') {
    for (const c of clients) c.ws.terminate();
    process.exit(0);
  }
});

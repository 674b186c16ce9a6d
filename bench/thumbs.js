#!/usr/bin/env node
// The audience meter under load (`npm run bench:thumbs`): N phones on WebSockets (default 1,500)
// hold the live stream of an open-form piece whose section shows thumbs and the meter
// (bench/scores/open-thumbs), and in alternate phases send thumbs at R a second each (default 2:
// the device's cap) or stay quiet. The server's CPU time in the thumbing phases is reported as a
// ratio to the quiet phases of the same run (same server, same clients, same minute), with the
// meter's patches and their bytes as one client received them. Quiet and thumbing phases
// alternate (quiet, thumbs, quiet, thumbs, ...) so that a change in the machine's load hits both.
//
//   node bench/thumbs.js [--phones 1500] [--rate 2] [--phase 20s] [--pairs 3] [--client-procs 2]
//
// The clients run in child processes (this file with --child), the server is ours
// (server/commands/start.js) with the per-address caps lifted (every client shares 127.0.0.1).

import { fork } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import WebSocket from 'ws';
import { cpuMs } from './proc-stats.js';
import { parseDuration } from './latency-stats.js';
import { children, startServer, stopChild, waitFor } from './servers.js';

const BENCH = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(BENCH, '..');
const SCORE = path.join(BENCH, 'scores', 'open-thumbs');
const TICK_MS = 50;

const { values } = parseArgs({
  options: {
    phones: { type: 'string', default: '1500' },
    rate: { type: 'string', default: '2' },
    phase: { type: 'string', default: '20s' },
    pairs: { type: 'string', default: '3' },
    'client-procs': { type: 'string', default: '2' },
    child: { type: 'boolean', default: false },
  },
});

if (values.child) runChild();
else await main();

/** A load process: its phones, thumbing when told. */
function runChild() {
  /** @type {WebSocket[]} */
  const sockets = [];
  /** @type {string[]} */
  const devices = [];
  let thumbing = false;
  let rate = 2;
  let sent = 0;
  let errors = 0;
  /** Meter patches seen by this process's first phone: how many, and their frame bytes. */
  let meterDeltas = 0;
  let meterBytes = 0;
  let tick = 0;
  process.on('message', async (/** @type {any} */ msg) => {
    if (msg.type === 'connect') {
      for (let i = 0; i < msg.count; i++) {
        const res = await fetch(`${msg.base}/api/device`, { method: 'POST' });
        devices.push((await res.json()).device);
      }
      let open = 0;
      await new Promise((resolve) => {
        for (let i = 0; i < msg.count; i++) {
          const ws = new WebSocket(`${msg.ws}?view=audience`);
          ws.on('message', (/** @type {Buffer} */ data) => {
            const head = data.subarray(0, 200).toString();
            if (head.includes('"type":"error"')) errors++;
            else if (i === 0 && head.startsWith('{"type":"delta"') && head.includes('"patch":{"meter":')) {
              meterDeltas++;
              meterBytes += data.length;
            }
          });
          ws.on('open', () => {
            open++;
            if (open === msg.count) resolve(undefined);
          });
          ws.on('error', () => {});
          sockets.push(ws);
        }
      });
      rate = msg.rate;
      // Each phone thumbs once every 1000 / rate ms, on its own tick, spread evenly.
      const slots = Math.max(1, Math.round(1000 / rate / TICK_MS));
      setInterval(() => {
        const slot = tick++ % slots;
        if (!thumbing) return;
        for (let i = slot; i < sockets.length; i += slots) {
          const ws = sockets[i];
          if (ws.readyState !== ws.OPEN) continue;
          // Opinion drifts: most up, some down, a few change their mind.
          const up = (i * 7919 + tick) % 10 < 7;
          ws.send(`{"type":"thumb","value":"${up ? 'up' : 'down'}","device":"${devices[i]}"}`);
          sent++;
        }
      }, TICK_MS);
      process.send?.({ type: 'ready' });
    } else if (msg.type === 'phase') {
      thumbing = msg.thumbing;
      sent = 0;
      errors = 0;
      meterDeltas = 0;
      meterBytes = 0;
    } else if (msg.type === 'collect') {
      process.send?.({ type: 'collected', sent, errors, meterDeltas, meterBytes });
    } else if (msg.type === 'stop') {
      for (const ws of sockets) ws.terminate();
      process.exit(0);
    }
  });
}

async function main() {
  const phones = Number(values.phones);
  const rate = Number(values.rate);
  const phaseMs = parseDuration(/** @type {string} */ (values.phase));
  const pairs = Number(values.pairs);
  const procs = Number(values['client-procs']);
  const server = startServer({ target: 'ours', root: ROOT, scoreDir: SCORE, schedule: null });
  const { port } = await waitFor(server, 'listening', 30_000, 'server');
  const base = `http://127.0.0.1:${port}`;
  const clients = Array.from({ length: procs }, () => {
    const c = fork(fileURLToPath(import.meta.url), ['--child'], { stdio: 'inherit' });
    children.add(c);
    return c;
  });
  const per = Math.ceil(phones / procs);
  await Promise.all(
    clients.map((c, k) => {
      c.send({
        type: 'connect',
        base,
        ws: `ws://127.0.0.1:${port}/live`,
        count: Math.min(per, phones - k * per),
        rate,
      });
      return waitFor(c, 'ready', 300_000, 'load client');
    }),
  );
  process.stderr.write(`${phones} phones connected; load ${os.loadavg()[0].toFixed(1)}\n`);
  const pid = /** @type {number} */ (server.pid);
  /** @type {{ thumbing: boolean, cpuMsPerS: number, thumbsPerS: number, errors: number, meterDeltasPerS: number, meterFrameBytes: number, load: number }[]} */
  const phases = [];
  for (let k = 0; k < pairs * 2; k++) {
    const thumbing = k % 2 === 1;
    for (const c of clients) c.send({ type: 'phase', thumbing });
    // Two seconds to settle (the meter's timer starts or winds down), then the window.
    await new Promise((r) => setTimeout(r, 2000));
    for (const c of clients) c.send({ type: 'phase', thumbing });
    const cpu0 = cpuMs(pid);
    const t0 = performance.now();
    await new Promise((r) => setTimeout(r, phaseMs));
    const cpu1 = cpuMs(pid);
    const seconds = (performance.now() - t0) / 1000;
    const got = await Promise.all(
      clients.map((c) => {
        const p = waitFor(c, 'collected', 10_000, 'load client');
        c.send({ type: 'collect' });
        return p;
      }),
    );
    const sum = (/** @type {string} */ key) => got.reduce((a, g) => a + g[key], 0);
    phases.push({
      thumbing,
      cpuMsPerS: (cpu1 - cpu0) / seconds,
      thumbsPerS: sum('sent') / seconds,
      errors: sum('errors'),
      meterDeltasPerS: got[0].meterDeltas / seconds,
      meterFrameBytes: got[0].meterDeltas ? Math.round(got[0].meterBytes / got[0].meterDeltas) : 0,
      load: os.loadavg()[0],
    });
    process.stderr.write(`${JSON.stringify(phases.at(-1))}\n`);
  }
  for (const c of clients) c.send({ type: 'stop' });
  await stopChild(server);
  const ratios = [];
  for (let k = 0; k + 1 < phases.length; k += 2) ratios.push(phases[k + 1].cpuMsPerS / phases[k].cpuMsPerS);
  ratios.sort((a, b) => a - b);
  const thumbingPhases = phases.filter((p) => p.thumbing);
  console.log(
    JSON.stringify(
      {
        phones,
        ratePerPhone: rate,
        phaseSeconds: phaseMs / 1000,
        cpuRatioThumbsToQuiet: { median: ratios[Math.floor(ratios.length / 2)], all: ratios },
        thumbsPerSecond: Math.round(thumbingPhases.reduce((a, p) => a + p.thumbsPerS, 0) / thumbingPhases.length),
        errorsInThumbingPhases: thumbingPhases.reduce((a, p) => a + p.errors, 0),
        meterDeltasPerSecond: Math.max(...thumbingPhases.map((p) => p.meterDeltasPerS)),
        meterFrameBytes: Math.max(...thumbingPhases.map((p) => p.meterFrameBytes)),
        phases,
      },
      null,
      2,
    ),
  );
  process.exit(0);
}

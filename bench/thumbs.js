#!/usr/bin/env node
// The audience meter under load (`npm run bench:thumbs`): N phones on WebSockets (default 1,500)
// hold the live stream of an open-form piece whose section shows thumbs and the meter
// (bench/scores/open-thumbs: a delta every beat, 2 a second, and the meter's deltas when it
// moves), and in alternate phases send thumbs at R a second each (default 2: the device's cap) or
// stay quiet. Quiet and thumbing phases alternate (quiet, thumbs, quiet, thumbs, ...) on the same
// server with the same clients, so that a change in the machine's load hits both.
//
//   node bench/thumbs.js [--phones 1500] [--rate 2] [--phase 20s] [--pairs 3] [--client-procs 2]
//                        [--target ours|floor] [--cpu-prof]
//
// Each phase reports the push latency of the stream's deltas to every phone (receive time minus
// the envelope's `t`, as bench/load-client.js records it for bench/fanout.js), p50, p99 and max;
// the errors (sequence gaps, resyncs, sockets closed or in error, error envelopes such as a thumb
// refused); the server's CPU time and RSS; and the meter's deltas as one phone received them
// (how many, bytes per frame on the wire).
//
// What "fan-out within bound" means here. bench/fanout.js holds our broadcast to 1.1x the push
// p99, 1.05x the CPU and 1.25x the RSS of a bare `ws` server sending the same bytes, with 0 errors;
// its clients only read. This bench holds the same server, clients and stream with and without
// 3,000 thumbs a second coming in: the bound it checks is the push p99 of the thumbing phases
// within 1.1x of the quiet phases (all samples of each kind pooled), and 0 errors. A quiet phase
// is the fan-out that bench/fanout.js bounds against the floor, so thumbs within 1.1x of it leave
// the broadcast where that bench puts it. The CPU of the thumbs is not held to the fan-out's
// 1.05x: reading 3,000 WebSocket frames a second is input work that any server taking thumbs
// does (the floor of bench/fanout.js is sent none), so it is reported as µs of server CPU per thumb, with the RSS of
// each phase beside it.
//
// The clients run in child processes (this file with --child), the server is ours
// (server/commands/start.js) with the per-address caps lifted (every client shares 127.0.0.1);
// the thumb guard's per-device cap (2 a second) still holds. --cpu-prof writes the server's CPU
// profile into bench/out/thumbs-prof-<time>/.
//
// --target floor runs the same phones and phases against the fan-out floor (bench/floor-server.js
// replaying our stream's beats, measured from ours first): a bare `ws` server that reads each
// thumb and parses it as JSON, and does nothing else with it. Its figures are the least any
// server pays for the same thumbs and the same broadcast on this machine at this moment.

import { fork } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createLoad } from './load-client.js';
import { cpuMs, rssBytes } from './proc-stats.js';
import { parseDuration, summarize } from './latency-stats.js';
import { children, probeSchedule, startServer, stopChild, waitFor } from './servers.js';
import { benchArgs } from './cli-args.js';

const BENCH = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(BENCH, '..');
const SCORE = path.join(BENCH, 'scores', 'open-thumbs');
const TICK_MS = 50;
/** The bound on the push p99, thumbing phases to quiet ones. */
const P99_BOUND = 1.1;
/** Deltas sent in a phase's window still arriving after it ends are waited for this long. */
const GRACE_MS = 1000;
/** Before each window: the meter's timer starts or winds down. */
const SETTLE_MS = 2000;

const { values } = benchArgs(import.meta.url, {
  options: {
    phones: { type: 'string', default: '1500' },
    rate: { type: 'string', default: '2' },
    phase: { type: 'string', default: '20s' },
    pairs: { type: 'string', default: '3' },
    'client-procs': { type: 'string', default: '2' },
    target: { type: 'string', default: 'ours' },
    'cpu-prof': { type: 'boolean', default: false },
    child: { type: 'boolean', default: false },
  },
});

if (values.child) runChild();
else await main();

/**
 * Device credentials for `count` phones, one each, as the audience page asks for its own.
 * @param {string} base
 * @param {number} count
 */
async function fetchDevices(base, count) {
  /** @type {string[]} */
  const devices = [];
  for (let i = 0; i < count; i++) {
    const res = await fetch(`${base}/api/device`, { method: 'POST' });
    devices.push((await res.json()).device);
  }
  return devices;
}

/** A load process: its phones (bench/load-client.js), thumbing when told. */
function runChild() {
  const send = /** @type {(msg: object) => void} */ (process.send?.bind(process));
  /** @type {ReturnType<typeof createLoad> | null} */
  let load = null;
  let thumbing = false;
  let sent = 0;
  /** Meter deltas seen by this process's first phone: how many, and their frame bytes. */
  let meterDeltas = 0;
  let meterBytes = 0;
  process.on('disconnect', () => process.exit(0));
  process.on('message', async (/** @type {any} */ msg) => {
    if (msg.type === 'connect') {
      setTimeout(() => process.exit(3), msg.maxSeconds * 1000).unref();
      // The floor issues no credentials: its phones send a made-up one of the same length.
      const devices = msg.floor
        ? Array.from({ length: msg.count }, (_, i) => `${String(i).padStart(22, 'A')}.${'B'.repeat(22)}`)
        : await fetchDevices(msg.base, msg.count);
      const l = createLoad({
        url: `${msg.ws}?view=audience`,
        count: msg.count,
        batch: 50,
        everyMs: 50,
        maxPending: 200,
        timeoutMs: 120_000,
        maxSamples: msg.maxSamples,
        maxSeconds: msg.maxSeconds,
      });
      load = l;
      const report = await l.whenReady;
      l.socket(0)?.on('message', (/** @type {Buffer} */ data) => {
        const head = data.toString('latin1', 0, Math.min(data.length, 200));
        if (head.startsWith('{"type":"delta"') && head.includes('"patch":{"meter":')) {
          meterDeltas++;
          meterBytes += data.length;
        }
      });
      // Each phone thumbs once every 1000 / rate ms, on its own tick, spread evenly.
      const slots = Math.max(1, Math.round(1000 / msg.rate / TICK_MS));
      let tick = 0;
      setInterval(() => {
        const slot = tick++ % slots;
        if (!thumbing) return;
        for (let i = slot; i < msg.count; i += slots) {
          const ws = l.socket(i);
          if (!ws) continue;
          // Opinion drifts: most up, some down, a few change their mind.
          const up = (i * 7919 + tick) % 10 < 7;
          ws.send(`{"type":"thumb","value":"${up ? 'up' : 'down'}","device":"${devices[i]}"}`);
          sent++;
        }
      }, TICK_MS);
      send({ type: 'ready', ...report });
    } else if (msg.type === 'phase') {
      thumbing = msg.thumbing;
      sent = 0;
      meterDeltas = 0;
      meterBytes = 0;
    } else if (msg.type === 'window') {
      load?.window(msg.from, msg.to);
    } else if (msg.type === 'collect' && load) {
      send({ type: 'collected', ...load.collect(), sent, meterDeltas, meterBytes });
    } else if (msg.type === 'stop') {
      load?.stop();
      process.exit(0);
    }
  });
}

/**
 * @typedef {object} Phase
 * @property {boolean} thumbing
 * @property {number} cpuMsPerS     server CPU, ms per second of the window
 * @property {number} rssMB         server RSS at the end of the window
 * @property {number} thumbsPerS    thumbs the phones sent, per second of the window
 * @property {{ count: number, p50: number, p99: number, max: number }} push  ms, every delta to every phone
 * @property {number} perPhoneMin   fewest deltas one phone received in the window
 * @property {Record<string, number>} errors  by kind (ClientErrors of bench/load-client.js), non-zero only
 * @property {number} errorCount
 * @property {number} meterDeltasPerS
 * @property {number} meterFrameBytes  bytes of a meter delta's WebSocket message, on average
 * @property {number} load           the machine's 1-minute load average at the end
 */

/**
 * One phase: tell the phones, settle, measure a window of `phaseMs`, collect.
 * @param {import('node:child_process').ChildProcess[]} clients
 * @param {number} pid  the server's
 * @param {boolean} thumbing
 * @param {number} phaseMs
 * @returns {Promise<{ phase: Phase, samples: Float64Array[] }>}
 */
async function runPhase(clients, pid, thumbing, phaseMs) {
  const sleep = (/** @type {number} */ ms) => new Promise((r) => setTimeout(r, ms));
  for (const c of clients) c.send({ type: 'phase', thumbing });
  await sleep(SETTLE_MS);
  const from = performance.timeOrigin + performance.now();
  for (const c of clients) c.send({ type: 'phase', thumbing });
  for (const c of clients) c.send({ type: 'window', from, to: from + phaseMs });
  const cpu0 = cpuMs(pid);
  const t0 = performance.now();
  await sleep(phaseMs);
  const cpu1 = cpuMs(pid);
  const rss = rssBytes(pid);
  const seconds = (performance.now() - t0) / 1000;
  await sleep(GRACE_MS);
  const got = await Promise.all(
    clients.map((c) => {
      const p = waitFor(c, 'collected', 30_000, 'load client');
      c.send({ type: 'collect' });
      return p;
    }),
  );
  const sum = (/** @type {string} */ key) => got.reduce((a, g) => a + g[key], 0);
  /** @type {Record<string, number>} */
  const errors = {};
  for (const g of got) {
    for (const [k, v] of Object.entries(g.errors)) if (k !== 'overflow' && v > 0) errors[k] = (errors[k] ?? 0) + v;
  }
  const samples = got.map((g) => g.samples);
  const s = summarize(samples);
  const phase = {
    thumbing,
    cpuMsPerS: round((cpu1 - cpu0) / seconds),
    rssMB: round(rss / 2 ** 20),
    thumbsPerS: Math.round(sum('sent') / (seconds + GRACE_MS / 1000)),
    push: { count: s.count, p50: round(s.p50), p99: round(s.p99), max: round(s.max) },
    perPhoneMin: Math.min(...got.map((g) => g.perClientMin)),
    errors,
    errorCount: Object.values(errors).reduce((a, v) => a + v, 0),
    meterDeltasPerS: round(got[0].meterDeltas / (seconds + GRACE_MS / 1000)),
    meterFrameBytes: got[0].meterDeltas ? Math.round(got[0].meterBytes / got[0].meterDeltas) : 0,
    load: round(os.loadavg()[0]),
  };
  return { phase, samples };
}

/** @param {number} x */
function round(x) {
  return Math.round(x * 100) / 100;
}

/**
 * The verdict and the figures over every phase: the ratios of each pair, the pooled push
 * latency of each kind of phase, µs of server CPU per thumb.
 * @param {Phase[]} phases
 * @param {{ quiet: Float64Array[], thumbing: Float64Array[] }} pooled
 */
function judge(phases, pooled) {
  /** @type {{ p99: number, cpu: number, usPerThumb: number }[]} */
  const pairs = [];
  for (let k = 0; k + 1 < phases.length; k += 2) {
    const [q, t] = [phases[k], phases[k + 1]];
    pairs.push({
      p99: round(t.push.p99 / q.push.p99),
      cpu: round(t.cpuMsPerS / q.cpuMsPerS),
      usPerThumb: round(((t.cpuMsPerS - q.cpuMsPerS) * 1000) / t.thumbsPerS),
    });
  }
  const quiet = summarize(pooled.quiet);
  const thumbing = summarize(pooled.thumbing);
  const mid = (/** @type {number[]} */ xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const p99Ratio = round(thumbing.p99 / quiet.p99);
  const errors = phases.reduce((a, p) => a + p.errorCount, 0);
  const thumbingPhases = phases.filter((p) => p.thumbing);
  const pick = (/** @type {import('./latency-stats.js').LatencySummary} */ s) => ({
    count: s.count,
    p50: round(s.p50),
    p99: round(s.p99),
    max: round(s.max),
  });
  return {
    bound: `push p99 thumbing/quiet <= ${P99_BOUND} (pooled), 0 errors`,
    withinBound: p99Ratio <= P99_BOUND && errors === 0,
    pushQuiet: pick(quiet),
    pushThumbing: pick(thumbing),
    p99RatioPooled: p99Ratio,
    errors,
    pairs,
    cpuRatioMedian: mid(pairs.map((p) => p.cpu)),
    usPerThumbMedian: mid(pairs.map((p) => p.usPerThumb)),
    thumbsPerSecond: Math.round(thumbingPhases.reduce((a, p) => a + p.thumbsPerS, 0) / thumbingPhases.length),
    meterDeltasPerSecond: Math.max(...thumbingPhases.map((p) => p.meterDeltasPerS)),
    meterFrameBytes: Math.max(...thumbingPhases.map((p) => p.meterFrameBytes)),
  };
}

/**
 * Start the load processes and connect every phone.
 * @param {{ phones: number, procs: number, port: number, rate: number, phaseMs: number, pairs: number, floor: boolean }} o
 */
async function connectPhones({ phones, procs, port, rate, phaseMs, pairs, floor }) {
  const clients = Array.from({ length: procs }, () => {
    const c = fork(fileURLToPath(import.meta.url), ['--child'], { stdio: 'inherit', serialization: 'advanced' });
    children.add(c);
    return c;
  });
  const per = Math.ceil(phones / procs);
  const maxSeconds = 600 + (pairs * 2 * (phaseMs + SETTLE_MS + GRACE_MS)) / 1000;
  const reports = await Promise.all(
    clients.map((c, k) => {
      const count = Math.min(per, phones - k * per);
      c.send({
        type: 'connect',
        base: `http://127.0.0.1:${port}`,
        ws: `ws://127.0.0.1:${port}/live`,
        count,
        rate,
        floor,
        maxSeconds,
        // Every delta of a window to every phone: 2 beats and at most 4 meter deltas a second.
        maxSamples: Math.ceil(count * ((phaseMs + GRACE_MS) / 1000) * 8) + 1000,
      });
      return waitFor(c, 'ready', 600_000, 'load client');
    }),
  );
  const ready = reports.reduce((a, r) => a + r.ready, 0);
  if (ready < phones) throw new Error(`only ${ready} of ${phones} phones connected: ${JSON.stringify(reports)}`);
  return clients;
}

async function main() {
  const phones = Number(values.phones);
  const rate = Number(values.rate);
  const phaseMs = parseDuration(/** @type {string} */ (values.phase));
  const pairs = Number(values.pairs);
  const procs = Number(values['client-procs']);
  const profDir = values['cpu-prof'] ? path.join(BENCH, 'out', `thumbs-prof-${Date.now()}`) : null;
  if (profDir) mkdirSync(profDir, { recursive: true });
  const execArgv = profDir ? ['--cpu-prof', '--cpu-prof-dir', profDir] : [];
  const target = /** @type {string} */ (values.target);
  const floor = target === 'floor';
  if (!floor && target !== 'ours') throw new Error(`--target: ours or floor, not ${target}`);
  const schedule = floor ? await probeSchedule(SCORE, ROOT) : null;
  const server = startServer({ target, root: ROOT, scoreDir: SCORE, schedule, execArgv });
  const { port } = await waitFor(server, 'listening', 30_000, 'server');
  const clients = await connectPhones({ phones, procs, port, rate, phaseMs, pairs, floor });
  process.stderr.write(`${target}: ${phones} phones connected; load ${os.loadavg()[0].toFixed(1)}\n`);
  const pid = /** @type {number} */ (server.pid);
  /** @type {Phase[]} */
  const phases = [];
  /** @type {{ quiet: Float64Array[], thumbing: Float64Array[] }} */
  const pooled = { quiet: [], thumbing: [] };
  for (let k = 0; k < pairs * 2; k++) {
    const { phase, samples } = await runPhase(clients, pid, k % 2 === 1, phaseMs);
    phases.push(phase);
    pooled[phase.thumbing ? 'thumbing' : 'quiet'].push(...samples);
    process.stderr.write(`${JSON.stringify(phase)}\n`);
  }
  for (const c of clients) c.send({ type: 'stop' });
  await stopChild(server);
  const verdict = judge(phases, pooled);
  process.stderr.write(
    `bound: ${verdict.bound}: ${verdict.withinBound ? 'within' : 'NOT within'} ` +
      `(p99 quiet ${verdict.pushQuiet.p99} ms, thumbing ${verdict.pushThumbing.p99} ms, ` +
      `ratio ${verdict.p99RatioPooled}; errors ${verdict.errors})\n` +
      `thumbs: ${verdict.thumbsPerSecond}/s, ${verdict.usPerThumbMedian} µs of server CPU each ` +
      `(CPU thumbing/quiet ${verdict.cpuRatioMedian}x, input work, not fan-out)` +
      `${profDir ? `; CPU profile in ${profDir}` : ''}\n`,
  );
  console.log(
    JSON.stringify({ target, phones, ratePerPhone: rate, phaseSeconds: phaseMs / 1000, ...verdict, phases }, null, 2),
  );
  process.exit(0);
}

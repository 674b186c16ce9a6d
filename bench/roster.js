#!/usr/bin/env node
// Roster cost (`npm run bench:roster`): what the roster costs the server with 1,500 phones and 12
// part tablets connected, as CPU time of the server process over windows of the same run:
//   samples: every client reports latency samples every 10 s (the reports before the roster)
//   status:  the pages' reports now: phones add their status every 10 s, tablets every 500 ms
//   console: status, and a console open (GET /api/roster every 500 ms, as the panel polls)
//   console-x10: the same polled ten times as often, so that the console's share stands out of the
//                machine's noise (its cost divided by ten is the console's, measured another way)
// Before the server starts, the roster's answer itself is timed in this process: roster.view()
// with the same phones and tablets, against a JSON.stringify of the same answer (ratio).
// The phases alternate (samples, status, console, samples, ...) so that the machine's noise falls
// on each alike; the figures are the medians over the rounds, as % of one core, and the console's
// cost against the same run without it (console - status) with the ratio console / status.
//
//   node bench/roster.js [--phones 1500] [--parts 12] [--window 15s] [--rounds 4] [--settle 8s]

import { fork } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cpuMs } from './proc-stats.js';
import { median, parseDuration } from './latency-stats.js';
import { TOKEN, startServer, stopChild, waitFor } from './servers.js';
import { createRoster } from '../server/live/roster.js';
import { benchArgs } from './cli-args.js';

const BENCH = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(BENCH, '..');

const { values: args } = benchArgs(import.meta.url, {
  options: {
    phones: { type: 'string', default: '1500' },
    parts: { type: 'string', default: '12' },
    window: { type: 'string', default: '15s' },
    rounds: { type: 'string', default: '4' },
    settle: { type: 'string', default: '8s' },
  },
});
const phones = Number(args.phones);
const partCount = Number(args.parts);
const windowMs = parseDuration(args.window);
const settleMs = parseDuration(args.settle);
const rounds = Number(args.rounds);

/** @param {number} ms */
const sleep = (ms) =>
  new Promise((resolve) => {
    setTimeout(resolve, ms);
  });

/** A score with `n` parts, a cue every bar, 120 bpm, looping (autoplay). @param {number} n */
function writeScore(n) {
  const dir = path.join(os.tmpdir(), `scorecast-bench-roster-${process.pid}`);
  mkdirSync(dir, { recursive: true });
  const parts = Array.from({ length: n }, (_, i) => `  - { id: part${i + 1}, name: Part ${i + 1} }`).join('\n');
  const cues = Array.from({ length: 64 }, (_, i) => `  - { bar: ${i + 1}, set: { text: bar ${i + 1} } }`).join('\n');
  writeFileSync(
    path.join(dir, 'score.yaml'),
    `id: bench-roster\ntitle: Roster bench\nbars: 64\nparts:\n${parts}\nmeter:\n  - { bar: 1, time: 4/4, tempo: 120 }\ncues:\n${cues}\n`,
  );
  return { dir, parts: Array.from({ length: n }, (_, i) => `part${i + 1}`) };
}

/** roster.view() in this process, with the run's phones and tablets reporting. */
function timeView() {
  let t = Date.now();
  const roster = createRoster({
    now: () => t,
    stream: () => ({ epoch: 'e', seq: 100 }),
    parts: () => Array.from({ length: partCount }, (_, i) => `part${i + 1}`),
    tell: () => true,
    tellAll: () => 0,
  });
  const status = (/** @type {string} */ id, /** @type {number} */ i) => ({
    id,
    name: '',
    link: 'live',
    playback: 'playing',
    epoch: 'e',
    seq: 100 - (i % 7),
    clockError: (i * 7) % 40,
    rtt: (i * 3) % 50,
    audio: true,
    outputMs: 40 + (i % 5) * 30,
    awake: 'wake-lock',
    assets: true,
    app: '0.1.0+bench',
  });
  for (let i = 0; i < partCount; i++)
    roster.note('ws', `part${i + 1}`, status(`dpart${i}`, i), { address: '127.0.0.1', connection: { i } });
  for (let i = 0; i < phones; i++)
    roster.note('ws', 'audience', status(`dphone${i}`, i), { address: '127.0.0.1', connection: { p: i } });
  t += 100;
  const viewMs = [];
  const jsonMs = [];
  let bytes = 0;
  for (let k = 0; k < 300; k++) {
    const a = performance.now();
    const v = roster.view();
    const b = performance.now();
    bytes = JSON.stringify(v).length;
    const c = performance.now();
    viewMs.push(b - a);
    jsonMs.push(c - b);
  }
  return { viewMs: median(viewMs), jsonMs: median(jsonMs), bytes };
}
const timed = timeView();
console.log(
  `roster.view() with ${phones} phones and ${partCount} tablets: ${timed.viewMs.toFixed(3)} ms a call (median of 300), its JSON ${timed.jsonMs.toFixed(3)} ms (${timed.bytes} bytes); at 2 polls a second: ${((2 * (timed.viewMs + timed.jsonMs)) / 10).toFixed(3)}% of a core`,
);

const score = writeScore(partCount);
const server = startServer({ target: 'ours', scoreDir: score.dir, root: ROOT, schedule: null });
const { port } = await waitFor(server, 'listening', 60_000, 'the server');
const base = `http://127.0.0.1:${port}`;
const clients = fork(path.join(BENCH, 'roster-clients.js'), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
clients.send({ type: 'connect', url: `ws://127.0.0.1:${port}/live`, phones, parts: score.parts });
const { open } = await waitFor(clients, 'ready', 120_000, 'the clients');
console.log(`${open} of ${phones + partCount} clients connected; per-address caps lifted (every client is 127.0.0.1)`);

let polling = false;
let rosterBytes = 0;
let polls = 0;
/** @param {number} everyMs */
async function pollRoster(everyMs) {
  while (polling) {
    const started = performance.now();
    const res = await fetch(`${base}/api/roster`, { headers: { authorization: `Bearer ${TOKEN}` } });
    const text = await res.text();
    rosterBytes = Math.max(rosterBytes, text.length);
    polls++;
    await sleep(Math.max(0, everyMs - (performance.now() - started)));
  }
}

/** @type {Record<string, number[]>} */
const pct = { samples: [], status: [], console: [], 'console-x10': [] };
/** Polls a second in each round's console-x10 window. @type {number[]} */
const x10Rates = [];
const loads = [];
for (let r = 0; r < rounds; r++) {
  for (const phase of /** @type {const} */ (['samples', 'status', 'console', 'console-x10'])) {
    clients.send({ type: 'mode', mode: phase === 'samples' ? 'samples' : 'status' });
    if (phase.startsWith('console')) {
      polling = false;
      await sleep(600);
      polling = true;
      pollRoster(phase === 'console' ? 500 : 50);
    }
    await sleep(settleMs);
    const c0 = cpuMs(/** @type {number} */ (server.pid));
    const t0 = performance.now();
    const p0 = polls;
    await sleep(windowMs);
    const used = cpuMs(/** @type {number} */ (server.pid)) - c0;
    const wall = performance.now() - t0;
    if (phase === 'console-x10') x10Rates.push(((polls - p0) * 1000) / wall);
    polling = false;
    pct[phase].push((100 * used) / wall);
    loads.push(os.loadavg()[0]);
    console.log(
      `round ${r + 1} ${phase.padEnd(8)} server CPU ${((100 * used) / wall).toFixed(2)}% of a core (load ${os.loadavg()[0].toFixed(1)})`,
    );
  }
}
clients.send({ type: 'stop' });
await stopChild(server);

const m = Object.fromEntries(Object.entries(pct).map(([k, v]) => [k, median(v)]));
console.log('\nmedian over rounds, % of one core:');
for (const [k, v] of Object.entries(m)) console.log(`  ${k.padEnd(11)} ${v.toFixed(2)}%`);
console.log(
  `  the reports' device status (status - samples): ${(m.status - m.samples).toFixed(2)} points, ratio ${(m.status / m.samples).toFixed(3)}`,
);
console.log(
  `  the console open (console - status):           ${(m.console - m.status).toFixed(2)} points, ratio ${(m.console / m.status).toFixed(3)}`,
);
console.log(
  `  per-round console - status: ${pct.console.map((v, i) => (v - pct.status[i]).toFixed(2)).join(', ')} points`,
);
// The console's cost from the many polls of console-x10: CPU points per poll a second, times 2
// (the panel polls twice a second).
const perPoll = pct['console-x10'].map((v, i) => (v - pct.status[i]) / x10Rates[i]);
console.log(
  `  the console, from its polls at ${median(x10Rates).toFixed(1)} a second: ${(2 * median(perPoll)).toFixed(2)} points at the panel's 2 polls a second (${(10 * median(perPoll)).toFixed(2)} ms of CPU a poll; per round: ${perPoll.map((v) => (2 * v).toFixed(2)).join(', ')})`,
);
console.log(`  GET /api/roster: ${polls} polls, largest answer ${rosterBytes} bytes`);
console.log(
  `  load average during the windows: ${Math.min(...loads).toFixed(1)} to ${Math.max(...loads).toFixed(1)} (${os.cpus().length} cores)`,
);
process.exit(0);

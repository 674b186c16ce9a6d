#!/usr/bin/env node
// Idle cost (`npm run bench:idle`): the CPU a server uses playing the seed profile with no one
// connected, against the floor (bench/floor-server.js, a bare `ws` server waking on the same
// schedule) measured at the same time. What is left when nobody listens is the server's fixed
// cost: its timers (each wakeup costs about 0.08 ms of CPU on these machines), metrics sampling,
// the beats. At 100 clients the floor itself uses only 2.5-3 ms a second, so this fixed cost is
// most of our ratio to it there (bench/RESULTS.md, "Idle cost").
//
//   node bench/idle.js [--duration 60s] [--warmup 40s] [--repeat 2] [--base-root DIR]
//
// All targets run at once (idle servers do not compete for the CPU, and the machine's noise
// falls on all of them alike); CPU is user + system of every thread, from /proc/PID/stat, over
// the window after the warm-up. --base-root adds `base`, our server from another checkout.

import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cpuMs } from './proc-stats.js';
import { median, parseDuration } from './latency-stats.js';
import { probeSchedule, startServer, stopChild, waitFor } from './servers.js';
import { benchArgs } from './cli-args.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SCORE = path.join(ROOT, 'scores', 'seed-profile');
const START_TIMEOUT_MS = 30_000;

/** @param {number} ms */
const sleep = (ms) =>
  new Promise((resolve) => {
    setTimeout(resolve, ms);
  });

async function main() {
  const { values } = benchArgs(import.meta.url, {
    options: {
      duration: { type: 'string', default: '60s' },
      warmup: { type: 'string', default: '40s' },
      repeat: { type: 'string', default: '2' },
      'base-root': { type: 'string' },
    },
    strict: true,
  });
  const durationMs = parseDuration(/** @type {string} */ (values.duration));
  const warmupMs = parseDuration(/** @type {string} */ (values.warmup));
  const repeat = Number(values.repeat);
  if (!(Number.isInteger(repeat) && repeat >= 1 && repeat <= 10)) throw new Error('--repeat: 1..10');
  const baseRoot = values['base-root'] ? path.resolve(values['base-root']) : null;

  process.stderr.write('measuring what our server sends for scores/seed-profile (one loop) ... ');
  const schedule = await probeSchedule(SCORE, ROOT, START_TIMEOUT_MS);
  process.stderr.write('done\n');

  const targets = ['floor', 'ours', ...(baseRoot ? ['base'] : [])];
  /** @type {Record<string, number[]>} CPU ms per second, one per trial */
  const perSecond = Object.fromEntries(targets.map((t) => [t, []]));
  for (let r = 0; r < repeat; r++) {
    process.stderr.write(
      `  trial ${r + 1}/${repeat}: ${targets.join(', ')} at once, ${warmupMs / 1000} s warm-up, ${durationMs / 1000} s window ... `,
    );
    const servers = targets.map((target) =>
      startServer({
        target,
        scoreDir: SCORE,
        root: target === 'base' ? /** @type {string} */ (baseRoot) : ROOT,
        schedule,
      }),
    );
    try {
      await Promise.all(servers.map((s, i) => waitFor(s, 'listening', START_TIMEOUT_MS, targets[i])));
      await sleep(warmupMs);
      const before = servers.map((s) => cpuMs(/** @type {number} */ (s.pid)));
      await sleep(durationMs);
      const after = servers.map((s) => cpuMs(/** @type {number} */ (s.pid)));
      targets.forEach((t, i) => {
        perSecond[t].push((after[i] - before[i]) / (durationMs / 1000));
      });
      process.stderr.write(`${targets.map((t) => `${t} ${perSecond[t][r].toFixed(2)}`).join(', ')} ms/s\n`);
    } finally {
      await Promise.all(servers.map(stopChild));
    }
  }

  const floor = median(perSecond.floor);
  const lines = [
    `Command: \`node bench/idle.js ${process.argv.slice(2).join(' ')}\``.replace(/ `$/, '`'),
    '',
    '| target | CPU ms per second, each trial | median | ratio to the floor |',
    '| --- | --- | ---: | ---: |',
    ...targets.map(
      (t) =>
        `| ${t} | ${perSecond[t].map((v) => v.toFixed(2)).join(', ')} | ${median(perSecond[t]).toFixed(2)} | ${floor > 0 ? (median(perSecond[t]) / floor).toFixed(1) : '-'} |`,
    ),
    '',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

main().catch((err) => {
  process.stderr.write(`\nidle: ${err.stack ?? err}\n`);
  process.exit(1);
});

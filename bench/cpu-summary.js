#!/usr/bin/env node
// Where a server's CPU goes, from a .cpuprofile (node --cpu-prof; bench/fanout.js --cpu-prof
// writes one per server): self time by area (hub, WebSocket transport, ws, Node's net and
// streams, timers, logging, JSON, GC, native) and by function, over the last part of the
// profile (the measured window: the settle, ramp and start are left out).
//
//   node bench/cpu-summary.js PROFILE [--last 27s] [--skip-end 3s] [--top 25]

import { readFileSync } from 'node:fs';
import { parseDuration } from './latency-stats.js';
import { benchArgs } from './cli-args.js';

/**
 * The area of a frame, from its script and function.
 * @param {string} url @param {string} fn
 */
export function areaOf(url, fn) {
  if (fn === '(garbage collector)') return 'gc';
  if (fn === '(program)') return 'native (program)';
  if (fn === '(idle)') return 'idle';
  if (fn === 'stringify' || fn === 'parse') return 'json';
  if (url.includes('/server/live/hub.js')) return 'hub';
  if (url.includes('/server/live/transports/websocket.js')) return 'ws transport (ours)';
  if (url.includes('/core/')) return 'core';
  if (url.includes('/server/')) return 'server (other)';
  if (url.includes('/bench/')) return 'bench floor';
  if (url.includes('/node_modules/ws/')) return 'ws library';
  if (url.includes('/node_modules/pino') || url.includes('thread-stream') || url.includes('sonic-boom'))
    return 'logging';
  if (url.includes('/node_modules/fastify') || url.includes('/node_modules/@fastify') || url.includes('find-my-way'))
    return 'fastify';
  if (url.includes('/node_modules/')) return 'other modules';
  if (url.startsWith('node:internal/timers') || url === 'node:timers') return 'timers';
  if (url.startsWith('node:internal/streams') || url === 'node:stream') return 'node streams';
  if (url === 'node:net' || url.startsWith('node:internal/stream_base') || url.startsWith('node:internal/net'))
    return 'node net';
  if (url.startsWith('node:')) return 'node (other)';
  if (url === '') return `native: ${fn || '(anonymous)'}`;
  return 'other';
}

/**
 * Each sample of a V8 CPU profile taken within [from, to) (µs, the profile's clock) that is not
 * idle: its call frame and its length (µs, up to the next sample: wall-clock time, longer when
 * the process waited for a core).
 * @param {any} prof @param {[number, number]} window
 * @param {(frame: { url: string, functionName: string, lineNumber: number }, us: number) => void} visit
 */
export function forEachSample(prof, [from, to], visit) {
  /** @type {Map<number, any>} */
  const byId = new Map(prof.nodes.map((/** @type {any} */ n) => [n.id, n]));
  let t = prof.startTime;
  for (let i = 0; i < prof.samples.length; i++) {
    t += prof.timeDeltas[i];
    if (t < from || t >= to) continue;
    const frame = byId.get(prof.samples[i]).callFrame;
    if (frame.functionName !== '(idle)') visit(frame, prof.timeDeltas[i + 1] ?? 0);
  }
}

/**
 * @param {string} file @param {number} lastMs @param {number} skipEndMs
 */
export function summarizeProfile(file, lastMs, skipEndMs) {
  const prof = JSON.parse(readFileSync(file, 'utf8'));
  const end = prof.endTime - skipEndMs * 1000;
  /** @type {Map<string, number>} */
  const area = new Map();
  /** @type {Map<string, number>} */
  const fns = new Map();
  let total = 0;
  forEachSample(prof, [end - lastMs * 1000, end], ({ url, functionName: fn, lineNumber }, us) => {
    const dt = us / 1000;
    const a = areaOf(url, fn);
    total += dt;
    area.set(a, (area.get(a) ?? 0) + dt);
    const key = `${fn || '(anonymous)'} ${url.replace(/^.*\/(node_modules|server|core|bench)\//, '$1/')}:${lineNumber + 1}`;
    fns.set(key, (fns.get(key) ?? 0) + dt);
  });
  return { total, area, fns, windowMs: lastMs };
}

function main() {
  const { values, positionals } = benchArgs(import.meta.url, {
    options: {
      last: { type: 'string', default: '27s' },
      'skip-end': { type: 'string', default: '3s' },
      top: { type: 'string', default: '25' },
    },
    allowPositionals: true,
  });
  const last = parseDuration(/** @type {string} */ (values.last));
  const skip = parseDuration(/** @type {string} */ (values['skip-end']));
  for (const file of positionals) {
    const s = summarizeProfile(file, last, skip);
    process.stdout.write(`${file}: ${s.total.toFixed(0)} ms busy in the last ${last} ms\n`);
    for (const [k, v] of [...s.area].sort((a, b) => b[1] - a[1]))
      process.stdout.write(`  ${v.toFixed(0).padStart(7)} ms ${((100 * v) / s.total).toFixed(1).padStart(5)}%  ${k}\n`);
    process.stdout.write('  --\n');
    for (const [k, v] of [...s.fns].sort((a, b) => b[1] - a[1]).slice(0, Number(values.top)))
      process.stdout.write(`  ${v.toFixed(0).padStart(7)} ms ${((100 * v) / s.total).toFixed(1).padStart(5)}%  ${k}\n`);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) main();

// What the lab's PulseAudio does while a run measures: its debug log (underruns, rewinds, latency
// requests) and, a few times a second, each sink's and each stream's latency from `pactl`, every
// entry on the lab's clock. Written to tell the device's own moves (a page's output stepping 5-80 ms
// between two readings, several pages at once: bench/RESULTS.md, "Audio: placed clicks follow the
// output") from the product's: a step that comes with an underrun or a latency change of the
// daemon is the lab's.
//
// The daemon writes its log to a file (a pipe it could block on while the machine is loaded);
// `--log-time` stamps each line with the daemon's monotonic time since its first line, and the
// sampler's own connections, logged by the daemon, tie that time to the lab's clock: each `pactl`
// connects between the two lab times taken around it.

import { execFile } from 'node:child_process';
import { appendFileSync, readFileSync } from 'node:fs';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The daemon options that make it log what the watch reads. */
export const PULSE_LOG_OPTIONS = (/** @type {string} */ file) => [
  '--log-level=debug',
  '--log-time=1',
  '--log-meta=1',
  `--log-target=file:${file}`,
];

/**
 * Samples `pactl list sinks` and `pactl list sink-inputs` every `everyMs` into `file` (one JSON
 * object a line: `{ from, to, sinks, inputs }`, lab times before and after the two calls).
 * @param {{ file: string, env: NodeJS.ProcessEnv, now: () => number, everyMs?: number }} o
 */
export function watchLatencies({ file, env, now, everyMs = 200 }) {
  let on = true;
  const loop = (async () => {
    while (on) {
      const from = now();
      try {
        const [sinks, inputs] = await Promise.all([
          run('pactl', ['list', 'sinks'], { env, timeout: 5000 }),
          run('pactl', ['list', 'sink-inputs'], { env, timeout: 5000 }),
        ]);
        const to = now();
        appendFileSync(
          file,
          `${JSON.stringify({ from, to, sinks: parseSinks(sinks.stdout), inputs: parseInputs(inputs.stdout) })}\n`,
        );
      } catch {
        /* the daemon stopping */
      }
      await new Promise((r) => setTimeout(r, everyMs));
    }
  })();
  // The hypervisor's steal time (/proc/stat, 10 ms ticks), read every 10 ms and kept when it
  // moves: a stall of the whole machine stalls every page's audio at once.
  let steal = stealTicks();
  const stealTimer = setInterval(() => {
    const now2 = stealTicks();
    if (now2 !== steal) appendFileSync(file, `${JSON.stringify({ steal: now2 - steal, at: now() })}\n`);
    steal = now2;
  }, 10);
  return {
    stop: async () => {
      on = false;
      clearInterval(stealTimer);
      await loop;
    },
  };
}

/** Ticks of steal time of the machine so far (0 where /proc/stat does not say). */
function stealTicks() {
  try {
    return Number(readFileSync('/proc/stat', 'utf8').split('\n', 1)[0].trim().split(/\s+/)[8] ?? 0);
  } catch {
    return 0;
  }
}

/** @param {string} text */
function blocks(text) {
  return text.split(/\n(?=\S)/).filter((b) => b.trim() !== '');
}

/** @param {string} text  `pactl list sinks` */
export function parseSinks(text) {
  return blocks(text).map((b) => {
    const lat = /Latency: (\d+) usec, configured (\d+) usec/.exec(b);
    return {
      index: Number(/Sink #(\d+)/.exec(b)?.[1]),
      name: /Name: (\S+)/.exec(b)?.[1] ?? '',
      latencyUs: lat ? Number(lat[1]) : null,
      configuredUs: lat ? Number(lat[2]) : null,
    };
  });
}

/** @param {string} text  `pactl list sink-inputs` */
export function parseInputs(text) {
  return blocks(text).map((b) => ({
    index: Number(/Sink Input #(\d+)/.exec(b)?.[1]),
    sink: Number(/Sink: (\d+)/.exec(b)?.[1]),
    bufferUs: Number(/Buffer Latency: (\d+) usec/.exec(b)?.[1]),
    sinkUs: Number(/Sink Latency: (\d+) usec/.exec(b)?.[1]),
    name: /media\.name = "([^"]*)"/.exec(b)?.[1] ?? '',
  }));
}

/**
 * The daemon's log with each line on the lab's clock: `{ at, text }`. The daemon's log time
 * counts from its first line, near `startedAt` (the lab's clock when it was spawned); each sampler
 * connection (logged "Client authenticated anonymously") lies between its sample's `from` and `to`,
 * and the offset kept is the one the most of those windows agree on (a browser's connection near a
 * sample only adds an interval the others outvote).
 * @param {string} logFile
 * @param {string} samplesFile
 * @param {number} startedAt
 */
export function readPulseLog(logFile, samplesFile, startedAt) {
  /** @type {Array<{ t: number, text: string }>} */
  const entries = [];
  for (const line of readFileSync(logFile, 'utf8').split('\n')) {
    const m = /^\(\s*([\d.]+)\|\s*[\d.]+\)\s?(.*)$/.exec(line);
    if (m) entries.push({ t: Number(m[1]) * 1000, text: m[2] });
  }
  const all = readFileSync(samplesFile, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l));
  const samples = all.filter((s) => s.sinks);
  const steal = all.filter((s) => s.steal);
  const connects = entries.filter((e) => /Client authenticated anonymously/.test(e.text)).map((e) => e.t);
  /** @type {Array<[number, number]>} */
  const intervals = [];
  for (const s of samples)
    for (const c of connects)
      if (c + startedAt > s.from - 300 && c + startedAt < s.to + 300) intervals.push([s.from - c, s.to - c]);
  // The point inside the most intervals (a sweep over their ends).
  const ends = intervals.flatMap(([a, b]) => [
    [a, 1],
    [b, -1],
  ]);
  ends.sort((x, y) => x[0] - y[0] || y[1] - x[1]);
  let depth = 0;
  let best = { depth: 0, lo: startedAt, hi: startedAt };
  for (let i = 0; i < ends.length; i++) {
    depth += ends[i][1];
    if (depth > best.depth) best = { depth, lo: ends[i][0], hi: ends[i + 1]?.[0] ?? ends[i][0] };
  }
  const offset = (best.lo + best.hi) / 2;
  return {
    offset,
    boundMs: (best.hi - best.lo) / 2,
    agreeing: best.depth,
    samples: samples.length,
    entries: entries.map((e) => ({ at: e.t + offset, text: e.text })),
    latencies: samples,
    steal,
  };
}

#!/usr/bin/env node
// Page load at 1,500 phones: what a phone fetches on its first visit to the seed-profile page
// (index.html, its JS and CSS, /api/score, then the assets it marks preload: 1.9 MB, almost all
// of it the audio), from our server and from the floor (bench/static-floor.js: a bare node:http
// server answering the same bytes from memory), in the same run, in alternating rounds.
//
// A simulated phone is a keep-alive agent of at most --sockets connections (a browser's six per
// host); it fetches the stages in order, each stage's files at once: the page; its /assets/;
// /api/score; the preloads. Its page-load time runs from the first request to the last byte.
// Phones arrive evenly over --ramp. Every request has a deadline (--timeout), every round ends.
//
//   npm run bench:pageload -- [--users 1500] [--ramp 3s] [--rounds 3] [--sockets 6]
//                             [--clients 1] [--timeout 60s] [--score scores/seed-profile] [--cpu-prof]
// --cpu-prof writes our server's CPU profile to bench/results/pageload-prof/.
// Needs the client built (npm run build). Loopback only.

import http from 'node:http';
import zlib from 'node:zlib';
import path from 'node:path';
import { fork } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { startServer, stopChild, waitFor, children } from './servers.js';
import { summarize, median, parseDuration } from './latency-stats.js';
import { cpuMs } from './proc-stats.js';
import { benchArgs } from './cli-args.js';

const BENCH = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(BENCH, '..');
/** What Chromium sends for a script or a fetch. */
const BROWSER = { 'accept-encoding': 'gzip, deflate, br', accept: '*/*', 'user-agent': 'scorecast-bench' };
/** Headers the floor repeats from our answers. */
const KEPT = ['content-type', 'content-encoding', 'cache-control', 'etag', 'vary'];
const START_TIMEOUT_MS = 60_000;

/**
 * @typedef {object} LoadPlan
 * @property {number} port
 * @property {string[][]} stages     URLs fetched stage after stage
 * @property {Record<string, number>} bytes  the size each URL must have
 * @property {number} users
 * @property {number} rampMs
 * @property {number} timeoutMs
 * @property {number} sockets
 */

/**
 * GET a URL, the whole answer in memory.
 * @param {number} port
 * @param {string} url
 * @returns {Promise<{ status: number, headers: import('node:http').IncomingHttpHeaders, body: Buffer }>}
 */
function rawGet(port, url) {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path: url, headers: BROWSER, timeout: 10_000 }, (res) => {
      /** @type {Buffer[]} */
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`${url}: no answer in 10 s`)));
    req.on('error', reject);
  });
}

/**
 * @param {{ headers: import('node:http').IncomingHttpHeaders, body: Buffer }} res
 */
function decoded({ headers, body }) {
  const enc = headers['content-encoding'];
  return enc === 'br' ? zlib.brotliDecompressSync(body) : enc === 'gzip' ? zlib.gunzipSync(body) : body;
}

/**
 * What a first visit fetches from our server, with the bytes and headers it sent.
 * @param {number} port
 */
async function recordPage(port) {
  /** @type {import('./static-floor.js').RecordedFile[]} */
  const files = [];
  /** @param {string} url */
  const take = async (url) => {
    const res = await rawGet(port, url);
    if (res.status !== 200) throw new Error(`${url}: ${res.status} from our server`);
    /** @type {Record<string, string>} */
    const headers = {};
    for (const h of KEPT) if (res.headers[h] !== undefined) headers[h] = String(res.headers[h]);
    files.push({ url, headers, body: res.body });
    return res;
  };
  const html = decoded(await take('/')).toString();
  const assets = [...new Set([...html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1]))];
  for (const url of assets) await take(url);
  const info = JSON.parse(decoded(await take('/api/score')).toString());
  const preloads = /** @type {{ url: string, preload: boolean }[]} */ (info.assets)
    .filter((a) => a.preload)
    .map((a) => a.url);
  for (const url of preloads) await take(url);
  return { files, stages: [['/'], assets, ['/api/score'], preloads].filter((s) => s.length > 0) };
}

/**
 * Fetch one URL on a phone's agent, checking its status and size.
 * @param {http.Agent} agent
 * @param {LoadPlan} plan
 * @param {string} url
 * @returns {Promise<void>}
 */
function fetchOne(agent, plan, url) {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port: plan.port, path: url, agent, headers: BROWSER }, (res) => {
      let n = 0;
      res.on('data', (c) => {
        n += c.length;
      });
      res.on('end', () => {
        clearTimeout(timer);
        if (res.statusCode !== 200 || n !== plan.bytes[url]) reject(new Error(`${url}: ${res.statusCode}, ${n} bytes`));
        else resolve();
      });
      res.on('error', reject);
    });
    const timer = setTimeout(() => req.destroy(new Error(`${url}: past ${plan.timeoutMs} ms`)), plan.timeoutMs);
    req.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
  });
}

/**
 * Load the page as `plan.users` phones arriving over the ramp.
 * @param {LoadPlan} plan
 * @returns {Promise<{ samples: Float64Array, errors: number, firstError: string | null }>}
 */
async function runLoad(plan) {
  const samples = new Float64Array(plan.users);
  let n = 0;
  let errors = 0;
  /** @type {string | null} */
  let firstError = null;
  await Promise.all(
    Array.from({ length: plan.users }, async (_, i) => {
      await new Promise((resolve) => {
        setTimeout(resolve, (i * plan.rampMs) / plan.users);
      });
      const agent = new http.Agent({ keepAlive: true, maxSockets: plan.sockets });
      const t0 = performance.now();
      try {
        for (const stage of plan.stages) await Promise.all(stage.map((url) => fetchOne(agent, plan, url)));
        samples[n++] = performance.now() - t0;
      } catch (err) {
        errors++;
        firstError ??= /** @type {Error} */ (err).message;
      } finally {
        agent.destroy();
      }
    }),
  );
  return { samples: samples.slice(0, n), errors, firstError };
}

/**
 * A round against one server, its phones split over `clients` processes.
 * @param {LoadPlan} plan
 * @param {number} clients
 */
async function round(plan, clients) {
  if (clients <= 1) return runLoad(plan);
  const parts = await Promise.all(
    Array.from({ length: clients }, async (_, k) => {
      const users = Math.floor(plan.users / clients) + (k < plan.users % clients ? 1 : 0);
      const child = fork(fileURLToPath(import.meta.url), ['--role', 'client'], {
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      });
      children.add(child);
      const done = waitFor(child, 'done', plan.timeoutMs * 4 + plan.rampMs + 60_000, 'a load client');
      child.send({ type: 'plan', plan: { ...plan, users } });
      const msg = await done;
      children.delete(child);
      return /** @type {{ samples: number[], errors: number, firstError: string | null }} */ (msg);
    }),
  );
  return {
    samples: Float64Array.from(parts.flatMap((p) => p.samples)),
    errors: parts.reduce((s, p) => s + p.errors, 0),
    firstError: parts.find((p) => p.firstError)?.firstError ?? null,
  };
}

async function main() {
  const { values } = benchArgs(import.meta.url, {
    options: {
      role: { type: 'string', default: 'main' },
      users: { type: 'string', default: '1500' },
      ramp: { type: 'string', default: '3s' },
      rounds: { type: 'string', default: '3' },
      sockets: { type: 'string', default: '6' },
      clients: { type: 'string', default: '1' },
      timeout: { type: 'string', default: '60s' },
      score: { type: 'string', default: 'scores/seed-profile' },
      'cpu-prof': { type: 'boolean', default: false },
    },
    strict: true,
  });
  if (values.role === 'client') {
    process.once('message', async (/** @type {any} */ msg) => {
      const r = await runLoad(msg.plan);
      process.send?.({ type: 'done', samples: [...r.samples], errors: r.errors, firstError: r.firstError }, () =>
        process.exit(0),
      );
    });
    return;
  }
  const users = Number(values.users);
  const rounds = Number(values.rounds);
  const clients = Number(values.clients);
  if (!(users >= 1 && users <= 5000 && rounds >= 1 && rounds <= 20 && clients >= 1 && clients <= 8)) {
    throw new Error('--users 1..5000, --rounds 1..20, --clients 1..8');
  }
  const profDir = path.join(BENCH, 'results', 'pageload-prof');
  if (values['cpu-prof']) mkdirSync(profDir, { recursive: true });
  const scoreDir = path.resolve(ROOT, values.score);

  const ours = startServer({
    target: 'ours',
    scoreDir,
    root: ROOT,
    schedule: null,
    execArgv: values['cpu-prof'] ? ['--cpu-prof', '--cpu-prof-dir', profDir] : [],
  });
  const { port: oursPort } = await waitFor(ours, 'listening', START_TIMEOUT_MS, 'our server');
  const { files, stages } = await recordPage(oursPort);
  const floor = fork(path.join(BENCH, 'static-floor.js'), [], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    serialization: 'advanced',
  });
  children.add(floor);
  const floorListening = waitFor(floor, 'listening', START_TIMEOUT_MS, 'the floor');
  floor.send({ type: 'files', files, maxSeconds: 3600 });
  const { port: floorPort } = await floorListening;

  const bytes = Object.fromEntries(files.map((f) => [f.url, f.body.length]));
  const pageBytes = files.reduce((s, f) => s + f.body.length, 0);
  console.log(
    `page: ${files.length} files, ${(pageBytes / 1e6).toFixed(2)} MB on the wire; stages ${JSON.stringify(stages)}`,
  );
  console.log(
    `${users} phones over ${values.ramp}, ${values.sockets} sockets each, ${clients} client process(es), ${rounds} rounds`,
  );

  const targets = {
    ours: { port: oursPort, pid: /** @type {number} */ (ours.pid) },
    floor: { port: floorPort, pid: /** @type {number} */ (floor.pid) },
  };
  /** @type {Record<'ours' | 'floor', Float64Array[]>} */
  const samples = { ours: [], floor: [] };
  /** @type {{ round: number, target: string, count: number, errors: number, p50: number, p99: number, max: number, cpuMs: number, firstError: string | null }[]} */
  const perRound = [];
  for (let r = 0; r < rounds; r++) {
    // Alternate which goes first, so neither always follows the other's leftovers.
    /** @type {('ours' | 'floor')[]} */
    const order = r % 2 === 0 ? ['ours', 'floor'] : ['floor', 'ours'];
    for (const target of order) {
      const { port, pid } = targets[target];
      const cpu0 = cpuMs(pid);
      const res = await round(
        {
          port,
          stages,
          bytes,
          users,
          rampMs: parseDuration(values.ramp),
          timeoutMs: parseDuration(values.timeout),
          sockets: Number(values.sockets),
        },
        clients,
      );
      const cpu = cpuMs(pid) - cpu0;
      samples[target].push(res.samples);
      const s = summarize([res.samples]);
      perRound.push({
        round: r + 1,
        target,
        count: s.count,
        errors: res.errors,
        p50: s.p50,
        p99: s.p99,
        max: s.max,
        cpuMs: cpu,
        firstError: res.firstError,
      });
      console.log(
        `round ${r + 1} ${target.padEnd(5)}: ${s.count} loads, ${res.errors} failed, p50 ${s.p50.toFixed(0)} ms, p99 ${s.p99.toFixed(0)} ms, max ${s.max.toFixed(0)} ms, server CPU ${cpu.toFixed(0)} ms${res.firstError ? ` (first error: ${res.firstError})` : ''}`,
      );
    }
  }
  await stopChild(ours);
  await stopChild(floor);

  const all = { ours: summarize(samples.ours), floor: summarize(samples.floor) };
  const ratio = (/** @type {'p50' | 'p99'} */ k) => all.ours[k] / all.floor[k];
  const roundRatios = Array.from({ length: rounds }, (_, r) => {
    const o = perRound.find((p) => p.round === r + 1 && p.target === 'ours');
    const f = perRound.find((p) => p.round === r + 1 && p.target === 'floor');
    return o && f ? o.p99 / f.p99 : NaN;
  });
  console.log(
    `\nall rounds: ours p50 ${all.ours.p50.toFixed(0)} ms p99 ${all.ours.p99.toFixed(0)} ms; floor p50 ${all.floor.p50.toFixed(0)} ms p99 ${all.floor.p99.toFixed(0)} ms`,
  );
  console.log(
    `ratio ours/floor: p50 ${ratio('p50').toFixed(2)}x, p99 ${ratio('p99').toFixed(2)}x (median of the rounds' p99 ratios ${median(roundRatios).toFixed(2)}x; goal p99 <= 1.25x)`,
  );
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const out = path.join(BENCH, 'results', `pageload-${stamp}.json`);
  writeFileSync(
    out,
    JSON.stringify(
      {
        users,
        ramp: values.ramp,
        sockets: Number(values.sockets),
        clients,
        rounds,
        pageBytes,
        stages,
        perRound,
        all,
        ratio: { p50: ratio('p50'), p99: ratio('p99') },
        roundRatios,
      },
      null,
      2,
    ),
  );
  console.log(`written ${path.relative(ROOT, out)}`);
  if (values['cpu-prof']) console.log(`our server's CPU profile: ${path.relative(ROOT, profDir)}/`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

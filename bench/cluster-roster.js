#!/usr/bin/env node
// The roster's cost on a cluster (`npm run bench:cluster-roster`): a conductor and two edges on
// one Redis (processes on loopback, as test/server/cluster does), 1,500 phones and 12 part tablets
// split over the edges (bench/roster-clients.js, reporting as the pages do), a 12-part score
// playing (a delta every beat). Two phases alternate so that the machine's noise falls on both:
//   status:  the pages report; nobody looks at the roster (the nodes only ask, twice a second,
//            whether anyone does)
//   console: the same, and a console open at edge A (GET /api/roster every 500 ms, as the panel
//            polls), so every node writes its share of the roster twice a second
// Measured per window: the roster's own traffic (its commands on the roster's hash and channel as
// Redis's MONITOR shows them, with their answers' sizes: bytes a second in and out of Redis), all
// of Redis's network bytes (INFO stats: every node's traffic, the state stream's, and this
// bench's MONITOR stream, included), the CPU of each node and of Redis (/proc/PID/stat), the size
// of each edge's share and of the answer, console against status in the same run.
// A status window starts WANTED_MS after the console closed (the nodes stop writing then).
//
//   node bench/cluster-roster.js [--phones 1500] [--parts 12] [--window 15s] [--rounds 3]

import { fork } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cpuMs } from './proc-stats.js';
import { median, parseDuration } from './latency-stats.js';
import { LIFTED_CAPS, waitFor } from './servers.js';
import { connectRedis } from '../server/cluster/redis.js';
import { SHARE_EVERY_MS, WANTED_MS } from '../server/cluster/cluster-roster.js';
import { HAVE_REDIS, startRedis } from '../test/helpers/redis-server.js';
import { CLUSTER_TOKEN, startNode, until } from '../test/helpers/cluster-nodes.js';
import { benchArgs } from './cli-args.js';

const BENCH = path.dirname(fileURLToPath(import.meta.url));

const { values: args } = benchArgs(import.meta.url, {
  options: {
    phones: { type: 'string', default: '1500' },
    parts: { type: 'string', default: '12' },
    window: { type: 'string', default: '15s' },
    rounds: { type: 'string', default: '3' },
  },
});
const phones = Number(args.phones);
const partCount = Number(args.parts);
const windowMs = parseDuration(args.window);
const rounds = Number(args.rounds);
if (!HAVE_REDIS) {
  console.error('redis-server is not installed (test/setup/ensure-deps.sh installs it)');
  process.exit(1);
}

/** @param {number} ms */
const sleep = (ms) =>
  new Promise((resolve) => {
    setTimeout(resolve, ms);
  });

/** A score with `n` parts, a cue every bar, 120 bpm. @param {number} n */
function writeScore(n) {
  const dir = path.join(os.tmpdir(), `scorecast-bench-cluster-roster-${process.pid}`, 'score');
  mkdirSync(dir, { recursive: true });
  const parts = Array.from({ length: n }, (_, i) => `  - { id: part${i + 1}, name: Part ${i + 1} }`).join('\n');
  const cues = Array.from({ length: 64 }, (_, i) => `  - { bar: ${i + 1}, set: { text: bar ${i + 1} } }`).join('\n');
  writeFileSync(
    path.join(dir, 'score.yaml'),
    `id: bench-cluster-roster\ntitle: Cluster roster bench\nbars: 64\nparts:\n${parts}\nmeter:\n  - { bar: 1, time: 4/4, tempo: 120 }\ncues:\n${cues}\n`,
  );
  return { dir, parts: Array.from({ length: n }, (_, i) => `part${i + 1}`) };
}

const score = writeScore(partCount);
const redis = await startRedis();
const admin = connectRedis(redis.adminUrl, 'bench-admin');
const redisPid = Number(
  /** @type {string} */ (await admin.info('server'))
    .split('\r\n')
    .find((l) => l.startsWith('process_id:'))
    ?.slice('process_id:'.length),
);
// Redis and the nodes go with this process, however it ends.
const started = [redisPid];
process.on('exit', () => {
  for (const pid of started)
    try {
      process.kill(pid, 'SIGKILL');
    } catch {}
});
const common = { redis: redis.urls, score: score.dir, env: { ...LIFTED_CAPS }, startMs: 90_000 };
/** @param {Parameters<typeof startNode>[0]} o */
const node = async (o) => {
  const n = await startNode(o);
  started.push(Number(n.child.pid));
  return n;
};
const c1 = await node({ ...common, role: 'conductor', id: 'c1', args: ['--autoplay'] });
const edges = [await node({ ...common, role: 'edge', id: 'ea' }), await node({ ...common, role: 'edge', id: 'eb' })];
const procs = {
  c1: Number(c1.child.pid),
  ea: Number(edges[0].child.pid),
  eb: Number(edges[1].child.pid),
};
const call = async (/** @type {string} */ base, /** @type {string} */ url) => {
  const res = await fetch(`${base}${url}`, { headers: { authorization: `Bearer ${CLUSTER_TOKEN}` } });
  return { status: res.status, text: await res.text() };
};
await until(async () => JSON.parse((await call(edges[0].base, '/api/cluster')).text).nodes?.length === 3, 30_000);

// Half the phones and half the parts on each edge.
const half = Math.ceil(partCount / 2);
const loads = edges.map((edge, i) => {
  const child = fork(path.join(BENCH, 'roster-clients.js'), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  started.push(Number(child.pid));
  child.send({
    type: 'connect',
    url: `${edge.wsBase}/live`,
    phones: i === 0 ? Math.ceil(phones / 2) : Math.floor(phones / 2),
    parts: i === 0 ? score.parts.slice(0, half) : score.parts.slice(half),
    prefix: i === 0 ? 'a' : 'b',
  });
  return child;
});
let open = 0;
for (const l of loads) open += (await waitFor(l, 'ready', 120_000, 'the clients')).open;
for (const l of loads) l.send({ type: 'mode', mode: 'status' });
console.log(`${open} of ${phones + partCount} clients connected to 2 edges; per-address caps lifted (127.0.0.1)`);

/**
 * The roster's own commands, as Redis's MONITOR sees them: those on the roster's hash and its
 * channel, counted with their arguments (the request's bytes, RESP framing included) and, for
 * the answers, the hash's size for each HGETALL and the asked field's for each HMGET.
 */
const seen = { bytes: 0, hset: 0, hgetall: 0, hmget: 0, other: 0 };
let hashNow = { total: 0, wanted: 0, shareMean: 0 };
/** One line of MONITOR's output: `+<time> [<db> <client>] "command" "key" ...`. @param {string} line */
function monitored(line) {
  const m = /^\+[\d.]+ \[[^\]]*\] "(\w+)" "([^"]*)"/.exec(line);
  if (!m?.[2].startsWith('scorecast:roster')) return;
  const command = String(m[1]).toLowerCase();
  if (command === 'hstrlen') return;
  // the request: the quoted arguments stand for RESP's framing of them
  seen.bytes += line.length - line.indexOf('"');
  if (command === 'hgetall') seen.bytes += hashNow.total + 16;
  else if (command === 'hmget') seen.bytes += hashNow.wanted + 16;
  else seen.bytes += 4;
  if (command === 'hset' || command === 'hgetall' || command === 'hmget') seen[command]++;
  else seen.other++;
}
// A plain socket: MONITOR's stream on an ioredis connection trips its reply queue.
const monitor = net.connect(redis.port, '127.0.0.1');
monitor.setEncoding('utf8');
monitor.write(`AUTH admin ${redis.passwords.admin}\r\nMONITOR\r\n`);
let pendingText = '';
monitor.on('data', (/** @type {string} */ chunk) => {
  pendingText += chunk;
  let i = pendingText.indexOf('\r\n');
  while (i >= 0) {
    monitored(pendingText.slice(0, i));
    pendingText = pendingText.slice(i + 2);
    i = pendingText.indexOf('\r\n');
  }
});
/** The roster's hash: its fields' sizes (bytes), by HSTRLEN (which the roster never sends). */
const FIELDS = ['c1', 'ea', 'eb', '_wanted', '_waiting'];
const hashSizes = async () => {
  const lengths = await Promise.all(FIELDS.map((f) => admin.hstrlen('scorecast:roster', f)));
  const shares = lengths.slice(0, 3).filter((n) => n > 0);
  return {
    total: lengths.reduce((s, n, i) => s + (n > 0 ? n + FIELDS[i].length : 0), 0),
    shareMean: shares.length ? shares.reduce((s, n) => s + n, 0) / shares.length : 0,
    wanted: lengths[3],
  };
};
const sizer = setInterval(async () => {
  hashNow = await hashSizes().catch(() => hashNow);
}, 200);

const netBytes = async () => {
  const info = /** @type {string} */ (await admin.info('stats'));
  const field = (/** @type {string} */ k) =>
    Number(
      info
        .split('\r\n')
        .find((l) => l.startsWith(`${k}:`))
        ?.slice(k.length + 1) ?? NaN,
    );
  return field('total_net_input_bytes') + field('total_net_output_bytes');
};

let polling = false;
let answerBytes = 0;
let polls = 0;
/** @type {Promise<void>} */
let poller = Promise.resolve();
async function pollRoster() {
  while (polling) {
    const started = performance.now();
    const r = await call(edges[0].base, '/api/roster').catch(() => ({ text: '' }));
    answerBytes = Math.max(answerBytes, r.text.length);
    polls++;
    await sleep(Math.max(0, 500 - (performance.now() - started)));
  }
}

/** @type {Record<'status' | 'console', { bytes: number[], roster: number[], cpu: Record<string, number[]> }>} */
const out = {
  status: { bytes: [], roster: [], cpu: { c1: [], ea: [], eb: [], redis: [] } },
  console: { bytes: [], roster: [], cpu: { c1: [], ea: [], eb: [], redis: [] } },
};
let shareBytes = 0;
/** @type {number[]} */
const nominal = [];
/**
 * The roster's traffic at its nominal rates with the sizes measured: every node (3) writing its
 * share every SHARE_EVERY_MS and asking for the small field as often, the console's two looks a
 * second each reading the whole hash.
 * @param {{ total: number, wanted: number, shareMean: number }} size
 */
const nominalBytes = (size) => {
  const rounds = 1000 / SHARE_EVERY_MS;
  return 3 * rounds * (size.shareMean + 40) + 3 * rounds * (size.wanted + 60) + 2 * (size.total + 60);
};
const loadAvg = [];
const allPids = { ...procs, redis: redisPid };
for (let r = 0; r < rounds; r++) {
  for (const phase of /** @type {const} */ (['status', 'console'])) {
    if (phase === 'console') {
      polling = true;
      poller = pollRoster();
      await sleep(3000);
    } else {
      polling = false;
      await poller;
      // the nodes write their shares until WANTED_MS after the last look
      await sleep(WANTED_MS + 2000);
    }
    const c0 = Object.fromEntries(Object.entries(allPids).map(([k, pid]) => [k, cpuMs(pid)]));
    const b0 = await netBytes();
    const s0 = { ...seen };
    const t0 = performance.now();
    await sleep(windowMs);
    const wall = performance.now() - t0;
    const bytesPerS = ((await netBytes()) - b0) / (wall / 1000);
    out[phase].bytes.push(bytesPerS);
    const perS = (/** @type {keyof typeof seen} */ k) => (seen[k] - s0[k]) / (wall / 1000);
    const rosterBytes = perS('bytes');
    const shareWrites = perS('hset');
    const size = hashNow;
    out[phase].roster.push(rosterBytes);
    for (const [k, pid] of Object.entries(allPids)) out[phase].cpu[k].push((100 * (cpuMs(pid) - c0[k])) / wall);
    if (phase === 'console') nominal.push(nominalBytes(size));
    if (phase === 'console')
      for (const id of ['ea', 'eb'])
        shareBytes = Math.max(shareBytes, Number(await admin.hstrlen('scorecast:roster', id)));
    loadAvg.push(os.loadavg()[0]);
    console.log(
      `round ${r + 1} ${phase.padEnd(7)} Redis traffic ${(bytesPerS / 1024).toFixed(1)} KB/s, the roster's ${(rosterBytes / 1024).toFixed(2)} KB/s (${shareWrites.toFixed(1)} HSET, ${perS('hgetall').toFixed(1)} HGETALL, ${perS('hmget').toFixed(1)} HMGET a second; hash ${size.total} bytes); CPU % of a core: ${Object.entries(
        out[phase].cpu,
      )
        .map(([k, v]) => `${k} ${v[v.length - 1].toFixed(2)}`)
        .join(', ')} (load ${os.loadavg()[0].toFixed(1)})`,
    );
  }
}
polling = false;
await poller;

const m = (/** @type {number[]} */ xs) => median(xs);
const traffic = out.console.bytes.map((v, i) => v - out.status.bytes[i]);
console.log('\nmedians over the rounds:');
console.log(
  `  Redis traffic (in + out): status ${(m(out.status.bytes) / 1024).toFixed(1)} KB/s, console ${(m(out.console.bytes) / 1024).toFixed(1)} KB/s; the roster (console - status) ${(m(traffic) / 1024).toFixed(1)} KB/s (per round: ${traffic.map((v) => (v / 1024).toFixed(1)).join(', ')})`,
);
console.log(
  `  the roster's own traffic (shares written, the hash read at each look, the small fields asked): status ${(m(out.status.roster) / 1024).toFixed(2)} KB/s, console ${(m(out.console.roster) / 1024).toFixed(2)} KB/s (per round console: ${out.console.roster.map((v) => (v / 1024).toFixed(2)).join(', ')})`,
);
console.log(
  `  the same at the nominal rates (3 nodes writing and asking every ${SHARE_EVERY_MS} ms, 2 looks a second) with the sizes measured: ${(m(nominal) / 1024).toFixed(2)} KB/s`,
);
for (const k of Object.keys(out.status.cpu))
  console.log(
    `  ${k.padEnd(5)} CPU: status ${m(out.status.cpu[k]).toFixed(2)}%, console ${m(out.console.cpu[k]).toFixed(2)}%, difference ${(m(out.console.cpu[k]) - m(out.status.cpu[k])).toFixed(2)} points (per round: ${out.console.cpu[k].map((v, i) => (v - out.status.cpu[k][i]).toFixed(2)).join(', ')})`,
  );
console.log(
  `  largest edge share ${shareBytes} bytes; GET /api/roster: ${polls} polls, largest answer ${answerBytes} bytes`,
);
console.log(
  `  load average during the windows: ${Math.min(...loadAvg).toFixed(1)} to ${Math.max(...loadAvg).toFixed(1)} (${os.cpus().length} cores)`,
);

clearInterval(sizer);
monitor.destroy();
for (const l of loads) l.send({ type: 'stop' });
for (const n of [...edges, c1]) await n.stop('SIGKILL');
admin.disconnect();
await redis.stop();
process.exit(0);

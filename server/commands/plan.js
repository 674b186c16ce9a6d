// `scorecast plan --users N --score DIR`: size a venue for a score package. The package's first
// load and its live updates are measured by serving it here (in memory, with a hand-turned clock);
// the rest comes from the seed report (ZScore 2019), the venue lab and our own load tests, and
// every number says where it came from.

import path from 'node:path';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import os from 'node:os';

/** Figures the planner relies on, each with its source. */
export const SOURCES = Object.freeze({
  usersPerAp: {
    value: 100,
    source: 'seed report: 100 WiFi users per access point with no loss (125 the most; fails at 150)',
  },
  loadWindowS: {
    value: 10,
    source:
      'seed report method: every client arrives within a 10 s ramp (the worst case: the audience scans the QR code together)',
  },
  pageBudgetS: { value: 5, source: 'seed report budget: page load at most 5 s' },
  apMbit: {
    value: 200,
    source:
      "venue lab WiFi profile (infra/lab/topology.js): 200 Mbit/s of airtime per access point, an assumption for 802.11ac 2x2 (the lab's tbf radio delivered 95 Mbit/s when set to 100)",
  },
  seedQueueMbit: { value: 150, source: 'seed report: the MikroTik hAP ac guest queue, 150 Mbit/s' },
  usersPerInstance: {
    value: 5000,
    source:
      'qa stress (artillery/RESULTS.md): one instance held 5,000 WebSocket or SSE clients within budget, the most asked',
  },
});

/**
 * @typedef {object} PlanInput
 * @property {number} users
 * @property {number} firstLoadBytes one audience page with everything it loads
 * @property {number} updateBytes mean size of one live update
 * @property {number} updatesPerSecond
 * @property {string} [measuredFrom] where the two sizes came from
 * @property {number} [apMbit]
 * @property {number} [usersPerInstance]
 * @property {string} [instanceSource]
 * @property {ClusterFigures | null} [cluster] bench:cluster's measured costs, when a run is on record
 */

/**
 * What a cluster costs per client, from a `npm run bench:cluster` run (bench/results/cluster-*.json).
 * @typedef {object} ClusterFigures
 * @property {number} edgeUsPerClient  CPU of an edge per connected client, µs per second (its fixed cost spread in)
 * @property {number} proxyUsPerClient CPU of nginx per client, µs per second
 * @property {string} source
 */

/**
 * The share of a core an edge or the proxy is planned to use at the seed's steady load: the rest
 * absorbs arrivals, reconnect storms and a failed edge's clients.
 */
export const CORE_SHARE = 0.5;

/** @typedef {{ key: string, label: string, value: number | string, unit: string, source: string }} PlanLine */

/**
 * The plan, as lines of a table. Pure: every input is given.
 * @param {PlanInput} i
 * @returns {PlanLine[]}
 */
export function planVenue(i) {
  if (!Number.isInteger(i.users) || i.users < 1) throw new Error('plan: --users must be a whole number of at least 1');
  const apMbit = i.apMbit ?? SOURCES.apMbit.value;
  const perInstance = i.usersPerInstance ?? SOURCES.usersPerInstance.value;
  const W = SOURCES.loadWindowS.value;
  const mbit = (/** @type {number} */ bytesPerS) => (bytesPerS * 8) / 1e6;
  const loadPerUser = mbit(i.firstLoadBytes / W);
  const livePerUser = mbit(i.updateBytes * i.updatesPerSecond);
  const peak = i.users * (loadPerUser + livePerUser);
  const live = i.users * livePerUser;
  const apsBySeed = Math.ceil(i.users / SOURCES.usersPerAp.value);
  // Users one access point can bring to a loaded page within the page budget, all asking at once.
  const perApBudget = Math.max(1, Math.floor((apMbit * 1e6 * SOURCES.pageBudgetS.value) / (i.firstLoadBytes * 8)));
  const apsByBudget = Math.ceil(i.users / Math.min(perApBudget, SOURCES.usersPerAp.value));
  const router =
    peak <= SOURCES.seedQueueMbit.value
      ? "the seed's class (MikroTik hAP ac): peak within its 150 Mbit/s guest queue"
      : peak <= 900
        ? 'a gigabit router (e.g. MikroTik RB4011, hEX S): peak above 150 Mbit/s, within a gigabit link'
        : 'a 10 GbE router and server uplink (e.g. MikroTik CCR2004): peak above a gigabit link';
  const perEdgeByCpu = i.cluster ? Math.max(1, Math.floor((CORE_SHARE * 1e6) / i.cluster.edgeUsPerClient)) : Infinity;
  const perServer = Math.min(perInstance, perEdgeByCpu);
  const instances = Math.ceil(i.users / perServer);
  const instanceSource = [
    `${perServer.toLocaleString('en-US')} users per instance, the stricter of: ${i.instanceSource ?? SOURCES.usersPerInstance.source}`,
    i.cluster
      ? `an edge's CPU at ${CORE_SHARE * 100}% of a core, ${perEdgeByCpu.toLocaleString('en-US')} users (${i.cluster.source})`
      : 'no bench:cluster run on record',
  ].join('; ');
  const proxyCores =
    i.cluster && instances > 1 ? Math.ceil((i.users * i.cluster.proxyUsPerClient) / (CORE_SHARE * 1e6)) : 0;
  const measured = i.measuredFrom ?? 'given';
  return [
    { key: 'firstLoad', label: 'first load per user', value: i.firstLoadBytes, unit: 'bytes', source: measured },
    { key: 'update', label: 'live update (mean)', value: Math.round(i.updateBytes), unit: 'bytes', source: measured },
    {
      key: 'updatesPerSecond',
      label: 'live updates per second',
      value: round(i.updatesPerSecond, 3),
      unit: '/s',
      source: measured,
    },
    {
      key: 'loadPerUser',
      label: 'bandwidth per user while loading',
      value: round(loadPerUser, 3),
      unit: 'Mbit/s',
      source: `first load over ${W} s (${SOURCES.loadWindowS.source})`,
    },
    {
      key: 'livePerUser',
      label: 'bandwidth per user while live',
      value: round(livePerUser, 3),
      unit: 'Mbit/s',
      source: 'update size x updates per second',
    },
    {
      key: 'peak',
      label: 'peak bandwidth, everyone arriving',
      value: round(peak, 1),
      unit: 'Mbit/s',
      source: 'users x (loading + live)',
    },
    {
      key: 'live',
      label: 'bandwidth once everyone is in',
      value: round(live, 1),
      unit: 'Mbit/s',
      source: 'users x live',
    },
    {
      key: 'apsBySeed',
      label: 'access points (seed rule)',
      value: apsBySeed,
      unit: '',
      source: SOURCES.usersPerAp.source,
    },
    {
      key: 'perApBudget',
      label: 'users per access point within the page budget',
      value: perApBudget,
      unit: '',
      source: `${apMbit} Mbit/s per access point (${i.apMbit ? 'given' : SOURCES.apMbit.source}) x ${SOURCES.pageBudgetS.value} s / first load`,
    },
    {
      key: 'aps',
      label: 'access points to plan',
      value: apsByBudget,
      unit: '',
      source: 'the stricter of the two lines above',
    },
    {
      key: 'router',
      label: 'router class',
      value: router,
      unit: '',
      source: `peak bandwidth against ${SOURCES.seedQueueMbit.source}`,
    },
    {
      key: 'instances',
      label: instances === 1 ? 'server: one instance suffices' : 'server: edges needed',
      value: instances,
      unit: '',
      source: instanceSource,
    },
    ...(proxyCores
      ? [
          {
            key: 'proxyCores',
            label: 'proxy (nginx) cores in front of the edges',
            value: proxyCores,
            unit: '',
            source: `users x ${round(/** @type {ClusterFigures} */ (i.cluster).proxyUsPerClient, 1)} µs per client-second at ${CORE_SHARE * 100}% of a core (${/** @type {ClusterFigures} */ (i.cluster).source})`,
          },
        ]
      : []),
  ];
}

/** @param {number} x @param {number} d */
const round = (x, d) => Math.round(x * 10 ** d) / 10 ** d;

/**
 * The newest `npm run bench:cluster` run in `dir` (bench/results), as costs per client; null when
 * there is none or it cannot be read.
 * @param {string} dir
 * @returns {ClusterFigures | null}
 */
export function clusterFigures(dir) {
  let files;
  try {
    files = readdirSync(dir)
      .filter((f) => /^cluster-.*\.json$/.test(f))
      .sort();
  } catch {
    return null;
  }
  const file = files.at(-1);
  if (!file) return null;
  try {
    const run = JSON.parse(readFileSync(path.join(dir, file), 'utf8'));
    const cpu = /** @type {Record<string, number>} */ (run.cluster.cpuMs);
    const edges = Object.entries(cpu)
      .filter(([k]) => k.startsWith('edge-'))
      .map(([, v]) => v);
    const seconds = run.windowMs / 1000;
    const perEdge = run.clients / edges.length;
    const edgeUsPerClient = ((edges.reduce((a, b) => a + b, 0) / edges.length) * 1000) / (perEdge * seconds);
    const proxyUsPerClient = (cpu.nginx * 1000) / (run.clients * seconds);
    if (!(edgeUsPerClient > 0 && proxyUsPerClient >= 0)) return null;
    return {
      edgeUsPerClient,
      proxyUsPerClient,
      source: `bench/results/${file}: ${run.clients.toLocaleString('en-US')} clients on ${edges.length} edges for ${seconds} s, ${round(edgeUsPerClient, 1)} µs of edge CPU per client-second`,
    };
  } catch {
    return null;
  }
}

/**
 * Serve the package in memory and measure what an audience page loads (the page, the scripts
 * and styles it names, /api/score and every preload asset) and the live updates over the first
 * `seconds` of the performance.
 * @param {string} dir score package
 * @param {{ clientDir?: string, seconds?: number }} [o]
 */
export async function measurePackage(dir, { clientDir, seconds = 60 } = {}) {
  const { buildApp, CLIENT_DIR } = await import('../app.js');
  const { loadPackage } = await import('../package/load.js');
  const client = clientDir ?? CLIENT_DIR;
  if (!existsSync(path.join(client, 'index.html')))
    throw new Error(`plan: the built client is missing (${client}): run npm run build first`);
  const score = await loadPackage(dir, { cacheDir: mkdtempSync(path.join(os.tmpdir(), 'sc-plan-')) });
  const clock = manualClock();
  const { app } = await buildApp({
    score,
    token: 'plan-token-000000',
    clientDir: client,
    clock,
    autoplay: true,
    loop: true,
  });
  try {
    const get = async (/** @type {string} */ url) => {
      const r = await app.inject({ method: 'GET', url, headers: { 'accept-encoding': 'br, gzip' } });
      return { status: r.statusCode, bytes: r.rawPayload.length, body: r.body };
    };
    const index = await get('/');
    let bytes = index.bytes;
    const refs = [...index.body.matchAll(/(?:src|href)="(\/[^"]+\.(?:js|css))"/g)].map((m) => m[1]);
    for (const ref of new Set(refs)) bytes += (await get(ref)).bytes;
    const manifest = await get('/api/score');
    bytes += manifest.bytes;
    const m = JSON.parse(manifest.body);
    for (const a of m.assets ?? []) if (a.preload && a.url) bytes += (await get(a.url)).bytes;
    // Live updates: every delta the server produced over the first `seconds`, as sent.
    clock.advance(seconds * 1000);
    const [first] = JSON.parse((await get('/live/poll?since=0&wait=0')).body);
    const poll = await get(`/live/poll?epoch=${encodeURIComponent(first.epoch)}&since=0&wait=0`);
    const messages = /** @type {{ type: string }[]} */ (JSON.parse(poll.body));
    const deltas = messages.filter((x) => x.type === 'delta').map((x) => Buffer.byteLength(JSON.stringify(x)));
    return {
      firstLoadBytes: bytes,
      updateBytes: deltas.length ? deltas.reduce((a, b) => a + b, 0) / deltas.length : 0,
      updatesPerSecond: deltas.length / seconds,
      measuredFrom: `measured: ${path.basename(path.resolve(dir))} served here (page, ${new Set(refs).size} scripts/styles, /api/score, preload assets; ${deltas.length} deltas over ${seconds} s of play)`,
    };
  } finally {
    await app.close();
  }
}

/** A clock for buildApp whose time moves only by advance(). */
function manualClock() {
  let now = 0;
  const wall0 = Date.now();
  /** @type {Map<number, { at: number, fn: () => void }>} */
  const timers = new Map();
  let next = 1;
  return {
    now: () => now,
    wall: () => wall0 + now,
    /** @param {() => void} fn @param {number} ms */
    setTimer(fn, ms) {
      const id = next++;
      timers.set(id, { at: now + Math.max(0, ms), fn });
      return id;
    },
    /** @param {unknown} id */
    clearTimer(id) {
      timers.delete(/** @type {number} */ (id));
    },
    /** @param {number} ms */
    advance(ms) {
      const end = now + ms;
      for (;;) {
        let best = null;
        for (const [id, t] of timers)
          if (t.at <= end && (!best || t.at < best[1].at))
            best = /** @type {[number, { at: number, fn: () => void }]} */ ([id, t]);
        if (!best) break;
        timers.delete(best[0]);
        now = best[1].at;
        best[1].fn();
      }
      now = end;
    },
  };
}

export const PLAN_USAGE = `usage: scorecast plan --users N [--score DIR] [--ap-mbit M] [--json]

Sizes a venue for N audience members: bandwidth per user, access points, router class and
server instances (edges and proxy from the newest bench:cluster run in bench/results when there
is one), each number with its source. The package's first load and live updates are
measured by serving DIR here (default scores/seed-profile; needs npm run build).
  --ap-mbit M  usable WiFi throughput of one access point (default ${SOURCES.apMbit.value})
  --json       the lines as JSON
  -h, --help   this text
`;

/** @param {string[]} args */
export async function runPlan(args) {
  const { parseArgs } = await import('node:util');
  let v;
  try {
    ({ values: v } = parseArgs({
      args,
      options: {
        users: { type: 'string' },
        score: { type: 'string' },
        'ap-mbit': { type: 'string' },
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (err) {
    process.stderr.write(`${/** @type {Error} */ (err).message}\n${PLAN_USAGE}`);
    return 2;
  }
  if (v.help) {
    process.stdout.write(PLAN_USAGE);
    return 0;
  }
  const users = Number(v.users);
  if (!v.users || !Number.isInteger(users) || users < 1) {
    process.stderr.write(`plan: --users must be a whole number of at least 1\n${PLAN_USAGE}`);
    return 2;
  }
  try {
    const measured = await measurePackage(v.score ?? 'scores/seed-profile');
    const cluster = clusterFigures(fileURLToPath(new URL('../../bench/results', import.meta.url)));
    const lines = planVenue({ users, ...measured, cluster, apMbit: v['ap-mbit'] ? Number(v['ap-mbit']) : undefined });
    if (v.json) process.stdout.write(`${JSON.stringify(lines, null, 2)}\n`);
    else
      for (const l of lines)
        process.stdout.write(
          `${l.label}: ${typeof l.value === 'number' ? l.value.toLocaleString('en-US') : l.value}${l.unit ? ` ${l.unit}` : ''}\n    (${l.source})\n`,
        );
    return 0;
  } catch (err) {
    process.stderr.write(`${/** @type {Error} */ (err).message}\n`);
    return 1;
  }
}

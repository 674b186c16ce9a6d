// Samples, once a second while a test runs: the server's /metrics (CPU, RSS, event-loop lag,
// clients, messages), the CPU and RSS of the server and of the load generator from /proc, the
// machine's CPU, and every TCP/UDP socket on the machine whose peer is not loopback (to prove
// that the test stays on 127.0.0.1). Writes one JSON line per sample.

import { createWriteStream, readFileSync, readdirSync, readlinkSync } from 'node:fs';
import { cpuCount, cpuMs, machineMs, rssBytes, threadCount } from '../../bench/proc-stats.js';

/**
 * CPU time (user + system, all threads), RSS and threads of a process, from /proc.
 * @param {number} pid
 * @returns {import('./records.js').ProcSample | null} null when the process is gone
 */
export function procStats(pid) {
  const cpu = cpuMs(pid);
  if (Number.isNaN(cpu)) return null;
  const rss = rssBytes(pid);
  const threads = threadCount(pid);
  return { cpuMs: cpu, rss: Number.isNaN(rss) ? null : rss, threads: Number.isNaN(threads) ? null : threads };
}

/**
 * Busy and total CPU time of the machine, all cores (ms); softirq apart (on loopback much of TCP's work runs there, charged to no process).
 * @returns {import('./records.js').MachineSample}
 */
export function machineStats() {
  const { busyMs, totalMs, softirqMs } = machineMs();
  return { busyMs, totalMs, softirqMs, cores: cpuCount() };
}

/** @typedef {{ rxBytes: number, rxPackets: number, txBytes: number, txPackets: number }} InterfaceCounts */

/**
 * Bytes and packets sent and received on every interface but loopback (machine-wide).
 * @returns {Record<string, InterfaceCounts>}
 */
export function externalInterfaces() {
  /** @type {Record<string, InterfaceCounts>} */
  const out = {};
  for (const line of readFileSync('/proc/net/dev', 'utf8').split('\n').slice(2)) {
    const m = /^\s*([^:]+):\s*(.*)$/.exec(line);
    if (!m || m[1] === 'lo') continue;
    const v = m[2].trim().split(/\s+/).map(Number);
    out[m[1]] = { rxBytes: v[0], rxPackets: v[1], txBytes: v[8], txPackets: v[9] };
  }
  return out;
}

// ---------------------------------------------------------------- sockets off loopback

/** @param {string} h */
function hexToIPv4(h) {
  const n = parseInt(h, 16);
  return [n & 255, (n >>> 8) & 255, (n >>> 16) & 255, n >>> 24].join('.');
}

/** @param {string} h */
function hexToIPv6(h) {
  // Four 32-bit words, each little-endian.
  /** @type {number[]} */
  let bytes = [];
  for (let w = 0; w < 4; w++) {
    const word = h.slice(w * 8, w * 8 + 8);
    bytes = bytes.concat([6, 4, 2, 0].map((i) => parseInt(word.slice(i, i + 2), 16)));
  }
  if (bytes.slice(0, 10).every((b) => b === 0) && bytes[10] === 255 && bytes[11] === 255)
    return `::ffff:${bytes.slice(12).join('.')}`;
  const groups = [];
  for (let i = 0; i < 16; i += 2) groups.push(((bytes[i] << 8) | bytes[i + 1]).toString(16));
  return groups.join(':').replace(/(^|:)0(:0)+(:|$)/, '::');
}

/** @param {string} ip */
const isLocalOrUnset = (ip) =>
  ip === '0.0.0.0' ||
  ip === '::' ||
  ip === '::1' ||
  ip === '0:0:0:0:0:0:0:1' ||
  /^127\./.test(ip) ||
  /^::ffff:127\./.test(ip) ||
  /^::ffff:0\.0\.0\.0$/.test(ip);

/**
 * Sockets in /proc/net/{tcp,tcp6,udp,udp6} whose remote address is neither loopback nor unset.
 * @returns {{ proto: string, local: string, remote: string, inode: string }[]}
 */
export function offLoopbackSockets() {
  const found = [];
  for (const proto of ['tcp', 'tcp6', 'udp', 'udp6']) {
    let text;
    try {
      text = readFileSync(`/proc/net/${proto}`, 'utf8');
    } catch {
      continue;
    }
    const lines = text.split('\n');
    for (let i = 1; i < lines.length; i++) {
      const f = lines[i].trim().split(/\s+/);
      if (f.length < 10) continue;
      const [lh, lp] = f[1].split(':');
      const [rh, rp] = f[2].split(':');
      const decode = proto.endsWith('6') ? hexToIPv6 : hexToIPv4;
      const remote = decode(rh);
      const local = decode(lh);
      if (isLocalOrUnset(remote) && (isLocalOrUnset(local) || remote === '0.0.0.0' || remote === '::')) {
        // Loopback traffic, or a listening/unconnected socket: only a bound non-loopback listener
        // with no peer lands here, which sends nothing by itself.
        continue;
      }
      found.push({
        proto,
        local: `${local}:${parseInt(lp, 16)}`,
        remote: `${remote}:${parseInt(rp, 16)}`,
        inode: f[9],
      });
    }
  }
  return found;
}

/**
 * Socket inodes a process holds (its fds that are sockets).
 * @param {number} pid
 */
function socketInodes(pid) {
  /** @type {Set<string>} */
  const set = new Set();
  try {
    for (const fd of readdirSync(`/proc/${pid}/fd`)) {
      try {
        const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
        if (m) set.add(m[1]);
      } catch {
        /* closed meanwhile */
      }
    }
  } catch {
    /* gone */
  }
  return set;
}

// ---------------------------------------------------------------- /metrics

/**
 * The values we keep from the server's Prometheus text.
 * @param {string} text
 * @returns {import('./records.js').ServerMetrics}
 */
export function parseMetrics(text) {
  /** @type {import('./records.js').ServerMetrics} */
  const m = { clients: {}, messages: {}, bytes: {}, dropped: 0 };
  for (const line of text.split('\n')) {
    if (!line || line[0] === '#') continue;
    const sp = line.lastIndexOf(' ');
    const key = line.slice(0, sp);
    const value = Number(line.slice(sp + 1));
    const name = key.replace(/\{.*$/, '');
    // A series without a transport label lands under the key "undefined".
    const transport = String(/transport="([^"]+)"/.exec(key)?.[1]);
    switch (name) {
      case 'process_cpu_seconds_total':
        m.cpuS = value;
        break;
      case 'process_resident_memory_bytes':
        m.rss = value;
        break;
      case 'process_open_fds':
        m.fds = value;
        break;
      case 'nodejs_heap_size_used_bytes':
        m.heapUsed = value;
        break;
      case 'nodejs_heap_size_total_bytes':
        m.heapTotal = value;
        break;
      case 'nodejs_external_memory_bytes':
        m.external = value;
        break;
      case 'scorecast_history_deltas':
        m.historyDeltas = value;
        break;
      case 'scorecast_history_bytes':
        m.historyBytes = value;
        break;
      case 'nodejs_eventloop_lag_seconds':
        m.lagS = value;
        break;
      case 'nodejs_eventloop_lag_max_seconds':
        m.lagMaxS = value;
        break;
      case 'nodejs_eventloop_lag_p99_seconds':
        m.lagP99S = value;
        break;
      case 'nodejs_eventloop_lag_mean_seconds':
        m.lagMeanS = value;
        break;
      case 'scorecast_clients':
        m.clients[transport] = value;
        break;
      case 'scorecast_messages_sent_total':
        m.messages[transport] = value;
        break;
      case 'scorecast_bytes_sent_total':
        m.bytes[transport] = value;
        break;
      case 'scorecast_connections_dropped_total':
        m.dropped += value;
        break;
      case 'scorecast_push_lag_seconds_sum':
        m.pushLagSumS = value;
        break;
      case 'scorecast_push_lag_seconds_count':
        m.pushLagCount = value;
        break;
      default:
        break;
    }
  }
  return m;
}

/**
 * @param {{ metricsUrl: string, serverPid?: number, file: string, intervalMs?: number, netEveryMs?: number }} options
 */
export function createSampler({ metricsUrl, serverPid, file, intervalMs = 1000, netEveryMs = 2000 }) {
  const out = createWriteStream(file);
  let phase = 'idle';
  /** @type {number | undefined} */
  let loadgenPid;
  /** @type {ReturnType<typeof setInterval> | undefined} */
  let timer;
  let lastNet = 0;
  let busy = false;
  /** @type {{ checks: number, ours: ({ ts: number } & ReturnType<typeof offLoopbackSockets>[number])[], others: number, otherSamples: { ts: number, proto: string, remote: string }[] }} */
  const net = { checks: 0, ours: [], others: 0, otherSamples: [] };
  const ifaceStart = externalInterfaces();
  let samples = 0;
  let scrapeErrors = 0;

  async function sample() {
    if (busy) return; // a scrape still waiting on a saturated server: skip, do not pile up
    busy = true;
    const ts = Date.now();
    /** @type {import('./records.js').Sample} */
    const rec = { ts, phase };
    try {
      const t0 = performance.now();
      const ac = new AbortController();
      const to = setTimeout(() => ac.abort(), Math.max(intervalMs * 3, 3000));
      try {
        const res = await fetch(metricsUrl, { signal: ac.signal });
        rec.server = parseMetrics(await res.text());
      } catch (err) {
        scrapeErrors++;
        rec.scrapeError = /** @type {Error} */ (err).name;
      } finally {
        clearTimeout(to);
      }
      rec.scrapeMs = performance.now() - t0;
      if (serverPid) rec.serverProc = procStats(serverPid);
      if (loadgenPid) rec.loadgen = procStats(loadgenPid);
      rec.machine = machineStats();
      if (ts - lastNet >= netEveryMs) {
        lastNet = ts;
        checkNet(rec);
      }
      out.write(`${JSON.stringify(rec)}\n`);
      samples++;
    } finally {
      busy = false;
    }
  }

  /** @param {import('./records.js').Sample} rec */
  function checkNet(rec) {
    const off = offLoopbackSockets();
    net.checks++;
    if (off.length === 0) return;
    const pids = [serverPid, loadgenPid, process.pid].flatMap((p) => (p ? [p] : []));
    const ours = new Set();
    for (const pid of pids) for (const i of socketInodes(pid)) ours.add(i);
    for (const s of off) {
      if (ours.has(s.inode)) {
        net.ours.push({ ts: rec.ts, ...s });
      } else {
        net.others++;
        if (net.otherSamples.length < 5) net.otherSamples.push({ ts: rec.ts, proto: s.proto, remote: s.remote });
      }
    }
    rec.offLoopback = {
      ours: off.filter((s) => ours.has(s.inode)).length,
      others: off.length - off.filter((s) => ours.has(s.inode)).length,
    };
  }

  return {
    start() {
      timer = setInterval(sample, intervalMs);
      sample();
    },
    /** @param {string} p */
    setPhase(p) {
      phase = p;
    },
    /** @param {number | undefined} pid */
    setLoadgen(pid) {
      loadgenPid = pid;
    },
    async sampleNow() {
      await sample();
    },
    async stop() {
      clearInterval(timer);
      while (busy) await new Promise((r) => setTimeout(r, 50));
      await sample();
      await new Promise((r) => out.end(r));
      const ifaceEnd = externalInterfaces();
      /** @type {Record<string, { txPackets: number, txBytes: number, rxPackets: number }>} */
      const iface = {};
      for (const [name, a] of Object.entries(ifaceEnd)) {
        const b = ifaceStart[name] || { txBytes: 0, txPackets: 0, rxBytes: 0, rxPackets: 0 };
        iface[name] = {
          txPackets: a.txPackets - b.txPackets,
          txBytes: a.txBytes - b.txBytes,
          rxPackets: a.rxPackets - b.rxPackets,
        };
      }
      return {
        samples,
        scrapeErrors,
        net: {
          checks: net.checks,
          everyMs: netEveryMs,
          offLoopbackOurs: net.ours.length,
          oursSamples: net.ours.slice(0, 20),
          offLoopbackOthers: net.others,
          othersSamples: net.otherSamples,
          interfaces: iface,
        },
      };
    },
  };
}

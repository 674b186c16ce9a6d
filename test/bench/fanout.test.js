// The fan-out benchmark: its report (bench/fanout-report.js), with the ratios the targets
// are judged on and the settling timeline that shows whether the window measured the steady
// state, and the window it measures (whole loops of the piece).

import { readFileSync } from 'node:fs';
import { describe, it, expect } from 'vitest';
import { formatReport } from '../../bench/fanout-report.js';
import { wholeLoopsWindow } from '../../bench/score-schedule.js';
import { FLOOR_BACKLOG, RIDE_RULE, startFloor } from '../../bench/floor-server.js';
import * as ws from '../../server/live/transports/websocket.js';
import { createLoad } from '../../bench/load-client.js';

const latency = (/** @type {number} */ p99) => ({ avg: 10, p50: 10, p90: 20, p95: 25, p99, max: p99 + 5, count: 100 });

/**
 * @param {'floor' | 'ours'} target
 * @param {number} cpu
 * @param {number[]} timeline
 */
const trial = (target, cpu, timeline) =>
  /** @type {any} */ ({
    target,
    clients: 1500,
    clientProcs: 1,
    ready: 1500,
    connectMs: 800,
    msgs: 100,
    broadcasts: 32,
    avgBytes: 9000,
    perClientMin: 32,
    perClientMax: 32,
    errors: {},
    errorCount: 0,
    latency: latency(40),
    completion: { broadcasts: 16, median: 30 },
    serverCpuMs: cpu,
    serverCpuPct: 3,
    clientCpuPct: 3,
    machineBusyPct: 3,
    softirqPct: 1,
    stealPct: 0,
    otherPct: 0,
    timeline,
    rssEndMB: 84,
    rssPeakMB: 84,
    durationMs: 24_000,
    loadavg: [0, 0, 0],
    crashed: null,
  });

const input = (/** @type {any[]} */ trials) => ({
  command: 'node bench/fanout.js',
  server: 'this checkout',
  profile: 'seed',
  machine: { cpus: 2, model: 'test', memGiB: 24, node: 'v20', kernel: '6' },
  schedule: {
    id: 'seed-profile',
    loopMs: 12_000,
    atMs: [0, 750],
    deltaBytes: [18_000, 190],
    snapshotBytes: 19_000,
    welcomeBytes: 150,
  },
  trials,
  discarded: 0,
  maxNoise: 25,
  settleMs: 12_000,
  timelineStepMs: 6000,
});

describe('fan-out report', () => {
  it('judges the CPU ratio on the medians of the trials', () => {
    const text = formatReport(
      input([
        trial('floor', 600, []),
        trial('ours', 900, []),
        trial('floor', 500, []),
        trial('ours', 700, []),
        trial('floor', 700, []),
        trial('ours', 710, []),
      ]),
    );
    // medians 710 / 600
    expect(text).toMatch(
      /\| 1500 \| ours \| 3\/3 \|[^\n]*\| 1\.18 \| 1\.00 \| [\d.]+ \/ [\d.]+ \| PASS 0 \| PASS 1\.00 \| \*\*MISS\*\* 1\.18 \| PASS 1\.00 \|/,
    );
  });

  it('shows each server settling, step by step, with the measured window in bold', () => {
    const text = formatReport(
      input([
        trial('floor', 300, [180, 170, 150, 150]),
        trial('ours', 380, [290, 340, 190, 190]),
        trial('floor', 300, [160, 150, 150, 140]),
        trial('ours', 380, [310, 250, 180, 200]),
      ]),
    );
    expect(text).toContain('Server CPU ms per 6 s from the last client connected');
    expect(text).toContain('- floor x 1500: 170 160 **150** **145**');
    expect(text).toContain('- ours x 1500: 300 295 **185** **195**');
  });

  it('says whether the load clients only read or talk as audience pages do', () => {
    expect(formatReport(input([trial('floor', 300, [])]))).toContain(
      'Load clients: they only read (no client messages)',
    );
    const talking = { ...input([trial('floor', 300, [])]), clientsNote: 'each sends a clock-sync ping every 4000 ms' };
    expect(formatReport(talking)).toContain('Load clients: each sends a clock-sync ping every 4000 ms');
  });

  it('prints no timeline for runs saved before it was recorded', () => {
    const old = input([trial('floor', 300, []), trial('ours', 380, [])]);
    expect(formatReport(old)).not.toContain('Server CPU ms per');
  });
});

describe('fan-out window', () => {
  it('is whole loops of the piece and whole timeline steps, at least the minimum', () => {
    expect(wholeLoopsWindow(12_000, 6000, 15_000)).toBe(24_000); // seed profile: 2 loops, 4 steps
    expect(wholeLoopsWindow(4000, 6000, 15_000)).toBe(24_000); // small deltas: 6 loops, 4 steps
    expect(wholeLoopsWindow(12_000.4, 6000, 15_000)).toBe(24_000); // a loop measured on the wire
    expect(wholeLoopsWindow(30_000, 6000, 15_000)).toBe(30_000);
  });
});

describe('talking load clients (--talk-every)', () => {
  it('send clock-sync pings, and the floor answers a ping with a pong', async () => {
    const schedule = {
      id: 't',
      loopMs: 60_000,
      atMs: [59_000],
      deltaBytes: [200],
      snapshotBytes: 300,
      welcomeBytes: 150,
    };
    const floor = await startFloor({ schedule, maxSeconds: 30 });
    let pongs = 0;
    const load = createLoad({
      url: `ws://127.0.0.1:${floor.port}/live`,
      count: 4,
      batch: 4,
      everyMs: 10,
      // One handshake at a time: the ramp waits for each answer and still opens them all.
      maxPending: 1,
      talkEveryMs: 500,
      timeoutMs: 5000,
      maxSamples: 10,
      maxSeconds: 30,
    });
    try {
      expect((await load.whenReady).ready).toBe(4);
      // Count the pongs the clients get: the floor answers every ping it is sent.
      const { WebSocket } = await import('ws');
      const probe = new WebSocket(`ws://127.0.0.1:${floor.port}/live`);
      await new Promise((r) => probe.once('open', r));
      probe.on('message', (/** @type {Buffer} */ data) => {
        if (JSON.parse(data.toString()).type === 'pong') pongs++;
      });
      probe.send(JSON.stringify({ type: 'ping', id: 7, t0: 1 }));
      while (pongs === 0) await new Promise((r) => setTimeout(r, 10));
      probe.close();
      // Every client talks: the load goes on until each has sent two pings, and none was closed.
      while (load.talked < 8) await new Promise((r) => setTimeout(r, 50));
      expect(load.collect().errors).toMatchObject({ connect: 0, closed: 0, socket: 0, malformed: 0 });
    } finally {
      load.stop();
      await floor.close();
    }
    expect(pongs).toBe(1);
  });
});

describe('load clients connecting', () => {
  it('open a connection again when its handshake is not answered in time, and count it', async () => {
    const http = await import('node:http');
    const { WebSocketServer } = await import('ws');
    const wss = new WebSocketServer({ noServer: true });
    let upgrades = 0;
    const server = http.createServer();
    /** @type {Set<import('node:net').Socket>} */
    const conns = new Set();
    server.on('connection', (c) => conns.add(c));
    // The first handshake sits unanswered, as a connection left in a busy server's accept queue.
    server.on('upgrade', (req, socket, head) => {
      if (upgrades++ === 0) return;
      wss.handleUpgrade(req, socket, head, (ws) => ws.send('{"type":"snapshot","epoch":"e","seq":1,"t":1}'));
    });
    await new Promise((r) => server.listen(0, '127.0.0.1', () => r(undefined)));
    const port = /** @type {import('node:net').AddressInfo} */ (server.address()).port;
    const load = createLoad({
      url: `ws://127.0.0.1:${port}/live`,
      count: 1,
      batch: 1,
      everyMs: 10,
      maxPending: 1,
      timeoutMs: 5000,
      handshakeMs: 200,
      connectRetries: 1,
      maxSamples: 1,
      maxSeconds: 30,
    });
    try {
      const report = await load.whenReady;
      expect(report).toMatchObject({ ready: 1, failed: 0, connectRetried: { 'handshake timeout': 1 } });
      expect(upgrades).toBe(2);
    } finally {
      load.stop();
      for (const c of conns) c.destroy();
      await new Promise((r) => server.close(() => r(undefined)));
    }
  });
});

describe('load clients that send (bench/thumbs.js)', () => {
  it('send on a ready socket, and count an error envelope the server answers with as an error', async () => {
    const { WebSocketServer } = await import('ws');
    const wss = new WebSocketServer({ port: 0, host: '127.0.0.1' });
    await new Promise((r) => wss.once('listening', r));
    /** @type {string[]} */
    const heard = [];
    wss.on('connection', (ws) => {
      ws.send('{"type":"snapshot","epoch":"e","seq":1,"t":1}');
      // Refuse every message, as our server refuses a thumb over a cap.
      ws.on('message', (/** @type {Buffer} */ data) => {
        heard.push(data.toString());
        ws.send('{"type":"error","code":"SC_ERR_X","message":"no"}');
      });
    });
    const port = /** @type {import('node:net').AddressInfo} */ (wss.address()).port;
    const load = createLoad({
      url: `ws://127.0.0.1:${port}/live`,
      count: 1,
      batch: 1,
      everyMs: 10,
      timeoutMs: 5000,
      maxSamples: 1,
      maxSeconds: 30,
    });
    try {
      expect((await load.whenReady).ready).toBe(1);
      expect(load.socket(1)).toBe(null);
      load.socket(0)?.send('{"type":"thumb","value":"up"}');
      while (heard.length === 0) await new Promise((r) => setTimeout(r, 10));
      let errors = load.collect().errors;
      while (errors.envelopes === 0) {
        await new Promise((r) => setTimeout(r, 10));
        errors = load.collect().errors;
      }
      expect(errors).toMatchObject({ envelopes: 1, malformed: 0, closed: 0 });
      expect(heard).toEqual(['{"type":"thumb","value":"up"}']);
    } finally {
      load.stop();
      await new Promise((r) => wss.close(() => r(undefined)));
    }
  });
});

describe('the floor listens as ours does', () => {
  it('with our listen backlog (a queue length, not work: the default of 511 lost clients at 10,000)', () => {
    // Read from the source: importing start.js loads the whole server (a second of this suite).
    const start = readFileSync(new URL('../../server/commands/start.js', import.meta.url), 'utf8');
    expect(start).toMatch(new RegExp(`^export const LISTEN_BACKLOG = ${FLOOR_BACKLOG};$`, 'm'));
  });
});

describe('the floor with our liveness traffic (floor-kr)', () => {
  it("follows the WebSocket transport's liveness rule as it is", () => {
    expect(RIDE_RULE).toEqual({
      rideMaxBytes: ws.RIDE_MAX_BYTES,
      tickMs: ws.LIVENESS_TICK_MS,
      pingAfterMs: ws.PING_AFTER_MS,
      pingAloneAfterMs: ws.PING_ALONE_AFTER_MS,
      deadAfterMs: ws.DEAD_AFTER_MS,
      readProofMs: ws.READ_PROOF_MS,
      proofBytes: ws.PROOF_BYTES,
    });
  });

  it('pings a socket sent 128 KB with its next small message, once until it is owed again', async () => {
    // Small deltas every 50 ms after a 200 KB snapshot: the snapshot alone owes a read proof.
    const schedule = {
      id: 't',
      loopMs: 100,
      atMs: [0, 50],
      deltaBytes: [300, 300],
      snapshotBytes: 200 * 1024,
      welcomeBytes: 150,
    };
    const floor = await startFloor({ schedule, maxSeconds: 30, keepaliveMs: 2000, keepalive: 'ride' });
    const { WebSocket } = await import('ws');
    const client = new WebSocket(`ws://127.0.0.1:${floor.port}/live`);
    /** @type {Buffer[]} */
    const pings = [];
    client.on('ping', (/** @type {Buffer} */ data) => pings.push(data));
    try {
      await new Promise((r) => client.once('open', r));
      while (pings.length === 0) await new Promise((r) => setTimeout(r, 20));
      expect(pings[0].length).toBe(8);
      // ws answers the ping: the 200 KB are proven read, and 6 KB a second owes nothing more soon.
      await new Promise((r) => setTimeout(r, 1000));
      expect(pings.length).toBe(1);
    } finally {
      client.terminate();
      await floor.close();
    }
  });
});

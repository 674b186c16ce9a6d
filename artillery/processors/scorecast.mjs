// Artillery processor for scorecast: the audience clients of every scenario.
//
// Artillery schedules the virtual users, aggregates the metrics and enforces the budgets
// (`ensure`); what a scorecast client does is here, so that WebSocket, SSE and polling clients are
// measured the same way:
//
//   loadPage    the audience page as a browser loads it: HTML, the JS/CSS it references,
//               /api/score, then every asset marked `preload` (up to 6 connections, like a browser)
//   pageGroup   a group of 1..5 clients (payload field `size`) loading the page together after
//               `delayMs` (the seed report's "groups of 1 to 5 clients at random intervals")
//   wsListen    a WebSocket client on /live that stays for `beats` deltas (and taps, `tapEvery`)
//   sseListen   the same over /live/sse (Artillery has no SSE engine: node:http, streamed)
//   pollInit, pollAfter   the polling loop's state (epoch/seq) and checks; the requests themselves
//               go through Artillery's http engine (http.response_time)
//
// Push latency = time of receipt - the envelope's `t` (server wall time when the change was
// produced). Client and server run on the same machine and both read the wall clock as
// performance.timeOrigin + performance.now(), so the difference needs no clock sync. Against a
// remote server the two clocks differ: see README.md.
//
// Metrics (Artillery counters / histograms, all latencies in ms):
//   page.load_time, page.attempts, page.loads, page.failed, page.requests, page.bytes
//   push_latency (ws + sse deltas), push_latency_ws, push_latency_sse, ws.connect_time, sse.connect_time
//   ws.* / sse.* counters: messages, bytes, deltas, snapshots, heartbeats, welcomes, resyncs
//   poll.response_time (whole response, like JMeter's; Artillery's http.response_time is time to
//   first byte), poll.staleness (receipt - t of deltas a poll brought), poll.deltas, poll.failed
//   measured.<histogram>: the same after the soak's warm-up (variable warmupMs), kept apart
//   taps.sent, and their answers taps.voted, taps.no_vote_window, taps.unknown_tile,
//     taps.already_voted: outcomes of voting, counted apart, never failures (the seed profile has
//     no vote window, so every tap gets SC_ERR_NO_VOTE_WINDOW). Taps go over WebSocket only:
//     POST /api/tap is rate-limited per address, and every load-test client shares 127.0.0.1.
//   Artillery's own vusers.failed counts clients (VUs) that broke; errors.<code> says how.
// A per-second trace (QA_TRACE_FILE) of latencies, active clients and this process's event-loop
// delay feeds the report's plots.

import http from 'node:http';
import https from 'node:https';
import { appendFileSync } from 'node:fs';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { threadId } from 'node:worker_threads';
import WebSocket from 'ws';
import { quantileSorted } from '../../core/stats.js';
import { createSseParser } from '../../core/sse-parser.js';

/**
 * What Artillery gives a processor function: the virtual user's variables (from the scenario's
 * YAML and payload, and set here) and its id.
 * @typedef {{ vars: Record<string, unknown>, _uid?: string | number }} VuContext
 */
/**
 * Artillery's events: counters and histograms are emitted on it.
 * @typedef {import('node:events').EventEmitter} Events
 */
/**
 * Artillery's callback of a step function: an error fails the virtual user.
 * @typedef {(err?: Error) => void} Next
 */

/**
 * The envelope fields a client reads (doc/protocol.md).
 * @typedef {{ type: string, epoch?: string, seq?: number, t: number, code?: string }} Envelope
 */

const wall = () => performance.timeOrigin + performance.now();
/** When the first live client of this worker started: the start of the ramp. */
let firstStart = NaN;
const BEAT_MS = 750; // seed profile: 80 bpm
const PAGE_TIMEOUT_MS = Number(process.env.QA_PAGE_TIMEOUT_MS || 60_000);
const CONNECT_TIMEOUT_MS = 10_000;
/** A client that hears nothing for this long after connecting has stalled (server heartbeats every 2 s). */
const STALL_MS = 8_000;
const SMALL = 4096; // messages up to this size are parsed whole; larger ones by their head

// ---------------------------------------------------------------- per-second trace for the report

const traceFile = process.env.QA_TRACE_FILE;
/** @type {Map<string, number[]>} */
let bucket = new Map();
/** @type {Record<string, number>} */
const active = { ws: 0, sse: 0, poll: 0, page: 0 };
/**
 * Polling clients hold no connection: one is active while it polled in the last 2 s.
 * @type {Map<string | number | undefined, number>}
 */
const pollSeen = new Map();
const loop = monitorEventLoopDelay({ resolution: 10 });
/** @type {ReturnType<typeof setInterval> | null} */
let traceTimer = null;

/** @param {VuContext} context */
function startTrace(context) {
  if (Number.isNaN(firstStart)) firstStart = wall();
  if (warmupMs === null && context?.vars?.warmupMs !== undefined) warmupMs = num(context.vars.warmupMs, null);
  if (traceTimer || !traceFile) return;
  loop.enable();
  traceTimer = setInterval(flushTrace, 1000);
  traceTimer.unref();
}

function flushTrace() {
  /** @type {Record<string, import('../lib/records.js').TraceMetric>} */
  const metrics = {};
  for (const [name, values] of bucket) {
    values.sort((a, b) => a - b);
    const q = (/** @type {number} */ p) => quantileSorted(values, p);
    metrics[name] = {
      n: values.length,
      mean: values.reduce((a, b) => a + b, 0) / values.length,
      p50: q(0.5),
      p95: q(0.95),
      p99: q(0.99),
      max: values[values.length - 1],
    };
  }
  bucket = new Map();
  const now = Date.now();
  for (const [id, t] of pollSeen) if (now - t > 2000) pollSeen.delete(id);
  active.poll = pollSeen.size;
  const line = {
    ts: Date.now(),
    thread: threadId,
    active: { ...active },
    loopMaxMs: loop.max / 1e6,
    loopP99Ms: loop.percentile(99) / 1e6,
    metrics,
  };
  loop.reset();
  try {
    if (traceFile) appendFileSync(traceFile, `${JSON.stringify(line)}\n`);
  } catch {
    /* the report does without */
  }
}

/** @param {string} name @param {number} value */
function trace(name, value) {
  if (!traceFile) return;
  const a = bucket.get(name);
  if (a) a.push(value);
  else bucket.set(name, [value]);
}

/**
 * The soak's warm-up length (variable warmupMs): metrics after it are also kept as measured.<name>.
 * @type {number | null}
 */
let warmupMs = null;

/** @param {Events} ee @param {string} name @param {number} value */
function histogram(ee, name, value) {
  ee.emit('histogram', name, value);
  if (warmupMs !== null && wall() >= firstStart + warmupMs) ee.emit('histogram', `measured.${name}`, value);
  trace(name, value);
}

// ---------------------------------------------------------------- helpers

/**
 * An error whose code Artillery reports as errors.<code>.
 * @param {string} code @param {string} [message]
 */
function fail(code, message = code) {
  const err = /** @type {NodeJS.ErrnoException} */ (new Error(message));
  err.code = code;
  return err;
}

/**
 * The code of an error from node:http, ws or fail().
 * @param {unknown} err
 */
const codeOf = (err) => /** @type {NodeJS.ErrnoException} */ (err).code;

/**
 * @template D
 * @param {unknown} v @param {D} d
 * @returns {number | D}
 */
const num = (v, d) => (v === undefined || v === null || v === '' || Number.isNaN(Number(v)) ? d : Number(v));
/** @param {number} ms */
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
/**
 * `lo`, or a whole number in lo..hi when hi is given (session lengths of the soak).
 * @param {number} lo @param {unknown} hi
 */
const between = (lo, hi) =>
  hi === undefined || hi === '' ? lo : lo + Math.floor(Math.random() * (num(hi, lo) - lo + 1));

/**
 * Error codes that answer a tap (doc/protocol.md, "tap"), counted as taps.<name>.
 * @type {Record<string, string>}
 */
const TAP_ANSWERS = {
  SC_ERR_NO_VOTE_WINDOW: 'no_vote_window',
  SC_ERR_UNKNOWN_TILE: 'unknown_tile',
  SC_ERR_ALREADY_VOTED: 'already_voted',
};

const HEAD = /^\{"type":"([a-z]+)"(?:,"epoch":"([A-Za-z0-9_-]*)")?(?:,"seq":(\d+))?,"t":([0-9.]+)/;

/**
 * The envelope fields a client needs, without parsing an 18 KB patch it would not use: the
 * server writes type, epoch, seq, t first (core/protocol.js). Small messages are parsed whole.
 * @param {string} text
 * @returns {Envelope}
 */
function envelope(text) {
  if (text.length <= SMALL) {
    const m = JSON.parse(text);
    return { type: m.type, epoch: m.epoch, seq: m.seq, t: m.t, code: m.code };
  }
  const m = HEAD.exec(text.slice(0, 256));
  if (!m || text[text.length - 1] !== '}') throw fail('bad_envelope', `unexpected message head: ${text.slice(0, 80)}`);
  return { type: m[1], epoch: m[2], seq: m[3] === undefined ? undefined : Number(m[3]), t: Number(m[4]) };
}

/**
 * What one live client (WebSocket or SSE) does with the stream: checks the order of seqs, records
 * push latency for every delta, counts the rest. Calls `done()` after `beats` deltas.
 */
class Listener {
  /**
   * @param {'ws' | 'sse'} kind @param {Events} ee
   * @param {{ beats: number, countFrom: number, onDelta?: (n: number) => void, done: () => void, failed: (err: unknown) => void }} o
   */
  constructor(kind, ee, { beats, countFrom, onDelta, done, failed }) {
    this.kind = kind;
    this.ee = ee;
    this.beats = beats;
    this.countFrom = countFrom;
    this.deltas = 0;
    this.counted = 0;
    /** @type {string | null | undefined} */
    this.epoch = null;
    /** @type {number | undefined} */
    this.seq = -1;
    this.onDelta = onDelta;
    this.done = done;
    this.failed = failed;
    this.lastHeard = wall();
    /** @type {(() => void) | undefined} set by a transport that can send taps */
    this.tap = undefined;
  }

  /** @param {string} text */
  receive(text) {
    const now = wall();
    this.lastHeard = now;
    const { ee, kind } = this;
    let m;
    try {
      m = envelope(text);
    } catch (err) {
      this.failed(err);
      return;
    }
    ee.emit('counter', `${kind}.messages`, 1);
    ee.emit('counter', `${kind}.bytes`, text.length);
    switch (m.type) {
      case 'welcome':
        ee.emit('counter', `${kind}.welcomes`, 1);
        break;
      case 'snapshot':
        // The first state, or "latest state wins" after this client fell behind.
        ee.emit('counter', (this.seq ?? -1) >= 0 ? `${kind}.resyncs` : `${kind}.snapshots`, 1);
        this.epoch = m.epoch;
        this.seq = m.seq;
        break;
      case 'delta': {
        if (this.seq !== undefined && this.seq >= 0 && (m.epoch !== this.epoch || m.seq !== this.seq + 1)) {
          this.failed(fail(`${kind}_seq_gap`, `${kind}: delta ${m.epoch}:${m.seq} after ${this.epoch}:${this.seq}`));
          return;
        }
        this.epoch = m.epoch;
        this.seq = m.seq;
        const latency = now - m.t;
        histogram(ee, 'push_latency', latency);
        histogram(ee, `push_latency_${kind}`, latency);
        ee.emit('counter', `${kind}.deltas`, 1);
        this.deltas++;
        if (m.t >= this.countFrom) this.counted++;
        if (this.counted >= this.beats) {
          this.done();
          break;
        }
        // Not on the last delta: the answer to a tap must arrive while we still listen.
        this.onDelta?.(this.deltas);
        break;
      }
      case 'heartbeat':
        ee.emit('counter', `${kind}.heartbeats`, 1);
        break;
      case 'voted':
        ee.emit('counter', 'taps.voted', 1);
        break;
      case 'error':
        // Answers to taps are outcomes of voting, not failures: no window open (the seed profile
        // has none), a tile the window does not offer, or this device already voted in it.
        if (TAP_ANSWERS[String(m.code)]) ee.emit('counter', `taps.${TAP_ANSWERS[String(m.code)]}`, 1);
        else this.failed(fail(`${kind}_error_${m.code}`));
        break;
      case 'pong':
        break;
      default:
        this.failed(fail(`${kind}_unknown_type`));
    }
  }
}

/**
 * Run one live client to its end. `open(listener)` connects and returns a close function.
 * @param {'ws' | 'sse'} kind @param {VuContext} context @param {Events} ee
 * @param {(listener: Listener, settle: (err?: unknown) => void) => () => void} open
 * @returns {Promise<void>}
 */
function listen(kind, context, ee, open) {
  startTrace(context);
  const beats = between(num(context.vars.beats, 16), context.vars.beatsMax);
  const tapEvery = num(context.vars.tapEvery, 0);
  const started = wall();
  // With a ramp, every client stays for the same `beats` after the ramp (the seed's method).
  const countFrom = firstStart + num(context.vars.rampMs, 0);
  active[kind]++;
  return new Promise((resolve, reject) => {
    let settled = false;
    /** @type {() => void} */
    let close = () => {};
    /** @param {unknown} [err] */
    const settle = (err) => {
      if (settled) return;
      settled = true;
      clearInterval(watchdog);
      active[kind]--;
      try {
        close();
      } catch {
        /* already closed */
      }
      if (err) reject(err);
      else resolve();
    };
    const listener = new Listener(kind, ee, {
      beats,
      countFrom,
      done: () => settle(),
      failed: (err) => settle(err),
      onDelta: (n) => {
        if (tapEvery > 0 && n % tapEvery === 1 && listener.tap) {
          listener.tap();
          ee.emit('counter', 'taps.sent', 1);
        }
      },
    });
    // Stalled: nothing heard for STALL_MS, or the whole session far longer than its beats.
    const deadline = Math.max(started, countFrom) + CONNECT_TIMEOUT_MS + beats * BEAT_MS + STALL_MS;
    /** @type {ReturnType<typeof setInterval>} */
    const watchdog = setInterval(() => {
      const now = wall();
      if (now - listener.lastHeard > STALL_MS || now > deadline) settle(fail(`${kind}_stalled`));
    }, 500);
    try {
      close = open(listener, settle);
    } catch (err) {
      settle(err);
    }
  });
}

/**
 * Base URL of the target, http(s).
 * @param {VuContext} context
 */
const targetOf = (context) => String(context.vars.target).replace(/\/+$/, '');

// ---------------------------------------------------------------- WebSocket

/** @param {VuContext} context @param {Events} ee */
export async function wsListen(context, ee) {
  return listen('ws', context, ee, (listener, settle) => {
    const url = `${targetOf(context).replace(/^http/, 'ws')}/live`;
    const t0 = wall();
    const ws = new WebSocket(url, { perMessageDeflate: false, handshakeTimeout: CONNECT_TIMEOUT_MS });
    let tile = 0;
    // One device id per client, as the browser keeps one in local storage.
    const device = `qa-${String(context._uid ?? Math.random())
      .replace(/[^A-Za-z0-9_-]/g, '')
      .slice(0, 40)}`;
    listener.tap = () => {
      if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ type: 'tap', tile: `t${tile++ % 64}`, device }));
    };
    ws.on('open', () => histogram(ee, 'ws.connect_time', wall() - t0));
    ws.on('message', (data, isBinary) => {
      if (isBinary) {
        settle(fail('ws_binary_frame'));
        return;
      }
      listener.receive(data.toString());
    });
    ws.on('unexpected-response', (_req, res) => settle(fail(`ws_http_${res.statusCode}`)));
    ws.on('error', (err) => settle(fail(`ws_${codeOf(err) || 'error'}`, err.message)));
    ws.on('close', (code) => settle(fail(`ws_closed_${code}`)));
    // Settled by now: later 'close'/'error' events find settle() a no-op.
    return () => {
      ws.close(1000);
      setTimeout(() => ws.terminate(), 2000).unref();
    };
  });
}

// ---------------------------------------------------------------- SSE

/** @param {VuContext} context @param {Events} ee */
export async function sseListen(context, ee) {
  return listen('sse', context, ee, (listener, settle) => {
    const base = targetOf(context);
    const lib = base.startsWith('https') ? https : http;
    const t0 = wall();
    const req = lib.get(
      `${base}/live/sse`,
      { agent: false, headers: { accept: 'text/event-stream' }, timeout: CONNECT_TIMEOUT_MS },
      (res) => {
        if (res.statusCode !== 200) {
          res.resume();
          settle(fail(`sse_http_${res.statusCode}`));
          return;
        }
        if (!String(res.headers['content-type']).startsWith('text/event-stream')) {
          res.resume();
          settle(fail('sse_bad_content_type'));
          return;
        }
        histogram(ee, 'sse.connect_time', wall() - t0);
        req.setTimeout(0);
        res.setEncoding('utf8');
        // Comments (": hb"), id: and retry: lines carry no envelope.
        res.on(
          'data',
          createSseParser((event) => listener.receive(event.data)),
        );
        res.on('end', () => settle(fail('sse_ended')));
        res.on('error', (err) => settle(fail(`sse_${codeOf(err) || 'error'}`)));
      },
    );
    req.on('timeout', () => req.destroy(fail('sse_connect_timeout')));
    req.on('error', (err) => {
      const code = codeOf(err);
      settle(fail(code?.startsWith('sse_') ? code : `sse_${code || 'error'}`));
    });
    return () => {
      req.destroy();
    };
  });
}

// ---------------------------------------------------------------- page load

/**
 * GET one resource, drain it, check status and length. Resolves to its text when `text`.
 * @param {typeof http | typeof https} lib @param {http.Agent} agent @param {string} url @param {boolean} text
 * @returns {Promise<{ bytes: number, body: string }>}
 */
function fetchResource(lib, agent, url, text) {
  return new Promise((resolve, reject) => {
    const req = lib.get(url, { agent, timeout: PAGE_TIMEOUT_MS }, (res) => {
      /** @type {Buffer[]} */
      const chunks = [];
      let bytes = 0;
      res.on('data', (/** @type {Buffer} */ c) => {
        bytes += c.length;
        if (text) chunks.push(c);
      });
      res.on('end', () => {
        if (res.statusCode !== 200) {
          reject(fail(`page_http_${res.statusCode}`, `${url}: ${res.statusCode}`));
          return;
        }
        const expected = Number(res.headers['content-length']);
        if (Number.isFinite(expected) && expected !== bytes) {
          reject(fail('page_truncated', `${url}: ${bytes} of ${expected} bytes`));
          return;
        }
        resolve({ bytes, body: text ? Buffer.concat(chunks).toString('utf8') : '' });
      });
      res.on('error', (err) => reject(fail(`page_${codeOf(err) || 'error'}`)));
    });
    req.on('timeout', () => req.destroy(fail('page_timeout', `${url}: no answer in ${PAGE_TIMEOUT_MS} ms`)));
    req.on('error', (err) =>
      reject(codeOf(err)?.startsWith('page_') ? err : fail(`page_${codeOf(err) || 'error'}`, err.message)),
    );
  });
}

/**
 * One client loads the audience page like a browser: the HTML, then the JS and CSS it references
 * and /api/score in parallel, then every preload asset /api/score lists. Returns the time in ms.
 * @param {string} base @param {Events} ee
 */
async function pageLoadOnce(base, ee) {
  const lib = base.startsWith('https') ? https : http;
  const agent = new lib.Agent({ keepAlive: true, maxSockets: 6 });
  const t0 = wall();
  let requests = 0;
  let bytes = 0;
  /** @param {string} path @param {boolean} [text] */
  const get = async (path, text = false) => {
    const r = await fetchResource(lib, agent, `${base}${path}`, text);
    requests++;
    bytes += r.bytes;
    return r.body;
  };
  try {
    const html = await get('/', true);
    const refs = [...new Set([...html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1]))];
    if (refs.length === 0) throw fail('page_no_assets', 'the page references no /assets/ (is the client built?)');
    const [scoreText] = await Promise.all([get('/api/score', true), ...refs.map((r) => get(r))]);
    /** @type {{ assets?: { url: string, preload?: boolean }[] }} */
    const score = JSON.parse(scoreText);
    const preload = (score.assets || []).filter((a) => a.preload).map((a) => a.url);
    await Promise.all(preload.map((u) => get(u)));
    return wall() - t0;
  } finally {
    ee.emit('counter', 'page.requests', requests);
    ee.emit('counter', 'page.bytes', bytes);
    agent.destroy();
  }
}

/** @param {VuContext} context @param {Events} ee */
async function pageLoad(context, ee) {
  startTrace(context);
  active.page++;
  ee.emit('counter', 'page.attempts', 1);
  try {
    const ms = await pageLoadOnce(targetOf(context), ee);
    histogram(ee, 'page.load_time', ms);
    ee.emit('counter', 'page.loads', 1);
    ee.emit('counter', 'page.failed', 0);
  } catch (err) {
    ee.emit('counter', 'page.failed', 1);
    throw err;
  } finally {
    active.page--;
  }
}

/**
 * A client that loads the page (step of the polling and mixed scenarios).
 * @param {VuContext} context @param {Events} ee
 */
export async function loadPage(context, ee) {
  if (String(context.vars.page) === 'false') return;
  await pageLoad(context, ee);
}

/**
 * A group of `size` clients (1..5) loading the page together after `delayMs` (page scenario).
 * @param {VuContext} context @param {Events} ee
 */
export async function pageGroup(context, ee) {
  const size = Math.max(1, num(context.vars.size, 1));
  await sleep(num(context.vars.delayMs, 0));
  const results = await Promise.allSettled(Array.from({ length: size }, () => pageLoad(context, ee)));
  const failed = results.find((r) => r.status === 'rejected');
  if (failed) throw /** @type {PromiseRejectedResult} */ (failed).reason;
}

// ---------------------------------------------------------------- polling

/**
 * Start of a polling client: it holds no state yet.
 * @param {VuContext} context @param {Events} _ee @param {Next} next
 */
export function pollInit(context, _ee, next) {
  startTrace(context);
  context.vars.epoch = '';
  context.vars.seq = 0;
  context.vars.polls = between(num(context.vars.polls, 23), context.vars.pollsMax);
  // Not counted as an active poller yet: it loads the page first (counted as active.page), and
  // was counted twice, as page and as poller, until its first poll.
  next();
}

/**
 * End of a polling client.
 * @param {VuContext} context @param {Events} _ee @param {Next} next
 */
export function pollDone(context, _ee, next) {
  pollSeen.delete(context._uid);
  next();
}

/**
 * After each poll: 200 with a JSON array of envelopes, whose last state becomes what we hold.
 * @param {unknown} _req
 * @param {{ statusCode: number, body: string, timings?: { phases?: { total?: number } } }} res  Artillery's (got's) response
 * @param {VuContext} context @param {Events} ee @param {Next} next
 */
export function pollAfter(_req, res, context, ee, next) {
  const now = wall();
  pollSeen.set(context._uid, Date.now());
  ee.emit('counter', 'poll.requests', 1);
  // The whole response (Artillery's http.response_time is the time to its first byte).
  const total = res.timings?.phases?.total;
  if (typeof total === 'number') histogram(ee, 'poll.response_time', total);
  /** @param {string} code */
  const fault = (code) => {
    ee.emit('counter', 'poll.failed', 1);
    pollSeen.delete(context._uid);
    next(fail(code));
  };
  if (res.statusCode !== 200) return fault(`poll_http_${res.statusCode}`);
  /** @type {unknown} */
  let list;
  try {
    list = JSON.parse(res.body);
  } catch {
    return fault('poll_bad_json');
  }
  if (!Array.isArray(list) || list.length === 0) return fault('poll_bad_body');
  for (const m of /** @type {Envelope[]} */ (list)) {
    if (m.type === 'snapshot' || m.type === 'delta') {
      if (m.type === 'delta') {
        histogram(ee, 'poll.staleness', now - m.t);
        ee.emit('counter', 'poll.deltas', 1);
      }
      context.vars.epoch = m.epoch;
      context.vars.seq = m.seq;
    } else if (m.type !== 'heartbeat') {
      return fault(`poll_unexpected_${m.type}`);
    }
  }
  ee.emit('counter', 'poll.failed', 0);
  next();
}

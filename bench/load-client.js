#!/usr/bin/env node
// The load side of the fan-out benchmark: one process holding many WebSocket clients, driven by
// bench/fanout.js over IPC. The same code measures the floor and our server.
//
// Push latency of a delta = receive time - the envelope's `t` (server wall time when the change
// was made), both `performance.timeOrigin + performance.now()` on this machine. At 1,500 clients
// this process reads 27 MB per big broadcast, so it must do as little per message as it can:
// it reads `type`, `seq` and `t` from the first bytes of the frame (the envelope begins
// `{"type":"delta","epoch":"…","seq":N,"t":…`) and never parses the rest, and it skips
// UTF-8 validation. It measures; it does not apply the patches.
//
// IPC (advanced serialization), parent -> child:
//   {type:'connect', url, count, batch, everyMs, talkEveryMs, timeoutMs, maxSamples, maxSeconds}
//   {type:'window', from, to}   record deltas whose `t` is in [from, to)
//   {type:'collect'}            reply {type:'collected', ...ClientResult} and start afresh (the
//                               sockets stay open: phases of one run, as in bench/hostile.js)
//   {type:'stop'}               reply with the result, close every socket, exit
// child -> parent: {type:'ready', ...ConnectReport}, {type:'result', ...ClientResult}

import { pathToFileURL } from 'node:url';
import WebSocket from 'ws';

/**
 * @typedef {object} ConnectOptions
 * @property {string} url         ws://127.0.0.1:P/live
 * @property {number} count       clients to open
 * @property {number} batch       opened together, every `everyMs`
 * @property {number} everyMs
 * @property {number} [maxPending]  at most this many handshakes under way at once (opened, neither
 *   ready nor failed): the ramp waits for the server to answer instead of piling connections into
 *   its accept queue when its event loop or the machine is slow (default: no bound)
 * @property {number} [talkEveryMs]  each ready client sends a clock-sync `ping` message this often,
 *   as an audience page does (client/src/time/clock.js); 0: never (the clients only read)
 * @property {number} timeoutMs   give up waiting for the last snapshots after this long
 * @property {number} [handshakeMs]  a handshake not answered within this long, or reset, is opened
 *   again (a new connection), up to `connectRetries` times, each counted in `connectRetried`:
 *   on a saturated machine a few connections sat in the server's accept queue unanswered for
 *   longer than the whole connect phase, the floor's as ours' (default: timeoutMs)
 * @property {number} [connectRetries]  default 0
 * @property {number} maxSamples  latency samples kept (preallocated)
 * @property {number} maxSeconds  the process exits on its own after this long
 * @property {string[]} [localAddresses]  client i connects from localAddresses[i % length]
 *   (loopback has all of 127.0.0.0/8: clients from several addresses, as phones are)
 */

/**
 * @typedef {object} ConnectReport
 * @property {number} ready      clients that got their snapshot
 * @property {number} failed     clients that did not (error, close or timeout)
 * @property {number} connectMs  from the first open to the last snapshot (or the timeout)
 * @property {Record<string, number>} connectWhy  the failed ones by cause: `error CODE`, `close CODE`,
 *   `not opened in time`, `handshake not answered in time` or `open, no snapshot in time`
 * @property {Record<string, number>} connectRetried  connections opened again, by what ended the
 *   attempt before (`handshake timeout`, `error CODE`)
 */

/**
 * Problems one client process saw. Every field but `overflow` counts toward the errors.
 * @typedef {object} ClientErrors
 * @property {number} connect     error or close before the snapshot, or no snapshot in time
 * @property {number} closed      an open client was closed by the server or the network
 * @property {number} socket      'error' events on open clients
 * @property {number} gaps        a delta whose seq was not the previous seq + 1
 * @property {number} resyncs     a snapshot after the first one (the server thought us behind)
 * @property {number} malformed   a message whose head could not be read
 * @property {number} envelopes   error envelopes from the server (`{"type":"error",…}`: a message
 *   of ours it refused, as a thumb over a cap)
 * @property {number} overflow    samples dropped because the sample buffer was full (not an error)
 */

/**
 * @typedef {object} ClientResult
 * @property {Float64Array} samples   latency (ms) of every delta with `t` in the window
 * @property {Float64Array} seqs      the seq of each sample (to group them by broadcast)
 * @property {Uint32Array} sizes      the size in bytes of each sample's delta
 * @property {number} msgs            deltas recorded
 * @property {number} bytes           bytes of those deltas
 * @property {number} perClientMin    fewest deltas one client recorded
 * @property {number} perClientMax    most deltas one client recorded
 * @property {ClientErrors} errors
 */

/** The talking clients' timer: each client talks on one tick in talkEveryMs / TALK_TICK_MS. */
const TALK_TICK_MS = 250;

/** Bytes of a frame's head that hold `type`, `epoch` (at most 64 characters), `seq` and `t`. */
const HEAD_BYTES = 200;

const wall = () => performance.timeOrigin + performance.now();

/**
 * What the head of a server envelope says. Fields are -1 / '' when absent.
 * @typedef {{ type: string, seq: number, t: number }} Head
 */

/**
 * Read `type`, `seq` and `t` from the head of a JSON envelope without parsing the rest.
 * @param {Buffer} data
 * @returns {Head | null} null when the head is not an envelope
 */
export function readHead(data) {
  const head = data.toString('latin1', 0, Math.min(data.length, HEAD_BYTES));
  if (!head.startsWith('{"type":"')) return null;
  const typeEnd = head.indexOf('"', 9);
  if (typeEnd < 0) return null;
  const type = head.slice(9, typeEnd);
  const s = head.indexOf('"seq":', typeEnd);
  const seq = s < 0 ? -1 : parseInt(head.slice(s + 6, s + 24), 10);
  const ti = head.indexOf('"t":', s < 0 ? typeEnd : s);
  const t = ti < 0 ? -1 : parseFloat(head.slice(ti + 4, ti + 40));
  return { type, seq: Number.isFinite(seq) ? seq : -1, t: Number.isFinite(t) ? t : -1 };
}

/**
 * Open the clients and measure. Resolves when the clients are ready (or the timeout passed).
 * @param {ConnectOptions} options
 */
export function createLoad({
  url,
  count,
  batch,
  everyMs,
  maxPending = Infinity,
  talkEveryMs = 0,
  timeoutMs,
  handshakeMs = timeoutMs,
  connectRetries = 0,
  maxSamples,
  localAddresses = [],
}) {
  const samples = new Float64Array(maxSamples);
  const seqs = new Float64Array(maxSamples);
  const sizes = new Uint32Array(maxSamples);
  let nSamples = 0;
  let bytes = 0;
  let from = Infinity;
  let to = -Infinity;
  let stopping = false;
  /** @type {ClientErrors} */
  const errors = { connect: 0, closed: 0, socket: 0, gaps: 0, resyncs: 0, malformed: 0, envelopes: 0, overflow: 0 };
  /** Why connects failed: error code or close code, counted (for the report). */
  /** @type {Record<string, number>} */
  const connectWhy = {};
  /** @type {Record<string, number>} */
  const connectRetried = {};
  /** Per client: last seq held (-1: no snapshot yet). */
  const lastSeq = new Float64Array(count).fill(-1);
  /** Per client: deltas recorded in the window. */
  const recorded = new Uint32Array(count);
  /** Each client's last pong's proof token, not echoed yet (-1: none). */
  const proofs = new Int32Array(count).fill(-1);
  /** @type {WebSocket[]} */
  const sockets = [];
  let ready = 0;
  let failed = 0;
  const started = performance.now();
  /** @type {(report: ConnectReport) => void} */
  let resolveReady = () => {};
  /** @type {Promise<ConnectReport>} */
  const whenReady = new Promise((resolve) => {
    resolveReady = resolve;
  });
  let settled = false;
  function settle() {
    if (settled || ready + failed < count) return;
    settled = true;
    resolveReady({ ready, failed, connectMs: performance.now() - started, connectWhy, connectRetried });
  }

  /** @param {number} i @param {number} [attempt] */
  function open(i, attempt = 0) {
    const localAddress = localAddresses.length > 0 ? localAddresses[i % localAddresses.length] : undefined;
    const ws = new WebSocket(url, {
      perMessageDeflate: false,
      skipUTF8Validation: true,
      handshakeTimeout: handshakeMs,
      ...(localAddress ? { localAddress } : {}),
    });
    sockets[i] = ws;
    let isReady = false;
    let isFailed = false;
    /**
     * Open client i again if this attempt never got an answer (or was reset) and retries are left.
     * @param {any} err
     */
    const retry = (err) => {
      const timedOut = /handshake has timed out/.test(String(err?.message));
      if (isReady || isFailed || stopping || settled || attempt >= connectRetries) return false;
      if (!timedOut && err?.code !== 'ECONNRESET' && err?.code !== 'ECONNREFUSED') return false;
      const why = timedOut ? 'handshake timeout' : `error ${err.code}`;
      connectRetried[why] = (connectRetried[why] ?? 0) + 1;
      isFailed = true; // this attempt: the client goes on in the next
      ws.terminate();
      setTimeout(() => open(i, attempt + 1), 100 * 2 ** attempt);
      return true;
    };
    /** @param {string} why */
    const fail = (why) => {
      if (isReady || isFailed) return;
      connectWhy[why] = (connectWhy[why] ?? 0) + 1;
      isFailed = true;
      errors.connect++;
      failed++;
      settle();
    };
    ws.on('message', (/** @type {Buffer} */ data) => {
      const now = wall();
      const head = readHead(data);
      if (!head) {
        errors.malformed++;
        return;
      }
      if (head.type === 'delta') {
        if (head.seq < 0 || head.t < 0) {
          errors.malformed++;
          return;
        }
        if (lastSeq[i] >= 0 && head.seq !== lastSeq[i] + 1) errors.gaps++;
        lastSeq[i] = head.seq;
        if (head.t >= from && head.t < to) {
          if (nSamples < maxSamples) {
            samples[nSamples] = now - head.t;
            seqs[nSamples] = head.seq;
            sizes[nSamples++] = data.length;
            bytes += data.length;
            recorded[i]++;
          } else errors.overflow++;
        }
      } else if (head.type === 'error') {
        errors.envelopes++;
      } else if (head.type === 'pong') {
        // Its proof token, echoed in the next clock-sync ping as a page does (client/src/page/page-clock.js).
        const at = data.indexOf('"proof":');
        if (at >= 0) proofs[i] = parseInt(data.toString('latin1', at + 8, at + 20), 10);
      } else if (head.type === 'snapshot') {
        if (head.seq < 0) {
          errors.malformed++;
          return;
        }
        lastSeq[i] = head.seq;
        if (isReady) errors.resyncs++;
        else if (!isFailed) {
          isReady = true;
          ready++;
          settle();
        }
      }
    });
    ws.on('error', (/** @type {any} */ err) => {
      if (isReady) errors.socket++;
      else if (!retry(err)) fail(`error ${err?.code ?? err?.message ?? '?'}`);
    });
    ws.on('close', (/** @type {number} */ code) => {
      if (isReady) {
        if (!stopping) errors.closed++;
      } else fail(`close ${code}`);
    });
  }

  // Ramp: `batch` clients every `everyMs`, bounded by `count` and by `maxPending` under way.
  let opened = 0;
  const ramp = setInterval(() => {
    const end = Math.min(count, opened + batch, ready + failed + maxPending);
    for (; opened < end; opened++) open(opened);
    if (opened >= count) clearInterval(ramp);
  }, everyMs);
  const giveUp = setTimeout(() => {
    if (settled) return;
    settled = true;
    clearInterval(ramp);
    const missing = count - ready - failed;
    errors.connect += missing;
    // Where the missing ones were: never opened (the ramp waited on maxPending), the handshake not
    // answered, or open with no snapshot.
    const add = (/** @type {string} */ why, /** @type {number} */ n) => {
      if (n > 0) connectWhy[why] = (connectWhy[why] ?? 0) + n;
    };
    let handshaking = 0;
    let openNoSnapshot = 0;
    for (let i = 0; i < sockets.length; i++) {
      if (lastSeq[i] >= 0) continue;
      const ws = sockets[i];
      if (ws.readyState === ws.CONNECTING) handshaking++;
      else if (ws.readyState === ws.OPEN) openNoSnapshot++;
    }
    add('not opened in time', count - opened);
    add('handshake not answered in time', handshaking);
    add('open, no snapshot in time', openNoSnapshot);
    resolveReady({
      ready,
      failed: failed + missing,
      connectMs: performance.now() - started,
      connectWhy,
      connectRetried,
    });
  }, timeoutMs);
  giveUp.unref();

  // Clock-sync pings, spread evenly: client i talks on the ticks where tick % slots = i % slots.
  // One timer for every client, as the server's own timers are shared.
  const slots = Math.max(1, Math.round(talkEveryMs / TALK_TICK_MS));
  let talkTick = 0;
  let talked = 0;
  const talk =
    talkEveryMs > 0
      ? setInterval(() => {
          const slot = talkTick++ % slots;
          for (let i = slot; i < sockets.length; i += slots) {
            const ws = sockets[i];
            if (lastSeq[i] < 0 || ws.readyState !== ws.OPEN) continue;
            const proof = proofs[i];
            proofs[i] = -1;
            ws.send(
              proof >= 0
                ? `{"type":"ping","id":${talkTick},"t0":${wall()},"proof":${proof}}`
                : `{"type":"ping","id":${talkTick},"t0":${wall()}}`,
              { binary: false },
            );
            talked++;
          }
        }, TALK_TICK_MS)
      : null;

  /**
   * What was recorded since the start (or the last collect), and start afresh.
   * @returns {ClientResult}
   */
  function collect() {
    let min = Infinity;
    let max = 0;
    for (let i = 0; i < count; i++) {
      if (lastSeq[i] < 0) continue;
      min = Math.min(min, recorded[i]);
      max = Math.max(max, recorded[i]);
    }
    const result = {
      samples: samples.slice(0, nSamples),
      seqs: seqs.slice(0, nSamples),
      sizes: sizes.slice(0, nSamples),
      msgs: nSamples,
      bytes,
      perClientMin: Number.isFinite(min) ? min : 0,
      perClientMax: max,
      errors: { ...errors },
    };
    nSamples = 0;
    bytes = 0;
    recorded.fill(0);
    for (const k of /** @type {(keyof ClientErrors)[]} */ (Object.keys(errors))) errors[k] = 0;
    return result;
  }

  return {
    whenReady,
    /**
     * Record deltas whose `t` is in [start, end).
     * @param {number} start
     * @param {number} end
     */
    window(start, end) {
      from = start;
      to = end;
    },
    collect,
    /**
     * Client i's socket once it holds its snapshot and is open, else null: for a benchmark whose
     * clients also send (bench/thumbs.js sends thumbs on it, as phones do).
     * @param {number} i
     * @returns {WebSocket | null}
     */
    socket(i) {
      const ws = sockets[i];
      return ws && lastSeq[i] >= 0 && ws.readyState === ws.OPEN ? ws : null;
    },
    /** Clock-sync pings sent so far. */
    get talked() {
      return talked;
    },
    /** @returns {ClientResult} */
    stop() {
      stopping = true;
      clearInterval(ramp);
      if (talk) clearInterval(talk);
      const result = collect();
      for (const ws of sockets) ws.terminate();
      return result;
    },
  };
}

function main() {
  const send = /** @type {(msg: object) => void} */ (process.send?.bind(process));
  if (!send) throw new Error('load-client: run me from bench/fanout.js (needs an IPC channel)');
  /** @type {ReturnType<typeof createLoad> | null} */
  let load = null;
  process.on('message', (/** @type {any} */ msg) => {
    if (msg.type === 'connect' && !load) {
      const options = /** @type {ConnectOptions} */ (msg);
      // Bounded even when orphaned.
      setTimeout(() => process.exit(3), options.maxSeconds * 1000).unref();
      load = createLoad(options);
      load.whenReady.then((report) => send({ type: 'ready', ...report }));
    } else if (msg.type === 'window' && load) {
      load.window(msg.from, msg.to);
    } else if (msg.type === 'collect' && load) {
      process.send?.({ type: 'collected', ...load.collect() });
    } else if (msg.type === 'stop' && load) {
      const result = load.stop();
      // Exit once the result is written to the channel (it can be megabytes of samples).
      process.send?.({ type: 'result', ...result }, undefined, {}, () => process.exit(0));
    }
  });
  process.on('disconnect', () => process.exit(0));
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) main();

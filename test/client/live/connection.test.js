import { describe, it, expect, vi } from 'vitest';
import {
  BLOCK_CHECK_TIMEOUT_MS,
  Connection,
  RESYNC_RETRY_MS,
  RETURN_CHECK_MS,
} from '../../../client/src/live/connection.js';
import { DEAD_LINK_MS } from '../../../core/constants.js';
import { PROBE_AFTER_MS } from '../../../client/src/live/link-probe.js';
import { POLL_WAIT_MS } from '../../../client/src/live/transports/poll.js';
import { FakeClock, fakeWebSocketClass, fakeEventSourceClass, fakeFetch, flush, msg } from '../fakes.js';

/**
 * A connection wired to fakes.
 * @param {{ transport?: string, random?: () => number, WebSocket?: any, EventSource?: any }} [options]
 */
function setup(options = {}) {
  const clock = new FakeClock();
  const WS = fakeWebSocketClass();
  const ES = fakeEventSourceClass();
  const { fetch, requests } = fakeFetch();
  const win = new EventTarget();
  // The document too is an event target: freeze and resume (Page Lifecycle) fire on it.
  const doc = Object.assign(new EventTarget(), { visibilityState: 'visible' });
  const log = vi.fn();
  const conn = new Connection({
    baseUrl: 'http://score.test',
    transport: options.transport,
    view: 'audience',
    env: {
      WebSocket: 'WebSocket' in options ? options.WebSocket : /** @type {any} */ (WS),
      EventSource: 'EventSource' in options ? options.EventSource : /** @type {any} */ (ES),
      fetch: /** @type {any} */ (fetch),
      timers: clock,
      now: clock.now,
      random: options.random ?? (() => 0.5),
      window: win,
      document: doc,
      log,
    },
  });
  const onState = vi.fn();
  conn.on('state', onState);
  return {
    conn,
    clock,
    WS,
    ES,
    requests,
    win,
    doc,
    log,
    onState,
    ws: () => WS.instances[WS.instances.length - 1],
    es: () => ES.instances[ES.instances.length - 1],
    /** @param {string} type */
    fire: (type) => win.dispatchEvent(new Event(type)),
  };
}

/**
 * Start on WebSocket and bring the link live holding `epoch:seq`.
 * @param {string} [epoch]
 * @param {number} [seq]
 * @param {object} [state]
 * @param {Parameters<typeof setup>[0]} [options]
 */
function live(epoch = 'E', seq = 1, state = { bar: 1, beatInBar: 1 }, options = {}) {
  const h = setup(options);
  h.conn.start();
  const ws = h.ws();
  ws.serverOpen();
  ws.serverSend(msg.welcome(epoch, seq));
  ws.serverSend(msg.snapshot(epoch, seq, state));
  return { ...h, socket: ws };
}

describe('state stream', () => {
  it('applies a snapshot, then consecutive deltas as merge patches', () => {
    const { conn, socket, onState } = live('E', 3, {
      bar: 1,
      beatInBar: 1,
      cues: { audience: { text: 'a', color: '#fff' } },
    });
    expect(socket.url).toBe('ws://score.test/live?view=audience');
    socket.serverSend(msg.delta('E', 4, { beatInBar: 2 }));
    socket.serverSend(msg.delta('E', 5, { bar: 2, beatInBar: 1, cues: { audience: { text: 'b', color: null } } }));
    expect(conn.state).toEqual({ bar: 2, beatInBar: 1, cues: { audience: { text: 'b' } } });
    expect(conn.epoch).toBe('E');
    expect(conn.seq).toBe(5);
    expect(conn.linkState).toBe('live');
    expect(conn.events).toEqual([
      { epoch: 'E', seq: 3, type: 'snapshot' },
      { epoch: 'E', seq: 4, type: 'delta' },
      { epoch: 'E', seq: 5, type: 'delta' },
    ]);
    expect(onState).toHaveBeenCalledTimes(3);
  });

  it('ignores duplicate and old deltas and stale snapshots, without asking for a resync', () => {
    const { conn, socket, onState } = live('E', 1, { bar: 1 });
    socket.serverSend(msg.delta('E', 2, { bar: 2 }));
    socket.serverSend(msg.delta('E', 2, { bar: 20 }));
    socket.serverSend(msg.delta('E', 1, { bar: 10 }));
    socket.serverSend(msg.snapshot('E', 2, { bar: 200 }));
    socket.serverSend(msg.snapshot('E', 0, { bar: 0 }));
    expect(conn.state).toEqual({ bar: 2 });
    expect(conn.seq).toBe(2);
    expect(conn.events.map((e) => e.seq)).toEqual([1, 2]);
    expect(onState).toHaveBeenCalledTimes(2);
    expect(socket.sent).toEqual([]);
  });

  it('keeps only the last 500 applied changes in its log', () => {
    const { conn, socket } = live('E', 0, { beat: 0 });
    for (let seq = 1; seq <= 600; seq++) socket.serverSend(msg.delta('E', seq, { beat: seq }));
    const events = conn.events;
    expect(events).toHaveLength(500);
    expect(events[0].seq).toBe(101);
    expect(events[499].seq).toBe(600);
  });
});

describe('resync', () => {
  it("the console's resync: a command is passed on, and refresh() asks for the whole state, which replaces the held one at the same seq", () => {
    const { conn, socket, onState } = live('E', 5, { beat: 5, text: 'stuck' });
    /** @type {any[]} */
    const commands = [];
    conn.on('command', (c) => commands.push(c));
    socket.serverSend({ type: 'command', t: 1, do: 'resync' });
    expect(commands).toEqual([expect.objectContaining({ type: 'command', do: 'resync' })]);
    expect(onState).toHaveBeenCalledTimes(1);
    conn.refresh();
    expect(socket.sent).toEqual([{ type: 'hello', epoch: null, seq: 0, view: 'audience' }]);
    // Held until the snapshot comes: the page keeps showing what it had.
    expect(conn.state).toEqual({ beat: 5, text: 'stuck' });
    socket.serverSend(msg.snapshot('E', 5, { beat: 5, text: 'fresh' }));
    expect(conn.state).toEqual({ beat: 5, text: 'fresh' });
    expect(conn.seq).toBe(5);
    socket.serverSend(msg.delta('E', 6, { beat: 6 }));
    expect(conn.state).toEqual({ beat: 6, text: 'fresh' });
  });

  it('on a gap, sends a hello on the WebSocket and applies the answer in order', () => {
    const { conn, socket } = live('E', 1, { beat: 1 });
    socket.serverSend(msg.delta('E', 3, { beat: 3 }));
    expect(socket.sent).toEqual([{ type: 'hello', epoch: 'E', seq: 1, view: 'audience' }]);
    expect(conn.seq).toBe(1);
    // A live delta that overtakes the answer is another gap, but the hello is already out.
    socket.serverSend(msg.delta('E', 4, { beat: 4 }));
    expect(socket.sent).toHaveLength(1);
    for (const seq of [2, 3, 4]) socket.serverSend(msg.delta('E', seq, { beat: seq }));
    socket.serverSend(msg.delta('E', 4, { beat: 4 }));
    expect(conn.state).toEqual({ beat: 4 });
    expect(conn.events.map((e) => e.seq)).toEqual([1, 2, 3, 4]);
  });

  it('asks again when nothing was applied for RESYNC_RETRY_MS', () => {
    const { clock, socket } = live('E', 1);
    socket.serverSend(msg.delta('E', 3, {}));
    clock.advance(RESYNC_RETRY_MS - 1);
    socket.serverSend(msg.heartbeat('E', 3));
    expect(socket.sent).toHaveLength(1);
    clock.advance(1);
    socket.serverSend(msg.heartbeat('E', 3));
    expect(socket.sent).toHaveLength(2);
    expect(socket.sent[1]).toMatchObject({ type: 'hello', epoch: 'E', seq: 1 });
  });

  it('resyncs on a delta or heartbeat of another epoch, and on a heartbeat ahead of it', () => {
    const { conn, socket } = live('E', 1, { v: 'e' });
    socket.serverSend(msg.delta('F', 2, { v: 'f' }));
    expect(socket.sent).toEqual([{ type: 'hello', epoch: 'E', seq: 1, view: 'audience' }]);
    expect(conn.state).toEqual({ v: 'e' });

    socket.serverSend(msg.snapshot('F', 0, { v: 'f' }));
    expect(conn.epoch).toBe('F');
    expect(conn.state).toEqual({ v: 'f' });
    socket.serverSend(msg.heartbeat('F', 0));
    expect(socket.sent).toHaveLength(1);

    socket.serverSend(msg.heartbeat('F', 1));
    expect(socket.sent).toHaveLength(2);
    expect(socket.sent[1]).toMatchObject({ type: 'hello', epoch: 'F', seq: 0 });

    socket.serverSend(msg.delta('F', 1, { v: 'f1' }));
    socket.serverSend(msg.heartbeat('G', 0));
    expect(socket.sent).toHaveLength(3);
    expect(socket.sent[2]).toMatchObject({ type: 'hello', epoch: 'F', seq: 1 });
  });

  it('on SSE, reconnects with the held epoch and seq', () => {
    const h = setup({ transport: 'sse' });
    h.conn.start();
    const first = h.es();
    expect(first.url).toBe('http://score.test/live/sse?view=audience');
    first.serverOpen();
    first.serverSend(msg.snapshot('E', 1, {}));
    first.serverSend(msg.delta('E', 3, {}));
    expect(first.closed).toBe(true);
    expect(h.ES.instances).toHaveLength(2);
    expect(h.es().url).toBe('http://score.test/live/sse?epoch=E&seq=1&view=audience');
    expect(h.conn.linkState).toBe('live');
  });

  it('on polling, the next poll carries the held epoch and seq', async () => {
    const h = setup({ transport: 'poll' });
    h.conn.start();
    expect(h.requests[0].url).toBe(`http://score.test/live/poll?wait=${POLL_WAIT_MS}&view=audience`);
    h.requests[0].respond(200, [msg.snapshot('E', 1, { beat: 1 }), msg.delta('E', 3, { beat: 3 })]);
    await flush();
    expect(h.conn.seq).toBe(1);
    expect(h.requests[1].url).toBe(`http://score.test/live/poll?epoch=E&since=1&wait=${POLL_WAIT_MS}&view=audience`);
    h.requests[1].respond(200, [msg.delta('E', 2, { beat: 2 }), msg.delta('E', 3, { beat: 3 })]);
    await flush();
    expect(h.conn.state).toEqual({ beat: 3 });
    expect(h.requests[2].url).toContain('epoch=E&since=3');
  });
});

describe('dead link', () => {
  it('closes a silent WebSocket after DEAD_LINK_MS and reconnects at once from the held seq', () => {
    const { conn, clock, WS, socket } = live('E', 7);
    clock.advance(DEAD_LINK_MS - 1000);
    socket.serverSend(msg.heartbeat('E', 7));
    clock.advance(DEAD_LINK_MS - 1);
    expect(WS.instances).toHaveLength(1);
    expect(conn.linkState).toBe('live');
    clock.advance(1);
    expect(socket.closedByClient).toBe(true);
    expect(WS.instances).toHaveLength(2);
    expect(WS.instances[1].url).toBe('ws://score.test/live?epoch=E&seq=7&view=audience');
    expect(conn.linkState).toBe('reconnecting');
    WS.instances[1].serverSend(msg.welcome('E', 7));
    expect(conn.linkState).toBe('live');
  });

  it('treats an attempt that delivers nothing within DEAD_LINK_MS as a failure, retried with backoff', () => {
    const h = setup({ random: () => 0.5 });
    h.conn.start();
    h.clock.advance(DEAD_LINK_MS);
    expect(h.WS.instances[0].closedByClient).toBe(true);
    expect(h.WS.instances).toHaveLength(1);
    expect(h.clock.pendingDelays()).toEqual([250]);
    h.clock.advance(250);
    expect(h.WS.instances).toHaveLength(2);
    expect(h.conn.linkState).toBe('connecting');
  });

  it('lets a long poll be held for its wait before calling the link dead', async () => {
    const h = setup({ transport: 'poll' });
    h.conn.start();
    h.requests[0].respond(200, [msg.snapshot('E', 1, {})]);
    await flush();
    expect(h.requests).toHaveLength(2);
    h.clock.advance(POLL_WAIT_MS + DEAD_LINK_MS - 1);
    expect(h.requests[1].signal.aborted).toBe(false);
    h.clock.advance(1);
    expect(h.requests[1].signal.aborted).toBe(true);
    expect(h.requests).toHaveLength(3);
    expect(h.requests[2].url).toContain('epoch=E&since=1');
  });
});

describe('reconnect backoff', () => {
  it('waits random() * min(cap, base * 2^n), capped, and starts over after a delivered message', () => {
    const h = live('E', 1, {}, { random: () => 0.999 });
    let socket = h.socket;
    /** @type {number[]} */
    const delays = [];
    for (let n = 0; n < 8; n++) {
      socket.serverClose(1006);
      // The retry is the timer set last (a block check's timeout may be pending before it).
      const delay = /** @type {number} */ (h.clock.pendingDelays().at(-1));
      delays.push(delay);
      h.clock.advance(delay);
      socket = h.ws();
    }
    expect(delays).toEqual([500, 1000, 2000, 4000, 8000, 10000, 10000, 10000].map((ms) => ms * 0.999));
    expect(h.conn.transport).toBe('ws');
    socket.serverSend(msg.heartbeat('E', 1));
    socket.serverClose(1001);
    expect(h.clock.pendingDelays()).toEqual([500 * 0.999]);
    expect(h.conn.linkState).toBe('reconnecting');
  });

  it('never reconnects synchronously, even with a zero delay', () => {
    const h = live('E', 1, {}, { random: () => 0 });
    h.socket.serverClose(1006);
    expect(h.WS.instances).toHaveLength(1);
    h.clock.advance(0);
    expect(h.WS.instances).toHaveLength(2);
  });
});

describe('reconnect at once', () => {
  /** A link that was live and dropped, with a long backoff pending. */
  function dropped() {
    const h = live('E', 2, {}, { random: () => 0.999 });
    h.socket.serverClose(1006);
    expect(h.clock.pendingDelays()).toEqual([499.5]);
    return h;
  }

  it('on online, skipping the pending backoff', () => {
    const h = dropped();
    h.fire('offline');
    expect(h.conn.linkState).toBe('offline');
    h.fire('online');
    expect(h.WS.instances).toHaveLength(2);
    expect(h.ws().url).toBe('ws://score.test/live?epoch=E&seq=2&view=audience');
    expect(h.conn.linkState).toBe('reconnecting');
    // Only the new attempt's dead-link timer is left: the backoff was cancelled.
    expect(h.clock.pendingDelays()).toEqual([DEAD_LINK_MS]);
  });

  it('on online, the backoff starts over: attempts made on the network that went away do not slow the new one', () => {
    const h = setup({ random: () => 0.999 });
    h.conn.start();
    h.fire('offline');
    // Attempts fail while offline; the backoff grows.
    for (let i = 0; i < 5; i++) {
      h.ws().serverClose(1006);
      h.clock.advance(/** @type {number} */ (h.clock.pendingDelays().at(-1)));
    }
    h.ws().serverClose(1006);
    expect(h.clock.pendingDelays().at(-1)).toBe(10_000 * 0.999);
    h.fire('online');
    h.ws().serverClose(1006);
    expect(h.clock.pendingDelays().at(-1)).toBe(500 * 0.999);
  });

  it('on pageshow', () => {
    const h = dropped();
    h.fire('pageshow');
    expect(h.WS.instances).toHaveLength(2);
    expect(h.clock.pendingDelays()).toEqual([DEAD_LINK_MS]);
  });

  it('on visibilitychange to visible, not to hidden', () => {
    const h = dropped();
    h.doc.visibilityState = 'hidden';
    h.fire('visibilitychange');
    expect(h.WS.instances).toHaveLength(1);
    h.doc.visibilityState = 'visible';
    h.fire('visibilitychange');
    expect(h.WS.instances).toHaveLength(2);
  });

  it('on becoming visible, when the link looks live but has been silent past the dead-link time', () => {
    const h = live();
    h.doc.visibilityState = 'hidden';
    h.fire('visibilitychange');
    // A background tab whose timers were throttled: time passed, the dead-link timer did not fire.
    h.clock.t += DEAD_LINK_MS;
    h.doc.visibilityState = 'visible';
    h.fire('visibilitychange');
    expect(h.socket.closedByClient).toBe(true);
    expect(h.WS.instances).toHaveLength(2);
  });

  it('lets an attempt under way run on pageshow and visibilitychange, but not on online', () => {
    const h = setup();
    h.conn.start();
    h.fire('pageshow');
    h.fire('visibilitychange');
    expect(h.WS.instances).toHaveLength(1);
    expect(h.ws().closedByClient).toBe(false);
    h.fire('online');
    expect(h.WS.instances).toHaveLength(2);
    expect(h.WS.instances[0].closedByClient).toBe(true);
  });

  it('does nothing while the link is live', () => {
    const h = live();
    h.fire('pageshow');
    h.fire('online');
    h.fire('visibilitychange');
    expect(h.WS.instances).toHaveLength(1);
    expect(h.socket.closedByClient).toBe(false);
  });

  it('marks the link offline on offline, but the dead-link timer still decides', () => {
    const h = live('E', 2);
    h.fire('offline');
    expect(h.conn.linkState).toBe('offline');
    expect(h.socket.closedByClient).toBe(false);
    h.clock.advance(DEAD_LINK_MS);
    expect(h.socket.closedByClient).toBe(true);
    expect(h.WS.instances).toHaveLength(2);
    expect(h.conn.linkState).toBe('offline');
    h.ws().serverSend(msg.welcome('E', 2));
    expect(h.conn.linkState).toBe('live');
  });

  it('stops listening after stop()', () => {
    const h = live();
    h.conn.stop();
    expect(h.socket.closedByClient).toBe(true);
    h.fire('online');
    h.clock.advance(60_000);
    expect(h.WS.instances).toHaveLength(1);
  });
});

describe('transport fallback', () => {
  it('moves ws -> sse -> poll after two failures each that delivered nothing', async () => {
    const h = setup({ random: () => 0 });
    /** @type {string[]} */
    const vias = [];
    h.conn.on('link', (c) => vias.push(c.transport));
    h.conn.start();
    h.ws().serverClose(1006);
    h.clock.advance(0);
    h.ws().serverOpen(); // open, but closed before any message: still unusable
    h.ws().serverClose(1006);
    expect(h.conn.transport).toBe('sse');
    h.clock.advance(0);
    expect(h.WS.instances).toHaveLength(2);
    expect(h.ES.instances).toHaveLength(1);
    h.es().serverError();
    h.clock.advance(0);
    h.es().serverError();
    expect(h.conn.transport).toBe('poll');
    h.clock.advance(0);
    expect(h.ES.instances).toHaveLength(2);
    expect(h.requests).toHaveLength(1);
    expect(h.conn.linkState).toBe('connecting');
    h.requests[0].respond(200, [msg.snapshot('E', 0, { ok: true })]);
    await flush();
    expect(h.conn.linkState).toBe('live');
    expect(h.conn.state).toEqual({ ok: true });
    expect(vias).toContain('sse');
    expect(vias.at(-1)).toBe('poll');
  });

  it('skips a transport the browser does not have, or refuses, at the first failure', () => {
    for (const WebSocket of [
      undefined,
      class {
        constructor() {
          throw new Error('blocked by CSP');
        }
      },
    ]) {
      const h = setup({ WebSocket, random: () => 0 });
      h.conn.start();
      expect(h.conn.transport).toBe('sse');
      h.clock.advance(0);
      expect(h.ES.instances).toHaveLength(1);
    }
  });

  it('keeps a transport that has worked, whatever fails afterwards', () => {
    const h = live('E', 1, {}, { random: () => 0 });
    h.socket.serverClose(1006);
    for (let i = 0; i < 4; i++) {
      h.clock.advance(0);
      h.ws().serverClose(1006);
    }
    expect(h.conn.transport).toBe('ws');
    expect(h.ES.instances).toHaveLength(0);
  });

  /** Live on WebSocket, then the link lost and three attempts failing (the block check's threshold). */
  async function liveThenFailing() {
    const h = live('E', 1, {}, { random: () => 0 });
    h.socket.serverClose(1006);
    for (let i = 0; i < 3; i++) {
      h.clock.advance(0);
      h.ws().serverClose(1006);
    }
    await flush();
    return h;
  }

  it('moves on from a transport that worked when it keeps failing while plain HTTP gets through (blocked where the phone roamed)', async () => {
    const h = await liveThenFailing();
    const check = h.requests.find((r) => r.url === 'http://score.test/api/time');
    expect(check).toBeDefined();
    check?.respond(200, { t: 1 });
    await flush();
    expect(h.conn.transport).toBe('sse');
    h.clock.advance(0);
    expect(h.es().url).toBe('http://score.test/live/sse?epoch=E&seq=1&view=audience');
  });

  it('gives up a block check that hangs, keeps the transport, and asks again after the next failures', async () => {
    // A pooled connection of the network the phone left can hang a request for minutes.
    const h = await liveThenFailing();
    const checks = () => h.requests.filter((r) => r.url.endsWith('/api/time'));
    expect(checks()).toHaveLength(1);
    h.clock.advance(BLOCK_CHECK_TIMEOUT_MS);
    await flush();
    expect(checks()[0].signal.aborted).toBe(true);
    expect(h.conn.transport).toBe('ws');
    // Two more failures make no check; the third does, and this one gets through.
    for (let i = 0; i < 3; i++) {
      expect(checks()).toHaveLength(1);
      h.clock.advance(0);
      h.ws().serverClose(1006);
    }
    await flush();
    expect(checks()).toHaveLength(2);
    checks()[1].respond(200, { t: 1 });
    await flush();
    expect(h.conn.transport).toBe('sse');
  });

  it('keeps a transport that worked when HTTP does not get through either (the network is down)', async () => {
    const h = await liveThenFailing();
    expect(h.requests.filter((r) => r.url.endsWith('/api/time'))).toHaveLength(1);
    h.requests.find((r) => r.url.endsWith('/api/time'))?.fail(new TypeError('network error'));
    await flush();
    expect(h.conn.transport).toBe('ws');
  });

  it('does not count failures while the browser is offline', () => {
    const h = setup({ random: () => 0 });
    h.conn.start();
    h.fire('offline');
    for (let i = 0; i < 4; i++) {
      h.ws().serverClose(1006);
      h.clock.advance(0);
    }
    expect(h.conn.transport).toBe('ws');
    expect(h.conn.linkState).toBe('offline');
  });

  it('wraps around to the first transport when the last one fails too', async () => {
    const h = setup({ transport: 'poll', random: () => 0 });
    h.conn.start();
    h.requests[0].respond(503, { code: 'X' });
    await flush();
    h.clock.advance(0);
    h.requests[1].fail(new TypeError('network error'));
    await flush();
    expect(h.conn.transport).toBe('ws');
    h.clock.advance(0);
    expect(h.WS.instances).toHaveLength(1);
  });
});

describe('forced transport', () => {
  it('starts on the transport asked for', () => {
    const sse = setup({ transport: 'sse' });
    sse.conn.start();
    expect(sse.conn.transport).toBe('sse');
    expect(sse.ES.instances).toHaveLength(1);
    expect(sse.WS.instances).toHaveLength(0);

    const poll = setup({ transport: 'poll' });
    poll.conn.start();
    expect(poll.conn.transport).toBe('poll');
    expect(poll.requests).toHaveLength(1);
    expect(poll.WS.instances).toHaveLength(0);
    expect(poll.ES.instances).toHaveLength(0);
  });

  it('ignores an unknown name, with a log line', () => {
    const h = setup({ transport: 'carrier-pigeon' });
    h.conn.start();
    expect(h.conn.transport).toBe('ws');
    expect(h.WS.instances).toHaveLength(1);
    expect(h.log).toHaveBeenCalledWith(expect.stringContaining('carrier-pigeon'));
  });
});

describe('invalid messages', () => {
  const invalid = [
    'not json',
    '[1,2]',
    JSON.stringify({ type: 'bogus', t: 1 }),
    JSON.stringify({ type: 'delta', epoch: 'E', t: 1, patch: {} }),
    JSON.stringify({ type: 'delta', epoch: 'E', seq: 2, t: 1 }),
    JSON.stringify({ type: 'snapshot', epoch: 'E', seq: 2, t: 1, state: null }),
    JSON.stringify({ type: 'delta', epoch: 'bad epoch!', seq: 2, t: 1, patch: {} }),
    JSON.stringify({ type: 'delta', epoch: 'E', seq: 2, patch: {} }),
  ];

  it('are ignored and logged on WebSocket, never thrown', () => {
    const { conn, socket, log } = live('E', 1, { beat: 1 });
    log.mockClear();
    for (const data of invalid) expect(() => socket.serverSend(data)).not.toThrow();
    expect(() => socket.serverSend(new ArrayBuffer(4))).not.toThrow();
    expect(log).toHaveBeenCalledTimes(invalid.length + 1);
    expect(conn.state).toEqual({ beat: 1 });
    expect(socket.sent).toEqual([]);
    socket.serverSend(msg.delta('E', 2, { beat: 2 }));
    expect(conn.state).toEqual({ beat: 2 });
  });

  it('do not count as a delivered message', () => {
    const h = setup();
    h.conn.start();
    h.ws().serverOpen();
    for (const data of invalid) h.ws().serverSend(data);
    expect(h.conn.linkState).toBe('connecting');
  });

  it('are ignored on SSE', () => {
    const h = setup({ transport: 'sse' });
    h.conn.start();
    for (const data of invalid) expect(() => h.es().serverSend(data)).not.toThrow();
    h.es().serverSend(msg.snapshot('E', 1, { ok: 1 }));
    expect(h.conn.state).toEqual({ ok: 1 });
  });

  it('are skipped inside a poll answer; an answer that is not an array is a transport error', async () => {
    const h = setup({ transport: 'poll', random: () => 0 });
    h.conn.start();
    h.requests[0].respond(200, [null, { type: 'delta' }, msg.snapshot('E', 1, { ok: 1 }), 'x']);
    await flush();
    expect(h.conn.state).toEqual({ ok: 1 });
    h.requests[1].respond(200, '{"not":"an array"}');
    await flush();
    expect(h.conn.linkState).toBe('reconnecting');
    h.clock.advance(0);
    expect(h.requests[2].url).toContain('epoch=E&since=1');
  });

  it('a throwing state listener does not break the stream', () => {
    const h = setup();
    h.conn.on('state', () => {
      throw new Error('render bug');
    });
    h.conn.start();
    h.ws().serverSend(msg.snapshot('E', 1, {}));
    h.ws().serverSend(msg.delta('E', 2, { a: 1 }));
    expect(h.conn.seq).toBe(2);
    expect(h.log).toHaveBeenCalledWith(expect.stringContaining('listener threw'), expect.any(Error));
  });
});

describe('client messages', () => {
  it('sends on WebSocket, passes pongs to listeners, logs server errors', () => {
    const { conn, socket, log } = live();
    const onPong = vi.fn();
    conn.on('pong', onPong);
    expect(conn.send({ type: 'ping', id: 1, t0: 5 })).toBe(true);
    expect(socket.sent).toEqual([{ type: 'ping', id: 1, t0: 5 }]);
    socket.serverSend({ type: 'pong', id: 1, t0: 5, t: 9 });
    expect(onPong).toHaveBeenCalledWith({ type: 'pong', id: 1, t0: 5, t: 9 });
    socket.serverSend({ type: 'error', code: 'SC_ERR_NO_VOTE_WINDOW', message: 'no', t: 1 });
    expect(log).toHaveBeenCalledWith(
      'the server refused a message',
      expect.objectContaining({ code: 'SC_ERR_NO_VOTE_WINDOW' }),
    );
  });

  it('cannot send on SSE or polling', () => {
    const h = setup({ transport: 'sse' });
    h.conn.start();
    h.es().serverOpen();
    expect(h.conn.send({ type: 'ping', id: 1, t0: 5 })).toBe(false);
  });
});

describe('a return after the page was away (a locked phone, a hidden tab, a frozen page)', () => {
  /** Away for `ms`, and the events the page is told of it by. */
  const ways = {
    /** @param {ReturnType<typeof live>} h */
    hidden(h, /** @type {number} */ ms) {
      h.doc.visibilityState = 'hidden';
      h.fire('visibilitychange');
      h.clock.t += ms;
      h.doc.visibilityState = 'visible';
      h.fire('visibilitychange');
    },
    /** @param {ReturnType<typeof live>} h */
    frozen(h, /** @type {number} */ ms) {
      h.doc.dispatchEvent(new Event('freeze'));
      h.clock.t += ms;
      h.doc.dispatchEvent(new Event('resume'));
    },
    /**
     * Suspended with no event at all: the page noticed the gap (wake-watch.js).
     * @param {ReturnType<typeof live>} h
     */
    unnoticed(h, /** @type {number} */ ms) {
      h.clock.t += ms;
      h.conn.resumed(ms);
    },
  };

  for (const [how, away] of Object.entries(ways)) {
    it(`${how}: a link silent past its usual silence, with nothing held for the page, is replaced within ${RETURN_CHECK_MS} ms`, () => {
      const h = live();
      const ms = PROBE_AFTER_MS + 500; // less than DEAD_LINK_MS: the link still looks live
      away(h, ms);
      expect(h.WS.instances).toHaveLength(1);
      h.clock.advance(RETURN_CHECK_MS);
      expect(h.socket.closedByClient).toBe(true);
      expect(h.WS.instances).toHaveLength(2);
      // The new socket resumes from what the page holds.
      expect(h.ws().url).toContain('epoch=E&seq=1');
    });
  }

  it('a link that delivers what it held for the page is kept', () => {
    const h = live('E', 1);
    ways.hidden(h, PROBE_AFTER_MS + 500);
    h.socket.serverSend(msg.delta('E', 2, { bar: 2 }));
    h.clock.advance(RETURN_CHECK_MS);
    expect(h.socket.closedByClient).toBe(false);
    expect(h.WS.instances).toHaveLength(1);
  });

  it('a short absence (the link no quieter than usual) is not checked', () => {
    const h = live();
    ways.frozen(h, PROBE_AFTER_MS - 500);
    h.clock.advance(RETURN_CHECK_MS);
    expect(h.WS.instances).toHaveLength(1);
    expect(h.socket.closedByClient).toBe(false);
  });

  it('away past the dead-link time: replaced at once, as before', () => {
    const h = live();
    ways.frozen(h, DEAD_LINK_MS + 100);
    expect(h.socket.closedByClient).toBe(true);
    expect(h.WS.instances).toHaveLength(2);
  });
});

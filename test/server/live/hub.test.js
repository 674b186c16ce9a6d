import { describe, it, expect, afterEach, vi } from 'vitest';
import { createMemoryBus } from '../../../server/live/bus.js';
import { createConductor } from '../../../server/performance/conductor.js';
import { createHub } from '../../../server/live/hub.js';
import { applyPatch } from '../../../core/merge-patch.js';
import { CLIENT_RATE, CLOSE, FLOOD_CLOSE_AFTER, HEARTBEAT_MS } from '../../../core/constants.js';
import { createFakeClock } from '../../helpers/fake-clock.js';
import { fakeLink, smallModel } from '../../helpers/fixtures.js';

/** @type {(() => void)[]} */
let cleanup = [];
afterEach(() => {
  for (const f of cleanup) f();
  cleanup = [];
});

/** @param {Partial<import('../../../server/live/hub.js').HubOptions>} [hubOptions] */
function setup(hubOptions = {}) {
  const clock = createFakeClock();
  const bus = createMemoryBus();
  const conductor = createConductor({ model: smallModel({ bars: 64 }), bus, clock, epoch: 'ep1' });
  const hub = createHub({ bus, now: clock.wall, ...hubOptions });
  cleanup.push(() => {
    hub.close();
    conductor.dispose();
  });
  return { clock, bus, conductor, hub };
}

/**
 * Fold the state messages a link received, as a client would (snapshots replace, deltas patch).
 * @param {ReturnType<typeof fakeLink>} link
 */
function clientState(link) {
  /** @type {any} */
  let state = null;
  let seq = -1;
  for (const m of link.messages) {
    if (m.type === 'snapshot') {
      state = m.state;
      seq = m.seq;
    }
    if (m.type === 'delta') {
      expect(m.seq).toBe(seq + 1);
      state = applyPatch(state, m.patch);
      seq = m.seq;
    }
  }
  return { state, seq };
}

describe('hub resync', () => {
  it('a reconnect inside the history gets exactly the missing deltas, in order', () => {
    const { clock, conductor, hub } = setup();
    conductor.play();
    clock.advance(2000); // seqs 1..5
    const link = fakeLink();
    hub.attach(link, { epoch: 'ep1', seq: 2 });
    const got = link.messages;
    expect(got[0].type).toBe('welcome');
    expect(got.slice(1).map((m) => [m.type, m.seq])).toEqual([
      ['delta', 3],
      ['delta', 4],
      ['delta', 5],
    ]);
    expect(hub.seq).toBe(5);
  });

  it('a client that holds the current seq gets nothing but the welcome', () => {
    const { clock, conductor, hub } = setup();
    conductor.play();
    clock.advance(1000);
    const link = fakeLink();
    hub.attach(link, { epoch: 'ep1', seq: hub.seq });
    expect(link.messages.map((m) => m.type)).toEqual(['welcome']);
    // It names the protocol version (doc/protocol.md) and the timings the client needs.
    expect(link.messages[0]).toMatchObject({ protocol: 1, transport: link.kind, heartbeatMs: 2000 });
  });

  it.each([
    ['an unknown epoch', 'other', 3],
    ['no epoch', null, 0],
    ['a seq from the future', 'ep1', 999],
  ])('%s gets a snapshot equal to the server state', (_, epoch, seq) => {
    const { clock, conductor, hub } = setup();
    conductor.play();
    clock.advance(2000);
    const link = fakeLink();
    hub.attach(link, { epoch, seq });
    const snaps = link.ofType('snapshot');
    expect(snaps).toHaveLength(1);
    expect(snaps[0]).toMatchObject({ epoch: 'ep1', seq: hub.seq });
    expect(snaps[0].state).toEqual(conductor.state);
  });

  it('a seq older than the history gets a snapshot, and the result equals the server state', () => {
    const { clock, conductor, hub } = setup({ historySize: 8 });
    conductor.play();
    clock.advance(10_000); // 21 changes, only the last 8 kept
    const old = fakeLink();
    hub.attach(old, { epoch: 'ep1', seq: 3 });
    expect(old.ofType('snapshot')).toHaveLength(1);
    const edge = fakeLink();
    hub.attach(edge, { epoch: 'ep1', seq: hub.seq - 8 });
    expect(edge.ofType('delta').map((m) => m.seq)).toEqual(Array.from({ length: 8 }, (_, i) => hub.seq - 7 + i));
    const { state } = clientState(old);
    clock.advance(3000);
    const after = clientState(old);
    expect(state).not.toBeNull();
    expect(after.state).toEqual(conductor.state);
    expect(after.seq).toBe(hub.seq);
  });

  it('a client that missed more bytes of deltas than the whole state gets the state, not the replay', () => {
    const { clock, conductor, hub } = setup({ replayBytes: 0 });
    conductor.play();
    clock.advance(2000);
    const from = hub.seq;
    const snapshotBytes = hub.resync('other', 0)[0].text.length;
    // Beats until the deltas since `from` outweigh the state.
    let missedBytes = 0;
    while (missedBytes <= snapshotBytes) {
      clock.advance(500);
      missedBytes = 0;
      for (let s = from + 1; s <= hub.seq; s++) missedBytes += hub.resync('ep1', s - 1)[0].text.length;
    }
    const away = fakeLink();
    hub.attach(away, { epoch: 'ep1', seq: from });
    expect(away.ofType('delta')).toHaveLength(0);
    expect(away.ofType('snapshot')).toHaveLength(1);
    expect(clientState(away).state).toEqual(conductor.state);
    // A short absence still gets its few deltas, in order.
    const brief = fakeLink();
    hub.attach(brief, { epoch: 'ep1', seq: hub.seq - 2 });
    expect(brief.ofType('delta').map((m) => m.seq)).toEqual([hub.seq - 1, hub.seq]);
  });

  it('keeps the framings of the newest deltas only; an older one replayed is framed again, to the same bytes', () => {
    const { clock, conductor, hub } = setup();
    const live = fakeLink();
    hub.attach(live, { epoch: null, seq: 0 });
    conductor.play();
    clock.advance(30_000);
    const missed = hub.resync('ep1', 1);
    expect(missed.length).toBeGreaterThan(40);
    expect(missed.every((m) => m.type === 'delta')).toBe(true);
    expect([...missed[0].bytes.keys()]).toEqual([]);
    expect(missed.at(-1)?.bytes.size).toBe(1);
    const back = fakeLink();
    hub.attach(back, { epoch: 'ep1', seq: 1 });
    const liveBySeq = new Map(live.messages.map((m, i) => [`${m.type}:${m.seq}`, live.sent[i]]));
    const replayed = back.messages.map((m, i) => [m, back.sent[i]]).filter(([m]) => m.type === 'delta');
    expect(replayed.map(([m]) => m.seq)).toEqual(missed.map((m) => m.seq));
    for (const [m, bytes] of replayed) expect(bytes.equals(liveBySeq.get(`delta:${m.seq}`))).toBe(true);
  });

  it('bounds the history by bytes as well as by count', () => {
    const { clock, conductor, hub } = setup({ historyBytes: 400 });
    conductor.play();
    clock.advance(10_000);
    const link = fakeLink();
    hub.attach(link, { epoch: 'ep1', seq: hub.seq - 10 });
    expect(link.ofType('snapshot')).toHaveLength(1);
  });

  it('a new epoch sends every connection a snapshot', () => {
    const { bus, conductor, hub } = setup();
    const link = fakeLink();
    hub.attach(link, { epoch: 'ep1', seq: 0 });
    bus.publish({ epoch: 'ep2', seq: 0, t: 1, patch: null, state: { ...conductor.state, beat: 3 } });
    expect(link.messages.at(-1)).toMatchObject({ type: 'snapshot', epoch: 'ep2', seq: 0 });
    expect(hub.resync('ep1', 0)[0].type).toBe('snapshot');
  });
});

describe('hub fan-out', () => {
  it('serializes each change once: every connection of a kind gets the same bytes', () => {
    const { clock, conductor, hub } = setup();
    const links = [fakeLink(), fakeLink(), fakeLink()];
    for (const l of links) hub.attach(l, { epoch: 'ep1', seq: 0 });
    conductor.play();
    clock.advance(1000);
    const lastOf = links.map((l) => l.sent.at(-1));
    expect(lastOf[1]).toBe(lastOf[0]);
    expect(lastOf[2]).toBe(lastOf[0]);
  });

  it("sends a delta's envelope as the bus brought it, made once for every node, and resyncs with it", () => {
    const bus = createMemoryBus();
    const hub = createHub({ bus, now: () => 1000 });
    cleanup.push(() => hub.close());
    bus.publish({ epoch: 'e1', seq: 0, t: 1, patch: null, state: { n: 0 } });
    const link = fakeLink();
    hub.attach(link, { epoch: 'e1', seq: 0 });
    // Key order and spacing a hub would not write: the text goes as it came.
    const text = '{"type":"delta","epoch":"e1","seq":1,"t":2,"patch":{"n":1} }';
    bus.publish({ epoch: 'e1', seq: 1, t: 2, patch: { n: 1 }, state: { n: 1 }, text });
    expect(link.sent.at(-1)?.toString().endsWith(text)).toBe(true);
    const late = fakeLink();
    hub.attach(late, { epoch: 'e1', seq: 0 });
    expect(late.sent.at(-1)?.toString().endsWith(text)).toBe(true);
    expect(hub.state).toEqual({ n: 1 });
  });

  it('a stalled connection delays nobody, skips to the newest snapshot, then goes on live', () => {
    const { clock, conductor, hub } = setup({ behindBytes: 1000 });
    const fast = fakeLink();
    const slow = fakeLink();
    hub.attach(fast, { epoch: null, seq: 0 });
    hub.attach(slow, { epoch: null, seq: 0 });
    conductor.play();
    clock.advance(500);
    slow.queued = 5000; // its socket stopped draining
    const before = slow.sent.length;
    clock.advance(3000);
    expect(slow.sent.length).toBe(before);
    expect(clientState(fast)).toEqual({ state: conductor.state, seq: hub.seq });
    slow.queued = 0; // drained
    clock.advance(500);
    const last = slow.messages.at(-1);
    expect(last).toMatchObject({ type: 'snapshot', seq: hub.seq });
    clock.advance(500);
    expect(slow.messages.at(-1)).toMatchObject({ type: 'delta', seq: hub.seq });
    const after = slow.messages.slice(before);
    expect(after.filter((m) => m.type === 'snapshot')).toHaveLength(1);
  });

  it('drops a connection that stays behind, with close code 4001', () => {
    const { clock, conductor, hub } = setup({ behindBytes: 1000, behindMs: 2000 });
    const slow = fakeLink();
    const ok = fakeLink();
    hub.attach(slow, { epoch: 'ep1', seq: 0 });
    hub.attach(ok, { epoch: 'ep1', seq: 0 });
    conductor.play();
    slow.queued = 5000;
    clock.advance(3000);
    expect(slow.closed).toEqual({ code: CLOSE.TOO_SLOW, reason: 'SC_ERR_TOO_SLOW' });
    expect(hub.size).toBe(1);
    expect(ok.closed).toBeNull();
  });

  it('drops at once a connection whose unsent bytes pass the hard limit', () => {
    const { clock, conductor, hub } = setup({ behindBytes: 1000, dropBytes: 4000 });
    const slow = fakeLink();
    hub.attach(slow, { epoch: 'ep1', seq: 0 });
    conductor.play();
    slow.queued = 2000;
    clock.advance(500);
    slow.queued = 10_000;
    clock.advance(500);
    expect(slow.closed?.code).toBe(CLOSE.TOO_SLOW);
  });
});

describe('direct replies obey the behind rule', () => {
  it('a connection that does not read gets no pong and no hello resync; when it drains, the newest state whole', () => {
    const { clock, conductor, hub } = setup({ behindBytes: 1000 });
    const link = fakeLink();
    const session = hub.attach(link, { epoch: null, seq: 0 });
    conductor.play();
    clock.advance(500);
    link.queued = 5000; // it stopped reading, and asks
    const before = link.sent.length;
    for (let i = 0; i < 30; i++) {
      session.receive(JSON.stringify({ type: 'ping', id: i, t0: 1 }), false);
      session.receive(JSON.stringify({ type: 'hello', epoch: null, seq: 0 }), false);
    }
    session.receive('not json', false);
    expect(link.sent.length).toBe(before);
    link.queued = 0;
    clock.advance(500);
    expect(link.messages.slice(before).map((m) => m.type)).toEqual(['snapshot']);
    session.receive(JSON.stringify({ type: 'ping', id: 99, t0: 1 }), false);
    expect(link.messages.at(-1)).toMatchObject({ type: 'pong', id: 99 });
  });
});

describe('the audience figure', () => {
  it('invented polling ids from one address count up to its cap; other addresses count on', () => {
    const { clock, hub } = setup({ pollersPerAddress: 32 });
    for (let i = 0; i < 5000; i++) hub.notePoller(`fake-${i}`, 'audience', '10.9.0.1');
    for (let i = 0; i < 3; i++) hub.notePoller(`phone-${i}`, 'audience', '10.9.0.2');
    expect(hub.audience()).toMatchObject({ total: 35, byTransport: { poll: 35 } });
    // Ids that stop polling make room for new ones after the poller TTL.
    clock.advance(31_000);
    expect(hub.notePoller('fresh', 'audience', '10.9.0.1')).toBe(true);
    expect(hub.audience().total).toBe(1);
    // A phone that roams to another address keeps one count.
    hub.notePoller('fresh', 'audience', '10.9.0.3');
    expect(hub.audience().total).toBe(1);
  });

  it('hub.clients counts what audience().total counts: connections, and pollers within their TTL', () => {
    const { clock, hub } = setup();
    hub.attach(fakeLink(), { epoch: null, seq: 0 });
    hub.attach(fakeLink(), { epoch: null, seq: 0 });
    hub.notePoller('a', 'audience', '10.9.0.1');
    clock.advance(20_000);
    hub.notePoller('b', 'audience', '10.9.0.2');
    expect(hub.clients).toBe(4);
    expect(hub.audience().total).toBe(4);
    // 'a' polled 31 s ago, 'b' 11 s ago: only 'b' still counts.
    clock.advance(11_000);
    expect(hub.clients).toBe(3);
    expect(hub.audience().total).toBe(3);
  });

  it('IPv6: ids from every address of one /64 count against one cap (privacy addresses rotate freely)', () => {
    const { hub } = setup({ pollersPerAddress: 32 });
    for (let i = 0; i < 500; i++) hub.notePoller(`fake-${i}`, 'audience', `2001:db8:5:6:${i.toString(16)}::1`);
    for (let i = 0; i < 500; i++) hub.notePoller(`mapped-${i}`, 'audience', i % 2 ? '::ffff:10.9.0.4' : '10.9.0.4');
    hub.notePoller('phone', 'audience', '2001:db8:5:7::1');
    expect(hub.audience().total).toBe(32 + 32 + 1);
  });
});

describe('hub client messages', () => {
  it('answers ping with pong and hello with a resync', () => {
    const { clock, conductor, hub } = setup();
    conductor.play();
    clock.advance(1000);
    const link = fakeLink();
    const session = hub.attach(link, { epoch: 'ep1', seq: hub.seq });
    session.receive(Buffer.from('{"type":"ping","id":7,"t0":123}'), false);
    expect(link.messages.at(-1)).toMatchObject({ type: 'pong', id: 7, t0: 123 });
    session.receive('{"type":"hello","epoch":"ep1","seq":1}', false);
    expect(link.messages.slice(-2).map((m) => m.seq)).toEqual([2, 3]);
  });

  it.each([
    ['bad JSON', '{bad json', false, 'SC_ERR_BAD_JSON'],
    ['an unknown type', '{"type":"warp"}', false, 'SC_ERR_UNKNOWN_TYPE'],
    ['a wrong field type', '{"type":"hello","seq":"x"}', false, 'SC_ERR_BAD_MESSAGE'],
    ['a binary frame', '{"type":"ping","id":1,"t0":1}', true, 'SC_ERR_BAD_MESSAGE'],
    ['a tap outside a vote window', '{"type":"tap","tile":"t1"}', false, 'SC_ERR_NO_VOTE_WINDOW'],
    ['an oversized message', `{"type":"tap","tile":"${'x'.repeat(5000)}"}`, false, 'SC_ERR_TOO_BIG'],
  ])('answers %s with its error and keeps the connection', (_, raw, binary, code) => {
    const { hub } = setup();
    const link = fakeLink();
    const session = hub.attach(link, { epoch: null, seq: 0 });
    session.receive(Buffer.from(raw), binary);
    expect(link.messages.at(-1)).toMatchObject({ type: 'error', code });
    expect(link.closed).toBeNull();
    expect(hub.size).toBe(1);
  });

  it('rate-limits a flood, answers only the first refusals, and closes a persistent flooder with 4002', () => {
    const { hub } = setup();
    const link = fakeLink();
    const other = fakeLink();
    const session = hub.attach(link, { epoch: null, seq: 0 });
    hub.attach(other, { epoch: null, seq: 0 });
    for (let i = 0; i < CLIENT_RATE.burst; i++) session.receive('{"type":"ping","id":1,"t0":1}', false);
    expect(link.ofType('pong')).toHaveLength(CLIENT_RATE.burst);
    for (let i = 0; i < FLOOD_CLOSE_AFTER + 50; i++) session.receive('{"type":"ping","id":1,"t0":1}', false);
    const limited = link.messages.filter((m) => m.code === 'SC_ERR_RATE_LIMITED');
    expect(limited).toHaveLength(CLIENT_RATE.burst);
    expect(link.closed).toEqual({ code: CLOSE.FLOOD, reason: 'SC_ERR_FLOOD' });
    expect(hub.size).toBe(1);
    expect(other.closed).toBeNull();
  });

  it('forgets a burst long past: bursts minutes apart never add up to a close, and each is told', () => {
    const { hub, clock } = setup();
    const link = fakeLink();
    const session = hub.attach(link, { epoch: null, seq: 0 });
    const ping = '{"type":"ping","id":1,"t0":1}';
    // Ten bursts of 60 messages at once, a minute apart: 20 refused each time, 200 in all.
    for (let burst = 0; burst < 10; burst++) {
      for (let i = 0; i < CLIENT_RATE.burst + 20; i++) session.receive(ping, false);
      clock.advance(60_000);
    }
    expect(link.closed).toBeNull();
    expect(link.messages.filter((m) => m.code === 'SC_ERR_RATE_LIMITED')).toHaveLength(200);
    // A flood at five times the rate, its refusals well within FLOOD_QUIET_MS of each other, is
    // still closed.
    for (let i = 0; i < 2 * FLOOD_CLOSE_AFTER + CLIENT_RATE.burst && !link.closed; i++) {
      session.receive(ping, false);
      clock.advance(200 / CLIENT_RATE.perSecond);
    }
    expect(link.closed).toEqual({ code: CLOSE.FLOOD, reason: 'SC_ERR_FLOOD' });
  });
});

describe('hub heartbeats', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('sends none while the music flows; one after each HEARTBEAT_MS of silence, timed from the last message', () => {
    vi.useFakeTimers();
    const { conductor, hub } = setup();
    const link = fakeLink();
    hub.attach(link, { epoch: null, seq: -1 });
    // A change every 750 ms (80 bpm) for 6 s: no heartbeat.
    for (let i = 0; i < 8; i++) {
      conductor.seek(i);
      vi.advanceTimersByTime(750);
    }
    expect(link.ofType('heartbeat')).toHaveLength(0);
    // Silence: the first heartbeat HEARTBEAT_MS after the last change (750 ms of it have passed).
    vi.advanceTimersByTime(HEARTBEAT_MS - 750 - 1);
    expect(link.ofType('heartbeat')).toHaveLength(0);
    vi.advanceTimersByTime(1);
    expect(link.ofType('heartbeat')).toHaveLength(1);
    expect(link.ofType('heartbeat')[0]).toMatchObject({ epoch: hub.epoch, seq: hub.seq });
    vi.advanceTimersByTime(3 * HEARTBEAT_MS);
    expect(link.ofType('heartbeat')).toHaveLength(4);
    // A change pushes the next heartbeat back by a whole interval.
    vi.advanceTimersByTime(HEARTBEAT_MS / 2);
    conductor.seek(20);
    vi.advanceTimersByTime(HEARTBEAT_MS - 1);
    expect(link.ofType('heartbeat')).toHaveLength(4);
    vi.advanceTimersByTime(1);
    expect(link.ofType('heartbeat')).toHaveLength(5);
  });
});

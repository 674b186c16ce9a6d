// Probing a silent link over HTTP (client/src/live/link-probe.js, through the connection that uses
// it): a roaming phone reconnects as soon as one fresh request gets through, from the position it
// holds, and no probing where the network is fine or probing is off.

import { describe, it, expect, vi } from 'vitest';
import { Connection } from '../../../client/src/live/connection.js';
import { DEAD_LINK_MS } from '../../../core/constants.js';
import {
  PROBE_AFTER_MS,
  PROBE_BEAT_MARGIN_MS,
  PROBE_EVERY_MS,
  PROBE_FOR_MS,
  PROBE_RETRY_MS,
  PROBE_ROUND_REQUESTS,
  PROBE_SECOND_ROUND_MS,
} from '../../../client/src/live/link-probe.js';
import { FakeClock, fakeWebSocketClass, fakeFetch, flush, msg } from '../fakes.js';

/**
 * A connection live over a fake WebSocket holding E:5.
 * @param {{ probe?: boolean, state?: object }} [o] state: the snapshot's state (default `{ bar: 1 }`)
 */
function live({ probe = true, state = { bar: 1 } } = {}) {
  const clock = new FakeClock();
  const WS = fakeWebSocketClass();
  const { fetch, requests } = fakeFetch();
  const conn = new Connection({
    baseUrl: 'http://score.test',
    probe,
    env: {
      WebSocket: /** @type {any} */ (WS),
      fetch: /** @type {any} */ (fetch),
      timers: clock,
      now: clock.now,
      random: () => 0.5,
      window: new EventTarget(),
      document: { visibilityState: 'visible' },
      log: vi.fn(),
    },
  });
  conn.start();
  const first = WS.instances[0];
  first.serverOpen();
  first.serverSend(msg.welcome('E', 5));
  first.serverSend(msg.snapshot('E', 5, state));
  return { conn, clock, WS, first, requests };
}

describe('link probe', () => {
  it('asks /api/time once the live link has been silent for PROBE_AFTER_MS, keeping the link', () => {
    const { clock, WS, first, requests } = live();
    clock.advance(PROBE_AFTER_MS - 1);
    expect(requests).toHaveLength(0);
    clock.advance(1);
    expect(requests.map((r) => r.url)).toEqual(['http://score.test/api/time']);
    expect(first.closedByClient).toBe(false);
    expect(WS.instances).toHaveLength(1);
  });

  it('while the performance plays, asks once a beat and a margin have passed without a message', () => {
    // 80 bpm: beats 750 ms apart, each one a message.
    const playing = { playback: 'playing', beat: 3, beatT: 10_000, next: { beat: 4, t: 10_750 } };
    const { clock, first, requests } = live({ state: playing });
    clock.advance(750 + PROBE_BEAT_MARGIN_MS - 1);
    expect(requests).toHaveLength(0);
    clock.advance(1);
    expect(requests.map((r) => r.url)).toEqual(['http://score.test/api/time']);
    expect(first.closedByClient).toBe(false);
    // Paused: no beat is due, the heartbeat's silence applies.
    const paused = live({ state: { ...playing, playback: 'paused' } });
    paused.clock.advance(750 + PROBE_BEAT_MARGIN_MS);
    expect(paused.requests).toHaveLength(0);
    // A slow beat never makes it later than the heartbeat's silence.
    const slow = live({ state: { ...playing, next: { beat: 4, t: 10_000 + 3 * PROBE_AFTER_MS } } });
    slow.clock.advance(PROBE_AFTER_MS);
    expect(slow.requests).toHaveLength(1);
  });

  it('replaces an unanswered probe every PROBE_EVERY_MS (aborted, so the next one is a fresh SYN)', () => {
    const { clock, requests } = live();
    clock.advance(PROBE_AFTER_MS + PROBE_EVERY_MS * 3);
    expect(requests).toHaveLength(4);
    expect(requests.slice(0, 3).every((r) => r.signal.aborted)).toBe(true);
    expect(requests[3].signal.aborted).toBe(false);
  });

  it('asks in two rounds, without then with credentials, past any cache; each keeps its last request waiting', () => {
    const { clock, requests } = live();
    clock.advance(PROBE_AFTER_MS + PROBE_SECOND_ROUND_MS - 1);
    // The first round: its requests replaced one by one, the last left waiting.
    expect(requests).toHaveLength(PROBE_ROUND_REQUESTS);
    expect(requests.every((r) => r.init.credentials === 'omit' && r.init.cache === 'no-store')).toBe(true);
    expect(requests.map((r) => r.signal.aborted)).toEqual([...Array(PROBE_ROUND_REQUESTS - 1).fill(true), false]);
    // The second round, with the page's credentials (another of the browser's connection pools).
    clock.advance(1);
    expect(requests).toHaveLength(PROBE_ROUND_REQUESTS + 1);
    clock.advance(PROBE_EVERY_MS * 1.5 * PROBE_ROUND_REQUESTS);
    const second = requests.slice(PROBE_ROUND_REQUESTS);
    expect(second).toHaveLength(PROBE_ROUND_REQUESTS);
    expect(second.every((r) => r.init.credentials === 'same-origin' && r.init.cache === 'no-store')).toBe(true);
    expect(requests.filter((r) => !r.signal.aborted)).toEqual([requests[PROBE_ROUND_REQUESTS - 1], second.at(-1)]);
    // And nothing more however long the silence (a congested venue gets 2 rounds a phone).
    clock.advance(PROBE_FOR_MS - PROBE_SECOND_ROUND_MS - PROBE_EVERY_MS * 1.5 * PROBE_ROUND_REQUESTS - 1);
    expect(requests).toHaveLength(2 * PROBE_ROUND_REQUESTS);
  });

  it("the first round's waiting request answered during the second: reconnects, and every request is let go", async () => {
    const { clock, WS, requests } = live();
    clock.advance(PROBE_AFTER_MS + PROBE_SECOND_ROUND_MS + PROBE_EVERY_MS * 4);
    const waiting = requests[PROBE_ROUND_REQUESTS - 1];
    waiting.respond(200, { t: 1 });
    await flush();
    expect(WS.instances).toHaveLength(2);
    expect(requests.every((r) => r === waiting || r.signal.aborted)).toBe(true);
    clock.advance(PROBE_FOR_MS);
    expect(requests.length).toBeLessThan(2 * PROBE_ROUND_REQUESTS);
  });

  it('a waiting request that fails at once (no network) is asked again after about PROBE_RETRY_MS, never in a loop', async () => {
    const { clock, requests } = live();
    clock.advance(PROBE_AFTER_MS + PROBE_SECOND_ROUND_MS + PROBE_EVERY_MS * 1.5 * PROBE_ROUND_REQUESTS);
    expect(requests).toHaveLength(2 * PROBE_ROUND_REQUESTS);
    // Six failures each, well within PROBE_FOR_MS.
    for (let i = 0; i < 6; i++) {
      for (const r of requests.filter((x) => !x.signal.aborted)) r.fail(new TypeError('Failed to fetch'));
      await flush();
      clock.advance(PROBE_RETRY_MS * 1.5);
    }
    // Each of the two waiting requests asked again once per failure, PROBE_RETRY_MS later.
    expect(requests.length - 2 * PROBE_ROUND_REQUESTS).toBe(2 * 6);
  });

  it('on an answer, reconnects at once from the held position; the replay is applied without gap or repeat', async () => {
    const { conn, clock, WS, first, requests } = live();
    clock.advance(PROBE_AFTER_MS + PROBE_EVERY_MS);
    requests.at(-1)?.respond(200, { t: 1 });
    await flush();
    expect(first.closedByClient).toBe(true);
    expect(WS.instances).toHaveLength(2);
    const next = WS.instances[1];
    expect(next.url).toContain('epoch=E&seq=5');
    next.serverOpen();
    next.serverSend(msg.welcome('E', 7));
    next.serverSend(msg.delta('E', 6, { bar: 2 }));
    next.serverSend(msg.delta('E', 7, { bar: 3 }));
    next.serverSend(msg.delta('E', 6, { bar: 2 }));
    expect(conn.linkState).toBe('live');
    expect(conn.events.map((e) => e.seq)).toEqual([5, 6, 7]);
    expect(conn.state).toEqual({ bar: 3 });
  });

  it('stops, aborting its request, when the old link speaks again', () => {
    const { clock, requests, first } = live();
    clock.advance(PROBE_AFTER_MS);
    first.serverSend(msg.heartbeat('E', 5));
    expect(requests[0].signal.aborted).toBe(true);
    clock.advance(PROBE_EVERY_MS * 4);
    expect(requests).toHaveLength(1);
  });

  it('while it asks, the dead link opens no WebSocket of its own (it would only lose its SYN)', async () => {
    const { conn, clock, WS, first, requests } = live();
    clock.advance(DEAD_LINK_MS + 1);
    expect(first.closedByClient).toBe(true);
    expect(WS.instances).toHaveLength(1);
    expect(conn.linkState).toBe('reconnecting');
    requests.at(-1)?.respond(200, { t: 1 });
    await flush();
    expect(WS.instances).toHaveLength(2);
  });

  it("gives up after PROBE_FOR_MS and hands back to the connection's own reconnects", () => {
    const { clock, WS, requests } = live();
    clock.advance(PROBE_AFTER_MS + PROBE_FOR_MS + PROBE_EVERY_MS);
    expect(requests).toHaveLength(2 * PROBE_ROUND_REQUESTS);
    expect(requests.every((r) => r.signal.aborted)).toBe(true);
    expect(WS.instances).toHaveLength(2);
    const n = requests.length;
    clock.advance(PROBE_EVERY_MS * 10);
    expect(requests).toHaveLength(n);
  });

  it('does not probe a link the server closed (the backoff decides), nor when probing is off', () => {
    const a = live();
    a.first.serverClose(1006);
    a.clock.advance(PROBE_AFTER_MS + PROBE_EVERY_MS);
    expect(a.requests).toHaveLength(0);
    const b = live({ probe: false });
    b.clock.advance(PROBE_AFTER_MS + PROBE_EVERY_MS * 4);
    expect(b.requests).toHaveLength(0);
  });
});

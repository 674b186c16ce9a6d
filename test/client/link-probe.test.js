// Probing a silent link with fresh attempts (client/src/link-probe.js, through the connection
// that uses it): a roaming phone is back as soon as one fresh SYN gets through, nothing missed or
// applied twice, and no probing where the network is fine.

import { describe, it, expect, vi } from 'vitest';
import { Connection } from '../../client/src/connection.js';
import { DEAD_LINK_MS } from '../../core/constants.js';
import { PROBE_AFTER_MS, PROBE_EVERY_MS, PROBE_FOR_MS } from '../../client/src/link-probe.js';
import { FakeClock, fakeWebSocketClass, msg } from './fakes.js';

/** A connection with probing on, live over a fake WebSocket holding E:5. @param {{ probe?: boolean }} [o] */
function live({ probe = true } = {}) {
  const clock = new FakeClock();
  const WS = fakeWebSocketClass();
  const conn = new Connection({
    baseUrl: 'http://score.test',
    probe,
    env: {
      WebSocket: /** @type {any} */ (WS), timers: clock, now: clock.now, random: () => 0.5,
      window: new EventTarget(), document: { visibilityState: 'visible' }, log: vi.fn(),
    },
  });
  conn.start();
  const first = WS.instances[0];
  first.serverOpen();
  first.serverSend(msg.welcome('E', 5));
  first.serverSend(msg.snapshot('E', 5, { bar: 1 }));
  return { conn, clock, WS, first };
}

describe('link probe', () => {
  it('opens a fresh attempt from the held seq once the live link is silent, keeping the old one', () => {
    const { clock, WS, first } = live();
    clock.advance(PROBE_AFTER_MS - 1);
    expect(WS.instances).toHaveLength(1);
    clock.advance(1);
    expect(WS.instances).toHaveLength(2);
    expect(WS.instances[1].url).toContain('epoch=E&seq=5');
    expect(first.closedByClient).toBe(false);
  });

  it('replaces an attempt that got no answer every PROBE_EVERY_MS (a new SYN each time)', () => {
    const { clock, WS } = live();
    clock.advance(PROBE_AFTER_MS);
    clock.advance(PROBE_EVERY_MS * 3);
    expect(WS.instances).toHaveLength(5);
    expect(WS.instances.slice(1, 4).every((w) => w.closedByClient)).toBe(true);
    expect(WS.instances[4].closedByClient).toBe(false);
  });

  it('adopts the first attempt that answers: the silent link is closed, the stream goes on without gap or repeat', () => {
    const { conn, clock, WS, first } = live();
    clock.advance(PROBE_AFTER_MS + PROBE_EVERY_MS);
    const probe = WS.instances.at(-1);
    if (!probe) throw new Error('no probe');
    probe.serverOpen();
    probe.serverSend(msg.welcome('E', 7));
    expect(first.closedByClient).toBe(true);
    expect(conn.linkState).toBe('live');
    // The server replays 6 and 7 on the new link; a late copy of 6 from anywhere is not applied twice.
    probe.serverSend(msg.delta('E', 6, { bar: 2 }));
    probe.serverSend(msg.delta('E', 7, { bar: 3 }));
    probe.serverSend(msg.delta('E', 6, { bar: 2 }));
    expect(conn.events.map((e) => e.seq)).toEqual([5, 6, 7]);
    expect(conn.state).toEqual({ bar: 3 });
    // No more probing once live again.
    const n = WS.instances.length;
    clock.advance(PROBE_AFTER_MS - 1);
    expect(WS.instances).toHaveLength(n);
  });

  it('stops and closes its attempt when the old link speaks again', () => {
    const { clock, WS, first } = live();
    clock.advance(PROBE_AFTER_MS);
    first.serverSend(msg.heartbeat('E', 5));
    expect(WS.instances[1].closedByClient).toBe(true);
    clock.advance(PROBE_EVERY_MS * 4);
    expect(WS.instances).toHaveLength(2);
  });

  it('does not probe a link the server closed (the backoff decides), nor when probing is off', () => {
    const a = live();
    a.first.serverClose(1006);
    a.clock.advance(PROBE_AFTER_MS);
    // Only the backoff's retry: random 0.5 * 500 ms.
    expect(a.WS.instances).toHaveLength(2);
    const b = live({ probe: false });
    b.clock.advance(PROBE_AFTER_MS + PROBE_EVERY_MS * 4);
    expect(b.WS.instances).toHaveLength(1);
  });

  it('gives up after PROBE_FOR_MS, leaving the connection\'s own reconnects and backoff', () => {
    const { conn, clock, WS } = live();
    clock.advance(PROBE_AFTER_MS + PROBE_FOR_MS + PROBE_EVERY_MS);
    const n = WS.instances.length;
    expect(n).toBeGreaterThan(100);
    // Only the connection's own attempts now, each a dead-link time or a backoff apart.
    clock.advance(DEAD_LINK_MS);
    expect(WS.instances.length - n).toBeLessThanOrEqual(2);
    expect(conn.linkState).toBe('reconnecting');
  });
});

// The page's clock probe over a WebSocket: each clock-sync ping echoes the proof token of the last
// pong once, so that the server knows the page reads what it is sent without pinging it.

import { describe, it, expect } from 'vitest';
import { createClockProbe } from '../../../client/src/page/page-clock.js';
import { FakeClock } from '../fakes.js';

/** A live WebSocket connection that records what the page sends and lets the test answer. */
function fakeConnection() {
  /** @type {Map<string, (msg: unknown) => void>} */
  const handlers = new Map();
  /** @type {any[]} */
  const sent = [];
  return {
    transport: 'ws',
    linkState: 'live',
    sent,
    /** @param {string} type @param {(msg: unknown) => void} fn */
    on(type, fn) {
      handlers.set(type, fn);
    },
    /** @param {unknown} msg */
    send(msg) {
      sent.push(msg);
      return true;
    },
    /** @param {any} msg */
    serverSend(msg) {
      handlers.get(msg.type)?.(msg);
    },
  };
}

describe('clock probe', () => {
  it("echoes the last pong's proof token once in its next ping; a pong without one is echoed with nothing", async () => {
    const clock = new FakeClock();
    const connection = fakeConnection();
    const fetch = async () => {
      throw new Error('no HTTP on a live WebSocket');
    };
    const probe = createClockProbe({
      connection: /** @type {any} */ (connection),
      fetch,
      clock: /** @type {any} */ (clock),
    });
    /** @param {Record<string, unknown>} extra */
    const round = async (extra) => {
      const sample = probe();
      const ping = connection.sent.at(-1);
      clock.advance(3);
      connection.serverSend({ type: 'pong', id: ping.id, t0: ping.t0, t: 5000, ...extra });
      expect(await sample).toMatchObject({ t0: ping.t0, t: 5000 });
      return ping;
    };
    expect(await round({ proof: 123456 })).not.toHaveProperty('proof');
    expect(await round({ proof: 987 })).toMatchObject({ type: 'ping', proof: 123456 });
    expect(await round({})).toMatchObject({ type: 'ping', proof: 987 });
    // Echoed once: the pong before carried none, so this ping carries none.
    expect(await round({ proof: 'not a number' })).not.toHaveProperty('proof');
    expect(await round({})).not.toHaveProperty('proof');
  });
});

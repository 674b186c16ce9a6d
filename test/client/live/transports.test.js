// One suite, run against every transport of the registry: each driver plays
// the server's side of its transport.
import { describe, it, expect, vi } from 'vitest';
import { TRANSPORT_ORDER, createTransport, nextTransportName } from '../../../client/src/live/transports/index.js';
import { FakeClock, fakeWebSocketClass, fakeEventSourceClass, fakeFetch, flush, msg } from '../fakes.js';

function harness() {
  const clock = new FakeClock();
  const WS = fakeWebSocketClass();
  const ES = fakeEventSourceClass();
  const { fetch, requests } = fakeFetch();
  /** @type {import('../../../client/src/live/transports/index.js').TransportDeps} */
  const deps = {
    baseUrl: 'https://score.test',
    view: 'audience',
    clientId: 'page-1',
    WebSocket: /** @type {any} */ (WS),
    EventSource: /** @type {any} */ (ES),
    fetch: /** @type {any} */ (fetch),
    timers: clock,
    now: clock.now,
    log: vi.fn(),
  };
  return { clock, WS, ES, requests, deps };
}

/**
 * @typedef {object} Driver
 * @property {(h: ReturnType<typeof harness>) => string} url of the latest request
 * @property {(h: ReturnType<typeof harness>, messages: unknown[]) => Promise<void>} deliver
 * @property {(h: ReturnType<typeof harness>) => Promise<void>} fail the link breaks
 * @property {string} fresh URL of a client that holds nothing
 * @property {string} resumed URL of a client that holds E:5
 * @property {'WebSocket' | 'EventSource' | 'fetch'} api
 */

/** @type {Record<string, Driver>} */
const drivers = {
  ws: {
    url: (h) => h.WS.instances.at(-1)?.url ?? '',
    async deliver(h, messages) {
      const socket = /** @type {any} */ (h.WS.instances.at(-1));
      if (socket.readyState === 0) socket.serverOpen();
      for (const m of messages) socket.serverSend(m);
    },
    async fail(h) {
      h.WS.instances.at(-1)?.serverClose(1006);
    },
    fresh: 'wss://score.test/live?view=audience',
    resumed: 'wss://score.test/live?epoch=E&seq=5&view=audience',
    api: 'WebSocket',
  },
  sse: {
    url: (h) => h.ES.instances.at(-1)?.url ?? '',
    async deliver(h, messages) {
      const source = /** @type {any} */ (h.ES.instances.at(-1));
      for (const m of messages) source.serverSend(m);
    },
    async fail(h) {
      h.ES.instances.at(-1)?.serverError();
    },
    fresh: 'https://score.test/live/sse?view=audience',
    resumed: 'https://score.test/live/sse?epoch=E&seq=5&view=audience',
    api: 'EventSource',
  },
  poll: {
    url: (h) => h.requests.at(-1)?.url ?? '',
    async deliver(h, messages) {
      h.requests.at(-1)?.respond(200, messages);
      await flush();
    },
    async fail(h) {
      h.requests.at(-1)?.respond(500, { code: 'SC_ERR_X' });
      await flush();
    },
    fresh: 'https://score.test/live/poll?wait=20000&view=audience&client=page-1',
    resumed: 'https://score.test/live/poll?epoch=E&since=5&wait=20000&view=audience&client=page-1',
    api: 'fetch',
  },
};

describe('registry', () => {
  it('falls back ws -> sse -> poll, then starts over', () => {
    expect(TRANSPORT_ORDER).toEqual(['ws', 'sse', 'poll']);
    expect(TRANSPORT_ORDER.map(nextTransportName)).toEqual(['sse', 'poll', 'ws']);
    expect(() => createTransport('smoke', harness().deps)).toThrow(/unknown transport "smoke"/);
  });
});

describe.each(TRANSPORT_ORDER)('transport %s', (name) => {
  const driver = drivers[name];

  /** @param {ReturnType<typeof harness>} h */
  function opened(h, from = { epoch: /** @type {string | null} */ (null), seq: 0 }) {
    const t = createTransport(name, h.deps);
    const events = { messages: /** @type {any[]} */ ([]), closes: /** @type {any[]} */ ([]) };
    t.onmessage = (m) => events.messages.push(m);
    t.onclose = (info) => events.closes.push(info);
    t.open(from);
    return { t, events };
  }

  it('carries the resume point, or none for a fresh client', () => {
    const h = harness();
    opened(h);
    expect(driver.url(h)).toBe(driver.fresh);
    opened(h, { epoch: 'E', seq: 5 });
    expect(driver.url(h)).toBe(driver.resumed);
  });

  it('delivers valid envelopes in order and drops invalid ones', async () => {
    const h = harness();
    const { t, events } = opened(h);
    expect(t.name).toBe(name);
    await driver.deliver(h, [
      msg.welcome('E', 1),
      { type: 'delta', t: 1 },
      msg.snapshot('E', 1, {}),
      msg.delta('E', 2, { a: 1 }),
    ]);
    expect(events.messages.map((m) => m.type)).toEqual(['welcome', 'snapshot', 'delta']);
    expect(h.deps.log).toHaveBeenCalledTimes(1);
    expect(events.closes).toEqual([]);
  });

  it('reports a broken link as a non-fatal close', async () => {
    const h = harness();
    const { events } = opened(h);
    await driver.fail(h);
    expect(events.closes).toEqual([{ reason: expect.any(String), fatal: false }]);
  });

  it('reports nothing after close()', async () => {
    const h = harness();
    const { t, events } = opened(h);
    t.close();
    await driver.fail(h);
    await flush();
    expect(events.closes).toEqual([]);
    expect(events.messages).toEqual([]);
  });

  it('reports a fatal close when the browser lacks its API', () => {
    const h = harness();
    h.deps[driver.api] = undefined;
    const { events } = opened(h);
    expect(events.closes).toEqual([{ reason: expect.any(String), fatal: true }]);
  });
});

describe('poll transport', () => {
  it('waits before polling again when answers come back at once with no change', async () => {
    const h = harness();
    const t = createTransport('poll', h.deps);
    t.open({ epoch: 'E', seq: 1 });
    h.requests[0].respond(200, [msg.heartbeat('E', 1)]);
    await flush();
    expect(h.requests).toHaveLength(1);
    h.clock.advance(1000);
    expect(h.requests).toHaveLength(2);
    // A heartbeat after a held poll (the server waited) is followed by the next poll at once.
    h.clock.advance(20_000);
    h.requests[1].respond(200, [msg.heartbeat('E', 1)]);
    await flush();
    expect(h.requests).toHaveLength(3);
    t.close();
  });
});

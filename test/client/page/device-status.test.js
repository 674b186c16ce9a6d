// This device in the roster, from the page's side: an id kept across reloads of the tab, a name
// checked as the server checks it, the build it runs, and reports at its view's pace.

import { describe, it, expect, vi, afterEach } from 'vitest';
import {
  SAMPLES_EVERY_MS,
  appVersion,
  createDeviceName,
  deviceId,
  startDeviceReports,
} from '../../../client/src/page/device-status.js';
import { PART_STATUS_EVERY_MS } from '../../../core/roster.js';
import { deviceStatus } from '../../helpers/fixtures.js';

afterEach(() => {
  vi.useRealTimers();
});

/** A Storage that keeps strings in a map. */
function memoryStorage() {
  const m = new Map();
  return /** @type {Storage} */ (
    /** @type {unknown} */ ({
      getItem: (/** @type {string} */ k) => m.get(k) ?? null,
      setItem: (/** @type {string} */ k, /** @type {string} */ v) => m.set(k, String(v)),
    })
  );
}

describe('device id, name and version', () => {
  it('the id is made once per tab and kept for its reloads; a malformed kept one is replaced', () => {
    const storage = memoryStorage();
    const id = deviceId(storage);
    expect(id).toMatch(/^d[a-z0-9]{6,20}$/);
    expect(deviceId(storage)).toBe(id);
    expect(deviceId(memoryStorage())).not.toBe(id);
    storage.setItem('scorecast.device', 'all');
    expect(deviceId(storage)).not.toBe('all');
    expect(deviceId(null)).toMatch(/^d/);
  });

  it('a name is taken only as the server would take it, and kept', () => {
    const storage = memoryStorage();
    const name = createDeviceName(storage);
    expect(name.set('x'.repeat(41))).toContain('more than 40');
    expect(name.set('cello\u202e')).toContain('control character');
    expect(name.value).toBe('');
    expect(name.set('  cello   desk 1 ')).toBeNull();
    expect(name.value).toBe('cello desk 1');
    expect(createDeviceName(storage).value).toBe('cello desk 1');
  });

  it('the version names the build by its entry script hash', () => {
    expect(appVersion('https://x/assets/main-B3xk9Qa1.js')).toBe('0.1.0+B3xk9Qa1');
    expect(appVersion('http://localhost:5173/src/page/device-status.js?v=1')).toMatch(/^0\.1\.0\+/);
  });
});

describe('reports', () => {
  /** @param {string} view @param {{ live?: boolean, transport?: string, answer?: unknown }} [o] */
  function start(view, { live = true, transport = 'ws', answer = null } = {}) {
    vi.useFakeTimers();
    /** @type {any[]} */
    const sent = [];
    /** @type {any[]} */
    const posted = [];
    /** @type {string[]} */
    const obeyed = [];
    let n = 0;
    startDeviceReports({
      view,
      status: () => deviceStatus({ seq: n++ }),
      samples: () => ({ push: [1, 2], display: [3] }),
      sendOnLink: (m) => {
        sent.push(m);
        return transport === 'ws';
      },
      link: () => ({ live, transport, client: 'page1' }),
      fetch: async (_url, init) => {
        posted.push(JSON.parse(String(init.body)));
        return /** @type {Response} */ (
          /** @type {unknown} */ ({ status: answer ? 200 : 204, json: async () => answer })
        );
      },
      onCommands: (c) => obeyed.push(...c),
      timers: globalThis,
      now: () => Date.now(),
    });
    return { sent, posted, obeyed };
  }

  it(`a part page sends its status every ${PART_STATUS_EVERY_MS} ms and its samples every ${SAMPLES_EVERY_MS} ms`, () => {
    const s = start('violin');
    vi.advanceTimersByTime(SAMPLES_EVERY_MS);
    expect(s.sent.length).toBeGreaterThanOrEqual(SAMPLES_EVERY_MS / PART_STATUS_EVERY_MS);
    expect(s.sent.every((m) => m.type === 'report' && m.device?.id === 'dabc123')).toBe(true);
    const withSamples = s.sent.filter((m) => m.push.length > 0);
    expect(withSamples).toHaveLength(1);
    expect(s.posted).toEqual([]);
  });

  it('an audience phone sends its first status soon, then every 10 s with its samples', () => {
    const s = start('audience');
    vi.advanceTimersByTime(1500);
    expect(s.sent).toHaveLength(1);
    expect(s.sent[0].push).toEqual([]);
    vi.advanceTimersByTime(SAMPLES_EVERY_MS - 1500);
    expect(s.sent).toHaveLength(2);
    expect(s.sent[1].push).toEqual([1, 2]);
  });

  it('nothing goes out while the link is not live', () => {
    const s = start('violin', { live: false });
    vi.advanceTimersByTime(5000);
    expect(s.sent).toEqual([]);
    expect(s.posted).toEqual([]);
  });

  it('without a WebSocket it posts the report, and obeys the actions in the answer', async () => {
    const s = start('cello', { transport: 'poll', answer: { commands: ['reload', 7] } });
    vi.advanceTimersByTime(PART_STATUS_EVERY_MS);
    await vi.runOnlyPendingTimersAsync();
    expect(s.posted[0]).toMatchObject({ transport: 'poll', view: 'cello', client: 'page1', device: { id: 'dabc123' } });
    await vi.waitFor(() => expect(s.obeyed).toContain('reload'));
    expect(s.obeyed.every((c) => typeof c === 'string')).toBe(true);
  });
});

import { describe, it, expect } from 'vitest';
import net from 'node:net';
import { spreads, clockError, firstBeatLateness } from '../../bench/sync.js';
import { startLagProxy } from '../../bench/lag-proxy.js';

describe('bench:sync figures', () => {
  it("spread per beat from each page's first change on; the join record is not a change", () => {
    const rec = (/** @type {string} */ key, /** @type {number} */ t) => ({ key, write: t, frame: t });
    const pages = [
      [rec('1.1', 0), rec('1.2', 1000), rec('1.3', 1500)],
      [rec('1.2', 990), rec('1.3', 1504)], // joined during 1.2: its 1.2 is no change
      [rec('1.1', 400), rec('1.2', 1012), rec('1.3', 1510)],
    ];
    const r = spreads(pages, 'write');
    expect(r.beats).toBe(2);
    expect(r).toMatchObject({ p50: 10, max: 12, firstBeatMax: 12 });
  });

  it('the same position met again after the piece looped is another beat', () => {
    const rec = (/** @type {string} */ key, /** @type {number} */ t) => ({ key, write: t, frame: t });
    const r = spreads(
      [
        [rec('j', 0), rec('1.1', 100), rec('1.1', 90_100)],
        [rec('j', 0), rec('1.1', 103), rec('1.1', 90_105)],
      ],
      'frame',
    );
    expect(r.beats).toBe(2);
    expect(r.max).toBe(5);
  });
});

describe('bench:sync joins in a row', () => {
  it("each judged join's first beat against the median of the other pages' same beat; its join record is no beat", () => {
    const rec = (/** @type {string} */ key, /** @type {number} */ t) => ({ key, write: t, frame: t });
    const logs = [
      [rec('j', 0), rec('1.2', 1000), rec('1.3', 1500)],
      [rec('j', 0), rec('1.2', 1002), rec('1.3', 1501), rec('2.1', 2000)],
      // Rejoined during 1.2: its first beat 1.3, 20 ms after the others'.
      [rec('1.2', 1200), rec('1.3', 1521)],
      // Rejoined during 1.3: its first beat, 2.1, on time.
      [rec('1.3', 1700), rec('2.1', 2001)],
    ];
    const r = firstBeatLateness(logs, 'frame', [false, false, true, true]);
    expect(r.late).toEqual([20.5, 1]);
    expect(r).toMatchObject({ joins: 2, max: 20.5, overOneFrame: 1 });
    expect(firstBeatLateness(logs, 'frame').joins).toBe(4);
  });
});

describe('bench:sync clock error', () => {
  it("every page's samples together, by size: early and late count alike", () => {
    const r = clockError([
      [1, -2, 3],
      [-40, 0.5],
    ]);
    expect(r).toEqual({ samples: 5, p50: 2, p95: 40, p99: 40, max: 40 });
  });
});

describe('lag proxy', () => {
  it('delays each direction by latency ± jitter and keeps the bytes in order', async () => {
    const echo = net.createServer((s) => s.pipe(s));
    await new Promise((r) => echo.listen(0, '127.0.0.1', () => r(undefined)));
    const target = /** @type {net.AddressInfo} */ (echo.address()).port;
    const proxy = await startLagProxy({ target, latencyMs: 20, jitterMs: 15 });
    try {
      const sock = net.connect(proxy.port, '127.0.0.1');
      await new Promise((r) => sock.once('connect', r));
      let got = '';
      const started = performance.now();
      const done = new Promise((resolve) =>
        sock.on('data', (d) => {
          got += d;
          if (got.length >= 200) resolve(performance.now() - started);
        }),
      );
      for (let i = 0; i < 20; i++) {
        sock.write(String(i % 10).repeat(10));
        await new Promise((r) => setTimeout(r, 2));
      }
      const took = /** @type {number} */ (await done);
      expect(got).toBe(Array.from({ length: 20 }, (_, i) => String(i % 10).repeat(10)).join(''));
      // Two legs of at least 5 ms each.
      expect(took).toBeGreaterThanOrEqual(10);
      sock.destroy();
    } finally {
      await proxy.close();
      await new Promise((r) => echo.close(() => r(undefined)));
    }
  });
});

import { describe, it, expect } from 'vitest';
import {
  createJoinGate,
  JOIN_MIN_SAMPLES,
  JOIN_ERROR_MS,
  JOIN_MAX_WAIT_MS,
  REJOIN_MAX_WAIT_MS,
  REFINE_MS,
} from '../../../client/src/time/join-gate.js';
import { createServerClock, BURST_GAP_MS } from '../../../client/src/time/clock.js';
import { FakeClock } from '../fakes.js';

/**
 * A page whose round trips to the server take `rtt()` ms (symmetric) and come back after that
 * long on the fake clock; `down` makes them fail.
 * @param {{ rtt: () => number }} o
 */
function setup({ rtt }) {
  const page = new FakeClock();
  page.t = 10_000;
  const link = { down: false, offset: 5000 };
  const clock = createServerClock({
    now: page.now,
    timers: page,
    probe: () =>
      new Promise((resolve, reject) => {
        const t0 = page.now();
        const r = rtt();
        page.setTimeout(
          () => (link.down ? reject(new Error('down')) : resolve({ t0, t: t0 + r / 2 + link.offset, t1: t0 + r })),
          r,
        );
      }),
  });
  /** @type {string[]} */
  const changes = [];
  const gate = createJoinGate({ clock, now: page.now, timers: page, onChange: (s) => changes.push(s) });
  return { page, clock, gate, changes, link };
}

/** Move the fake time in small steps, letting the awaited round trips settle between them. */
async function advance(/** @type {FakeClock} */ page, /** @type {number} */ ms) {
  for (let left = ms; left > 0; left -= 5) {
    page.advance(Math.min(5, left));
    for (let i = 0; i < 4; i++) await Promise.resolve();
  }
}

describe('join gate', () => {
  it('joining until enough round trips are back and the estimate is within the bound, then on time', async () => {
    const s = setup({ rtt: () => 4 });
    s.clock.start();
    s.gate.rejoin();
    expect(s.gate.state).toBe('joining');
    // Fewer round trips are not enough, however good.
    for (let i = 0; i < 100 && s.clock.fresh < JOIN_MIN_SAMPLES - 1; i++) await advance(s.page, 10);
    expect(s.clock.fresh).toBe(JOIN_MIN_SAMPLES - 1);
    expect(s.gate.open).toBe(false);
    await advance(s.page, BURST_GAP_MS + 10);
    expect(s.clock.fresh).toBe(JOIN_MIN_SAMPLES);
    expect(s.gate.state).toBe('on-time');
    expect(s.clock.error).toBeLessThanOrEqual(JOIN_ERROR_MS);
    expect(s.changes).toEqual(['on-time']);
  });

  it('a slow link: keeps measuring while joining, and opens on the first quick round trip', async () => {
    let n = 0;
    // 80 ms round trips, then a quick one (the 9th).
    const s = setup({ rtt: () => (++n === 9 ? 6 : 80) });
    s.clock.start();
    s.gate.rejoin();
    await advance(s.page, 6 * (BURST_GAP_MS + 80));
    expect(s.gate.state).toBe('joining');
    // The burst is spent: the gate asked for more rather than waiting for the 4 s refresh.
    await advance(s.page, 4 * (BURST_GAP_MS + 80));
    expect(n).toBeGreaterThanOrEqual(9);
    expect(s.gate.state).toBe('on-time');
  });

  it('a link that never offers a quick round trip shows beats after the longest wait, as approximate', async () => {
    const s = setup({ rtt: () => 90 });
    s.clock.start();
    s.gate.rejoin();
    await advance(s.page, JOIN_MAX_WAIT_MS - 50);
    expect(s.gate.state).toBe('joining');
    await advance(s.page, 100);
    expect(s.gate.state).toBe('approximate');
  });

  it('link lost or tab hidden: joining again, and on time only after a fresh burst', async () => {
    const s = setup({ rtt: () => 4 });
    s.clock.start();
    s.gate.rejoin();
    await advance(s.page, 1000);
    expect(s.gate.state).toBe('on-time');
    s.gate.hold();
    expect(s.gate.state).toBe('joining');
    // Held: the periodic round trips alone do not reopen it.
    await advance(s.page, 10_000);
    expect(s.gate.state).toBe('joining');
    s.gate.rejoin();
    expect(s.clock.fresh).toBe(0);
    await advance(s.page, 2 * BURST_GAP_MS + 10);
    expect(s.gate.state).toBe('joining');
    await advance(s.page, BURST_GAP_MS);
    expect(s.gate.state).toBe('on-time');
    expect(s.changes).toEqual(['on-time', 'joining', 'on-time']);
  });

  it('on busy WiFi, a page that was showing beats shows them again after a roam as soon as its estimate is as good as before', async () => {
    let rtt = 24;
    const s = setup({ rtt: () => rtt });
    s.clock.start();
    s.gate.rejoin();
    // Never a round trip quick enough for on time: beats after the longest wait.
    await advance(s.page, JOIN_MAX_WAIT_MS + 100);
    expect(s.gate.state).toBe('approximate');
    s.gate.hold();
    await advance(s.page, 3000);
    rtt = 22;
    s.gate.rejoin();
    const back = s.page.now();
    // Three fresh round trips as good as before: not another 3 s of nothing.
    for (let i = 0; i < 100 && s.clock.fresh < JOIN_MIN_SAMPLES; i++) await advance(s.page, 5);
    expect(s.gate.state).toBe('approximate');
    expect(s.page.now() - back).toBeLessThan(3 * (BURST_GAP_MS + rtt) + 10);
    expect(s.changes).toEqual(['approximate', 'joining', 'approximate']);
  });

  it('after a roam onto a slower path, beats again after the shorter wait, as approximate; round trips go on coming quickly until the bound is met, then every 4 s', async () => {
    let rtt = 24;
    let trips = 0;
    const s = setup({
      rtt: () => {
        trips += 1;
        return rtt;
      },
    });
    s.clock.start();
    s.gate.rejoin();
    await advance(s.page, JOIN_MAX_WAIT_MS + 100);
    s.gate.hold();
    // Another path, and the offset moved (the phone's clock stood still while it dozed): the
    // window restarts on the fresh round trips alone, none as good as before.
    rtt = 40;
    s.link.offset += 250;
    s.gate.rejoin();
    await advance(s.page, REJOIN_MAX_WAIT_MS - 50);
    expect(s.gate.state).toBe('joining');
    await advance(s.page, 60);
    expect(s.gate.state).toBe('approximate');
    // Not one round trip in the next 4 s, as before: a burst's worth, spaced as a burst's.
    const opened = trips;
    await advance(s.page, 1000);
    expect(trips - opened).toBeGreaterThanOrEqual(Math.floor(1000 / (BURST_GAP_MS + rtt)) - 1);
    // A quicker path: the bound is met (as good as before the roam), and the quick round trips stop.
    rtt = 20;
    await advance(s.page, 1000);
    expect(s.clock.error).toBeLessThanOrEqual(12);
    const met = trips;
    await advance(s.page, 3500);
    expect(trips - met).toBeLessThanOrEqual(1 + 6);
    await advance(s.page, 8000);
    expect(trips - met).toBeLessThanOrEqual(1 + 6 + 2);
  });

  it('opened approximate on a link that never meets the bound: quick round trips for REFINE_MS only', async () => {
    let trips = 0;
    const s = setup({
      rtt: () => {
        trips += 1;
        return 90;
      },
    });
    s.clock.start();
    s.gate.rejoin();
    await advance(s.page, JOIN_MAX_WAIT_MS + 10);
    expect(s.gate.state).toBe('approximate');
    const opened = trips;
    await advance(s.page, REFINE_MS);
    expect(trips - opened).toBeGreaterThanOrEqual(Math.floor(REFINE_MS / (BURST_GAP_MS + 90)) - 1);
    // Then the refresh's pace: a round trip every 4 s (and what was left of the last burst).
    const after = trips;
    await advance(s.page, 12_000);
    expect(trips - after).toBeLessThanOrEqual(6 + 3);
  });

  it('link lost with the tab visible: on time again the moment the link is back, while a burst refines the estimate', async () => {
    const s = setup({ rtt: () => 4 });
    s.clock.start();
    s.gate.rejoin();
    await advance(s.page, 1000);
    expect(s.gate.state).toBe('on-time');
    s.gate.hold({ keepClock: true });
    expect(s.gate.state).toBe('joining');
    s.link.down = true;
    await advance(s.page, 8000);
    expect(s.gate.state).toBe('joining');
    s.link.down = false;
    s.gate.rejoin();
    expect(s.gate.state).toBe('on-time');
    expect(s.clock.fresh).toBe(0);
    await advance(s.page, 3 * BURST_GAP_MS);
    expect(s.clock.fresh).toBeGreaterThanOrEqual(JOIN_MIN_SAMPLES);
    expect(s.changes).toEqual(['on-time', 'joining', 'on-time']);
  });

  it('link lost with the tab visible while the held state announces beats (a count-in): beats go on until then, then joining; a link back meanwhile never closes the gate', async () => {
    const s = setup({ rtt: () => 4 });
    s.clock.start();
    s.gate.rejoin();
    await advance(s.page, 1000);
    expect(s.gate.state).toBe('on-time');
    s.link.down = true;
    s.gate.hold({ keepClock: true, until: s.page.now() + 3000 });
    expect(s.gate.state).toBe('on-time');
    expect(s.gate.coasting).toBe(true);
    await advance(s.page, 2990);
    expect(s.gate.state).toBe('on-time');
    await advance(s.page, 20);
    expect(s.gate.state).toBe('joining');
    expect(s.gate.coasting).toBe(false);
    // Again, the link back before the announced beats run out: open throughout.
    s.link.down = false;
    s.gate.rejoin();
    expect(s.gate.state).toBe('on-time');
    s.gate.hold({ keepClock: true, until: s.page.now() + 3000 });
    await advance(s.page, 1000);
    s.gate.rejoin();
    await advance(s.page, 5000);
    expect(s.gate.state).toBe('on-time');
    expect(s.gate.coasting).toBe(false);
    // The tab hidden meanwhile: closed at once; nothing announced, or an approximate estimate: as before.
    s.gate.hold({ keepClock: true, until: s.page.now() + 3000 });
    s.gate.hold();
    expect(s.gate.state).toBe('joining');
    s.gate.rejoin();
    await advance(s.page, 1000);
    s.gate.hold({ keepClock: true, until: s.page.now() - 1 });
    expect(s.gate.state).toBe('joining');
    expect(s.changes).toEqual(['on-time', 'joining', 'on-time', 'joining', 'on-time', 'joining']);
  });

  it('link lost for so long that the estimate no longer meets the bound: joins afresh', async () => {
    const s = setup({ rtt: () => 4 });
    s.clock.start();
    s.gate.rejoin();
    await advance(s.page, 1000);
    s.gate.hold({ keepClock: true });
    s.link.down = true;
    // The bound widens with the samples' age (drift, core/clock-sync.js) past JOIN_ERROR_MS.
    await advance(s.page, 120_000);
    expect(s.clock.error).toBeGreaterThan(JOIN_ERROR_MS);
    s.link.down = false;
    s.gate.rejoin();
    expect(s.gate.state).toBe('joining');
    await advance(s.page, 3 * BURST_GAP_MS + 10);
    expect(s.gate.state).toBe('on-time');
  });

  it('tab hidden during a lost link, or an approximate estimate: no shortcut, a fresh burst first', async () => {
    const s = setup({ rtt: () => 4 });
    s.clock.start();
    s.gate.rejoin();
    await advance(s.page, 1000);
    s.gate.hold({ keepClock: true });
    s.gate.hold();
    s.gate.rejoin();
    expect(s.gate.state).toBe('joining');
    const slow = setup({ rtt: () => 90 });
    slow.clock.start();
    slow.gate.rejoin();
    await advance(slow.page, JOIN_MAX_WAIT_MS + 100);
    expect(slow.gate.state).toBe('approximate');
    slow.gate.hold({ keepClock: true });
    slow.gate.rejoin();
    expect(slow.gate.state).toBe('joining');
  });

  it('no round trip at all: stays joining past the longest wait, opens on the first that comes', async () => {
    const s = setup({ rtt: () => 4 });
    s.link.down = true;
    s.clock.start();
    s.gate.rejoin();
    await advance(s.page, JOIN_MAX_WAIT_MS + 5000);
    expect(s.gate.state).toBe('joining');
    s.link.down = false;
    await advance(s.page, 4000);
    expect(s.gate.open).toBe(true);
    s.gate.stop();
  });
});

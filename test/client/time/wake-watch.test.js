import { describe, it, expect, vi } from 'vitest';
import { GAP_MS, WATCH_EVERY_MS, createWakeWatch } from '../../../client/src/time/wake-watch.js';
import { FakeClock } from '../fakes.js';

/**
 * The page was suspended for `ms`: no timer ran meanwhile; then the overdue ones run, late.
 * @param {FakeClock} clock @param {number} ms
 */
function suspend(clock, ms) {
  clock.t += ms;
  for (const [id, timer] of [...clock.timers]) {
    if (timer.at > clock.t) continue;
    clock.timers.delete(id);
    timer.fn();
  }
}

describe('createWakeWatch', () => {
  it('calls onWake after a timer fired GAP_MS late or more (a suspended page), with the gap', () => {
    const clock = new FakeClock();
    const onWake = vi.fn();
    const watch = createWakeWatch({ now: clock.now, timers: clock, onWake });
    watch.start();
    clock.advance(10 * WATCH_EVERY_MS);
    expect(onWake).not.toHaveBeenCalled();
    suspend(clock, 5000);
    expect(onWake).toHaveBeenCalledTimes(1);
    expect(onWake.mock.calls[0][0]).toBeGreaterThanOrEqual(GAP_MS);
  });

  it('a timer merely late (a long task) is not a wake', () => {
    const clock = new FakeClock();
    const onWake = vi.fn();
    const watch = createWakeWatch({ now: clock.now, timers: clock, onWake });
    watch.start();
    suspend(clock, WATCH_EVERY_MS + GAP_MS - 100);
    expect(onWake).not.toHaveBeenCalled();
  });

  it('reset(): a return the page was told of is not reported again', () => {
    const clock = new FakeClock();
    const onWake = vi.fn();
    const watch = createWakeWatch({ now: clock.now, timers: clock, onWake });
    watch.start();
    clock.t += 5000; // the page's own resume handler runs first
    watch.reset();
    clock.advance(WATCH_EVERY_MS);
    expect(onWake).not.toHaveBeenCalled();
    watch.stop();
    expect(clock.timers.size).toBe(0);
  });
});

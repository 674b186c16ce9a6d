// The playback state on the wire: `playback` (playing, paused, stopped) and, deprecated for one
// protocol version, the same value as `transport`, in every state and every change the conductor
// publishes.

import { describe, it, expect } from 'vitest';
import { buildScoreModel } from '../../../core/manifest.js';
import { createMemoryBus } from '../../../server/live/bus.js';
import { createConductor } from '../../../server/performance/conductor.js';
import { createFakeClock } from '../../helpers/fake-clock.js';

function model() {
  const r = buildScoreModel({ id: 'p', title: 'P', bars: 4, meter: [{ bar: 1, time: '4/4', tempo: 120 }] });
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.value;
}

describe('playback on the wire', () => {
  it('sends playback and the deprecated transport alike, in the snapshot and in each change', () => {
    const bus = createMemoryBus();
    /** @type {import('../../../server/live/bus.js').StateChange[]} */
    const changes = [];
    bus.subscribe((c) => changes.push(c));
    const clock = createFakeClock();
    const conductor = createConductor({ model: model(), bus, clock });
    expect(conductor.state).toMatchObject({ playback: 'stopped', transport: 'stopped' });
    conductor.play({ countIn: 1 });
    clock.advance(2100);
    conductor.pause();
    conductor.stop();
    const patches = changes.map((c) => /** @type {Record<string, unknown> | null} */ (c.patch)).filter((p) => p);
    expect(
      patches.map((p) => [p?.playback, p?.transport]).filter(([a, b]) => a !== undefined || b !== undefined),
    ).toEqual([
      ['playing', 'playing'],
      ['paused', 'paused'],
      ['stopped', 'stopped'],
    ]);
    for (const { state } of changes) {
      const s = /** @type {{ playback: string, transport: string }} */ (state);
      expect(s.transport).toBe(s.playback);
    }
  });
});

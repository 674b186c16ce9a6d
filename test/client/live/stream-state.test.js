import { describe, it, expect } from 'vitest';
import { StreamState } from '../../../client/src/live/stream-state.js';
import { msg } from '../fakes.js';

/** @param {any} m */
const env = (m) => m;

describe('StreamState', () => {
  it('holds nothing until a snapshot, and asks for one on anything else', () => {
    const s = new StreamState();
    expect([s.epoch, s.seq, s.state]).toEqual([null, 0, null]);
    expect(s.receive(env(msg.delta('E', 1, {})))).toBe('resync');
    expect(s.receive(env(msg.heartbeat('E', 0)))).toBe('resync');
    expect(s.receive(env(msg.welcome('E', 0)))).toBe('none');
    expect(s.state).toBe(null);
  });

  it('replaces on snapshot, merges the next delta, and gives each verdict', () => {
    const s = new StreamState();
    expect(s.receive(env(msg.snapshot('E', 4, { a: 1, b: { c: 2 } })))).toBe('applied');
    expect(s.receive(env(msg.delta('E', 5, { b: { c: null, d: 3 } })))).toBe('applied');
    expect(s.state).toEqual({ a: 1, b: { d: 3 } });
    expect(s.receive(env(msg.delta('E', 5, { a: 9 })))).toBe('stale');
    expect(s.receive(env(msg.delta('E', 7, { a: 9 })))).toBe('resync');
    expect(s.receive(env(msg.delta('F', 6, { a: 9 })))).toBe('resync');
    expect(s.receive(env(msg.heartbeat('E', 5)))).toBe('none');
    expect(s.receive(env(msg.heartbeat('E', 6)))).toBe('resync');
    expect(s.receive(env(msg.snapshot('E', 5, { a: 9 })))).toBe('stale');
    expect(s.state).toEqual({ a: 1, b: { d: 3 } });
    expect(s.receive(env(msg.snapshot('F', 0, { z: 1 })))).toBe('applied');
    expect([s.epoch, s.seq, s.state]).toEqual(['F', 0, { z: 1 }]);
  });

  it('does not modify a state it handed out', () => {
    const s = new StreamState();
    s.receive(env(msg.snapshot('E', 0, { beat: 0 })));
    const before = s.state;
    s.receive(env(msg.delta('E', 1, { beat: 1 })));
    expect(before).toEqual({ beat: 0 });
    expect(s.state).toEqual({ beat: 1 });
  });
});

import { describe, it, expect } from 'vitest';
import { createBallot, winnerOf } from '../../core/votes.js';

const VOTE = { id: 'ending', tiles: ['soft', 'bright'], open: 4, close: 8, decides: { soft: { seek: 20 } } };
const device = (/** @type {number} */ n) => `device-${String(n).padStart(4, '0')}`;

/** @param {unknown} r */
const code = (r) => /** @type {any} */ (r).error?.code ?? null;

describe('ballot', () => {
  it('counts one vote per device while the window is open, and reports the outcome at the close', () => {
    const b = createBallot([VOTE]);
    expect(b.at(3)).toBeNull();
    expect(code(b.cast({ tile: 'soft', device: device(1) }))).toBe('SC_ERR_NO_VOTE_WINDOW');
    b.at(4);
    expect(b.openId).toBe('ending');
    expect(b.cast({ tile: 'soft', device: device(1), window: 'ending' })).toEqual({
      ok: true,
      id: 'ending',
      tally: { soft: 1, bright: 0 },
      tile: 'soft',
    });
    b.cast({ tile: 'soft', device: device(2) });
    b.cast({ tile: 'bright', device: device(3) });
    expect(b.at(7)).toBeNull();
    expect(b.at(8)).toEqual({ id: 'ending', tally: { soft: 2, bright: 1 }, winner: 'soft', seek: 20 });
    expect(b.openId).toBeNull();
    expect(code(b.cast({ tile: 'soft', device: device(9) }))).toBe('SC_ERR_NO_VOTE_WINDOW');
    expect(b.report().closed).toHaveLength(1);
  });

  it.each([
    ['an unknown tile', { tile: 'loud', device: device(5) }, 'SC_ERR_UNKNOWN_TILE'],
    ['a vote for another window', { tile: 'soft', device: device(5), window: 'other' }, 'SC_ERR_NO_VOTE_WINDOW'],
    ['no device id', { tile: 'soft' }, 'SC_ERR_BAD_MESSAGE'],
    ['a malformed device id', { tile: 'soft', device: 'x' }, 'SC_ERR_BAD_MESSAGE'],
  ])('refuses %s with its error and does not count it', (_, tap, expected) => {
    const b = createBallot([VOTE]);
    b.at(5);
    b.cast({ tile: 'soft', device: device(1) });
    expect(code(b.cast(tap))).toBe(expected);
    expect(b.report().open?.tally).toEqual({ soft: 1, bright: 0 });
  });

  it("a device's tap on another tile moves its vote, on its own tile takes it back: one vote a device at any time", () => {
    const b = createBallot([VOTE]);
    b.at(4);
    b.cast({ tile: 'soft', device: device(1) });
    b.cast({ tile: 'soft', device: device(2) });
    expect(b.cast({ tile: 'bright', device: device(1) })).toMatchObject({ ok: true, tile: 'bright' });
    expect(b.report().open?.tally).toEqual({ soft: 1, bright: 1 });
    expect(b.cast({ tile: 'bright', device: device(1) })).toMatchObject({ ok: true, tile: null });
    expect(b.report().open?.tally).toEqual({ soft: 1, bright: 0 });
    // and may vote again
    expect(b.cast({ tile: 'soft', device: device(1) })).toMatchObject({ ok: true, tile: 'soft' });
    expect(b.at(8)).toMatchObject({ tally: { soft: 2, bright: 0 }, winner: 'soft' });
  });

  it('a flood from one device counts once at most: its taps take turns voting and taking it back', () => {
    const b = createBallot([VOTE]);
    b.at(4);
    const results = Array.from({ length: 1000 }, () => b.cast({ tile: 'bright', device: device(7) }));
    expect(results.every((r) => r.ok)).toBe(true);
    expect(b.report().open?.tally).toEqual({ soft: 0, bright: 0 });
    b.cast({ tile: 'bright', device: device(7) });
    expect(b.report().open?.tally).toEqual({ soft: 0, bright: 1 });
  });

  it('a device recorded without its choice (a save from before choices were kept) cannot change its vote', () => {
    const b = createBallot([VOTE]);
    const restored = b.restore({ open: { id: 'ending', tally: { soft: 1 }, devices: [device(1)] }, closed: [] });
    expect(restored.ok).toBe(true);
    expect(code(b.cast({ tile: 'bright', device: device(1) }))).toBe('SC_ERR_ALREADY_VOTED');
    expect(
      b.restore({
        open: { id: 'ending', tally: { soft: 1 }, devices: [device(1)], choices: { [device(1)]: 'loud' } },
        closed: [],
      }),
    ).toMatchObject({ ok: false });
  });

  it('a seek out of the window closes it; a seek into another opens that one fresh', () => {
    const b = createBallot([VOTE, { ...VOTE, id: 'later', open: 12, close: 14, decides: {} }]);
    b.at(4);
    b.cast({ tile: 'bright', device: device(1) });
    expect(b.at(12)).toMatchObject({ id: 'ending', winner: 'bright', seek: null });
    expect(b.openId).toBe('later');
    expect(b.cast({ tile: 'bright', device: device(1) }).ok).toBe(true);
  });

  it('ties go to the tile listed first; no votes decide nothing', () => {
    expect(
      winnerOf(
        ['a', 'b'],
        new Map([
          ['a', 2],
          ['b', 2],
        ]),
      ),
    ).toBe('a');
    expect(winnerOf(['a', 'b'], new Map([['b', 1]]))).toBe('b');
    expect(winnerOf(['a', 'b'], new Map())).toBeNull();
    const b = createBallot([VOTE]);
    b.at(4);
    expect(b.at(8)).toEqual({ id: 'ending', tally: { soft: 0, bright: 0 }, winner: null, seek: null });
  });
});

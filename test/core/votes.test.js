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
    ['a second vote from the same device', { tile: 'bright', device: device(1) }, 'SC_ERR_ALREADY_VOTED'],
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

  it('a flood from one device counts once', () => {
    const b = createBallot([VOTE]);
    b.at(4);
    const results = Array.from({ length: 1000 }, () => b.cast({ tile: 'bright', device: device(7) }));
    expect(results.filter((r) => r.ok)).toHaveLength(1);
    expect(results.slice(1).every((r) => code(r) === 'SC_ERR_ALREADY_VOTED')).toBe(true);
    expect(b.report().open?.tally).toEqual({ soft: 0, bright: 1 });
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

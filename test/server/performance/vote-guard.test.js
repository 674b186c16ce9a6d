import { describe, it, expect } from 'vitest';
import { conductorRound, createVoteGuard } from '../../../server/performance/vote-guard.js';
import { createDeviceCredentials } from '../../../server/performance/device-credential.js';
import { createBallot } from '../../../core/votes.js';

const VOTE = { id: 'v', tiles: ['a', 'b'], open: 0, close: 8, decides: {} };

/** @param {number} votesPerAddress */
function setup(votesPerAddress) {
  const ballot = createBallot([/** @type {any} */ (VOTE)]);
  const credentials = createDeviceCredentials({ secret: 'vote-guard-test' });
  const guard = createVoteGuard({
    vote: (tap) => ballot.cast(tap),
    round: conductorRound({ votes: () => ballot.report() }),
    credentials,
    votesPerAddress,
  });
  const device = () => credentials.issue().credential;
  return { ballot, guard, device };
}

describe('vote guard', () => {
  it("counts a vote under the credential's id; a forged device counts nothing", async () => {
    const { ballot, guard, device } = setup(0);
    ballot.at(1);
    const phone = device();
    expect(await guard.cast({ tile: 'a', device: phone }, { address: 'x', connection: {} })).toEqual({
      ok: true,
      id: 'v',
      tile: 'a',
    });
    expect(ballot.record().open?.devices).toEqual([phone.split('.')[0]]);
    expect(await guard.cast({ tile: 'a', device: 'phone-0001' }, { address: 'x', connection: {} })).toMatchObject({
      ok: false,
      error: { code: 'SC_ERR_BAD_DEVICE' },
    });
    expect(await guard.cast({ tile: 'a' }, { address: 'x', connection: {} })).toMatchObject({
      ok: false,
      error: { code: 'SC_ERR_BAD_DEVICE' },
    });
  });

  it('one vote per connection and window; the next window is a new one', async () => {
    const { ballot, guard, device } = setup(0);
    const connection = {};
    ballot.at(1);
    expect((await guard.cast({ tile: 'a', device: device() }, { address: 'x', connection })).ok).toBe(true);
    expect(await guard.cast({ tile: 'b', device: device() }, { address: 'x', connection })).toMatchObject({
      ok: false,
      error: { code: 'SC_ERR_ALREADY_VOTED' },
    });
    ballot.at(8); // closes
    ballot.at(0); // the performance went back: the window opens again, a new round
    expect((await guard.cast({ tile: 'b', device: device() }, { address: 'x', connection })).ok).toBe(true);
  });

  it('a device changes or takes back its vote, from its connection or a new one, without counting again', async () => {
    const { ballot, guard, device } = setup(1);
    const connection = {};
    ballot.at(1);
    const phone = device();
    expect(await guard.cast({ tile: 'a', device: phone }, { address: 'x', connection })).toMatchObject({ tile: 'a' });
    // the same phone: its vote moves, then goes, then comes back (the address cap of 1 is not hit)
    expect(await guard.cast({ tile: 'b', device: phone }, { address: 'x', connection })).toMatchObject({ tile: 'b' });
    expect(await guard.cast({ tile: 'b', device: phone }, { address: 'x', connection: {} })).toMatchObject({
      tile: null,
    });
    expect(await guard.cast({ tile: 'a', device: phone }, { address: 'x', connection: {} })).toMatchObject({
      tile: 'a',
    });
    expect(ballot.record().open?.tally).toEqual({ a: 1, b: 0 });
    // another credential on that connection is still a second vote
    expect(await guard.cast({ tile: 'b', device: device() }, { address: 'y', connection })).toMatchObject({
      ok: false,
      error: { code: 'SC_ERR_ALREADY_VOTED' },
    });
  });

  it('votes per address per window up to the cap; the count starts again with the next window', async () => {
    const { ballot, guard, device } = setup(2);
    ballot.at(1);
    const cast = (/** @type {string} */ address) =>
      guard.cast({ tile: 'a', device: device() }, { address, connection: {} });
    const results = [await cast('x'), await cast('x'), await cast('x')];
    expect(results.map((r) => r.ok || r.error.code)).toEqual([true, true, 'SC_ERR_ADDRESS_LIMIT']);
    expect((await cast('y')).ok).toBe(true);
    ballot.at(8);
    ballot.at(0);
    expect((await cast('x')).ok).toBe(true);
  });

  describe('when the conductor answers later (a cluster node asks the active one through Redis)', () => {
    /** @param {number} votesPerAddress @param {() => string | null} round */
    function later(votesPerAddress, round) {
      const ballot = createBallot([/** @type {any} */ (VOTE)]);
      const credentials = createDeviceCredentials({ secret: 'vote-guard-test' });
      /** @type {(() => void)[]} */
      const waiting = [];
      const vote = (/** @type {any} */ tap) =>
        new Promise((resolve) => {
          waiting.push(() => resolve(ballot.cast(tap)));
        });
      const guard = createVoteGuard({ vote, round, credentials, votesPerAddress });
      const answerAll = () => {
        for (const w of waiting.splice(0)) w();
      };
      return { ballot, guard, device: () => credentials.issue().credential, answerAll };
    }

    it('taps in flight from one connection: only the first is put to the conductor', async () => {
      const { ballot, guard, device, answerAll } = later(0, () => 'v@1');
      ballot.at(1);
      const connection = {};
      const first = guard.cast({ tile: 'a', device: device() }, { address: 'x', connection });
      const second = guard.cast({ tile: 'b', device: device() }, { address: 'x', connection });
      answerAll();
      expect(await first).toEqual({ ok: true, id: 'v', tile: 'a' });
      expect(await second).toMatchObject({ ok: false, error: { code: 'SC_ERR_ALREADY_VOTED' } });
      expect(Object.values(ballot.record().open?.tally ?? {}).reduce((n, k) => n + k, 0)).toBe(1);
    });

    it('taps in flight from one address count against its cap before they are answered', async () => {
      const { ballot, guard, device, answerAll } = later(2, () => 'v@1');
      ballot.at(1);
      const casts = [0, 1, 2].map(() => guard.cast({ tile: 'a', device: device() }, { address: 'x', connection: {} }));
      answerAll();
      expect((await Promise.all(casts)).map((r) => r.ok || r.error.code)).toEqual([true, true, 'SC_ERR_ADDRESS_LIMIT']);
    });

    it('a refused vote gives its place back: the connection may vote again', async () => {
      const { ballot, guard, device, answerAll } = later(1, () => 'v@1');
      const connection = {};
      const refused = guard.cast({ tile: 'a', device: device() }, { address: 'x', connection });
      answerAll(); // no window open on the ballot yet
      expect(await refused).toMatchObject({ ok: false, error: { code: 'SC_ERR_NO_VOTE_WINDOW' } });
      ballot.at(1);
      const next = guard.cast({ tile: 'a', device: device() }, { address: 'x', connection });
      answerAll();
      expect(await next).toEqual({ ok: true, id: 'v', tile: 'a' });
    });

    it('where this node sees no window, the conductor still counts one vote per device (a second tap moves it)', async () => {
      const { ballot, guard, device, answerAll } = later(0, () => null);
      ballot.at(1);
      const phone = device();
      const first = guard.cast({ tile: 'a', device: phone }, { address: 'x', connection: {} });
      answerAll();
      expect(await first).toEqual({ ok: true, id: 'v', tile: 'a' });
      const again = guard.cast({ tile: 'b', device: phone }, { address: 'x', connection: {} });
      answerAll();
      expect(await again).toEqual({ ok: true, id: 'v', tile: 'b' });
      expect(ballot.record().open?.tally).toEqual({ a: 0, b: 1 });
    });
  });
});

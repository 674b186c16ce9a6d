import { describe, it, expect } from 'vitest';
import { createVoteGuard } from '../../server/vote-guard.js';
import { createDeviceCredentials } from '../../server/device-credential.js';
import { createBallot } from '../../core/votes.js';

const VOTE = { id: 'v', tiles: ['a', 'b'], open: 0, close: 8, decides: {} };

/** @param {number} votesPerAddress */
function setup(votesPerAddress) {
  const ballot = createBallot([/** @type {any} */ (VOTE)]);
  const credentials = createDeviceCredentials({ secret: 'vote-guard-test' });
  const guard = createVoteGuard({ conductor: { vote: (tap) => ballot.cast(tap), votes: () => ballot.report() }, credentials, votesPerAddress });
  const device = () => credentials.issue().credential;
  return { ballot, guard, device };
}

describe('vote guard', () => {
  it('counts a vote under the credential\'s id; a forged device counts nothing', () => {
    const { ballot, guard, device } = setup(0);
    ballot.at(1);
    const phone = device();
    expect(guard.cast({ tile: 'a', device: phone }, { address: 'x', connection: {} })).toEqual({ ok: true, id: 'v' });
    expect(ballot.record().open?.devices).toEqual([phone.split('.')[0]]);
    expect(guard.cast({ tile: 'a', device: 'phone-0001' }, { address: 'x', connection: {} })).toMatchObject({ ok: false, error: { code: 'SC_ERR_BAD_DEVICE' } });
    expect(guard.cast({ tile: 'a' }, { address: 'x', connection: {} })).toMatchObject({ ok: false, error: { code: 'SC_ERR_BAD_DEVICE' } });
  });

  it('one vote per connection and window; the next window is a new one', () => {
    const { ballot, guard, device } = setup(0);
    const connection = {};
    ballot.at(1);
    expect(guard.cast({ tile: 'a', device: device() }, { address: 'x', connection }).ok).toBe(true);
    expect(guard.cast({ tile: 'b', device: device() }, { address: 'x', connection })).toMatchObject({ ok: false, error: { code: 'SC_ERR_ALREADY_VOTED' } });
    ballot.at(8); // closes
    ballot.at(0); // the performance went back: the window opens again, a new round
    expect(guard.cast({ tile: 'b', device: device() }, { address: 'x', connection }).ok).toBe(true);
  });

  it('votes per address per window up to the cap; the count starts again with the next window', () => {
    const { ballot, guard, device } = setup(2);
    ballot.at(1);
    const cast = (/** @type {string} */ address) => guard.cast({ tile: 'a', device: device() }, { address, connection: {} });
    expect([cast('x'), cast('x'), cast('x')].map((r) => r.ok || r.error.code)).toEqual([true, true, 'SC_ERR_ADDRESS_LIMIT']);
    expect(cast('y').ok).toBe(true);
    ballot.at(8);
    ballot.at(0);
    expect(cast('x').ok).toBe(true);
  });
});

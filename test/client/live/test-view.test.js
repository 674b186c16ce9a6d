// window.scorecast: every page shows its connection's state, epoch and seq as they are now, with
// what else the page adds, read-only.

import { describe, it, expect } from 'vitest';
import { exposeForTests } from '../../../client/src/live/test-view.js';

describe('the test view', () => {
  it("reads the connection and the page's own getters at each access, and cannot be changed", () => {
    const window = /** @type {any} */ ({});
    const connection = { state: /** @type {unknown} */ (null), epoch: /** @type {string | null} */ (null), seq: 0 };
    const history = ['a'];
    exposeForTests(window, connection, {
      get history() {
        return history.slice();
      },
    });
    connection.state = { bpm: 80 };
    connection.epoch = 'e1';
    connection.seq = 7;
    history.push('b');
    expect(window.scorecast).toEqual({ state: { bpm: 80 }, epoch: 'e1', seq: 7, history: ['a', 'b'] });
    expect(Object.isFrozen(window.scorecast)).toBe(true);
    expect(() => {
      window.scorecast = {};
    }).toThrow(TypeError);
  });

  it('without more, shows the connection alone', () => {
    const window = /** @type {any} */ ({});
    exposeForTests(window, { state: null, epoch: 'e2', seq: 3 });
    expect(Object.keys(window.scorecast)).toEqual(['state', 'epoch', 'seq']);
  });
});

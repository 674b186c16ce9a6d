// The control API client (console/control-api.js): seeks go to the server one after another,
// each once the one before it has its answer, so two in a row arrive in the order they were asked.

import { describe, it, expect } from 'vitest';
import { createControlApi, oneAtATime } from '../../../client/src/console/control-api.js';

/** A fetch whose answers the test gives by hand, in any order; it records what it was asked. */
function handFetch() {
  /** @type {Array<{ url: string, body: unknown, answer: (status?: number) => void }>} */
  const calls = [];
  /** @param {string} url @param {RequestInit} [init] */
  const fetch = (url, init) =>
    new Promise((resolve) => {
      calls.push({
        url,
        body: init?.body === undefined ? undefined : JSON.parse(String(init.body)),
        answer: (status = 200) =>
          resolve(
            new Response(JSON.stringify(status === 200 ? { ok: true } : { code: 'SC_ERR_X', message: 'no' }), {
              status,
            }),
          ),
      });
    });
  return { calls, fetch };
}

/** Let every promise that can settle, settle. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('seek', () => {
  it('two seeks in a row reach fetch in order, the second only after the first is answered', async () => {
    const { calls, fetch } = handFetch();
    const api = createControlApi({ token: 't', fetch });
    const first = api.seek({ beat: 8 });
    const second = api.seek({ beat: 4 });
    await settle();
    expect(calls.map((c) => c.body)).toEqual([{ beat: 8 }]);
    calls[0].answer();
    await expect(first).resolves.toEqual({ ok: true });
    await settle();
    expect(calls.map((c) => [c.url, c.body])).toEqual([
      ['/api/control/seek', { beat: 8 }],
      ['/api/control/seek', { beat: 4 }],
    ]);
    calls[1].answer();
    await expect(second).resolves.toEqual({ ok: true });
  });

  it('a refused seek does not hold back the next, and each caller gets its own answer', async () => {
    const { calls, fetch } = handFetch();
    const api = createControlApi({ token: 't', fetch });
    const first = api.seek({ mark: 'Z' });
    const second = api.seek({ bar: 2 });
    await settle();
    calls[0].answer(422);
    await expect(first).rejects.toMatchObject({ status: 422, code: 'SC_ERR_X' });
    await settle();
    expect(calls).toHaveLength(2);
    calls[1].answer();
    await expect(second).resolves.toEqual({ ok: true });
  });

  it('other calls are not held behind a pending seek', async () => {
    const { calls, fetch } = handFetch();
    const api = createControlApi({ token: 't', fetch });
    api.seek({ beat: 1 });
    api.pause();
    await settle();
    expect(calls.map((c) => c.url).sort()).toEqual(['/api/control/pause', '/api/control/seek']);
  });
});

describe('oneAtATime', () => {
  it('passes the arguments through and keeps one queue per wrapped function', async () => {
    /** @type {string[]} */
    const log = [];
    const f = oneAtATime(async (/** @type {string} */ a, /** @type {number} */ b) => {
      log.push(`start ${a}`);
      await settle();
      log.push(`end ${a}`);
      return `${a}${b}`;
    });
    const results = await Promise.all([f('x', 1), f('y', 2)]);
    expect(results).toEqual(['x1', 'y2']);
    expect(log).toEqual(['start x', 'end x', 'start y', 'end y']);
  });
});

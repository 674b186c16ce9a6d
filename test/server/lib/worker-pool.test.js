// The worker pool (server/lib/worker-pool.js), with a stand-in worker: tasks run and report
// progress; a worker that fails, crashes, throws, hangs or fills its heap fails its task only and
// is replaced; queued tasks can be abandoned; idle workers exit.

import { afterEach, describe, expect, it } from 'vitest';
import { PoolError, createPool } from '../../../server/lib/worker-pool.js';

const url = new URL('../../fixtures/workers/echo-worker.js', import.meta.url);
/** @type {import('../../../server/lib/worker-pool.js').Pool[]} */
const pools = [];
/** @param {{ size?: number, idleMs?: number }} [options] */
const makePool = ({ size = 1, idleMs = 30_000 } = {}) => {
  const pool = createPool({ size, idleMs, url, resourceLimits: { maxOldGenerationSizeMb: 64 } });
  pools.push(pool);
  return pool;
};

afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.close()));
});

describe('worker pool', () => {
  it('runs tasks and passes progress on', async () => {
    const pool = makePool();
    /** @type {unknown[]} */
    const progress = [];
    expect(await pool.run('progress', { n: 1 }, { onProgress: (d) => progress.push(d) })).toEqual({ n: 1 });
    expect(progress).toEqual(['half way']);
  });

  it("runs a score to be played before a background task queued earlier (another score's layouts)", async () => {
    const pool = makePool({ size: 1 });
    /** @type {string[]} */
    const order = [];
    const runs = [
      pool.run('echo', 'first').then((r) => order.push(r)),
      pool.run('echo', 'layouts', { background: true }).then((r) => order.push(r)),
      pool.run('echo', 'score').then((r) => order.push(r)),
    ];
    await Promise.all(runs);
    expect(order).toEqual(['first', 'score', 'layouts']);
  });

  it('runs as many tasks at once as it has workers', async () => {
    const pool = makePool({ size: 2 });
    const results = await Promise.all([1, 2, 3, 4].map((n) => pool.run('echo', n)));
    expect(results).toEqual([1, 2, 3, 4]);
    expect(pool.size).toBe(2);
  });

  it.each([
    ['fail', 'failed', 'Verovio threw'],
    ['exit', 'crashed', 'exit code 3'],
    ['throw', 'failed', 'uncaught in worker'],
    ['nostart', 'unavailable', 'Verovio did not start'],
  ])('a worker that does "%s" fails its task (%s) and is replaced', async (kind, reason, message) => {
    const pool = makePool();
    const err = await pool.run(kind, null).catch((e) => e);
    expect(err).toBeInstanceOf(PoolError);
    expect(err).toMatchObject({ reason, message: expect.stringContaining(message) });
    expect(await pool.run('echo', 'after')).toBe('after');
  });

  it('a worker that fills its heap fails its task (memory) and the next task runs on a new worker', async () => {
    const pool = makePool();
    await pool.run('echo', 'before');
    const [first] = pool.threadIds;
    const err = await pool.run('oom', null).catch((e) => e);
    expect(err).toBeInstanceOf(PoolError);
    expect(err).toMatchObject({ reason: 'memory', message: 'the worker ran out of its 64 MB of memory' });
    expect(await pool.run('echo', 'after')).toBe('after');
    expect(pool.threadIds).not.toContain(first);
  });

  it('stops a task that takes too long and carries on', async () => {
    const pool = makePool();
    await expect(pool.run('hang', null, { timeoutMs: 200 })).rejects.toMatchObject({ reason: 'timeout' });
    expect(await pool.run('echo', 'next')).toBe('next');
  });

  it('drops queued tasks whose engraving was abandoned', async () => {
    const pool = makePool();
    const abort = new AbortController();
    const first = pool.run('echo', 1);
    const queued = pool.run('echo', 2, { signal: abort.signal });
    abort.abort();
    expect(await first).toBe(1);
    await expect(queued).rejects.toMatchObject({ reason: 'aborted' });
  });

  it('fails running and queued tasks on close, and refuses new ones', async () => {
    const pool = makePool();
    const settled = Promise.allSettled([pool.run('hang', null), pool.run('echo', 1)]);
    await new Promise((r) => setTimeout(r, 50));
    await pool.close();
    expect((await settled).map((r) => r.status === 'rejected' && r.reason.reason)).toEqual(['closed', 'closed']);
    await expect(pool.run('echo', 2)).rejects.toMatchObject({ reason: 'closed' });
  });

  it('lets idle workers go', async () => {
    const pool = makePool({ idleMs: 50 });
    await pool.run('echo', 1);
    expect(pool.size).toBe(1);
    await new Promise((r) => setTimeout(r, 300));
    expect(pool.size).toBe(0);
    expect(await pool.run('echo', 2)).toBe(2);
  });

  it('a task given at the moment an idle worker is let go runs on a new worker, not on the one going', async () => {
    // In CI the manifest's reader was let go 10 s after the first load, just as a reload asked it
    // to read the edited manifest: the reload failed with "the package reader stopped".
    const pool = makePool({ idleMs: 40 });
    await pool.run('echo', 1);
    // Same delay, set after the idle timer: runs right after it in the same turn, while the
    // terminated worker has not exited yet.
    const next = await new Promise((resolve) => {
      setTimeout(() => resolve(pool.run('echo', 2).catch((e) => e)), 40);
    });
    expect(next).toBe(2);
  });
});

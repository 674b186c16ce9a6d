import { describe, it, expect, vi } from 'vitest';
import { loadScore, toScoreInfo } from '../../../client/src/page/score-assets.js';

/**
 * @param {Record<string, unknown>} routes url -> JSON body, or an Error to fail with
 */
function fetchFrom(routes) {
  return vi.fn(async (/** @type {string} */ url) => {
    const body = routes[url];
    if (body instanceof Error) throw body;
    return {
      ok: body !== undefined,
      json: async () => body,
      arrayBuffer: async () => new ArrayBuffer(0),
    };
  });
}

describe('loadScore', () => {
  it('prefetches only the assets marked preload', async () => {
    const fetch = fetchFrom({
      '/api/score': {
        id: 'demo',
        title: 'Demo',
        assets: [
          { url: '/scores/demo/p1.svg', preload: true },
          { url: '/scores/demo/big.mp3', preload: false },
          { url: '/scores/demo/p2.svg', preload: true },
        ],
      },
      '/scores/demo/p1.svg': 'svg',
      '/scores/demo/p2.svg': 'svg',
    });
    const info = await loadScore(fetch);
    expect(info?.title).toBe('Demo');
    expect(fetch.mock.calls.map((c) => c[0])).toEqual(['/api/score', '/scores/demo/p1.svg', '/scores/demo/p2.svg']);
  });

  it('answers null when /api/score fails, and survives a failing asset', async () => {
    const log = vi.fn();
    expect(await loadScore(fetchFrom({}), log)).toBe(null);
    expect(await loadScore(fetchFrom({ '/api/score': new TypeError('offline') }), log)).toBe(null);
    const info = await loadScore(
      fetchFrom({
        '/api/score': { assets: [{ url: '/a', preload: true }] },
        '/a': new TypeError('offline'),
      }),
      log,
    );
    expect(info).toEqual({ assets: [{ url: '/a', preload: true }] });
    expect(log).toHaveBeenCalledTimes(3);
  });
});

describe('toScoreInfo', () => {
  it('keeps only well-formed fields', () => {
    expect(toScoreInfo(null)).toEqual({ assets: [] });
    expect(toScoreInfo({ id: 3, title: 'T', assets: [{ url: '' }, { url: '/x' }, 'y', null] })).toEqual({
      title: 'T',
      assets: [{ url: '/x', preload: false }],
    });
  });
});

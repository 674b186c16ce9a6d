import { describe, it, expect } from 'vitest';
import { statusWords, debugWanted, linkDiagnostics } from '../../../client/src/page/status-line.js';

describe('the status line', () => {
  it.each([
    ['connecting', 'connecting…'],
    ['live', 'live'],
    ['reconnecting', 'reconnecting…'],
    ['offline', 'offline: waiting for the network'],
  ])('says %s in words: %s', (state, words) => {
    expect(statusWords(state)).toBe(words);
    expect(statusWords(state)).not.toMatch(/\d+:\d+|held|via/);
  });

  it('shows the diagnostics only with ?debug or localStorage scorecast-debug=1', () => {
    const storage = (/** @type {string | null} */ v) => ({ getItem: () => v });
    expect(debugWanted('', null)).toBe(false);
    expect(debugWanted('', storage(null))).toBe(false);
    expect(debugWanted('?transport=ws', storage('0'))).toBe(false);
    expect(debugWanted('?debug', null)).toBe(true);
    expect(debugWanted('?debug=1', null)).toBe(true);
    expect(debugWanted('', storage('1'))).toBe(true);
    // The address wins, both ways.
    expect(debugWanted('?debug=0', storage('1'))).toBe(false);
    // A browser that refuses storage (Safari private mode throws) is not in debug.
    expect(
      debugWanted('', {
        getItem: () => {
          throw new Error('SecurityError');
        },
      }),
    ).toBe(false);
  });

  it('keeps the transport and the held position for the console', () => {
    expect(linkDiagnostics({ linkState: 'live', transport: 'ws', epoch: 'k3x', seq: 42 })).toBe(
      'link live via ws, held k3x:42',
    );
    expect(linkDiagnostics({ linkState: 'connecting', transport: 'ws', epoch: null, seq: 0 })).toBe(
      'link connecting via ws, held –',
    );
  });
});

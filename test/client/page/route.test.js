import { describe, it, expect } from 'vitest';
import { DEFAULT_VIEW, forcedTransport, notationWanted, viewFromPath } from '../../../client/src/page/route.js';

describe('viewFromPath', () => {
  it('maps / to the audience view and /view/X to X', () => {
    expect(DEFAULT_VIEW).toBe('audience');
    expect(viewFromPath('/')).toBe('audience');
    expect(viewFromPath('/view/score')).toBe('score');
    expect(viewFromPath('/view/violin-1/')).toBe('violin-1');
    expect(viewFromPath('/view/a%5Fb')).toBe('a_b');
  });

  it('falls back to the default view for other paths and for names that are not ids', () => {
    for (const path of ['/view/', '/view/a/b', '/other', '/view/%E0%A4%A', '/view/a%20b', `/view/${'x'.repeat(65)}`]) {
      expect(viewFromPath(path)).toBe('audience');
    }
  });
});

describe('forcedTransport', () => {
  it('reads ?transport=', () => {
    expect(forcedTransport('?transport=sse')).toBe('sse');
    expect(forcedTransport('?a=1&transport=poll')).toBe('poll');
    expect(forcedTransport('')).toBeUndefined();
  });
});

describe('notationWanted', () => {
  it('is true unless ?notation=off', () => {
    expect(notationWanted('')).toBe(true);
    expect(notationWanted('?notation=on')).toBe(true);
    expect(notationWanted('?transport=ws&notation=off')).toBe(false);
  });
});

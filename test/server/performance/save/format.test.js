// The save file's format: fingerprints of a score's version, and the reasons a text is refused.

import { describe, it, expect } from 'vitest';
import { decodeSave, encodeSave, scoreFingerprint } from '../../../../server/performance/save/format.js';
import { model, payload } from '../../../helpers/saved-performance.js';

describe('save file format', () => {
  it('fingerprints what a position means: bars, tempo and vote windows, not cue texts', () => {
    const base = scoreFingerprint(model());
    expect(base).toMatch(/^32:[0-9a-f]{16}$/);
    expect(scoreFingerprint(model())).toBe(base);
    expect(
      scoreFingerprint(
        model({
          cues: [
            { at: 0, set: { text: 'typo fixed' } },
            { bar: 2, vote: { id: 'v', tiles: ['a', 'b'], close: { bar: 3 } } },
          ],
        }),
      ),
    ).toBe(base);
    expect(scoreFingerprint(model({ meter: [{ bar: 1, time: '4/4', tempo: 121 }] }))).not.toBe(base);
    expect(scoreFingerprint(model({ meter: [{ bar: 1, time: '3/4', tempo: 120 }] }))).not.toBe(base);
    expect(
      scoreFingerprint(model({ cues: [{ bar: 2, vote: { id: 'v', tiles: ['a', 'c'], close: { bar: 3 } } }] })),
    ).not.toBe(base);
  });

  const good = encodeSave(payload());
  it.each([
    ['empty', '', /the file is empty/],
    ['truncated', good.slice(0, Math.floor(good.length / 2)), /not valid JSON \(truncated or partly written\?\)/],
    [
      'edited (the beat changed, the sum kept)',
      good.replace('"beat":6', '"beat":7'),
      /sha256 does not match the payload: the file was edited or partly written/,
    ],
    [
      'from a newer scorecast',
      good.replace('"version":1', '"version":2'),
      /format version 2 is newer than this server reads \(1\)/,
    ],
    ['of an unknown version', good.replace('"version":1', '"version":"one"'), /unknown format version "one"/],
    ['another JSON file', '{"name":"scorecast"}', /not a scorecast performance save/],
    ['without a sum', good.replace(/"sha256":"[0-9a-f]+",/, ''), /no payload or no sha256/],
    ['with a payload that lacks fields', encodeSave(/** @type {any} */ ({ savedAt: 1 })), /payload lacks savedAt/],
  ])('refuses a file that is %s, with the reason', (_, text, reason) => {
    const r = decodeSave(text);
    expect(r).toMatchObject({ ok: false, missing: false, code: 'SC_ERR_SAVE_UNREADABLE' });
    expect(/** @type {{ problem: string }} */ (r).problem).toMatch(reason);
  });
});

// A small saved performance: the score model a save is for, and a save's payload for it (tests
// of server/performance/save/format.js, server/performance/save/file.js and server/performance/save/persist.js).

import { buildScoreModel } from '../../core/manifest.js';
import { scoreFingerprint } from '../../server/performance/save/format.js';

export const WALL0 = 1_700_000_000_000;

/** @param {object} [extra] */
export function model(extra = {}) {
  const r = buildScoreModel({
    id: 'saved',
    title: 'Saved',
    bars: 8,
    meter: [{ bar: 1, time: '4/4', tempo: 120 }],
    cues: [
      { at: 0, set: { text: 'start' } },
      { bar: 2, vote: { id: 'v', tiles: ['a', 'b'], close: { bar: 3 } } },
    ],
    ...extra,
  });
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.value;
}

/** @returns {import('../../server/performance/save/format.js').SavePayload} */
export function payload(performance = {}) {
  const m = model();
  return {
    savedAt: WALL0,
    epoch: 'e1',
    seq: 3,
    score: { id: 'saved', title: 'Saved', dir: '/scores/saved', fingerprint: scoreFingerprint(m) },
    performance: { transport: 'paused', beat: 6, rate: 1, ballot: { open: null, closed: [] }, ...performance },
  };
}

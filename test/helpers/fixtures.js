// Small score models and fake transport links shared by server tests.

import { buildScoreModel } from '../../core/manifest.js';

/**
 * A 4-bar 4/4 score at `tempo` bpm with a cue every bar.
 * @param {{ tempo?: number, bars?: number }} [options]
 */
export function smallModel({ tempo = 120, bars = 4 } = {}) {
  const r = buildScoreModel({
    id: 'fixture', title: 'Fixture', bars,
    meter: [{ bar: 1, time: '4/4', tempo }],
    cues: Array.from({ length: bars }, (_, i) => ({ bar: i + 1, set: { text: `bar ${i + 1}` } })),
  });
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.value;
}

/**
 * A Link that records what it was sent; `queued` simulates bytes not yet on the network.
 * @param {string} [kind]
 */
export function fakeLink(kind = 'ws') {
  const link = {
    kind,
    queued: 0,
    /** @type {Buffer[]} */
    sent: [],
    /** @type {{ code: number, reason: string } | null} */
    closed: null,
    /** @param {Buffer} b */
    send(b) { link.sent.push(b); },
    buffered: () => link.queued,
    /** @param {number} code @param {string} reason */
    close(code, reason) { link.closed = { code, reason }; },
    /** Envelopes received, parsed. */
    get messages() { return link.sent.map((b) => JSON.parse(b.toString())); },
    /** @param {string} type */
    ofType(type) { return link.messages.filter((m) => m.type === type); },
  };
  return link;
}

/**
 * A loaded package around a model, with no files (for app tests that need no assets).
 * @param {import('../../core/manifest.js').ScoreModel} model
 * @returns {import('../../server/score-package.js').ScorePackage}
 */
export function packageOf(model) {
  return { dir: '.', model, assets: [], views: {}, files: new Map(), warnings: [] };
}

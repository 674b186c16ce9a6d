import { describe, it, expect } from 'vitest';
import { deviceId, tilesOf, voteMessage } from '../../client/src/audience.js';

function memoryStorage(/** @type {Record<string, string>} */ init = {}) {
  const data = { ...init };
  return { data, getItem: (/** @type {string} */ k) => data[k] ?? null, setItem: (/** @type {string} */ k, /** @type {string} */ v) => { data[k] = v; } };
}

describe('device id', () => {
  it('is made once and kept: the same browser is the same device in every vote', () => {
    const storage = memoryStorage();
    const id = deviceId(storage, Math.random);
    expect(id).toMatch(/^[A-Za-z0-9_-]{20}$/);
    expect(deviceId(storage, () => 0.5)).toBe(id);
  });

  it('replaces a stored value the server would refuse, and works without storage', () => {
    const storage = memoryStorage({ 'scorecast-device': 'bad id!' });
    expect(deviceId(storage, () => 0)).toBe('A'.repeat(20));
    expect(storage.data['scorecast-device']).toBe('A'.repeat(20));
    const refusing = { getItem() { throw new Error('denied'); }, setItem() { throw new Error('denied'); } };
    expect(deviceId(refusing, () => 0)).toBe('A'.repeat(20));
    expect(deviceId(null, () => 0.99)).toMatch(/^[A-Za-z0-9_-]{20}$/);
  });
});

describe('tilesOf', () => {
  it('reads tiles and the open vote window from the cue state', () => {
    const cue = { tiles: [{ id: 'soft', state: 'lit', text: 'soft' }, { id: 'bright', state: 'lit', text: 'bright' }], vote: { id: 'ending', tiles: ['soft', 'bright'], closes: 96 } };
    expect(tilesOf(cue)).toEqual({
      tiles: [{ id: 'soft', state: 'lit', text: 'soft' }, { id: 'bright', state: 'lit', text: 'bright' }],
      vote: { id: 'ending', tiles: ['soft', 'bright'] },
    });
  });

  it('a vote whose tiles are not on show (opened by the conductor elsewhere in the piece) shows its own tiles', () => {
    const cue = { tiles: [{ id: 't1', state: 'dim' }, { id: 't2', state: 'dark' }], vote: { id: 'ending', tiles: ['soft', 'bright'] } };
    expect(tilesOf(cue).tiles).toEqual([{ id: 'soft', state: 'lit', text: 'soft' }, { id: 'bright', state: 'lit', text: 'bright' }]);
  });

  it('keeps what it can of a cue from the network: unknown states show dark, broken tiles are left out', () => {
    const cue = { tiles: [{ id: 1, state: 'blinding' }, null, { state: 'lit' }, 'x', { id: 't2', state: 'dim', text: 5 }], vote: { id: 7 } };
    expect(tilesOf(cue)).toEqual({ tiles: [{ id: '1', state: 'dark', text: '' }, { id: 't2', state: 'dim', text: '' }], vote: null });
    for (const bad of [undefined, null, 'tiles', { tiles: 'many' }]) expect(tilesOf(bad)).toEqual({ tiles: [], vote: null });
  });
});

describe('voteMessage', () => {
  it.each([
    [{ ok: true, tile: 'bright' }, 'Your vote: bright. Counted.'],
    [{ ok: false, code: 'SC_ERR_ALREADY_VOTED' }, 'You have already voted in this round.'],
    [{ ok: false, code: 'SC_ERR_NO_VOTE_WINDOW' }, 'Voting has closed.'],
    [{ ok: false, code: 'SC_ERR_RATE_LIMITED' }, 'Too many taps: wait a moment.'],
    [{ ok: false }, 'Your vote did not reach the server. Tap again.'],
  ])('%o -> %s', (answer, text) => { expect(voteMessage(answer)).toBe(text); });
});

describe('tilesOf: tiles keyed by id', () => {
  it('reads { id: { state, text } } as tiles in key order, dropping removed ones', () => {
    const cue = { tiles: { 't1-1': { state: 'lit', text: 'hope' }, 't1-2': { state: 'dim', text: '' }, 't1-3': null }, vote: { id: 'page-3', tiles: ['t1-1'] } };
    expect(tilesOf(cue)).toEqual({
      tiles: [{ id: 't1-1', state: 'lit', text: 'hope' }, { id: 't1-2', state: 'dim', text: '' }],
      vote: { id: 'page-3', tiles: ['t1-1'] },
    });
  });
});

import { describe, it, expect } from 'vitest';
import { JSDOM } from 'jsdom';
import {
  createAudienceView,
  createVoter,
  tilesOf,
  voteCounts,
  voteMessage,
} from '../../../client/src/audience/audience-view.js';

function memoryStorage(/** @type {Record<string, string>} */ init = {}) {
  const data = { ...init };
  return {
    data,
    getItem: (/** @type {string} */ k) => data[k] ?? null,
    setItem: (/** @type {string} */ k, /** @type {string} */ v) => {
      data[k] = v;
    },
  };
}

const CREDENTIAL = `${'a'.repeat(22)}.${'b'.repeat(22)}`;
const OTHER = `${'c'.repeat(22)}.${'d'.repeat(22)}`;

/**
 * A fake server: issues `credentials` in turn from POST /api/device, answers taps with `tapAnswer`.
 * @param {{ credentials?: string[], tapAnswer?: (body: any) => { status: number, body: object } }} [options]
 */
function fakeServer({ credentials = [CREDENTIAL], tapAnswer = () => ({ status: 200, body: { type: 'voted' } }) } = {}) {
  /** @type {Array<{ url: string, body: any }>} */
  const calls = [];
  let issued = 0;
  /** @type {import('../../../client/src/audience/audience-view.js').FetchLike} */
  const fetch = async (url, init) => {
    const body = init?.body ? JSON.parse(init.body) : null;
    calls.push({ url, body });
    const answer =
      url === '/api/device'
        ? issued < credentials.length
          ? { status: 200, body: { device: credentials[issued++] } }
          : { status: 429, body: { code: 'SC_ERR_ADDRESS_LIMIT' } }
        : tapAnswer(body);
    return { ok: answer.status < 300, status: answer.status, json: async () => answer.body };
  };
  return { fetch, calls };
}

describe('voter: device credentials', () => {
  it('asks the server for a credential once, keeps it, and sends it with every vote', async () => {
    const storage = memoryStorage();
    const server = fakeServer();
    const voter = createVoter({ fetch: server.fetch, storage });
    await Promise.all([voter.prepare(), voter.prepare()]);
    expect(voter.device).toBe(CREDENTIAL);
    expect(storage.data['scorecast-device']).toBe(CREDENTIAL);
    expect(await voter.vote('soft', 'ending')).toEqual({ ok: true, tile: 'soft' });
    expect(server.calls).toEqual([
      { url: '/api/device', body: null },
      { url: '/api/tap', body: { tile: 'soft', window: 'ending', device: CREDENTIAL } },
    ]);
    // A reload is the same device: no new credential.
    const again = fakeServer({ credentials: [OTHER] });
    const reloaded = createVoter({ fetch: again.fetch, storage });
    await reloaded.vote('bright', 'ending');
    expect(again.calls.map((c) => c.url)).toEqual(['/api/tap']);
    expect(again.calls[0].body.device).toBe(CREDENTIAL);
  });

  it('an old self-made id in storage is replaced by an issued credential', async () => {
    const storage = memoryStorage({ 'scorecast-device': 'AAAAAAAAAAAAAAAAAAAA' });
    const voter = createVoter({ fetch: fakeServer().fetch, storage });
    await voter.vote('soft', 'ending');
    expect(storage.data['scorecast-device']).toBe(CREDENTIAL);
  });

  it('a credential the server no longer knows is replaced once and the vote sent again', async () => {
    const storage = memoryStorage({ 'scorecast-device': OTHER });
    const server = fakeServer({
      tapAnswer: (body) =>
        body.device === OTHER ? { status: 403, body: { code: 'SC_ERR_BAD_DEVICE' } } : { status: 200, body: {} },
    });
    const voter = createVoter({ fetch: server.fetch, storage });
    expect(await voter.vote('soft', 'ending')).toEqual({ ok: true, tile: 'soft' });
    expect(server.calls.map((c) => c.url)).toEqual(['/api/tap', '/api/device', '/api/tap']);
    expect(storage.data['scorecast-device']).toBe(CREDENTIAL);
  });

  it("reports the phone's vote after a tap as the server says it: moved, or taken back (null)", async () => {
    const server = fakeServer({
      tapAnswer: (body) => ({
        status: 200,
        body: { type: 'voted', window: 'ending', tile: body.tile === 'soft' ? null : body.tile },
      }),
    });
    const voter = createVoter({ fetch: server.fetch, storage: null });
    expect(await voter.vote('bright', 'ending')).toEqual({ ok: true, tile: 'bright' });
    expect(await voter.vote('soft', 'ending')).toEqual({ ok: true, tile: null });
  });

  it('says why when no credential can be had, and works without storage', async () => {
    const voter = createVoter({ fetch: fakeServer({ credentials: [] }).fetch, storage: null });
    expect(await voter.vote('soft', 'ending')).toEqual({ ok: false, code: 'SC_ERR_ADDRESS_LIMIT' });
    const refusing = {
      getItem() {
        throw new Error('denied');
      },
      setItem() {
        throw new Error('denied');
      },
    };
    const private_ = createVoter({ fetch: fakeServer().fetch, storage: refusing });
    expect(await private_.vote('soft', 'ending')).toEqual({ ok: true, tile: 'soft' });
    expect(private_.device).toBe(CREDENTIAL);
    const offline = createVoter({
      fetch: async () => {
        throw new Error('offline');
      },
      storage: null,
    });
    expect(await offline.vote('soft', 'ending')).toMatchObject({ ok: false });
    expect(voteMessage({ ok: false, code: 'SC_ERR_ADDRESS_LIMIT' })).toMatch(/not counted/);
  });
});

describe('tilesOf', () => {
  it('reads tiles and the open vote window from the cue state', () => {
    const cue = {
      tiles: [
        { id: 'soft', state: 'lit', text: 'soft' },
        { id: 'bright', state: 'lit', text: 'bright' },
      ],
      vote: { id: 'ending', tiles: ['soft', 'bright'], closes: 96 },
    };
    expect(tilesOf(cue)).toEqual({
      tiles: [
        { id: 'soft', state: 'lit', text: 'soft' },
        { id: 'bright', state: 'lit', text: 'bright' },
      ],
      vote: { id: 'ending', tiles: ['soft', 'bright'] },
    });
  });

  it('a vote whose tiles are not on show (opened by the conductor elsewhere in the piece) shows its own tiles', () => {
    const cue = {
      tiles: [
        { id: 't1', state: 'dim' },
        { id: 't2', state: 'dark' },
      ],
      vote: { id: 'ending', tiles: ['soft', 'bright'] },
    };
    expect(tilesOf(cue).tiles).toEqual([
      { id: 'soft', state: 'lit', text: 'soft' },
      { id: 'bright', state: 'lit', text: 'bright' },
    ]);
  });

  it('keeps what it can of a cue from the network: unknown states show dark, broken tiles are left out', () => {
    const cue = {
      tiles: [{ id: 1, state: 'blinding' }, null, { state: 'lit' }, 'x', { id: 't2', state: 'dim', text: 5 }],
      vote: { id: 7 },
    };
    expect(tilesOf(cue)).toEqual({
      tiles: [
        { id: '1', state: 'dark', text: '' },
        { id: 't2', state: 'dim', text: '' },
      ],
      vote: null,
    });
    for (const bad of [undefined, null, 'tiles', { tiles: 'many' }])
      expect(tilesOf(bad)).toEqual({ tiles: [], vote: null });
  });
});

describe('voteMessage', () => {
  it.each([
    [{ ok: true, tile: 'bright' }, 'Your vote: bright. Counted.'],
    [{ ok: true, tile: null }, 'Your vote is taken back. Tap a tile to vote.'],
    [{ ok: false, code: 'SC_ERR_ALREADY_VOTED' }, 'You have already voted in this round.'],
    [{ ok: false, code: 'SC_ERR_NO_VOTE_WINDOW' }, 'Voting has closed.'],
    [{ ok: false, code: 'SC_ERR_RATE_LIMITED' }, 'Too many taps: wait a moment.'],
    [{ ok: false }, 'Your vote did not reach the server. Tap again.'],
  ])('%o -> %s', (answer, text) => {
    expect(voteMessage(answer)).toBe(text);
  });
});

describe('tilesOf: tiles keyed by id', () => {
  it('reads { id: { state, text } } as tiles in key order, dropping removed ones', () => {
    const cue = {
      tiles: { 't1-1': { state: 'lit', text: 'hope' }, 't1-2': { state: 'dim', text: '' }, 't1-3': null },
      vote: { id: 'page-3', tiles: ['t1-1'] },
    };
    expect(tilesOf(cue)).toEqual({
      tiles: [
        { id: 't1-1', state: 'lit', text: 'hope' },
        { id: 't1-2', state: 'dim', text: '' },
      ],
      vote: { id: 'page-3', tiles: ['t1-1'] },
    });
  });
});

describe('tiles that sound, and votes per tile', () => {
  it("keeps ZScore's playing, playing-next and played states", () => {
    const cue = {
      tiles: {
        't1-1': { state: 'played' },
        't1-2': { state: 'playing' },
        't1-3': { state: 'next' },
        't1-4': { state: 'glowing' },
      },
    };
    expect(tilesOf(cue).tiles.map((t) => t.state)).toEqual(['played', 'playing', 'next', 'dark']);
  });

  it("reads the open window's votes per tile, only whole counts above zero", () => {
    expect(voteCounts({ vote: { id: 'w', tiles: ['a', 'b'], counts: { a: 3, b: 0, c: -1, d: 1.5, e: 'x' } } })).toEqual(
      { a: 3 },
    );
    expect(voteCounts({})).toEqual({});
  });
});

describe('the audience view: the closing picture', () => {
  it("shows the phone's selected tiles when no tile is left on the rose (Union Rose's ending)", () => {
    const { document } = new JSDOM('<div id="tiles"></div><p id="vote-status"></p>').window;
    const view = createAudienceView(document, { onVote: () => {} });
    const layout = { rings: 8, slices: 8 };
    view.render({ layout, tiles: { 't1-1': { state: 'lit', text: 'hope' } }, vote: { id: 'page-9', tiles: ['t1-1'] } });
    view.voteAnswer('page-9', { ok: true, tile: 't1-1' });
    // the rows are gone by the end; the closing picture still draws what the phone chose
    view.render({ layout, tiles: {}, showSelected: { at: 770, ms: 36000 } });
    const grid = /** @type {HTMLElement} */ (document.getElementById('tiles'));
    expect(grid.hidden).toBe(false);
    expect(
      [...grid.querySelectorAll('.rose-picture-tile')].map((e) => /** @type {SVGElement} */ (e).dataset.tile),
    ).toEqual(['t1-1']);
  });
});

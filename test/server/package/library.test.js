import { describe, it, expect, afterEach } from 'vitest';
import { copyFileSync, mkdtempSync, mkdirSync, writeFileSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { closeEngraver } from '../../../server/package/engrave/index.js';
import os from 'node:os';
import path from 'node:path';
import { buildApp } from '../../../server/app.js';
import { loadPackage } from '../../../server/package/load.js';

const TOKEN = 'library-token-123';
/** @type {(() => unknown)[]} */
let cleanup = [];
afterEach(async () => {
  for (const f of cleanup.reverse()) await f();
  cleanup = [];
});

/** A scores folder: two packages, a broken one, a folder that is not a package, a stray file. */
async function library() {
  const root = mkdtempSync(path.join(os.tmpdir(), 'sc-library-'));
  cleanup.push(() => rmSync(root, { recursive: true, force: true }));
  const pkg = (/** @type {string} */ name, /** @type {string} */ yaml) => {
    mkdirSync(path.join(root, name));
    writeFileSync(path.join(root, name, 'score.yaml'), yaml);
  };
  pkg('first', 'id: first\ntitle: First\nbars: 4\nmeter: [{ bar: 1, time: "4/4", tempo: 120 }]\n');
  pkg('second', 'id: second\ntitle: Second piece\nbars: 8\nmeter: [{ bar: 1, time: "3/4", tempo: 90 }]\n');
  pkg('broken', 'id: broken\ntitle: Broken\nbars: -3\n');
  mkdirSync(path.join(root, 'notes'));
  writeFileSync(path.join(root, 'README.txt'), 'not a score');
  const score = await loadPackage(path.join(root, 'first'), { cacheDir: path.join(root, '.cache') });
  const built = await buildApp({ score, token: TOKEN, cacheDir: path.join(root, '.cache') });
  cleanup.push(() => built.app.close());
  return { root, ...built };
}

const auth = { authorization: `Bearer ${TOKEN}` };

describe('scores folder', () => {
  it('lists the packages of the scores folder, the playing one marked', async () => {
    const { app } = await library();
    const res = await app.inject({ method: 'GET', url: '/api/scores', headers: auth });
    expect(res.statusCode).toBe(200);
    expect(res.json().scores).toEqual([
      { name: 'broken', id: 'broken', title: 'Broken', current: false },
      { name: 'first', id: 'first', title: 'First', current: true },
      { name: 'second', id: 'second', title: 'Second piece', current: false },
    ]);
  });

  it('loads another score from its start, in a new epoch', async () => {
    const { app, conductor, hub } = await library();
    conductor.play();
    const epoch = hub.epoch;
    const res = await app.inject({ method: 'POST', url: '/api/load', headers: auth, payload: { score: 'second' } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ score: 'second' });
    expect(hub.epoch).not.toBe(epoch);
    expect(conductor.state).toMatchObject({
      transport: 'stopped',
      beat: 0,
      score: { id: 'second', title: 'Second piece' },
      time: [3, 4],
    });
    const score = await app.inject({ method: 'GET', url: '/api/score' });
    expect(score.json()).toMatchObject({ id: 'second', bars: 8 });
    const list = await app.inject({ method: 'GET', url: '/api/scores', headers: auth });
    expect(list.json().scores.find((/** @type {any} */ s) => s.current).name).toBe('second');
  });

  it('a broken package is refused with its problems, and the current score plays on', async () => {
    const { app, conductor } = await library();
    conductor.play();
    const res = await app.inject({ method: 'POST', url: '/api/load', headers: auth, payload: { score: 'broken' } });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject({ code: 'SC_ERR_SCORE_INVALID' });
    expect(res.json().message).toMatch(/bars/);
    expect(conductor.state).toMatchObject({ transport: 'playing', score: { id: 'first' } });
  });

  it.each([
    ['a folder that is not a package', { score: 'notes' }, 404],
    ['a path out of the folder', { score: '../first' }, 404],
    ['an absolute path', { score: '/etc' }, 404],
    ['a file', { score: 'README.txt' }, 404],
    ['no name', {}, 400],
    ['a name of the wrong type', { score: 3 }, 400],
  ])('%s: refused, nothing changes', async (_, payload, status) => {
    const { app, hub } = await library();
    const seq = hub.seq;
    const res = await app.inject({ method: 'POST', url: '/api/load', headers: auth, payload });
    expect(res.statusCode).toBe(status);
    expect(hub.seq).toBe(seq);
  });

  it('needs the token', async () => {
    const { app } = await library();
    expect((await app.inject({ method: 'GET', url: '/api/scores' })).statusCode).toBe(401);
    expect((await app.inject({ method: 'POST', url: '/api/load', payload: { score: 'second' } })).statusCode).toBe(401);
  });
});

describe('a score switched while its parts are being engraved', () => {
  it("drops the first score's late layouts: the score now playing gets only its own", async () => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'sc-library-'));
    cleanup.push(() => rmSync(root, { recursive: true, force: true }));
    cleanup.push(() => closeEngraver());
    // The same notation with its parts the other way round: two scores, two engravings.
    for (const [name, violin, cello] of [
      ['first', 'P1', 'P2'],
      ['second', 'P2', 'P1'],
    ]) {
      mkdirSync(path.join(root, name));
      copyFileSync(
        fileURLToPath(new URL('../../fixtures/notation/duo.musicxml', import.meta.url)),
        path.join(root, name, 'duo.musicxml'),
      );
      writeFileSync(
        path.join(root, name, 'score.yaml'),
        `id: ${name}\ntitle: ${name}\nparts:\n  - { id: violin, source: ${violin} }\n  - { id: cello, source: ${cello} }\nnotation: { file: duo.musicxml }\n`,
      );
    }
    const cacheDir = path.join(root, '.cache');
    const first = await loadPackage(path.join(root, 'first'), { cacheDir, deferLayouts: true });
    expect(first.pendingLayouts).toEqual(['medium', 'narrow']);
    const built = await buildApp({ score: first, token: TOKEN, cacheDir });
    cleanup.push(() => built.app.close());
    const { app } = built;
    const loaded = await app.inject({ method: 'POST', url: '/api/load', headers: auth, payload: { score: 'second' } });
    expect(loaded.statusCode).toBe(200);

    await first.layoutsReady;
    // The first score's layouts went into the first score, which is no longer served.
    const firstNarrow = /** @type {NonNullable<typeof first.views.violin.layouts>} */ (first.views.violin.layouts)[1];
    expect((await app.inject(firstNarrow.pages[0].url)).statusCode).toBe(404);
    const now = (await app.inject('/api/score/views/violin')).json();
    const firstHash = first.views.violin.pages[0].url.split('/')[3];
    expect(now.pages[0].url).not.toContain(firstHash);
    for (const l of now.layouts) expect(l.name === 'page' || !JSON.stringify(l).includes(firstHash)).toBe(true);
    // ... and the second gets its own when they are done.
    for (let i = 0; i < 300 && (await app.inject('/api/score/views/violin')).json().pending; i++)
      await new Promise((r) => setTimeout(r, 100));
    const done = (await app.inject('/api/score/views/violin')).json();
    expect(done.pending).toBeUndefined();
    const narrow = (await app.inject('/api/score/views/violin?layout=narrow')).json();
    expect(narrow.pages[0].url).not.toContain(firstHash);
    expect(narrow.pages[0].url).toContain(now.pages[0].url.split('/')[3]);
    expect((await app.inject(narrow.pages[0].url)).statusCode).toBe(200);
  }, 60_000);
});

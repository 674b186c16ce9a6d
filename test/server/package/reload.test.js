// A score that changes while the server runs is reloaded; a broken one never replaces the score
// that is playing, and the conductor is told what is wrong.

import path from 'node:path';
import os from 'node:os';
import { copyFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, it, expect, afterEach } from 'vitest';
import { buildApp } from '../../../server/app.js';
import { loadPackage } from '../../../server/package/load.js';
import { closeEngraver } from '../../../server/package/engrave/index.js';

const TOKEN = 'reload-token-12345';
const auth = { authorization: `Bearer ${TOKEN}` };

/** @param {string} text */
const manifest = (text) => `id: live
title: Live edit
bars: 8
meter:
  - { bar: 1, time: 4/4, tempo: 600 }
cues:
  - { at: 0, set: { text: "${text}" } }
`;

/** @type {(() => Promise<unknown>)[]} */
let cleanup = [];
afterEach(async () => {
  for (const f of cleanup) await f();
  cleanup = [];
});

/** @param {boolean} watch */
async function setup(watch) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sc-live-'));
  const cacheDir = mkdtempSync(path.join(os.tmpdir(), 'sc-cache-'));
  writeFileSync(path.join(dir, 'score.yaml'), manifest('first'));
  const built = await buildApp({
    score: await loadPackage(dir, { cacheDir }),
    token: TOKEN,
    cacheDir,
    watch,
    autoplay: true,
  });
  cleanup.push(() => built.app.close());
  return { dir, ...built };
}

/** @param {() => boolean} cond */
async function until(cond, ms = 5000) {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('score reload', () => {
  it('a saved edit reloads the score in a new epoch, keeping the position and transport', async () => {
    const { dir, conductor, hub } = await setup(true);
    await until(() => conductor.state.beat >= 3);
    const epoch = hub.epoch;
    writeFileSync(path.join(dir, 'score.yaml'), manifest('second'));
    await until(() => hub.epoch !== epoch);
    expect(conductor.state.cues.audience).toEqual({ text: 'second' });
    expect(conductor.state.transport).toBe('playing');
    expect(conductor.state.beat).toBeGreaterThanOrEqual(3);
    expect(hub.state).toEqual(conductor.state);
  });

  it('a broken edit keeps the playing score and reports the problems to the conductor', async () => {
    const { dir, app, conductor, hub } = await setup(false);
    const epoch = hub.epoch;
    writeFileSync(path.join(dir, 'score.yaml'), `${manifest('x')}  - { at: 99, set: { text: late } }\n`);
    const res = await app.inject({ method: 'POST', url: '/api/reload', headers: auth });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject({ code: 'SC_ERR_SCORE_INVALID' });
    expect(res.json().message).toMatch(/score\.yaml line 8: cues\[1\]: is at beat 99, after the last beat \(31\)/);
    expect(hub.epoch).toBe(epoch);
    expect(conductor.state.cues.audience).toEqual({ text: 'first' });
    const status = (await app.inject({ url: '/api/status', headers: auth })).json();
    expect(status.reload.problems).toEqual([expect.stringMatching(/^score\.yaml line 8: cues\[1\]/)]);
    expect(status.score).toBe('live');

    writeFileSync(path.join(dir, 'score.yaml'), manifest('fixed'));
    const ok = await app.inject({ method: 'POST', url: '/api/reload', headers: auth });
    expect(ok.statusCode).toBe(200);
    expect(ok.json().epoch).not.toBe(epoch);
    expect((await app.inject({ url: '/api/status', headers: auth })).json().reload.problems).toEqual([]);
  });

  it('a score.yaml of 100,000,000 bars is refused with its file, line and field, on reload and under --watch; the server plays on', async () => {
    const { dir, app, conductor, hub } = await setup(true);
    await until(() => conductor.state.beat >= 1);
    const epoch = hub.epoch;
    writeFileSync(path.join(dir, 'score.yaml'), manifest('huge').replace('bars: 8', 'bars: 100000000'));
    // The watcher's reload is refused first; the conductor sees why.
    /** @type {string[]} */
    let problems = [];
    for (let i = 0; i < 100 && problems.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 50));
      problems = (await app.inject({ url: '/api/status', headers: auth })).json().reload.problems;
    }
    expect(problems).toEqual([
      'score.yaml line 3: bars: is 100000000, more than the 10000 bars a package may have; split the piece into movements',
    ]);
    const res = await app.inject({ method: 'POST', url: '/api/reload', headers: auth });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject({ code: 'SC_ERR_SCORE_INVALID' });
    expect(res.json().message).toMatch(
      /\nscore\.yaml line 3: bars: is 100000000, more than the 10000 bars a package may have; split the piece into movements$/,
    );
    expect((await app.inject('/healthz')).json()).toMatchObject({ status: 'ok', epoch });
    expect(conductor.state.cues.audience).toEqual({ text: 'first' });
    const beat = conductor.state.beat;
    await until(() => conductor.state.beat > beat);
  });

  it('reload and status need the conductor token', async () => {
    const { app, hub } = await setup(false);
    const epoch = hub.epoch;
    expect((await app.inject({ method: 'POST', url: '/api/reload' })).statusCode).toBe(401);
    expect(
      (await app.inject({ url: '/api/status', headers: { authorization: 'Bearer nope-nope-nope' } })).statusCode,
    ).toBe(401);
    expect(hub.epoch).toBe(epoch);
  });
});

describe('reload while the parts are being engraved', () => {
  it("a reload keeps playing and the reloaded score gets the parts' layouts when they are done", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'sc-live-'));
    const cacheDir = mkdtempSync(path.join(os.tmpdir(), 'sc-cache-'));
    copyFileSync(
      fileURLToPath(new URL('../../fixtures/notation/duo.musicxml', import.meta.url)),
      path.join(dir, 'duo.musicxml'),
    );
    const yaml = (/** @type {string} */ title) =>
      `id: duo\ntitle: ${title}\nparts:\n  - { id: violin, source: P1 }\n  - { id: cello, source: P2 }\nnotation: { file: duo.musicxml }\n`;
    writeFileSync(path.join(dir, 'score.yaml'), yaml('Duo'));
    const score = await loadPackage(dir, { cacheDir, deferLayouts: true });
    expect(score.pendingLayouts).toEqual(['medium', 'narrow']);
    const { app, conductor } = await buildApp({ score, token: TOKEN, cacheDir, autoplay: true });
    cleanup.push(
      () => app.close(),
      () => closeEngraver(),
    );
    const epoch = conductor.epoch;

    // An edit saved while the layouts are engraved: the same notation, so the same engraving.
    writeFileSync(path.join(dir, 'score.yaml'), yaml('Duo, edited'));
    const res = await app.inject({ method: 'POST', url: '/api/reload', headers: auth });
    expect(res.statusCode, res.body).toBe(200);
    expect(conductor.epoch).not.toBe(epoch);
    expect(conductor.state.transport).toBe('playing');
    const view = async () => (await app.inject('/api/score/views/violin')).json();
    expect((await view()).pending).toEqual(['medium', 'narrow']);

    const end = Date.now() + 30_000;
    while ((await view()).pending && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
    const done = await view();
    expect(done.pending).toBeUndefined();
    expect(done.layouts.map((/** @type {{ name: string }} */ l) => l.name)).toEqual(['page', 'medium', 'narrow']);
    const narrow = (await app.inject('/api/score/views/violin?layout=narrow')).json();
    expect((await app.inject(narrow.pages[0].url)).statusCode).toBe(200);
    expect(conductor.state.score).toMatchObject({ title: 'Duo, edited' });
  }, 60_000);
});

import path from 'node:path';
import os from 'node:os';
import zlib from 'node:zlib';
import { copyFileSync, linkSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, it, expect, afterEach } from 'vitest';
import Fastify from 'fastify';
import { scoreRoutes, pickEncoding } from '../../../server/package/routes.js';
import { packageOf, smallModel } from '../../helpers/fixtures.js';
import { buildScoreModel } from '../../../core/manifest.js';
import { loadPackage } from '../../../server/package/load.js';
import { closeEngraver } from '../../../server/package/engrave/index.js';
import { chooseLayout, layoutsOf } from '../../../core/layout-choice.js';

/** @type {import('fastify').FastifyInstance[]} */
let apps = [];
afterEach(async () => {
  for (const a of apps) await a.close();
  apps = [];
});

function setup() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sc-pages-'));
  const svg = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><g class="note"/></svg>'.repeat(20);
  const file = path.join(dir, 'score-1.svg');
  writeFileSync(file, svg);
  writeFileSync(`${file}.br`, zlib.brotliCompressSync(svg));
  writeFileSync(`${file}.gz`, zlib.gzipSync(svg));
  const pkg = packageOf(smallModel());
  const url = '/scores/fixture/abc123/score-1.svg';
  pkg.files.set(url, {
    file,
    root: dir,
    type: 'image/svg+xml',
    etag: 'abc123-score-1',
    br: `${file}.br`,
    gz: `${file}.gz`,
  });
  pkg.views.score = { pages: [{ url, width: 10, height: 10 }], beats: [] };
  const app = Fastify();
  scoreRoutes(app, { current: () => pkg });
  apps.push(app);
  return { app, url, svg, pkg };
}

/**
 * An engraved part `violin`: the A4 pages and a narrow layout, as the engraver lists them.
 * @param {ReturnType<typeof setup>['pkg']} pkg
 * @param {string} url  a page the package serves
 */
function engravedViolin(pkg, url) {
  const beat = { beat: 0, page: 0, system: 0, bar: 1, x0: 1, x1: 2, y0: 3, y1: 4 };
  const ink = [{ page: 0, system: 0, top: 1, bottom: 6 }];
  pkg.views.violin = {
    pages: [{ url, width: 2100, height: 2970 }],
    beats: [beat],
    staff: 72,
    ink,
    layouts: [
      {
        name: 'narrow',
        staff: 72,
        ink,
        pages: [{ url: `${url}?n`, width: 600, height: 2970 }],
        beats: [{ ...beat, x0: 5 }],
      },
    ],
  };
  return { beat, ink };
}

describe('score routes', () => {
  it('sends precompressed SVG by Accept-Encoding, with immutable caching', async () => {
    const { app, url, svg } = setup();
    const br = await app.inject({ url, headers: { 'accept-encoding': 'gzip, deflate, br' } });
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers.vary).toBe('accept-encoding');
    expect(br.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(zlib.brotliDecompressSync(br.rawPayload).toString()).toBe(svg);
    const gz = await app.inject({ url, headers: { 'accept-encoding': 'gzip' } });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(zlib.gunzipSync(gz.rawPayload).toString()).toBe(svg);
    const plain = await app.inject({ url, headers: { 'accept-encoding': 'identity' } });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body).toBe(svg);
  });

  it('sends the cleaned copy of a page, never the file it came from', async () => {
    const { app, url } = setup();
    const pkg = packageOf(smallModel());
    const served = /** @type {import('../../../server/package/load.js').ServedFile} */ ({
      file: '/etc/hostname',
      type: 'image/svg+xml',
      etag: 'clean',
      body: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'),
    });
    pkg.files.set(url, served);
    const other = Fastify();
    scoreRoutes(other, { current: () => pkg });
    apps.push(other);
    const res = await other.inject({ url, headers: { 'accept-encoding': 'br' } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.body).toBe('<svg xmlns="http://www.w3.org/2000/svg"/>');
    expect((await app.inject(url)).statusCode).toBe(200);
  });

  it("answers a media element's Range and HEAD on a package file with its length (Safari needs 206)", async () => {
    const { app, url, svg } = setup();
    const part = await app.inject({ url, headers: { range: 'bytes=0-9', 'accept-encoding': 'identity' } });
    expect(part.statusCode).toBe(206);
    expect(part.headers['content-range']).toBe(`bytes 0-9/${svg.length}`);
    expect(part.body).toBe(svg.slice(0, 10));
    const head = await app.inject({ method: 'HEAD', url, headers: { 'accept-encoding': 'identity' } });
    expect(head.statusCode).toBe(200);
    expect(head.headers['content-length']).toBe(String(svg.length));
    expect(head.rawPayload.length).toBe(0);
    expect((await app.inject({ method: 'HEAD', url: '/scores/fixture/abc123/nothing.svg' })).statusCode).toBe(404);
  });

  it('describes the pages and beat map of a view', async () => {
    const { app, url } = setup();
    expect((await app.inject('/api/score/views/score')).json()).toEqual({
      pages: [{ url, width: 10, height: 10 }],
      beats: [],
    });
    // A view of the score without notation has nothing to draw; an unknown view is not found.
    const audience = await app.inject('/api/score/views/audience');
    expect(audience.statusCode).toBe(204);
    expect(audience.body).toBe('');
    expect((await app.inject('/api/score/views/nobody')).statusCode).toBe(404);
    expect((await app.inject('/api/score/views/__proto__')).statusCode).toBe(404);
  });

  it("sends a view's notation compressed by Accept-Encoding, revalidated by its ETag, and a reloaded view's anew", async () => {
    const { app, pkg } = setup();
    const beats = Array.from({ length: 200 }, (_, i) => ({
      beat: i,
      page: 0,
      system: 0,
      bar: 1 + (i >> 2),
      x0: i,
      x1: i + 1,
      y0: 3,
      y1: 4,
    }));
    pkg.views.score = { pages: [{ url: '/scores/fixture/abc123/score-1.svg', width: 10, height: 10 }], beats };
    const plain = await app.inject('/api/score/views/score');
    const text = plain.body;
    expect(plain.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(plain.headers['cache-control']).toBe('no-cache');
    expect(JSON.parse(text)).toEqual(pkg.views.score);
    const br = await app.inject({ url: '/api/score/views/score', headers: { 'accept-encoding': 'br, gzip' } });
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers.vary).toMatch(/accept-encoding/i);
    expect(zlib.brotliDecompressSync(br.rawPayload).toString()).toBe(text);
    expect(br.rawPayload.length).toBeLessThan(text.length / 4);
    const again = await app.inject({
      url: '/api/score/views/score',
      headers: { 'accept-encoding': 'br, gzip', 'if-none-match': String(br.headers.etag) },
    });
    expect(again.statusCode).toBe(304);
    // A reload puts a new view in place: its answer is its own, and the old ETag no longer matches.
    pkg.views.score = { ...pkg.views.score, beats: beats.slice(0, 100) };
    const reloaded = await app.inject({
      url: '/api/score/views/score',
      headers: { 'accept-encoding': 'br, gzip', 'if-none-match': String(br.headers.etag) },
    });
    expect(reloaded.statusCode).toBe(200);
    expect(JSON.parse(zlib.brotliDecompressSync(reloaded.rawPayload).toString()).beats).toHaveLength(100);
  });

  it("lists an engraved part's layouts and serves each by ?layout=, with the list", async () => {
    const { app, url, pkg } = setup();
    const { beat, ink } = engravedViolin(pkg, url);
    const layouts = [
      { name: 'page', staff: 72, width: 2100, url: '/api/score/views/violin' },
      { name: 'narrow', staff: 72, width: 600, url: '/api/score/views/violin?layout=narrow' },
    ];
    expect((await app.inject('/api/score/views/violin')).json()).toEqual({
      pages: pkg.views.violin.pages,
      beats: [beat],
      staff: 72,
      ink,
      layout: 'page',
      layouts,
    });
    const narrow = (await app.inject(layouts[1].url)).json();
    expect(narrow).toEqual({
      pages: [{ url: `${url}?n`, width: 600, height: 2970 }],
      beats: [{ ...beat, x0: 5 }],
      staff: 72,
      ink,
      layout: 'narrow',
      layouts,
    });
    const unknown = await app.inject('/api/score/views/violin?layout=huge');
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().message).toContain('page, narrow');
    expect((await app.inject('/api/score/views/score?layout=narrow')).statusCode).toBe(404);
  });

  it('answers ?width= with the layout a part view that wide chooses (core/layout-choice.js), as ?layout= serves it', async () => {
    const { app, url, pkg } = setup();
    engravedViolin(pkg, url);
    // A phone in portrait: a pane 358 CSS px across.
    const phone = await app.inject('/api/score/views/violin?width=358');
    const narrow = await app.inject('/api/score/views/violin?layout=narrow');
    expect(phone.statusCode).toBe(200);
    expect(phone.json()).toEqual(narrow.json());
    expect(phone.headers.etag).toBe(narrow.headers.etag);
    for (const width of [1, 200, 358, 590, 1000, 1248, 10_000]) {
      const answer = (await app.inject(`/api/score/views/violin?width=${width}`)).json();
      expect(answer.layout, `at ${width} px`).toBe(chooseLayout(layoutsOf(answer), width)?.name);
    }
    expect((await app.inject('/api/score/views/violin?width=1248')).json().layout).toBe('page');
    // A layout asked for by name wins (a page drew it last at this width).
    expect((await app.inject('/api/score/views/violin?layout=page&width=358')).json().layout).toBe('page');
    // A view with one layout, and a video part, have nothing to choose: the answer without it.
    const video = {
      url: '/scores/fixture/film.webm',
      type: 'video/webm',
      width: 640,
      height: 360,
      duration: 60,
      start: 0,
    };
    pkg.videos = { film: { video, tempo: [] } };
    for (const view of ['score', 'film']) {
      const plain = await app.inject(`/api/score/views/${view}`);
      const wide = await app.inject(`/api/score/views/${view}?width=358`);
      expect(wide.statusCode, view).toBe(200);
      expect(wide.json(), view).toEqual(plain.json());
    }
    // A view of the score without notation (the audience's): no content, as without it.
    expect((await app.inject('/api/score/views/audience?width=358')).statusCode).toBe(204);
  });

  it.each(['0', '-1', '3.5', '1e3', '10001', '0x10', 'wide', '358&width=400'])(
    'refuses ?width=%s with 400 SC_ERR_BAD_QUERY, on any view',
    async (width) => {
      const { app, url, pkg } = setup();
      engravedViolin(pkg, url);
      for (const view of ['violin', 'score']) {
        const res = await app.inject(`/api/score/views/${view}?width=${width}`);
        expect(res.statusCode, view).toBe(400);
        expect(res.json()).toMatchObject({ code: 'SC_ERR_BAD_QUERY' });
        expect(res.json().message).toContain('width');
      }
    },
  );

  it.each([
    ['gzip, deflate, br', 'br'],
    ['br;q=0.5, gzip', 'gzip'],
    ['gzip;q=0, br;q=0', null],
    ['*', 'br'],
    ['identity', null],
    [undefined, null],
  ])('Accept-Encoding %s picks %s', (header, expected) => {
    expect(pickEncoding(header)).toBe(expected);
  });
});

describe('layouts engraved after the rest', () => {
  it("says which of a part's layouts are pending, then lists and serves them once engraved", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'sc-pending-'));
    copyFileSync(
      fileURLToPath(new URL('../../fixtures/notation/duo.musicxml', import.meta.url)),
      path.join(dir, 'duo.musicxml'),
    );
    writeFileSync(
      path.join(dir, 'score.yaml'),
      'id: duo\ntitle: Duo\nparts:\n  - { id: violin, source: P1 }\n  - { id: cello, source: P2 }\nnotation: { file: duo.musicxml }\n',
    );
    const pkg = await loadPackage(dir, { cacheDir: path.join(dir, '.cache'), deferLayouts: true });
    const app = Fastify();
    scoreRoutes(app, { current: () => pkg });
    apps.push(app);
    try {
      expect(pkg.pendingLayouts).toEqual(['medium', 'narrow']);
      const before = (await app.inject('/api/score/views/violin')).json();
      expect(before).toMatchObject({
        layout: 'page',
        layouts: [{ name: 'page', staff: 72, width: 2100, url: '/api/score/views/violin' }],
        pending: ['medium', 'narrow'],
        retryMs: expect.any(Number),
      });
      expect(before.layouts).toHaveLength(1);
      // A phone's width meanwhile: the best layout there is, saying the others are to come.
      expect((await app.inject('/api/score/views/violin?width=358')).json()).toEqual(before);
      const early = await app.inject('/api/score/views/violin?layout=narrow');
      expect(early.statusCode).toBe(404);
      expect(early.json().message).toContain('still being engraved');
      // The full score has one layout: nothing pending there.
      expect((await app.inject('/api/score/views/score')).json().pending).toBeUndefined();

      await pkg.layoutsReady;
      expect(pkg.pendingLayouts).toEqual([]);
      const after = (await app.inject('/api/score/views/violin')).json();
      expect(after.pending).toBeUndefined();
      expect(after.layouts.map((/** @type {{ name: string }} */ l) => l.name)).toEqual(['page', 'medium', 'narrow']);
      const narrow = (await app.inject('/api/score/views/violin?layout=narrow')).json();
      expect((await app.inject('/api/score/views/violin?width=358')).json()).toEqual(narrow);
      expect(narrow.pages[0].width).toBe(600);
      expect(narrow.beats).toHaveLength(before.beats.length);
      const page = await app.inject({ url: narrow.pages[0].url, headers: { 'accept-encoding': 'br' } });
      expect(page.statusCode).toBe(200);
      expect(zlib.brotliDecompressSync(page.rawPayload).toString()).toContain('<svg');
    } finally {
      await closeEngraver();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('score timeline', () => {
  it("lays out bars, meter and tempo changes and cues for the preview's scrubber", async () => {
    const built = buildScoreModel({
      id: 'tl',
      title: 'Timeline',
      bars: 4,
      parts: [{ id: 'vn', name: 'Violin' }],
      meter: [
        { bar: 1, time: '4/4', tempo: 96 },
        { bar: 3, time: '3/4' },
        { bar: 4, tempo: 72 },
      ],
      cues: [
        { bar: 1, set: { text: 'Listen' } },
        { bar: 2, set: { tiles: [{ id: 'a', state: 'lit' }] } },
        { bar: 2, view: 'vn', set: { text: 'x'.repeat(100) } },
        { bar: 3, audio: 'bell.wav' },
        { bar: 3, vote: { id: 'end', tiles: ['a', 'b'], close: { bar: 4, beat: 2 } } },
      ],
    });
    if (!built.ok) throw new Error(JSON.stringify(built.problems));
    const app = Fastify();
    scoreRoutes(app, { current: () => packageOf(built.value) });
    apps.push(app);
    const t = (await app.inject('/api/score/timeline')).json();
    expect(t.beats).toBe(14);
    expect(t.bars).toEqual([
      { bar: 1, beat: 0, time: '4/4' },
      { bar: 2, beat: 4 },
      { bar: 3, beat: 8, time: '3/4' },
      { bar: 4, beat: 11 },
    ]);
    expect(t.tempo).toEqual([
      { beat: 0, bpm: 96 },
      { beat: 11, bpm: 72 },
    ]);
    expect(t.cues).toEqual([
      { beat: 0, view: 'audience', kind: 'set', text: 'Listen' },
      { beat: 4, view: 'audience', kind: 'set' },
      { beat: 4, view: 'vn', kind: 'set', text: 'x'.repeat(60) },
      { beat: 8, view: 'audience', kind: 'audio' },
      { beat: 8, view: 'audience', kind: 'vote', close: 12 },
    ]);
    // Not part of /api/score, which every phone loads.
    expect((await app.inject('/api/score')).json().timeline).toBeUndefined();
  });
});

describe('score files never leave their folder', () => {
  it('refuses a file that became a link since the load, and a hard link, answering 404', async () => {
    const { app, url, svg, pkg } = setup();
    const pkgFile = path.join(mkdtempSync(path.join(os.tmpdir(), 'sc-secret-')), 'passwd');
    writeFileSync(pkgFile, 'root:x:0:0:secret\n');
    const plain = await app.inject({ url, headers: { 'accept-encoding': 'identity' } });
    expect(plain.body).toBe(svg);
    // The loader listed <dir>/score-1.svg; replace it (and its variants) with links out.
    const served = /** @type {import('../../../server/package/load.js').ServedFile} */ (pkg.files.get(url));
    for (const f of [served.file, `${served.file}.br`, `${served.file}.gz`]) {
      rmSync(f);
      symlinkSync(pkgFile, f);
    }
    for (const enc of ['identity', 'br', 'gzip']) {
      const res = await app.inject({ url, headers: { 'accept-encoding': enc } });
      expect(res.statusCode, enc).toBe(404);
      expect(res.body).not.toContain('secret');
    }
    for (const f of [served.file, `${served.file}.br`, `${served.file}.gz`]) {
      rmSync(f);
      linkSync(pkgFile, f);
    }
    expect((await app.inject({ url, headers: { 'accept-encoding': 'identity' } })).statusCode).toBe(404);
  });
});

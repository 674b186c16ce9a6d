// The open form over HTTP (open-form-routes.js): the offer for every page, the console's and the
// parts' choices and claims with the conductor's token, and every kind of bad input refused with
// the catalogue's code, changing nothing.

import QRCode from 'qrcode';
import { describe, it, expect, afterEach } from 'vitest';
import { buildApp } from '../../../server/app.js';
import { openFormModel, packageOf, smallModel } from '../../helpers/fixtures.js';
import { createMemoryBus } from '../../../server/live/bus.js';

const TOKEN = 'right-token-123456';
/** @type {Awaited<ReturnType<typeof buildApp>>[]} */
let apps = [];
afterEach(async () => {
  for (const a of apps) await a.app.close();
  apps = [];
});

async function build(model = openFormModel()) {
  const bus = createMemoryBus();
  /** @type {unknown[]} */
  const patches = [];
  bus.subscribe((change) => patches.push(change.patch));
  const built = await buildApp({ score: packageOf(model), token: TOKEN, bus });
  apps.push(built);
  return { ...built, patches };
}

/**
 * @param {import('fastify').FastifyInstance} app
 * @param {string} path
 * @param {unknown} body
 * @param {string | null} [token]
 */
function post(app, path, body, token = TOKEN) {
  return app.inject({
    method: 'POST',
    url: `/api/section/${path}`,
    headers: token === null ? {} : { authorization: `Bearer ${token}` },
    payload: /** @type {any} */ (body),
  });
}

describe('open form routes', () => {
  it('GET /api/section: the offer, the order taken and the sections, for anyone', async () => {
    const { app } = await build();
    const res = await app.inject({ method: 'GET', url: '/api/section' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      round: 0,
      section: 'intro',
      chooser: 'conductor',
      options: [
        { id: 'pitch', name: 'Pitch' },
        { id: 'rhythm', name: 'Rhythm' },
      ],
      chosen: null,
      order: [{ section: 'intro', by: 'start' }],
      ended: false,
      sections: [
        { id: 'intro', name: 'Intro', first: 0, endsAt: 8 },
        { id: 'pitch', name: 'Pitch', first: 8, endsAt: 24 },
        { id: 'rhythm', name: 'Rhythm', first: 24, endsAt: 48 },
      ],
    });
  });

  it("the console chooses: every page sees it in the state's section, in one small patch", async () => {
    const { app, hub, conductor, patches } = await build();
    const seq = hub.seq;
    const res = await post(app, 'choose', { section: 'rhythm', round: 0 });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ chosen: { section: 'rhythm', by: 'conductor' } });
    expect(hub.seq).toBe(seq + 1);
    expect(/** @type {any} */ (conductor.state).section.chosen).toEqual({ section: 'rhythm', by: 'conductor' });
    expect(patches.at(-1)).toEqual({ section: { chosen: { section: 'rhythm', by: 'conductor' } } });
  });

  it('a part chooses when the offer names it, and claims a first-come choice', async () => {
    const { app, conductor } = await build();
    conductor.seek(8); // pitch: the violin chooses
    const cello = await post(app, 'choose', { section: 'end', round: 1, part: 'cello' });
    expect(cello.statusCode).toBe(409);
    expect(cello.json()).toMatchObject({
      code: 'SC_ERR_SECTION_REFUSED',
      message: expect.stringContaining('the part violin chooses what follows "pitch"'),
    });
    const violin = await post(app, 'choose', { section: 'end', round: 1, part: 'violin' });
    expect(violin.json()).toMatchObject({ chosen: { section: 'end', by: 'part:violin' } });
    conductor.seek(24); // rhythm: first come
    expect((await post(app, 'claim', { part: 'cello', round: 2 })).json()).toMatchObject({ claimedBy: 'cello' });
    const late = await post(app, 'claim', { part: 'violin', round: 2 });
    expect(late.statusCode).toBe(409);
    expect(late.json().message).toContain('the part cello claimed it first');
  });

  it('refuses without the token, changing nothing', async () => {
    const { app, hub } = await build();
    const seq = hub.seq;
    for (const token of [null, 'wrong-token-123456']) {
      expect((await post(app, 'choose', { section: 'pitch', round: 0 }, token)).statusCode).toBe(401);
      expect((await post(app, 'claim', { part: 'violin', round: 0 }, token)).statusCode).toBe(401);
    }
    expect(hub.seq).toBe(seq);
  });

  it.each([
    ['a body that is not an object', 'choose', [1, 2], 400, 'SC_ERR_BAD_CONTROL', 'the body must be a JSON object'],
    ['a section that is a number', 'choose', { section: 2, round: 0 }, 400, 'SC_ERR_BAD_CONTROL', 'choose needs'],
    ['a round that is text', 'choose', { section: 'pitch', round: '0' }, 400, 'SC_ERR_BAD_CONTROL', 'round must be'],
    ['a negative round', 'choose', { section: 'pitch', round: -1 }, 400, 'SC_ERR_BAD_CONTROL', 'round must be'],
    [
      'an unknown section',
      'choose',
      { section: 'coda', round: 0 },
      400,
      'SC_ERR_BAD_CONTROL',
      '"coda" is not a section of this score (intro, pitch, rhythm, or "end")',
    ],
    [
      'a section that may not follow',
      'choose',
      { section: 'end', round: 0 },
      409,
      'SC_ERR_SECTION_REFUSED',
      '"end" may not follow "intro"; choose one of pitch, rhythm',
    ],
    ['an unknown part', 'choose', { section: 'pitch', round: 0, part: 'oboe' }, 400, 'SC_ERR_BAD_CONTROL', 'part must'],
    ['a part that is a number', 'claim', { part: 3, round: 0 }, 400, 'SC_ERR_BAD_CONTROL', 'part must be one of'],
    [
      'a round still to come',
      'choose',
      { section: 'pitch', round: 1 },
      409,
      'SC_ERR_SECTION_REFUSED',
      'the offer of round 1 has passed; the choice now is for round 0',
    ],
    [
      'a claim where the conductor chooses',
      'claim',
      { part: 'violin', round: 0 },
      409,
      'SC_ERR_SECTION_REFUSED',
      'this section has no choice to claim',
    ],
  ])('refuses %s, changing nothing', async (_, path, body, status, code, message) => {
    const { app, hub } = await build();
    const seq = hub.seq;
    const res = await post(app, path, body);
    expect(res.statusCode).toBe(status);
    expect(res.json()).toMatchObject({ code });
    expect(res.json().message).toContain(message);
    expect(hub.seq).toBe(seq);
  });

  it("refuses a choice out of its window: the offer's round has passed once the section ended", async () => {
    const { app, conductor } = await build();
    conductor.seek(8); // a new section, round 1: the intro's offer (round 0) is gone
    const res = await post(app, 'choose', { section: 'rhythm', round: 0 });
    expect(res.statusCode).toBe(409);
    expect(res.json().message).toContain('the offer of round 0 has passed; the choice now is for round 1');
    expect(/** @type {any} */ (conductor.state).section.chosen).toBe(undefined);
  });

  it('a score without openForm answers 409 SC_ERR_SECTION_REFUSED, and has no section in its state', async () => {
    const { app, conductor } = await build(smallModel());
    const get = await app.inject({ method: 'GET', url: '/api/section' });
    expect(get.statusCode).toBe(409);
    expect(get.json()).toMatchObject({
      code: 'SC_ERR_SECTION_REFUSED',
      message: expect.stringContaining('no open form'),
    });
    expect((await post(app, 'choose', { section: 'a', round: 0 })).statusCode).toBe(409);
    expect('section' in conductor.state).toBe(false);
  });
});

describe('part keys: a tablet chooses for its own part', () => {
  /**
   * @param {import('fastify').FastifyInstance} app
   * @param {string} path
   * @param {unknown} body
   * @param {string} key
   */
  const withKey = (app, path, body, key) =>
    app.inject({
      method: 'POST',
      url: `/api/section/${path}`,
      headers: { authorization: `Part ${key}` },
      payload: /** @type {any} */ (body),
    });

  it('the console hands out a part’s key and its link; without the token, nobody', async () => {
    const { app } = await build();
    const res = await app.inject({
      method: 'GET',
      url: '/api/part-key/violin',
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(res.statusCode).toBe(200);
    const { part, key, url } = res.json();
    expect(part).toBe('violin');
    expect(key).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(url).toBe(`/view/violin#key=${key}`);
    // The whole address, by the host the console reached, and its QR code drawn here.
    const { link, qr } = res.json();
    expect(link).toBe(`http://localhost:80/view/violin#key=${key}`);
    expect(qr.startsWith('data:image/svg+xml;base64,')).toBe(true);
    const svg = Buffer.from(qr.slice(qr.indexOf(',') + 1), 'base64').toString();
    expect(svg).toBe(await QRCode.toString(link, { type: 'svg', margin: 2, errorCorrectionLevel: 'M' }));
    expect(svg).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    const other = await app.inject({
      method: 'GET',
      url: '/api/part-key/violin',
      headers: { authorization: `Bearer ${TOKEN}`, host: 'score.venue.test:8080' },
    });
    expect(other.json().link).toBe(`http://score.venue.test:8080/view/violin#key=${key}`);
    expect(other.json().qr).not.toBe(qr);
    expect((await app.inject({ method: 'GET', url: '/api/part-key/violin' })).statusCode).toBe(401);
    const bad = await app.inject({
      method: 'GET',
      url: '/api/part-key/oboe',
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().code).toBe('SC_ERR_BAD_CONTROL');
  });

  it('a part’s key chooses and claims for that part, and for no other', async () => {
    const { app, conductor } = await build();
    const key = async (/** @type {string} */ p) =>
      (
        await app.inject({ method: 'GET', url: `/api/part-key/${p}`, headers: { authorization: `Bearer ${TOKEN}` } })
      ).json().key;
    const violin = await key('violin');
    const cello = await key('cello');
    // the intro is the conductor's to choose: the key passes, the offer refuses
    const intro = await withKey(app, 'choose', { section: 'pitch', round: 0, part: 'violin' }, violin);
    expect(intro.statusCode).toBe(409);
    expect(intro.json().code).toBe('SC_ERR_SECTION_REFUSED');
    await post(app, 'choose', { section: 'pitch', round: 0 });
    conductor.seek(8);
    // pitch: the violin chooses; the cello's key cannot choose as the violin
    const pretend = await withKey(app, 'choose', { section: 'end', round: 1, part: 'violin' }, cello);
    expect(pretend.statusCode).toBe(401);
    expect(pretend.json()).toMatchObject({
      code: 'SC_ERR_UNAUTHORIZED',
      message: expect.stringMatching(/not the key of the part violin/),
    });
    const noPart = await withKey(app, 'choose', { section: 'end', round: 1 }, violin);
    expect(noPart.statusCode).toBe(401);
    expect(noPart.json().message).toMatch(/send part/);
    const made = await withKey(app, 'choose', { section: 'rhythm', round: 1, part: 'violin' }, violin);
    expect(made.statusCode).toBe(200);
    expect(made.json().chosen).toEqual({ section: 'rhythm', by: 'part:violin' });
    conductor.seek(24);
    // rhythm: first to claim; the cello's key claims for the cello
    const claimed = await withKey(app, 'claim', { part: 'cello', round: 2 }, cello);
    expect(claimed.statusCode).toBe(200);
    expect(claimed.json().claimedBy).toBe('cello');
  });

  it('wrong keys count against the address’s sign-in budget', async () => {
    const { app } = await build();
    const codes = [];
    for (let k = 0; k < 7; k++)
      codes.push(
        (await withKey(app, 'choose', { section: 'end', round: 0, part: 'violin' }, 'A'.repeat(22))).statusCode,
      );
    expect(codes.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
    expect(codes.at(-1)).toBe(429);
  });
});

// Votes from the audience reach the tally, over WebSocket and over HTTP (SSE and polling
// clients), with the same rules and errors.

import { describe, it, expect, afterEach } from 'vitest';
import { buildApp } from '../../server/app.js';
import { buildScoreModel } from '../../core/manifest.js';
import { fakeLink, packageOf } from '../helpers/fixtures.js';

const TOKEN = 'tap-token-123456';
/** @type {import('fastify').FastifyInstance[]} */
let apps = [];
afterEach(async () => { for (const a of apps) await a.close(); apps = []; });

async function setup() {
  const r = buildScoreModel({
    id: 'votes', title: 'Votes', bars: 4, meter: [{ bar: 1, time: '4/4', tempo: 60 }],
    cues: [{ bar: 2, vote: { id: 'choice', tiles: ['left', 'right'], close: { bar: 4 } } }],
  });
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  const built = await buildApp({ score: packageOf(r.value), token: TOKEN });
  apps.push(built.app);
  return built;
}

/** @param {import('fastify').FastifyInstance} app @param {object} body */
const tap = (app, body) => app.inject({ method: 'POST', url: '/api/tap', payload: body });

describe('taps and votes', () => {
  it('HTTP taps count in the open window; the tally is for the conductor only', async () => {
    const { app, conductor } = await setup();
    expect((await tap(app, { tile: 'left', device: 'phone-0001' })).json()).toMatchObject({ code: 'SC_ERR_NO_VOTE_WINDOW' });
    conductor.seek(conductor.beatOf(2));
    const ok = await tap(app, { tile: 'left', device: 'phone-0001' });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toEqual({ type: 'voted', window: 'choice', tile: 'left' });
    const again = await tap(app, { tile: 'right', device: 'phone-0001' });
    expect(again.statusCode).toBe(409);
    expect(again.json().code).toBe('SC_ERR_ALREADY_VOTED');
    expect((await tap(app, { tile: 'middle', device: 'phone-0002' })).json().code).toBe('SC_ERR_UNKNOWN_TILE');
    expect((await tap(app, { tile: { x: 1 }, device: 'phone-0002' })).json().code).toBe('SC_ERR_BAD_MESSAGE');
    expect((await app.inject({ url: '/api/votes' })).statusCode).toBe(401);
    const votes = (await app.inject({ url: '/api/votes', headers: { authorization: `Bearer ${TOKEN}` } })).json();
    expect(votes.open).toMatchObject({ id: 'choice', tally: { left: 1, right: 0 } });
  });

  it('HTTP taps from one address are rate-limited', async () => {
    const { app, conductor } = await setup();
    conductor.seek(conductor.beatOf(2));
    const codes = [];
    for (let i = 0; i < 60; i++) codes.push((await tap(app, { tile: 'left', device: `phone-${String(i).padStart(4, '0')}` })).statusCode);
    expect(codes.filter((c) => c === 200).length).toBeLessThanOrEqual(45);
    expect(codes).toContain(429);
  });

  it('WebSocket taps get voted or an error, on the sender only', async () => {
    const { conductor, hub } = await setup();
    conductor.seek(conductor.beatOf(2));
    const voter = fakeLink();
    const other = fakeLink();
    const session = hub.attach(voter, { epoch: null, seq: 0 });
    hub.attach(other, { epoch: null, seq: 0 });
    session.receive('{"type":"tap","tile":"right","device":"tablet-0001"}', false);
    session.receive('{"type":"tap","tile":"right","device":"tablet-0001"}', false);
    expect(voter.messages.slice(-2).map((m) => m.type === 'voted' ? `voted ${m.window} ${m.tile}` : m.code))
      .toEqual(['voted choice right', 'SC_ERR_ALREADY_VOTED']);
    expect(other.messages.some((m) => m.type === 'voted' || m.type === 'error')).toBe(false);
    expect(conductor.votes().open?.tally).toEqual({ left: 0, right: 1 });
  });
});

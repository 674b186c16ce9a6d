// The roster over the wire: GET /api/roster and the actions need the token; devices report over
// WebSocket and POST /api/report, bad reports are refused with their codes; an action reaches its
// device on its link and a device gone answers 404 SC_ERR_NO_DEVICE; play when ready waits (on a
// cluster node, for the parts on every node).

import { describe, it, expect } from 'vitest';
import WebSocket from 'ws';
import { buildApp } from '../../../server/app.js';
import { buildScoreModel } from '../../../core/manifest.js';
import { packageOf, deviceStatus } from '../../helpers/fixtures.js';
import { useServers, TOKEN } from '../../helpers/server.js';
import { fakeRedis } from '../../helpers/fake-redis.js';
import { createRoster } from '../../../server/live/roster.js';
import { createClusterRoster } from '../../../server/cluster/cluster-roster.js';
import { clusterKey, createSeal } from '../../../server/cluster/seal.js';

const servers = useServers();
const auth = { authorization: `Bearer ${TOKEN}` };
const json = { 'content-type': 'application/json' };

/** @param {Partial<import('../../../server/app.js').AppOptions>} [options] */
async function server(options = {}) {
  const r = buildScoreModel({
    id: 'rtest',
    title: 'Roster',
    bars: 8,
    parts: [
      { id: 'violin', name: 'Violin' },
      { id: 'cello', name: 'Cello' },
    ],
    meter: [{ bar: 1, time: '4/4', tempo: 120 }],
    cues: [],
  });
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  const { app, hub } = await buildApp({ score: packageOf(r.value), token: TOKEN, ...options });
  await app.listen({ port: 0, host: '127.0.0.1' });
  servers.defer(() => app.close());
  const { port } = /** @type {import('node:net').AddressInfo} */ (app.server.address());
  const base = `http://127.0.0.1:${port}`;
  return { base, wsBase: base.replace('http', 'ws'), hub };
}

/** A WebSocket client that keeps what it is sent. @param {string} url */
async function device(url) {
  const ws = new WebSocket(url);
  servers.defer(() => ws.terminate());
  /** @type {any[]} */
  const got = [];
  ws.on('message', (m) => got.push(JSON.parse(String(m))));
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  return { ws, got };
}

/** @param {string} base */
const roster = async (base) => (await fetch(`${base}/api/roster`, { headers: auth })).json();

/**
 * Play when ready on `s`, with the violin's device on `s` and the cello's reported by `cello`
 * (its audio locked, then unlocked): once the roster lists both (`listed` gives `expected`), the
 * play waits, shown in the roster, the performance stopped; both heard again with the cello's
 * audio unlocked, it plays. Returns the play's answer.
 * @param {Awaited<ReturnType<typeof server>>} s
 * @param {{ cello: (audio: boolean) => void, listed: (r: any) => unknown, expected: unknown }} o
 */
async function playsWhenReady(s, { cello, listed, expected }) {
  const v = await device(`${s.wsBase}/live?view=violin`);
  const violin = () => v.ws.send(JSON.stringify({ type: 'report', device: deviceStatus({ id: 'dv' }) }));
  violin();
  cello(false);
  await expect.poll(async () => listed(await roster(s.base))).toEqual(expected);
  const played = fetch(`${s.base}/api/control/play`, {
    method: 'POST',
    headers: { ...auth, ...json },
    body: JSON.stringify({ whenReady: true, timeoutMs: 20_000 }),
  });
  await expect.poll(async () => (await roster(s.base)).waiting).not.toBeNull();
  expect(s.hub.state.playback).toBe('stopped');
  await new Promise((r) => setTimeout(r, 450));
  // Both heard again now: a part device unheard for 1.5 s is silent, and not ready.
  violin();
  cello(true);
  const res = await played;
  expect(res.status).toBe(200);
  return res.json();
}

describe('GET /api/roster and POST /api/roster/:device/:action', () => {
  it('need the token: 401 without it or with a wrong one', async () => {
    const s = await server();
    expect((await fetch(`${s.base}/api/roster`)).status).toBe(401);
    const wrong = await fetch(`${s.base}/api/roster`, { headers: { authorization: 'Bearer nope' } });
    expect(wrong.status).toBe(401);
    expect((await wrong.json()).code).toBe('SC_ERR_UNAUTHORIZED');
    expect((await fetch(`${s.base}/api/roster/all/reload`, { method: 'POST' })).status).toBe(401);
  });

  it('lists a part device reporting over WebSocket, flags the part with none, and its action reaches it alone', async () => {
    const s = await server();
    const a = await device(`${s.wsBase}/live?view=violin`);
    const b = await device(`${s.wsBase}/live?view=audience`);
    a.ws.send(
      JSON.stringify({ type: 'report', device: deviceStatus({ id: 'dviolin', epoch: s.hub.epoch, seq: s.hub.seq }) }),
    );
    b.ws.send(JSON.stringify({ type: 'report', push: [3], device: deviceStatus({ id: 'dphone', name: '' }) }));
    await expect.poll(async () => (await roster(s.base)).devices.length).toBe(1);
    const r = await roster(s.base);
    expect(r.devices[0]).toMatchObject({ id: 'dviolin', view: 'violin', transport: 'ws', link: 'live', behind: 0 });
    expect(r.parts).toMatchObject([
      { part: 'violin', ready: true, missing: false },
      { part: 'cello', ready: false, missing: true },
    ]);
    expect(r.audience).toMatchObject({ total: 1, live: 1 });

    const res = await fetch(`${s.base}/api/roster/dviolin/attention`, { method: 'POST', headers: auth });
    expect(res.status).toBe(202);
    expect(await res.json()).toEqual({ device: 'dviolin', action: 'attention', sent: 1 });
    await expect
      .poll(() => a.got.filter((m) => m.type === 'command'))
      .toEqual([expect.objectContaining({ type: 'command', do: 'attention' })]);
    expect(b.got.filter((m) => m.type === 'command')).toEqual([]);
  });

  it('an action on a device that has gone, or never was, answers 404 SC_ERR_NO_DEVICE; an unknown action 404 SC_ERR_UNKNOWN_ACTION', async () => {
    const s = await server();
    const a = await device(`${s.wsBase}/live?view=violin`);
    a.ws.send(JSON.stringify({ type: 'report', device: deviceStatus({ id: 'dgone' }) }));
    await expect.poll(async () => (await roster(s.base)).devices.length).toBe(1);
    const unknown = await fetch(`${s.base}/api/roster/dgone/explode`, { method: 'POST', headers: auth });
    expect(unknown.status).toBe(404);
    expect((await unknown.json()).code).toBe('SC_ERR_UNKNOWN_ACTION');
    a.ws.close();
    await expect.poll(async () => (await roster(s.base)).devices[0]?.link).toBe('gone');
    for (const id of ['dgone', 'dnever']) {
      const res = await fetch(`${s.base}/api/roster/${id}/reload`, { method: 'POST', headers: auth });
      expect(res.status).toBe(404);
      expect(await res.json()).toMatchObject({ code: 'SC_ERR_NO_DEVICE', problems: [] });
    }
  });

  it('"all" reaches every connection', async () => {
    const s = await server();
    const a = await device(`${s.wsBase}/live?view=violin`);
    const b = await device(`${s.wsBase}/live?view=audience`);
    const res = await fetch(`${s.base}/api/roster/all/resync`, { method: 'POST', headers: auth });
    expect(res.status).toBe(202);
    for (const d of [a, b])
      await expect.poll(() => d.got.some((m) => m.type === 'command' && m.do === 'resync')).toBe(true);
  });
});

describe('device reports that the roster refuses', () => {
  it('over WebSocket: a bad name and a wrong type are answered with their codes, an oversized report closes the socket (1009), and none counts', async () => {
    const s = await server();
    const a = await device(`${s.wsBase}/live?view=violin`);
    a.ws.send(JSON.stringify({ type: 'report', device: deviceStatus({ id: 'd1', name: 'x'.repeat(41) }) }));
    a.ws.send(JSON.stringify({ type: 'report', device: deviceStatus({ id: 'd1', name: 'cello\u202edesk' }) }));
    a.ws.send(JSON.stringify({ type: 'report', device: deviceStatus({ id: 'd1', seq: 'four' }) }));
    await expect
      .poll(() => a.got.filter((m) => m.type === 'error').map((m) => m.code))
      .toEqual(['SC_ERR_BAD_NAME', 'SC_ERR_BAD_NAME', 'SC_ERR_BAD_MESSAGE']);
    const errors = a.got.filter((m) => m.type === 'error');
    expect(errors[0].message).toContain('41 characters, more than 40');
    expect(errors[1].message).toContain('control character');
    expect(errors[2].message).toContain('report.device.seq');
    expect((await roster(s.base)).devices).toEqual([]);
    // Over 4096 bytes: the WebSocket closes with 1009 (doc/protocol.md), the status is not counted.
    const closed = new Promise((resolve) => a.ws.once('close', resolve));
    a.ws.send(JSON.stringify({ type: 'report', device: deviceStatus({ id: 'd1', app: 'x'.repeat(5000) }) }));
    expect(await closed).toBe(1009);
    expect((await roster(s.base)).devices).toEqual([]);
  });

  it('over WebSocket: statuses faster than one per 400 ms are refused for rate', async () => {
    const s = await server();
    const a = await device(`${s.wsBase}/live?view=violin`);
    for (let i = 0; i < 3; i++)
      a.ws.send(JSON.stringify({ type: 'report', device: deviceStatus({ id: 'd1', name: `n${i}` }) }));
    await expect
      .poll(() => a.got.filter((m) => m.type === 'error').map((m) => m.code))
      .toEqual(['SC_ERR_RATE_LIMITED', 'SC_ERR_RATE_LIMITED']);
    expect((await roster(s.base)).devices.map((/** @type {any} */ d) => d.name)).toEqual(['n0']);
  });

  it('over HTTP: wrong types, a bad name and an oversized body are 400, 400 and 413; a polling page gets its actions in the answer', async () => {
    const s = await server();
    const post = (/** @type {unknown} */ body) =>
      fetch(`${s.base}/api/report`, { method: 'POST', headers: json, body: JSON.stringify(body) });
    const base = { transport: 'poll', view: 'cello', client: 'page1' };
    let res = await post({ ...base, device: deviceStatus({ id: 'dcello', audio: 'yes' }) });
    expect(res.status).toBe(400);
    expect((await res.json()).code).toBe('SC_ERR_BAD_MESSAGE');
    res = await post({ ...base, device: deviceStatus({ id: 'dcello', name: 'a\tb' }) });
    expect(res.status).toBe(400);
    expect((await res.json()).code).toBe('SC_ERR_BAD_NAME');
    res = await post({ ...base, device: deviceStatus({ id: 'dcello', name: 'x'.repeat(5000) }) });
    expect(res.status).toBe(413);
    res = await post({ ...base, device: deviceStatus({ id: 'dcello' }) });
    expect(res.status).toBe(204);
    expect((await roster(s.base)).devices[0]).toMatchObject({ id: 'dcello', transport: 'poll', view: 'cello' });
    expect((await fetch(`${s.base}/api/roster/dcello/reload`, { method: 'POST', headers: auth })).status).toBe(202);
    await new Promise((r) => setTimeout(r, 450));
    res = await post({ ...base, device: deviceStatus({ id: 'dcello' }) });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ commands: ['reload'] });
  });
});

describe('POST /api/control/play {whenReady: true}', () => {
  it('bad arguments are 400 SC_ERR_BAD_CONTROL', async () => {
    const s = await server();
    for (const body of [
      { whenReady: 'yes' },
      { whenReady: true, timeoutMs: 0 },
      { whenReady: true, timeoutMs: 1e9 },
      { whenReady: true, timeoutMs: 'soon' },
    ]) {
      const res = await fetch(`${s.base}/api/control/play`, {
        method: 'POST',
        headers: { ...auth, ...json },
        body: JSON.stringify(body),
      });
      expect(res.status).toBe(400);
      expect((await res.json()).code).toBe('SC_ERR_BAD_CONTROL');
    }
  });

  it('waits while a part is missing and answers 409 SC_ERR_NOT_READY at its timeout, having played nothing', async () => {
    const s = await server();
    const res = await fetch(`${s.base}/api/control/play`, {
      method: 'POST',
      headers: { ...auth, ...json },
      body: JSON.stringify({ whenReady: true, timeoutMs: 300 }),
    });
    expect(res.status).toBe(409);
    const body = await res.json();
    expect(body.code).toBe('SC_ERR_NOT_READY');
    expect(body.problems).toEqual(['not every part ready within 300 ms', 'violin: no device', 'cello: no device']);
    expect(s.hub.state.playback).toBe('stopped');
  });

  it('plays once the last part is ready; the roster shows the wait meanwhile', async () => {
    const s = await server();
    const c = await device(`${s.wsBase}/live?view=cello`);
    const answer = await playsWhenReady(s, {
      cello: (audio) => c.ws.send(JSON.stringify({ type: 'report', device: deviceStatus({ id: 'dc', audio }) })),
      listed: (r) => r.devices.length,
      expected: 2,
    });
    expect(answer.state.playback).toBe('playing');
    expect((await roster(s.base)).waiting).toBeNull();
  });

  it("on a cluster node, lists another node's device and waits for its part (a fake Redis between them)", async () => {
    const redis = fakeRedis();
    const seal = createSeal(clusterKey(TOKEN));
    const common = { redis: redis.store, listen: redis.listen, seal, key: 'k', channel: 'c', everyMs: 50 };
    /** @type {import('../../../server/cluster/cluster-roster.js').ClusterRoster[]} */
    const rosters = [];
    const s = await server({
      cluster: {
        vote: async () => ({ ok: false, error: { code: 'SC_ERR_NO_VOTE_WINDOW', message: '' } }),
        report: () => {},
        round: () => null,
        roster: (local) => {
          const r = createClusterRoster({ local, node: 'here', ...common });
          rosters.push(r);
          return r;
        },
      },
    });
    // The other node: its own roster, with the cello on it.
    const otherLocal = createRoster({
      now: Date.now,
      stream: () => ({ epoch: 'e', seq: 0 }),
      parts: () => ['violin', 'cello'],
      tell: () => true,
      tellAll: () => 0,
    });
    const other = createClusterRoster({ local: otherLocal, node: 'there', ...common });
    rosters.push(other);
    for (const r of rosters) await r.start();
    servers.defer(async () => {
      for (const r of rosters) await r.close();
    });
    const cello = { connection: {}, address: '10.0.0.9' };
    const answer = await playsWhenReady(s, {
      cello: (audio) => otherLocal.note('ws', 'cello', deviceStatus({ id: 'dc', audio }), cello),
      listed: (r) => r.devices.map((/** @type {any} */ d) => `${d.id}@${d.node}`),
      expected: ['dc@there', 'dv@here'],
    });
    expect(answer.state.playback).toBe('playing');
  });

  it('a pause cancels the wait', async () => {
    const s = await server();
    const played = fetch(`${s.base}/api/control/play`, {
      method: 'POST',
      headers: { ...auth, ...json },
      body: JSON.stringify({ whenReady: true }),
    });
    await expect.poll(async () => (await roster(s.base)).waiting).not.toBeNull();
    await fetch(`${s.base}/api/control/pause`, { method: 'POST', headers: auth });
    const res = await played;
    expect(res.status).toBe(409);
    expect((await res.json()).problems[0]).toBe('cancelled by pause');
  });
});

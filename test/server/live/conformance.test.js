// The protocol conformance suite (doc/protocol.md): the same cases against every transport.

import { describe, it, expect } from 'vitest';
import WebSocket from 'ws';
import { applyPatch } from '../../../core/merge-patch.js';
import { TRANSPORTS } from '../../../core/constants.js';
import { startServer, useServers } from '../../helpers/server.js';
import { OPENERS } from '../../helpers/live-clients.js';

const { server, defer } = useServers();

/**
 * @param {string} kind
 * @param {Awaited<ReturnType<typeof startServer>>} s
 * @param {{ epoch?: string | null, seq?: number, wait?: number }} [holds]
 */
async function open(kind, s, holds) {
  const c = await OPENERS[kind](s.base, s.wsBase, holds);
  defer(c.close);
  return c;
}

/** The state messages a client received, as [type, seq, payload] rows. @param {any[]} messages */
const stateRows = (messages) =>
  messages
    .filter((m) => m.type === 'snapshot' || m.type === 'delta')
    .map((m) => [m.type, m.seq, JSON.stringify(m.type === 'delta' ? m.patch : m.state)]);

/** Fold snapshots and deltas like a client; checks contiguity on the way. @param {any[]} messages */
function fold(messages) {
  /** @type {any} */
  let state = null;
  let seq = -1;
  for (const m of messages) {
    if (m.type === 'snapshot') {
      state = m.state;
      seq = m.seq;
    }
    if (m.type === 'delta') {
      if (m.seq !== seq + 1) throw new Error(`gap: held ${seq}, got delta ${m.seq}`);
      state = applyPatch(state, m.patch);
      seq = m.seq;
    }
  }
  return { state, seq };
}

/**
 * Play until the hub has published at least `seq` (at most 10 s), then pause: a fixed time of play
 * published too few changes on a loaded machine (CI: a history of 4 still held seq 1).
 * @param {{ conductor: { play(): unknown, pause(): unknown }, hub: { seq: number } }} s
 * @param {number} seq
 */
async function playUntil(s, seq) {
  s.conductor.play();
  const end = Date.now() + 10_000;
  while (s.hub.seq < seq && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
  s.conductor.pause();
}

describe.each(TRANSPORTS)('live protocol over %s', (kind) => {
  it('a fresh client gets a snapshot, then every delta in order, and ends equal to the server', async () => {
    const s = await server();
    const c = await open(kind, s);
    const target = s.hub.seq + 5;
    await c.waitFor((m) => m.type === 'delta' && m.seq >= target);
    s.conductor.pause();
    const last = s.hub.seq;
    await c.waitFor((m) => m.seq === last && (m.type === 'delta' || m.type === 'snapshot'));
    expect(c.messages.find((m) => m.type === 'snapshot' || m.type === 'delta').type).toBe('snapshot');
    expect(fold(c.messages)).toEqual({ state: s.conductor.state, seq: last });
  });

  it('a client inside the history gets exactly the missing deltas', async () => {
    const s = await server({ autoplay: false });
    await playUntil(s, 5);
    const { epoch, seq } = s.hub;
    expect(seq).toBeGreaterThan(4);
    const c = await open(kind, s, { epoch, seq: seq - 3 });
    await c.waitFor((m) => m.seq === seq && m.type === 'delta');
    expect(stateRows(c.messages).map((r) => r.slice(0, 2))).toEqual([
      ['delta', seq - 2],
      ['delta', seq - 1],
      ['delta', seq],
    ]);
  });

  it.each([
    ['an unknown epoch', () => ({ epoch: 'gone', seq: 3 })],
    ['a seq older than the history', (/** @type {any} */ s) => ({ epoch: s.hub.epoch, seq: 1 })],
  ])('%s gets a snapshot equal to the server state', async (_, holds) => {
    const s = await server({ autoplay: false, hubOptions: { historySize: 4 } });
    // Past the history of 4: seq 1 is no longer in it.
    await playUntil(s, 7);
    const c = await open(kind, s, holds(s));
    const snap = await c.waitFor((m) => m.type === 'snapshot');
    expect(snap).toMatchObject({ epoch: s.hub.epoch, seq: s.hub.seq });
    expect(snap.state).toEqual(s.conductor.state);
    expect(stateRows(c.messages)).toHaveLength(1);
  });

  it('sends heartbeats with the current seq while nothing changes', async () => {
    const s = await server({ autoplay: false });
    const c = await open(kind, s, { epoch: s.hub.epoch, seq: s.hub.seq, wait: 1500 });
    const hb = await c.waitFor((m) => m.type === 'heartbeat', 7000);
    expect(hb).toMatchObject({ epoch: s.hub.epoch, seq: s.hub.seq });
    expect(hb.t).toBeGreaterThan(Date.now() - 7000);
  });

  it('refuses a malformed resync point with SC_ERR_BAD_QUERY', async () => {
    const s = await server({ autoplay: false });
    if (kind === 'ws') {
      const ws = new WebSocket(`${s.wsBase}/live?epoch=bad%20epoch&seq=1`);
      const status = await new Promise((resolve) =>
        ws.on('unexpected-response', (_req, res) => resolve(res.statusCode)),
      );
      expect(status).toBe(400);
      return;
    }
    const path = kind === 'sse' ? '/live/sse' : '/live/poll';
    const res = await fetch(`${s.base}${path}?since=-4`);
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code: 'SC_ERR_BAD_QUERY' });
  });
});

describe('all transports together', () => {
  it('deliver the identical seq stream for the same run', async () => {
    const s = await server({ autoplay: false });
    const clients = await Promise.all(TRANSPORTS.map((k) => open(k, s)));
    await Promise.all(clients.map((c) => c.waitFor((m) => m.type === 'snapshot')));
    await playUntil(s, s.hub.seq + 11);
    const last = s.hub.seq;
    await Promise.all(clients.map((c) => c.waitFor((m) => m.type === 'delta' && m.seq === last)));
    const rows = clients.map((c) => stateRows(c.messages));
    expect(rows[0].length).toBeGreaterThan(10);
    expect(rows[1]).toEqual(rows[0]);
    expect(rows[2]).toEqual(rows[0]);
  });

  it('SSE state events carry id epoch:seq and other events carry none', async () => {
    const s = await server();
    const c = await OPENERS.sse(s.base, s.wsBase);
    defer(c.close);
    await c.waitFor((m) => m.type === 'delta');
    for (const m of c.messages) {
      if (m.type === 'snapshot' || m.type === 'delta') expect(m._id).toBe(`${m.epoch}:${m.seq}`);
      else expect(m._id).toBeNull();
    }
  });

  it('SSE resumes from Last-Event-ID', async () => {
    const s = await server({ autoplay: false });
    await playUntil(s, s.hub.seq + 3);
    const { epoch, seq } = s.hub;
    const { openSse } = await import('../../helpers/live-clients.js');
    const c = await openSse(s.base, { lastEventId: `${epoch}:${seq - 2}`, epoch: 'ignored', seq: 0 });
    defer(c.close);
    await c.waitFor((m) => m.seq === seq && m.type === 'delta');
    expect(stateRows(c.messages).map((r) => r[1])).toEqual([seq - 1, seq]);
  });

  it('a long poll is held until the next change', async () => {
    const s = await server({ autoplay: false });
    const started = Date.now();
    setTimeout(() => s.conductor.play(), 300);
    const res = await fetch(`${s.base}/live/poll?epoch=${s.hub.epoch}&since=${s.hub.seq}&wait=5000`);
    const body = await res.json();
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    expect(body.map((/** @type {any} */ m) => m.type)).toEqual(['delta']);
    expect(res.headers.get('cache-control')).toBe('no-store');
  });
});

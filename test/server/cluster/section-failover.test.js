// An open-form piece across a conductor failover: the next section chosen on the active conductor
// (a part's claim and choice, with its key, through an edge that forwards them) and the order taken so far are in the record it
// keeps in Redis, so the standby that takes over offers the same choice, and at the section's end
// goes into the section chosen, not the default.

import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it, expect } from 'vitest';
import { HAVE_REDIS } from '../../helpers/redis-server.js';
import { useCluster } from '../../helpers/use-cluster.js';
import { call, until, untilActive } from '../../helpers/cluster-nodes.js';
import { openWs } from '../../helpers/live-clients.js';

const OPEN_FORM = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../scores/open-form');

const cluster = useCluster();

/**
 * The beats a page on this connection was shown, in order (a repeated beat once).
 * @param {any[]} messages
 */
function beatsOf(messages) {
  /** @type {number[]} */
  const beats = [];
  for (const m of messages) {
    const b = m.type === 'snapshot' ? m.state?.beat : m.type === 'delta' ? m.patch?.beat : undefined;
    if (typeof b === 'number' && beats.at(-1) !== b) beats.push(b);
  }
  return beats;
}

describe.skipIf(!HAVE_REDIS)('cluster: the next section across a conductor failover', () => {
  it('the standby has the choice and the order taken, and goes into the chosen section at the boundary', async () => {
    const c1 = await cluster.start({ role: 'conductor', id: 's1', score: OPEN_FORM });
    await untilActive(c1.base, 's1');
    const c2 = await cluster.start({ role: 'conductor', id: 's2', score: OPEN_FORM });
    const e1 = await cluster.start({ role: 'edge', id: 'se', score: OPEN_FORM });
    await until(async () => (await call(e1.base, '/api/cluster')).body.nodes?.length === 3);
    const page = await openWs(e1.wsBase);
    const post = (/** @type {string} */ url, /** @type {object} */ body = {}) =>
      call(e1.base, url, { method: 'POST', body });
    const stateAt = async (/** @type {string} */ base) =>
      (await fetch(`${base}/live/poll`).then((r) => r.json()))[0].state;

    // Rhythm (bars 7-10, beats 24-39) from bar 9, a beat every 2 s: 16 s to its end, time for the
    // failover (a lease of 1 s). Its default is the end; the violin claims it and chooses pitch.
    expect((await post('/api/control/tempo', { rate: 0.25 })).status).toBe(200);
    expect((await post('/api/control/seek', { bar: 9 })).status).toBe(200);
    await until(async () => (await stateAt(e1.base)).section?.id === 'rhythm');
    const { round } = (await stateAt(e1.base)).section;
    // The violin's tablet, on the edge, with its key (the same on every node: it comes from the
    // token). The edge checks the key and forwards the request to the conductor; a key that is not
    // the part's is refused where it arrives.
    const { key } = (await call(e1.base, '/api/part-key/violin')).body;
    const asPart = (/** @type {string} */ url, /** @type {string} */ partKey, /** @type {object} */ body) =>
      fetch(`${e1.base}${url}`, {
        method: 'POST',
        headers: { authorization: `Part ${partKey}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }).then(async (r) => ({ status: r.status, body: await r.json() }));
    const cello = (await call(e1.base, '/api/part-key/cello')).body.key;
    expect(await asPart('/api/section/claim', cello, { part: 'violin', round })).toMatchObject({
      status: 401,
      body: { code: 'SC_ERR_UNAUTHORIZED' },
    });
    expect((await asPart('/api/section/claim', key, { part: 'violin', round })).status).toBe(200);
    const choice = await asPart('/api/section/choose', key, { part: 'violin', section: 'pitch', round });
    expect(choice).toMatchObject({ status: 200, body: { chosen: { section: 'pitch', by: 'part:violin' } } });
    await until(async () => (await stateAt(e1.base)).section?.chosen?.section === 'pitch');
    const chosen = (await stateAt(c1.base)).section;
    expect(chosen).toMatchObject({
      id: 'rhythm',
      round,
      claimedBy: 'violin',
      chosen: { section: 'pitch', by: 'part:violin' },
      order: [
        { section: 'intro', by: 'start', name: 'Intro' },
        { section: 'rhythm', by: 'seek', name: 'Rhythm' },
      ],
    });
    expect((await post('/api/control/play')).status).toBe(200);
    await until(async () => (await stateAt(e1.base)).beat >= 33, 10_000);

    // The active conductor dies mid-section: the standby takes up its record.
    await c1.stop('SIGKILL');
    await untilActive(e1.base, 's2', 10_000);
    const taken = await stateAt(c2.base);
    expect(taken.playback).toBe('playing');
    expect(taken.beat).toBeGreaterThanOrEqual(33);
    expect(taken.beat).toBeLessThan(40);
    expect(taken.section).toEqual(chosen);
    expect((await call(c2.base, '/api/section')).body).toMatchObject({
      chosen: { section: 'pitch', by: 'part:violin' },
      order: [
        { section: 'intro', by: 'start' },
        { section: 'rhythm', by: 'seek' },
      ],
    });

    // Rhythm's last beat is followed by pitch's first (bar 3, beat 8), not by the end.
    await until(async () => (await stateAt(e1.base)).section?.id === 'pitch', 30_000);
    const beats = beatsOf(page.messages);
    const last = beats.indexOf(39);
    expect(last, `beats seen: ${beats.join(' ')}`).toBeGreaterThan(0);
    expect(beats[last + 1], `beats seen: ${beats.join(' ')}`).toBe(8);
    const after = await stateAt(c2.base);
    expect(after.playback).toBe('playing');
    expect(after.section.order).toEqual([
      { section: 'intro', by: 'start', name: 'Intro' },
      { section: 'rhythm', by: 'seek', name: 'Rhythm' },
      { section: 'pitch', by: 'part:violin', name: 'Pitch' },
    ]);
    page.close();
  }, 90_000);
});

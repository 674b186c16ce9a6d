// Thumbs on a cluster: phones thumb through any node, the active conductor's meter counts them
// (one device, one voice across the edges: a phone changing its mind through another edge replaces
// its voice), every node's pages see the meter, and a node answers a thumb the section does not take.
// The meter as an input of the score (a section's `when` rule) fires on the conductor, and the
// standby that takes over carries on with the rules' state and the cue fired.

import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it, expect } from 'vitest';
import { HAVE_REDIS } from '../../helpers/redis-server.js';
import { useCluster } from '../../helpers/use-cluster.js';
import { call, until, requestFrom, untilActive } from '../../helpers/cluster-nodes.js';
import { openWs } from '../../helpers/live-clients.js';

const OPEN_FORM = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../scores/open-form');

const cluster = useCluster();

/**
 * The meter as a page on this connection has it now (the latest snapshot or patch that sets it).
 * @param {any[]} messages
 */
function meterOf(messages) {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    const v = m.type === 'snapshot' ? m.state?.meter : m.type === 'delta' ? m.patch?.meter : undefined;
    if (typeof v === 'number') return v;
  }
  return null;
}

describe.skipIf(!HAVE_REDIS)('cluster: thumbs', () => {
  it('counts thumbs through every node on the active conductor, one voice per device across the edges', async () => {
    const c1 = await cluster.start({ role: 'conductor', id: 'c1', score: OPEN_FORM });
    await untilActive(c1.base, 'c1');
    const e1 = await cluster.start({ role: 'edge', id: 'e1', score: OPEN_FORM });
    const e2 = await cluster.start({ role: 'edge', id: 'e2', score: OPEN_FORM });
    // A standby conductor, for the failover at the end.
    await cluster.start({ role: 'conductor', id: 'c2', score: OPEN_FORM });
    await until(async () => (await call(e1.base, '/api/cluster')).body.nodes?.length === 4);
    const page = await openWs(e2.wsBase);
    await until(() => meterOf(page.messages) === 0);

    /** @param {string} at @param {string} device @param {string} value */
    const thumb = (at, device, value) => requestFrom(`${at}/api/thumb`, { method: 'POST', body: { value, device } });
    /** @type {string[]} */
    const devices = [];
    for (const at of [e1.base, e2.base, c1.base])
      devices.push((await call(at, '/api/device', { method: 'POST', token: null })).body.device);

    // Two up and one down, through both edges and the conductor: the room is +1/3.
    expect((await thumb(e1.base, devices[0], 'up')).status).toBe(200);
    expect((await thumb(e2.base, devices[1], 'up')).status).toBe(200);
    const down = await thumb(e1.base, devices[2], 'down');
    expect(down).toMatchObject({ status: 200, body: { type: 'thumbed', value: 'down' } });
    await until(() => (meterOf(page.messages) ?? 0) > 0.2);
    const report = await call(c1.base, '/api/section');
    expect(report.status).toBe(200);
    // Settled at a third: three voices, not more.
    await new Promise((r) => setTimeout(r, 4000));
    const third = /** @type {number} */ (meterOf(page.messages));
    expect(third).toBeGreaterThan(0.2);
    expect(third).toBeLessThanOrEqual(0.34);

    // The third phone changes its mind through the other edge: its voice is replaced, the room is +1.
    expect((await thumb(e2.base, devices[2], 'up')).status).toBe(200);
    await until(() => (meterOf(page.messages) ?? 0) > 0.6, 10_000);

    // Pitch, at a beat every 2 s: the meter at 0.6 or more for two beats sets the phones' text (its
    // `when` rule). The conductor is killed; the standby takes up the record: pitch, the text put
    // back over the beat's own cues (the rule fired before the failover, not again).
    const control = (/** @type {string} */ action, /** @type {object} */ body = {}) =>
      call(e1.base, `/api/control/${action}`, { method: 'POST', body });
    const stateAt = async (/** @type {string} */ base) => (await fetch(`${base}/live/poll`).then((r) => r.json()))[0];
    const FIRED = 'Pitch: the room is with the violin';
    expect((await control('tempo', { rate: 0.25 })).status).toBe(200);
    expect((await control('seek', { bar: 3 })).status).toBe(200);
    // Every phone up again: the voices count for 10 s from now.
    for (const [i, at] of [e1.base, e2.base, c1.base].entries())
      expect((await thumb(at, devices[i], 'up')).status).toBe(200);
    expect((await control('play')).status).toBe(200);
    await until(async () => (await stateAt(e1.base)).state.cues?.audience?.text === FIRED, 20_000);
    await c1.stop('SIGKILL');
    const beatBefore = (await stateAt(e2.base)).state.beat;
    await untilActive(e2.base, 'c2', 20_000);
    // The standby plays on: its beats reach the edge.
    await until(async () => (await stateAt(e2.base)).state.beat > beatBefore, 10_000);
    expect((await stateAt(e2.base)).state.section.id).toBe('pitch');
    expect((await stateAt(e2.base)).state.cues.audience.text).toBe(FIRED);
    expect((await control('stop')).status).toBe(200);

    // A credential no node issued is refused where it arrives.
    const forged = await thumb(e1.base, `${'A'.repeat(22)}.${'B'.repeat(22)}`, 'up');
    expect(forged).toMatchObject({ status: 403, body: { code: 'SC_ERR_BAD_DEVICE' } });

    // Rhythm shows no thumbs: an edge answers so from its copy of the state.
    expect((await call(e1.base, '/api/control/seek', { method: 'POST', body: { bar: 7 } })).status).toBe(200);
    await until(async () => (await thumb(e1.base, devices[0], 'down')).status === 409);
    const closed = await thumb(e2.base, devices[0], 'down');
    expect(closed).toMatchObject({ status: 409, body: { code: 'SC_ERR_THUMBS_CLOSED' } });
    page.close();
  }, 120_000);
});

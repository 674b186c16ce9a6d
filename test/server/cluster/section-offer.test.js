// GET /api/section through an edge answers what the active conductor answers at the same moment:
// the offer, the choice so far and the order taken, made from the performance's state as the bus
// brought it (server/cluster/section-offer.js), not from the edge's idle copy of the sections;
// once the piece has ended too (the ended state has no `section`), and on an edge that started
// after the end, which asks the conductor once.

import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it, expect } from 'vitest';
import { HAVE_REDIS } from '../../helpers/redis-server.js';
import { useCluster } from '../../helpers/use-cluster.js';
import { call, until, untilActive } from '../../helpers/cluster-nodes.js';
import { wholeOrder } from '../../../server/cluster/section-offer.js';
import { ORDER_SHOWN } from '../../../server/performance/sections.js';

const OPEN_FORM = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../scores/open-form');

const cluster = useCluster();

/** @param {string} base */
const stateAt = async (base) => (await fetch(`${base}/live/poll`).then((r) => r.json()))[0].state;
/** @param {string} base */
const offerAt = async (base) => (await call(base, '/api/section', { token: null })).body;

describe.skipIf(!HAVE_REDIS)('cluster: GET /api/section on an edge', () => {
  it("answers the conductor's offer, choice, order and end", async () => {
    const c1 = await cluster.start({ role: 'conductor', id: 'o1', score: OPEN_FORM });
    await untilActive(c1.base, 'o1');
    const e1 = await cluster.start({ role: 'edge', id: 'oe1', score: OPEN_FORM });
    await untilActive(e1.base, 'o1');
    expect(await offerAt(e1.base)).toEqual(await offerAt(c1.base));

    // The console chooses rhythm through the edge, then moves into pitch by hand: a choice and a
    // seek the edge's own sections never saw.
    const post = (/** @type {string} */ url, /** @type {object} */ body = {}) =>
      call(e1.base, url, { method: 'POST', body });
    expect((await post('/api/section/choose', { section: 'rhythm', round: 0 })).status).toBe(200);
    await until(async () => (await stateAt(e1.base)).section?.chosen?.section === 'rhythm');
    const chosen = await offerAt(c1.base);
    expect(chosen).toMatchObject({ section: 'intro', chosen: { section: 'rhythm', by: 'conductor' } });
    expect(await offerAt(e1.base)).toEqual(chosen);
    expect((await post('/api/control/seek', { bar: 3 })).status).toBe(200);
    await until(async () => (await stateAt(e1.base)).section?.id === 'pitch');
    const seeked = await offerAt(c1.base);
    expect(seeked).toMatchObject({ section: 'pitch', round: 1, chosen: null });
    expect(await offerAt(e1.base)).toEqual(seeked);

    // Rhythm's last bar, fast: its default is the end.
    expect((await post('/api/control/seek', { bar: 10 })).status).toBe(200);
    expect((await post('/api/control/tempo', { rate: 4 })).status).toBe(200);
    expect((await post('/api/control/play')).status).toBe(200);
    await until(async () => (await stateAt(e1.base)).section === undefined);
    const ended = await offerAt(c1.base);
    expect(ended).toMatchObject({
      ended: true,
      section: 'rhythm',
      chosen: null,
      order: [
        { section: 'intro', by: 'start' },
        { section: 'pitch', by: 'seek' },
        { section: 'rhythm', by: 'seek' },
        { section: 'end', by: 'default' },
      ],
    });
    expect(await offerAt(e1.base)).toEqual(ended);

    // An edge that never saw a section of this performance asks the conductor.
    const e2 = await cluster.start({ role: 'edge', id: 'oe2', score: OPEN_FORM });
    await until(async () => (await stateAt(e2.base)).playback === (await stateAt(c1.base)).playback);
    expect(await offerAt(e2.base)).toEqual(ended);
  }, 60_000);
});

describe('the whole order taken, from the views an edge saw', () => {
  /** @param {number} n the sections taken: a, b, a, b... */
  const taken = (n) =>
    Array.from({ length: n }, (_, i) => ({ section: i % 2 ? 'b' : 'a', by: i ? 'default' : 'start' }));
  /** The state's view after `n` sections taken: the last ORDER_SHOWN, with names. @param {number} n */
  const view = (n) =>
    /** @type {any} */ ({
      id: 'a',
      round: n - 1,
      order: taken(n)
        .slice(-ORDER_SHOWN)
        .map((o) => ({ ...o, name: o.section })),
    });

  it("is the view's while it shows all of it, and grows past ORDER_SHOWN from what was seen before", () => {
    expect(wholeOrder(null, 'e', view(3))).toEqual(taken(3));
    let known = { epoch: 'e', order: wholeOrder(null, 'e', view(ORDER_SHOWN)) };
    expect(known.order).toEqual(taken(ORDER_SHOWN));
    for (let n = ORDER_SHOWN + 1; n <= ORDER_SHOWN + 5; n++)
      known = { epoch: 'e', order: wholeOrder(known, 'e', view(n)) };
    expect(known.order).toEqual(taken(ORDER_SHOWN + 5));
  });

  it('is unknown past ORDER_SHOWN without the earlier ones of the same epoch, or when they disagree', () => {
    expect(wholeOrder(null, 'e', view(ORDER_SHOWN + 1))).toBeNull();
    const known = { epoch: 'e', order: taken(ORDER_SHOWN) };
    expect(wholeOrder(known, 'other', view(ORDER_SHOWN + 1))).toBeNull();
    expect(wholeOrder(known, 'e', view(2 * ORDER_SHOWN + 1))).toBeNull();
    const other = { epoch: 'e', order: taken(ORDER_SHOWN).map((o) => ({ ...o, by: 'seek' })) };
    expect(wholeOrder(other, 'e', view(ORDER_SHOWN + 1))).toBeNull();
  });
});

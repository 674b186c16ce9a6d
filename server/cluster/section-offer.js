// What GET /api/section answers on a cluster node that does not conduct: the conductor's answer,
// made here from the performance's state as the bus brought it. The node's own sections are an
// idle copy (the offer as the piece began); the conductor's record in Redis holds the votes, so
// this node's Redis user may not read it; and forwarding every such request would let anyone fill
// the conductor's inbox. The state's `section` has the section playing, its offer, the choice so
// far and the last ORDER_SHOWN sections taken; this node keeps the whole order as it watches it
// grow, and the last section seen, from which the end follows (the ended state has no `section`).
// Only a node that has not seen what it needs (it started after the piece ended, or late in a
// long performance) asks the conductor, once for each change of the sections, however many
// requests arrive.

import { ScorecastError } from '../../core/errors.js';
import { advance, restoreState } from '../../core/open-form.js';
import { ORDER_SHOWN, offerOf } from '../performance/sections.js';
import { FORWARDED_HEADER } from './routes.js';

/** @typedef {import('../performance/sections.js').SectionView} SectionView */
/** @typedef {{ section: string, by: string }} Taken */

/** @param {unknown} v @returns {v is SectionView} */
const isView = (v) =>
  typeof v === 'object' &&
  v !== null &&
  typeof (/** @type {SectionView} */ (v).id) === 'string' &&
  Number.isInteger(/** @type {SectionView} */ (v).round) &&
  Array.isArray(/** @type {SectionView} */ (v).order);

/**
 * The whole order taken up to `view`, or null when this node has not seen all of it. The view
 * shows the last ORDER_SHOWN; every section taken adds one entry and one round (a stop starts
 * again from round 0), so round + 1 entries are taken, and those before the view's are the ones
 * this node saw earlier in the same epoch.
 * @param {{ epoch: string, order: Taken[] | null } | null} known
 * @param {string} epoch
 * @param {SectionView} view
 * @returns {Taken[] | null}
 */
export function wholeOrder(known, epoch, view) {
  const shown = view.order.map((o) => ({ section: o.section, by: o.by }));
  const total = view.round + 1;
  if (shown.length < ORDER_SHOWN || shown.length >= total) return shown;
  const before = total - shown.length;
  const earlier = known?.epoch === epoch ? known.order : null;
  if (!earlier || earlier.length < before) return null;
  for (let i = before; i < Math.min(earlier.length, total); i++) {
    const o = shown[i - before];
    if (earlier[i].section !== o.section || earlier[i].by !== o.by) return null;
  }
  return [...earlier.slice(0, before), ...shown];
}

/**
 * @param {{ bus: Pick<import('./redis-bus.js').RedisBus, 'subscribe' | 'latest' | 'active'>,
 *   ask: (kind: string, body: unknown) => Promise<any> }} options
 *   ask: a request to the active conductor through the inbox (inbox.js)
 */
export function createSectionOffers({ bus, ask }) {
  /** The last section view this node saw, its epoch and the whole order up to it (null: not all seen). */
  /** @type {{ epoch: string, view: SectionView, order: Taken[] | null } | null} */
  let seen = null;
  /** Names the sections' last change (epoch and seq): what the conductor was asked is kept for it. */
  let changed = '';
  /** @type {{ key: string, answer: Promise<object> } | null} */
  let asked = null;

  /** @param {import('../live/bus.js').StateChange | null} change */
  const take = (change) => {
    if (!change) return;
    const { patch } = change;
    // A delta that leaves the sections as they were changes nothing here (a new epoch, or a node
    // that fell behind, gets a whole state: patch null).
    if (typeof patch === 'object' && patch !== null && !('section' in patch)) return;
    changed = `${change.epoch}:${change.seq}`;
    const view = /** @type {{ section?: unknown } | null} */ (change.state)?.section;
    // The end keeps the last section seen: the ended state is made from it.
    if (isView(view)) seen = { epoch: change.epoch, view, order: wholeOrder(seen, change.epoch, view) };
  };
  take(bus.latest());
  bus.subscribe(take);

  /**
   * The answer from what this node holds, or null.
   * @param {import('../../core/open-form.js').OpenForm} form
   * @param {import('../live/bus.js').StateChange} latest
   */
  function fromState(form, latest) {
    if (!seen || seen.epoch !== latest.epoch || !seen.order) return null;
    const { view, order } = seen;
    const r = restoreState(form, {
      current: view.id,
      round: view.round,
      chosen: view.chosen ?? null,
      claimedBy: view.claimedBy ?? null,
      order,
      ended: false,
    });
    if (!r.ok) return null;
    if (isView(/** @type {{ section?: unknown }} */ (latest.state).section)) return offerOf(form, r.state);
    // No section in the state of an open-form piece: it has ended, from the last section seen.
    const end = advance(form, r.state);
    return end.state.ended ? offerOf(form, end.state) : null;
  }

  /** The conductor's answer, asked once for each change of the sections. */
  function fromConductor() {
    if (asked?.key === changed) return asked.answer;
    const key = changed;
    const answer = ask('http', { method: 'GET', url: '/api/section' }).then((a) => {
      if (a.timeout || a.status !== 200) {
        if (asked?.key === key) asked = null;
        throw new ScorecastError('SC_ERR_NO_CONDUCTOR');
      }
      return JSON.parse(a.body);
    });
    asked = { key, answer };
    return answer;
  }

  return {
    /**
     * GET /api/section's answer for the open form of this node's score, while this node does not
     * conduct; undefined while it does (its conductor answers).
     * @param {import('../../core/open-form.js').OpenForm} form
     * @param {{ headers: Record<string, unknown> }} req  a request another node forwarded (it
     *   asked because it did not know) is never asked on again
     * @returns {Promise<object> | object | undefined}
     */
    offer(form, req) {
      if (bus.active) return undefined;
      const latest = bus.latest();
      const here = latest && fromState(form, latest);
      if (here) return here;
      if (req.headers[FORWARDED_HEADER] !== undefined)
        throw new ScorecastError('SC_ERR_NO_CONDUCTOR', 'this node stopped conducting');
      return fromConductor();
    },
  };
}

/** @typedef {ReturnType<typeof createSectionOffers>} SectionOffers */

// Part overlays on a part's page (part-overlays.js): one strip per band over this part, its fill
// the value the score sets or the meter drives, written again only when it changes.

import { describe, it, expect } from 'vitest';
import { JSDOM } from 'jsdom';
import { createPartOverlays } from '../../../client/src/notation/part-overlays.js';

const OVERLAYS = [
  { band: 'dynamics', parts: ['violin'], source: 'meter', range: [0, 1], value: 0.5 },
  { band: 'timbre', value: 0.3 },
];

function layer() {
  const { window } = new JSDOM('<div id="part-overlays" hidden></div>');
  return /** @type {HTMLElement} */ (window.document.getElementById('part-overlays'));
}

describe('part overlays on a page', () => {
  it('draws the bands over its part, the driven one following the meter', () => {
    const el = layer();
    const o = createPartOverlays(el, 'violin');
    o.render({ section: { id: 'a', overlays: OVERLAYS }, meter: 0 });
    expect(el.hidden).toBe(false);
    const rows = [...el.querySelectorAll('.overlay-band')].map((r) => /** @type {HTMLElement} */ (r));
    expect(rows.map((r) => [r.dataset.band, r.dataset.value, r.dataset.source])).toEqual([
      ['dynamics', '0.5', 'meter'],
      ['timbre', '0.3', 'score'],
    ]);
    expect(/** @type {HTMLElement} */ (rows[0].querySelector('.overlay-fill')).style.width).toBe('50%');
    o.render({ section: { id: 'a', overlays: OVERLAYS }, meter: 0.6 });
    // The same row, its value moved.
    expect(el.querySelector('.overlay-band')).toBe(rows[0]);
    expect(rows[0].dataset.value).toBe('0.8');
    expect(rows[0].getAttribute('aria-valuenow')).toBe('0.8');
  });

  it('shows only the bands over its own part, and nothing in a section without overlays', () => {
    const el = layer();
    const o = createPartOverlays(el, 'cello');
    expect(o.render({ section: { id: 'a', overlays: OVERLAYS }, meter: 1 })).toEqual([
      { band: 'timbre', value: 0.3, source: null },
    ]);
    expect(el.querySelectorAll('.overlay-band')).toHaveLength(1);
    o.render({ section: { id: 'b' }, meter: 1 });
    expect(el.hidden).toBe(true);
    expect(el.children).toHaveLength(0);
  });
});

// Part overlays on a performer's page (core/part-overlays.js: the bands an open-form section
// declares, valued by the score or by the audience meter): one strip per band, its fill the value
// 0..1, drawn over the part's notation whatever it is (engraved pages, images, a PDF's pages, a
// video), or in the page's flow when the part has no notation. Written only when a value or the
// set of bands changes: a meter patch is at most four a second.

import { bandsFor } from '../../../core/part-overlays.js';

/** What each band is called on the page (ZScore's overlay names). */
const LABELS = /** @type {Record<string, string>} */ ({
  dynamics: 'Dynamics',
  pitch: 'Pitch',
  pitchStave: 'Pitch (stave)',
  timbre: 'Timbre',
  speed: 'Speed',
  position: 'Position',
  pressure: 'Pressure',
});

/**
 * @param {HTMLElement} layer  the page's `#part-overlays`
 * @param {string} part        this page's part id
 */
export function createPartOverlays(layer, part) {
  const doc = layer.ownerDocument;
  /** The bands drawn, by name: their row and fill. @type {Map<string, { row: HTMLElement, fill: HTMLElement }>} */
  const rows = new Map();
  let drawn = '';

  return {
    /**
     * Draw the bands of the state's section over this part.
     * @param {any} state
     * @returns {{ band: string, value: number }[]} what is drawn
     */
    render(state) {
      const bands = bandsFor(state?.section?.overlays, part, state?.meter);
      const key = bands.map((b) => `${b.band}=${b.value}`).join(' ');
      if (key === drawn) return bands;
      drawn = key;
      const names = bands.map((b) => b.band).join(' ');
      if (names !== [...rows.keys()].join(' ')) {
        rows.clear();
        layer.replaceChildren(
          ...bands.map((b) => {
            const row = doc.createElement('div');
            row.className = 'overlay-band';
            row.dataset.band = b.band;
            row.dataset.testid = `overlay-${b.band}`;
            row.setAttribute('role', 'meter');
            row.setAttribute('aria-label', LABELS[b.band] ?? b.band);
            row.setAttribute('aria-valuemin', '0');
            row.setAttribute('aria-valuemax', '1');
            const label = doc.createElement('span');
            label.className = 'overlay-label';
            label.textContent = LABELS[b.band] ?? b.band;
            const fill = doc.createElement('span');
            fill.className = 'overlay-fill';
            row.append(fill, label);
            rows.set(b.band, { row, fill });
            return row;
          }),
        );
      }
      for (const b of bands) {
        const r = rows.get(b.band);
        if (!r) continue;
        r.row.dataset.value = String(b.value);
        r.row.dataset.source = b.source ?? 'score';
        r.row.setAttribute('aria-valuenow', String(b.value));
        r.fill.style.width = `${b.value * 100}%`;
      }
      layer.hidden = bands.length === 0;
      return bands;
    },
  };
}
